# Our ppl(L)/ppl(T) (solid, mean +- SE) beside the study's at the same multiples (dashed, same colour).
load plotdir.'/common.gp'
f = dir.'/summary.tsv'
set title rl_title("ppl(L)/ppl(T): this run (solid) and the study (dashed, T = 512, same colour)")
set xlabel sprintf('evaluation length / training context (ours: T = %d %s)', ctx, bytes ? 'bytes' : 'tokens')
set ylabel 'ppl(L) / ppl(T)'
set logscale xy
set key outside right top vertical Left reverse
stats f u 3 nooutput
set xrange [0.9:STATS_max*1.1]
# the y range fitted to both runs' ratios (the study's column 11)
stats f u 7 nooutput
ylo = STATS_min
yhi = STATS_max
undefine STATS_*
stats f u 11 nooutput
if (exists("STATS_max")) { if (STATS_max > yhi) { yhi = STATS_max }; if (STATS_min < ylo) { ylo = STATS_min } }
ylo = (ylo < 1 ? ylo : 1)/1.1
yhi = (yhi > 1 ? yhi : 1)*1.2
set yrange [ylo:yhi]
eval 'set ytics '.rl_log_tics(ylo, yhi)
idx(v) = sum [i=1:words(vars)] (word(vars,i) eq v ? i : 0)
plot for [i=1:words(vars)] f u (strcol(1) eq word(vars,i) ? $3 : 1/0):7:8 w yerrorlines pt 7 ps 0.6 lw 1.5 lc rgb rl_color(i) title word(vars,i) noenhanced, \
     for [j=1:words(study)] f u (strcol(1) eq word(study,j) ? $3 : 1/0):11 w linespoints dt 2 pt 6 ps 0.8 lc rgb rl_color(idx(word(study,j))) title word(study,j).' (study)' noenhanced, \
     1 w lines lc rgb 'black' dt 3 notitle
