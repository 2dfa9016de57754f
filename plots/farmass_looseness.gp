# How loose the far-mass bound is, in three forms side by side: measured rho_D / bound with
# (a) lambda as set, (b) the observed max |logit|, (c) the realised range max near - min far logit.
load plotdir.'/common.gp'
eval rl_term(1500, 1250, 11)
set output out
f = dir.'/farmass.tsv'
# the rotation families of the data: every family but none (NoPE, drawn as the reference)
rl_file = f; rl_col = 1; load plotdir.'/labels.gp'
fams = ''
do for [w in rl_labels] { if (w ne 'none') { fams = fams.' '.w } }
pt_of(i) = word("7 5 9 11 13 4 8 6", (i - 1) % 8 + 1) + 0
# lengths from the data
stats f u 6 every ::1 nooutput
lmin = STATS_min
lmax = STATS_max
# the ratios' largest value over the three forms
rmax = 1
do for [k in "14 19 21"] {
    stats f u (column(k + 0)) every ::1 nooutput
    if (STATS_max > rmax) { rmax = STATS_max }
}
# farmass.tsv columns of each form's ratio and its SE
rc = "14 19 21"
ec = "15 20 22"
form(v) = v == 1 ? "(a) M/(M + K e^{2λ}), λ as set" : v == 2 ? "(b) M/(M + K e^{2λ_{obs}}), observed max |logit|" : \
          "(c) M/(M + K e^{Δ}), Δ = max near − min far logit"
set multiplot layout 3,words(lams) title sprintf("Looseness of the far-mass bound in three forms (d = %d, K = %d): measured ρ_D / bound, mean ± SE over replicates (1 = tight)", d, K)
set logscale xy
set xrange [lmin/1.25:lmax*1.25]
set yrange [0.8:rmax*1.5]
set xlabel 'context length L = K + M_L (tokens)'
do for [v=1:3] {
    set ylabel sprintf("ρ_D / bound (%s)", v == 1 ? "a" : v == 2 ? "b" : "c")
    do for [j=1:words(lams)] {
        lam = word(lams,j)+0
        r = word(rc,v)+0
        e = word(ec,v)+0
        set title rl_title(sprintf("%s; λ = %g", form(v), lam))
        if (v == 1 && j == 1) { set key inside top right font ',10' box opaque } else { unset key }
        plot for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) && $4 == lam && $5 == 0 ? $6 : 1/0):r:e w yerrorbars pt pt_of(i) ps 0.6 lc rgb rl_color(i) title word(fams,i), \
             f u (strcol(1) eq 'none' && $4 == lam && $5 == 0 ? $6 : 1/0):r w lines lw 1.5 dt 2 lc rgb 'gray30' title 'none (NoPE)', \
             1 w lines lw 2 lc rgb 'black' title 'tight'
    }
}
unset multiplot
