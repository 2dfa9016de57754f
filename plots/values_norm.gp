# The far value contribution against the number of far tokens, per transport, with the exact formula.
load plotdir.'/common.gp'
f = dir.'/values_norm.tsv'
# the families of the data
rl_file = f; rl_col = 1; load plotdir.'/labels.gp'
fams = rl_labels
pt_of(i) = word("7 5 9 11 13 4 8 6", (i - 1) % 8 + 1) + 0
stats f u 3 every ::1 nooutput
set xrange [STATS_min/1.25:STATS_max*1.25]
set title rl_title(sprintf("Far value contribution r = Σ_{far} α_j P(j→i) v_j (ρ_D = %g, d = %d, Haar d = %d): ‖r‖_{rms} ±SE, exact (lines)", rho, d, hd))
set xlabel 'far tokens M_L'
set ylabel '‖r‖_{rms}'
set logscale xy
set format y '10^{%T}'
set yrange [1e-3:2]
set key outside right top box opaque
plot for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) ? $3 : 1/0):7:8 w yerrorbars pt pt_of(i) ps 0.7 lc rgb rl_color(i) title word(fams,i), \
     for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) ? $3 : 1/0):9 w lines lc rgb rl_color(i) notitle, \
     rho w lines lw 2 lc rgb 'gray30' dt 3 title 'coherent: ρ‖v̄‖', \
     rho/sqrt(x) w lines lw 2 lc rgb 'black' dt 4 title 'ρ/√M_L (slope −1/2)'
