# The study's U(-w_b, w_b) variant at d = 64: selected blocks against n.
load plotdir.'/common.gp'
f = dir.'/mixing_block_curves.tsv'
set title "Study's random rotations U(−ω_b, ω_b), d = 64: |E e^{iΦ_n}| per block (points ±SE), (sin ω_b/ω_b)^n (lines)"
set xlabel 'route length n (steps)'
set ylabel '|E[P_n]| on block b'
set logscale xy
set yrange [1e-2:1.3]
set xrange [0.8:100000]
set arrow from 512, graph 0 to 512, graph 1 nohead lc rgb 'gray30' dt 2
set label 'n = 512 (training context)' at 560, 0.015
blocks = "0 4 8 12 16 20 24 31"
plot for [i=1:words(blocks)] f u ($1 == 64 && $2 == word(blocks,i)+0 ? $4 : 1/0):5:6 w yerrorbars pt 7 ps 0.5 lc i title 'b = '.word(blocks,i), \
     for [i=1:words(blocks)] f u ($1 == 64 && $2 == word(blocks,i)+0 ? $4 : 1/0):7 w lines lc i dt 2 notitle, \
     0.1 w lines lc rgb 'gray40' dt 3 title 'ε = 0.1'
