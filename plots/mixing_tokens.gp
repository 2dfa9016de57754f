# Text-driven SO(2) steps: contexts of 512 and 65,536 tokens, and the unigram prediction.
load plotdir.'/common.gp'
f = dir.'/mixing_tokens.tsv'
set title "Text-driven steps (angle = table[byte]): |mean e^{iΦ}| over routes inside 512- and 65,536-token contexts"
set xlabel 'route length n (tokens)'
set ylabel '|mean of P_n| on block b'
set logscale xy
set yrange [1e-2:1.3]
set xrange [0.8:600]
blocks = "0 1 2 3"
plot for [i=1:words(blocks)] f u ($1 == 512 && $2 == word(blocks,i)+0 ? $3 : 1/0):4:5 w yerrorbars pt 7 ps 0.6 lc i title 'b = '.word(blocks,i).', 512 context', \
     for [i=1:words(blocks)] f u ($1 == 65536 && $2 == word(blocks,i)+0 ? $3 : 1/0):4 w points pt 6 ps 1.2 lc i title 'b = '.word(blocks,i).', 65,536 context', \
     for [i=1:words(blocks)] f u ($1 == 512 && $2 == word(blocks,i)+0 ? $3 : 1/0):6 w lines lc i dt 2 title 'unigram prediction', \
     0.1 w lines lc rgb 'gray40' dt 3 title 'ε = 0.1'
