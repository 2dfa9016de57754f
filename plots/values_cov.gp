# Trace of the covariance of the far contribution: measured, exact and bound.
load plotdir.'/common.gp'
f = dir.'/values_norm.tsv'
fams = "none so2-circle so2-study householder haar"
cols = "#7b3294 #1b9e77 #2c7fb8 #e66101 #d7191c"
pts = "7 5 9 11 13"
set title sprintf("Trace of Cov(r) against far tokens M_L (d = %d, Haar d = %d): measured ±SE, exact (lines), bound (dashed)", d, hd)
set xlabel 'far tokens M_L'
set ylabel 'tr Cov(r)'
set logscale xy
set format y '10^{%T}'
set xrange [0.8:1e5]
set key outside right top box opaque
plot for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) ? $3 : 1/0):11:12 w yerrorbars pt (word(pts,i)+0) ps 0.7 lc rgb word(cols,i) title word(fams,i), \
     for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) ? $3 : 1/0):13 w lines lc rgb word(cols,i) notitle, \
     for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) ? $3 : 1/0):14 w lines lc rgb word(cols,i) dt 2 notitle, \
     NaN w lines lc rgb 'black' title 'exact', NaN w lines dt 2 lc rgb 'black' title 'bound'
