# E[(q^T P_n q)^2] against n, with the Haar value 1/d.
load plotdir.'/common.gp'
f = dir.'/mixing_families.tsv'
set title sprintf("Second moment of the self-score E[(q̂^T P_n q̂)^2] (d = %d): measured ±SE, Haar value 1/d", d)
set xlabel 'route length n (steps)'
set ylabel 'E[(q̂^T P_n q̂)^2]'
set logscale xy
set xrange [0.8:100000]
fams = "haar householder lazy-haar-p0.1 brownian-s0.1 so2-circle so2-uniform so2-constant"
plot for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) ? $3 : 1/0):11:12 w yerrorbars pt 7 ps 0.5 lc i title word(fams,i), \
     1.0/d w lines lc rgb 'black' dt 2 title 'Haar: 1/d', 2.0/(d+2) w lines lc rgb 'gray50' dt 4 title 'mixed SO(2) blocks: 2/(d+2)'
