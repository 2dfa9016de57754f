# Trace of the covariance of the far contribution: measured, exact and bound.
load plotdir.'/common.gp'
f = dir.'/values_norm.tsv'
# the families of the data
rl_file = f; rl_col = 1; load plotdir.'/labels.gp'
fams = rl_labels
pt_of(i) = word("7 5 9 11 13 4 8 6", (i - 1) % 8 + 1) + 0
stats f u 3 every ::1 nooutput
set xrange [STATS_min/1.25:STATS_max*1.25]
set title rl_title(sprintf("Trace of Cov(r) against far tokens M_L (d = %d, Haar d = %d): measured ±SE, exact (lines), bound (dashed)", d, hd))
set xlabel 'far tokens M_L'
set ylabel 'tr Cov(r)'
set logscale xy
set format y '10^{%T}'
set key outside right top box opaque
plot for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) ? $3 : 1/0):11:12 w yerrorbars pt pt_of(i) ps 0.7 lc rgb rl_color(i) title word(fams,i), \
     for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) ? $3 : 1/0):13 w lines lc rgb rl_color(i) notitle, \
     for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) ? $3 : 1/0):14 w lines lc rgb rl_color(i) dt 2 notitle, \
     NaN w lines lc rgb 'black' title 'exact', NaN w lines dt 2 lc rgb 'black' title 'bound'
