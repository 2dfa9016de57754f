# ||E[P_n]|| against n for the non-SO(2) families, with ||E[M]||^n.
load plotdir.'/common.gp'
f = dir.'/mixing_families.tsv'
set title sprintf("Mean route against route length (d = %d): measured ±SE (points), ‖E[M]‖^n (lines)", d)
set xlabel 'route length n (steps)'
set ylabel '‖E[P_n]‖ (operator norm)'
set logscale xy
set yrange [1e-3:1.5]
set xrange [0.8:*]
fams = "haar haar-so householder path-beta1 lazy-haar-p0.1 brownian-s0.1"
plot for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) ? $3 : 1/0):4:5 w yerrorbars pt 7 ps 0.6 lc i title word(fams,i), \
     for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) ? $3 : 1/0):6 w lines lc i dt 2 notitle, \
     0.1 w lines lc rgb 'gray40' dt 3 title 'ε = 0.1', 0.01 w lines lc rgb 'gray60' dt 3 title 'ε = 0.01'
