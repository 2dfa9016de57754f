# Haar transport: tail P(|q^T P k| >= t) against t per d, with the exact Beta law and the cap bound (Ball).
load plotdir.'/common.gp'
f = dir.'/concentration_haar.tsv'
c = dir.'/concentration_curves.tsv'
set title rl_title("Haar transport: P(|q̂^T P k̂| ≥ t), measured ±SE (points), exact Beta law (solid), cap bound (Ball) 2e^{-dt^2/2} (dashed)")
set xlabel 't (score threshold, dimensionless)'
set ylabel 'P(|q̂^T P k̂| ≥ t)'
set logscale y
set format y '10^{%L}'
set yrange [1e-5:1.5]
set xrange [0:1]
plot for [i=1:words(ds)] f u ($1 == word(ds,i)+0 && $4 > 0 ? $2 : 1/0):4:5 w yerrorbars pt 7 ps 0.6 lc rgb rl_color(i) title 'd = '.word(ds,i), \
     for [i=1:words(ds)] c u ($1 == word(ds,i)+0 ? $2 : 1/0):4 w lines lw 1.5 lc rgb rl_color(i) notitle, \
     for [i=1:words(ds)] c u ($1 == word(ds,i)+0 ? $2 : 1/0):5 w lines dt 2 lc rgb rl_color(i) notitle, \
     1/0 w lines lw 1.5 lc rgb 'black' title 'Beta (exact)', 1/0 w lines dt 2 lc rgb 'black' title 'cap bound (Ball)'
