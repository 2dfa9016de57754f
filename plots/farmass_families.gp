# Rotation-only far mass against context length, one panel per lambda, with the lower bound.
load plotdir.'/common.gp'
eval rl_term(1400, 950, 11)
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
set multiplot layout 2,2 title sprintf("Far mass ρ_D of rotation-only attention (d = %d, K = %d near keys, one key direction shared by all tokens)", d, K)
set logscale x
set xrange [lmin/1.25:lmax*1.25]
set yrange [0:1.05]
set xlabel 'context length L = K + M_L (tokens)'
set ylabel 'far mass ρ_D'
unset key
do for [j=1:words(lams)] {
    lam = word(lams,j)+0
    set title rl_title(sprintf("λ = %g (|logit| ≤ λ): the bound reaches 1/2 at L = %.0f", lam, K + K*exp(2*lam)))
    plot for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) && $4 == lam && $5 == 0 ? $6 : 1/0):8:9 w yerrorbars pt pt_of(i) ps 0.7 lc rgb rl_color(i), \
         for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) && $4 == lam && $5 == 0 ? $6 : 1/0):18 w lines lw 1 lc rgb rl_color(i), \
         f u (strcol(1) eq 'none' && $4 == lam && $5 == 0 ? $6 : 1/0):8 w lines lw 1.5 dt 2 lc rgb 'gray30', \
         f u (strcol(1) eq 'householder' && $4 == lam && $5 == 0 ? $6 : 1/0):12 w lines lw 2.5 lc rgb 'black', \
         0.5 w lines lc rgb 'gray50' dt 3
}
# the legend in its own panel
unset border; unset tics; unset xlabel; unset ylabel; unset title; unset logscale
set xrange [0:1]; set yrange [0:1]
set key center center box opaque font ',12' spacing 1.4
plot for [i=1:words(fams)] NaN w points pt pt_of(i) ps 1.2 lc rgb rl_color(i) title word(fams,i).' (mean ± SE)', \
     NaN w lines lw 1.5 dt 2 lc rgb 'gray30' title 'none (NoPE): M/(M+K)', \
     NaN w lines lw 2.5 lc rgb 'black' title 'lower bound M/(M + K e^{2λ})', \
     NaN w lines lw 1 lc rgb 'gray40' title 'realised-range bound M/(M + K e^{Δ}) (family colour)', \
     NaN w lines lc rgb 'gray50' dt 3 title 'ρ_D = 1/2'
unset multiplot
