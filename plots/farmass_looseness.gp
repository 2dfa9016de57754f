# How loose the far-mass bound is at typical logits: measured rho_D / bound.
load plotdir.'/common.gp'
if (term eq 'svg') { set terminal svg size 1400,950 dynamic enhanced font 'DejaVu Sans,12' } \
else { set terminal pngcairo size 1400,950 enhanced font 'DejaVu Sans,11' }
set output out
f = dir.'/farmass.tsv'
fams = "householder so2-circle so2-study"
pts = "7 5 9"
set multiplot layout 2,2 title sprintf("Looseness of the far-mass bound at typical logits (d = %d, K = %d): measured ρ_D / (M/(M + K e^{2λ}))", d, K)
set logscale xy
set xrange [50:80000]
set xlabel 'context length L = K + M_L (tokens)'
set ylabel 'ρ_D / lower bound'
set yrange [0.8:2000]
unset key
do for [j=1:words(lams)] {
    lam = word(lams,j)+0
    set title sprintf("λ = %g", lam)
    plot for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) && $4 == lam && $5 == 0 ? $6 : 1/0):14:15 w yerrorbars pt (word(pts,i)+0) ps 0.7 lc i+1, \
         f u (strcol(1) eq 'none' && $4 == lam && $5 == 0 ? $6 : 1/0):14 w lines lw 1.5 dt 2 lc rgb 'gray30', \
         1 w lines lw 2.5 lc rgb 'black'
}
unset border; unset tics; unset xlabel; unset ylabel; unset title; unset logscale
set xrange [0:1]; set yrange [0:1]
set key center center box opaque font ',12' spacing 1.4
plot for [i=1:words(fams)] NaN w points pt (word(pts,i)+0) ps 1.2 lc i+1 title word(fams,i).' (mean ± SE)', \
     NaN w lines lw 1.5 dt 2 lc rgb 'gray30' title 'none (NoPE): (M/(M+K)) / bound', \
     NaN w lines lw 2.5 lc rgb 'black' title 'ratio 1: the bound is tight'
unset multiplot
