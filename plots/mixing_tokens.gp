# Text-driven SO(2) steps: contexts of 512 and 65,536 tokens, and the unigram prediction.
load plotdir.'/common.gp'
f = dir.'/mixing_tokens.tsv'
# the first four blocks of the data (the fastest)
rl_file = f; rl_col = 2; load plotdir.'/labels.gp'
blocks = ''
do for [k=1:(words(rl_labels) < 4 ? words(rl_labels) : 4)] { blocks = blocks.' '.word(rl_labels, k) }
stats f u ($1 == 512 ? $3 : 1/0) every ::1 nooutput
nmax = STATS_max
set title rl_title("Text-driven steps (angle = table[byte]): |mean e^{iΦ_n}| per block, in two context lengths")
set xlabel 'route length n (tokens)'
set ylabel '|mean of P_n| on block b'
set logscale xy
set yrange [1e-2:1.3]
set xrange [0.8:nmax*1.25]
plot for [i=1:words(blocks)] f u ($1 == 512 && $2 == word(blocks,i)+0 ? $3 : 1/0):4:5 w yerrorbars pt 7 ps 0.6 lc rgb rl_color(i) title 'b = '.word(blocks,i).', 512 context', \
     for [i=1:words(blocks)] f u ($1 == 65536 && $2 == word(blocks,i)+0 ? $3 : 1/0):4 w points pt 6 ps 1.2 lc rgb rl_color(i) title 'b = '.word(blocks,i).', 65,536 context', \
     for [i=1:words(blocks)] f u ($1 == 512 && $2 == word(blocks,i)+0 ? $3 : 1/0):6 w lines lc rgb rl_color(i) dt 2 title (i == 1 ? 'unigram prediction (dashed)' : ''), \
     0.1 w lines lc rgb 'gray40' dt 3 title 'ε = 0.1'
