# ppl(L)/ppl(T) against L/T: all positions (solid) and the newest positions
# beyond T (dashed), mean +- SE; the variants' ranges (no-context ppl / ppl(T))
# as a gray band: a ratio inside it is bounded by what this scale's models
# take from context, one above it is worse than no context at all.
load plotdir.'/common.gp'
f = dir.'/summary.tsv'
set title rl_title("Perplexity ratio ppl(L)/ppl(T) on the same tokens (solid: all positions; dashed: newest, beyond T)")
set xlabel sprintf('evaluation length / training context (T = %d %s)', ctx, bytes ? 'bytes' : 'tokens')
set ylabel 'ppl(L) / ppl(T)'
set logscale xy
set key outside right top vertical Left reverse
# ranges fitted to our curves (the study's are in ratio_study.png); a
# column without a number (the newest ratio and the range of an evaluation
# of the old protocol) leaves the STATS_ variables undefined
stats f u 3 nooutput
xmax = STATS_max
stats f u 7 nooutput
ylo = STATS_min
yhi = STATS_max
stats f u 12 nooutput
if (exists("STATS_max")) { if (STATS_max > yhi) { yhi = STATS_max }; if (STATS_min < ylo) { ylo = STATS_min } }
undefine STATS_*
undefine STATS_*
stats f u 15 nooutput
if (exists("STATS_max")) { \
    set object 1 rect from graph 0, first STATS_min to graph 1, first STATS_max fc rgb 'gray88' fs solid 1.0 noborder behind; \
    set label 1 sprintf('gray band: the range, no-context ppl / ppl(T), %.2f–%.2f×', STATS_min, STATS_max) at graph 0.02, graph 0.95; \
    if (STATS_max > yhi) { yhi = STATS_max } }
set xrange [0.9:xmax*1.1]
ylo = (ylo < 1 ? ylo : 1)/1.05
yhi = (yhi > 1 ? yhi : 1)*1.1
set yrange [ylo:yhi]
eval 'set ytics '.rl_log_tics(ylo, yhi)
plot for [i=1:words(vars)] f u (strcol(1) eq word(vars,i) ? $3 : 1/0):7:8 w yerrorlines pt 7 ps 0.6 lw 1.5 lc rgb rl_color(i) title word(vars,i) noenhanced, \
     for [i=1:words(vars)] f u (strcol(1) eq word(vars,i) && $3 > 1 ? $3 : 1/0):12 w lines dt 2 lw 1.2 lc rgb rl_color(i) notitle, \
     1 w lines lc rgb 'black' dt 3 notitle
