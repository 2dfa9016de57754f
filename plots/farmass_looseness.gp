# How loose the far-mass bound is, in three forms side by side: measured rho_D / bound with
# (a) lambda as set, (b) the observed max |logit|, (c) the realised range max near - min far logit.
load plotdir.'/common.gp'
if (term eq 'svg') { set terminal svg size 1500,1250 dynamic enhanced font 'DejaVu Sans,12' } \
else { set terminal pngcairo size 1500,1250 enhanced font 'DejaVu Sans,11' }
set output out
f = dir.'/farmass.tsv'
fams = "householder so2-circle so2-study"
pts = "7 5 9"
# farmass.tsv columns of each form's ratio and its SE
rc = "14 19 21"
ec = "15 20 22"
form(v) = v == 1 ? "(a) M/(M + K e^{2λ}), λ as set" : v == 2 ? "(b) M/(M + K e^{2λ_{obs}}), observed max |logit|" : \
          "(c) M/(M + K e^{Δ}), Δ = max near − min far logit"
set multiplot layout 3,words(lams) title sprintf("Looseness of the far-mass bound in three forms (d = %d, K = %d): measured ρ_D / bound, mean ± SE over replicates (1 = tight)", d, K)
set logscale xy
set xrange [50:80000]
set yrange [0.8:2000]
set xlabel 'context length L = K + M_L (tokens)'
do for [v=1:3] {
    set ylabel sprintf("ρ_D / bound (%s)", v == 1 ? "a" : v == 2 ? "b" : "c")
    do for [j=1:words(lams)] {
        lam = word(lams,j)+0
        r = word(rc,v)+0
        e = word(ec,v)+0
        set title sprintf("%s; λ = %g", form(v), lam)
        if (v == 1 && j == 1) { set key inside top right font ',10' box opaque } else { unset key }
        plot for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) && $4 == lam && $5 == 0 ? $6 : 1/0):r:e w yerrorbars pt (word(pts,i)+0) ps 0.6 lc i+1 title word(fams,i), \
             f u (strcol(1) eq 'none' && $4 == lam && $5 == 0 ? $6 : 1/0):r w lines lw 1.5 dt 2 lc rgb 'gray30' title 'none (NoPE)', \
             1 w lines lw 2 lc rgb 'black' title 'tight'
    }
}
unset multiplot
