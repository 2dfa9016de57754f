# ppl(L)/ppl(T) against L/T: ours with error bars, the study's at the same multiples.
load plotdir.'/common.gp'
f = dir.'/summary.tsv'
set title "Perplexity ratio ppl(L)/ppl(T) against L/T: this run (solid, mean ± SE) and the study (dashed, T = 512)"
set xlabel 'evaluation length / training context'
set ylabel 'ppl(L) / ppl(T)'
set logscale xy
set xrange [0.8:*]
idx(v) = sum [i=1:words(vars)] (word(vars,i) eq v ? i : 0)
plot for [i=1:words(vars)] f u (strcol(1) eq word(vars,i) ? $3 : 1/0):7:8 w yerrorlines pt 7 ps 0.6 lw 1.5 lc rgb rl_color(i) title word(vars,i) noenhanced, \
     for [j=1:words(study)] f u (strcol(1) eq word(study,j) ? $3 : 1/0):11 w linespoints dt 2 pt 6 ps 0.8 lc rgb rl_color(idx(word(study,j))) title word(study,j).' (study)' noenhanced, \
     1 w lines lc rgb 'black' dt 3 notitle
