# The study's U(-w_b, w_b) variant at d = 64: selected blocks against n.
load plotdir.'/common.gp'
f = dir.'/mixing_block_curves.tsv'
# every fourth block of d = 64 and the slowest, from the blocks the data has at d = 64
nb = 0
stats f u ($1 == 64 ? (nb = (int($2) + 1 > nb ? int($2) + 1 : nb), 0) : 0) every ::1 nooutput
blocks = ''
do for [b=0:nb-1:4] { blocks = blocks.sprintf(' %d', b) }
if (nb > 0 && (nb - 1) % 4 != 0) { blocks = blocks.sprintf(' %d', nb - 1) }
stats f u 4 every ::1 nooutput
nmax = STATS_max
set title rl_title("Study's random rotations U(−ω_b, ω_b), d = 64: |E e^{iΦ_n}| per block (points ±SE), (sin ω_b/ω_b)^n (lines)")
set xlabel 'route length n (steps)'
set ylabel '|E[P_n]| on block b'
set logscale xy
set yrange [1e-2:1.3]
set xrange [0.8:nmax*1.25]
set arrow from 512, graph 0 to 512, graph 1 nohead lc rgb 'gray30' dt 2
set label 'n = 512 (training context)' at 560, 0.015
plot for [i=1:words(blocks)] f u ($1 == 64 && $2 == word(blocks,i)+0 ? $4 : 1/0):5:6 w yerrorbars pt 7 ps 0.5 lc rgb rl_color(i) title 'b = '.word(blocks,i), \
     for [i=1:words(blocks)] f u ($1 == 64 && $2 == word(blocks,i)+0 ? $4 : 1/0):7 w lines lc rgb rl_color(i) dt 2 notitle, \
     0.1 w lines lc rgb 'gray40' dt 3 title 'ε = 0.1'
