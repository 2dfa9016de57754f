# Validation perplexity against evaluation length, one curve per variant (mean
# over seeds), with each variant's no-context perplexity (dotted, same colour).
load plotdir.'/common.gp'
f = dir.'/summary.tsv'
set title rl_title(sprintf("Validation perplexity against evaluation length (trained at T = %d; dotted: no context)", ctx))
set xlabel sprintf('evaluation length L (%s)', bytes ? 'bytes' : 'tokens')
set ylabel sprintf('perplexity (per %s)', bytes ? 'byte' : 'token')
set logscale xy
set key outside right top vertical Left reverse
# ranges fitted to the curves: lengths from T, perplexities and the no-context ones
stats f u 2 nooutput
set xrange [ctx/1.25:STATS_max*1.25]
stats f u 5 nooutput
ylo = STATS_min
yhi = STATS_max
# (an evaluation of the old protocol has no no-context column: no STATS_)
undefine STATS_*
stats f u 14 nooutput
if (exists("STATS_max")) { if (STATS_max > yhi) { yhi = STATS_max }; if (STATS_min < ylo) { ylo = STATS_min } }
ylo = ylo/1.2
yhi = yhi*1.2
set yrange [ylo:yhi]
eval 'set ytics '.rl_log_tics(ylo, yhi)
set arrow from ctx, graph 0 to ctx, graph 1 nohead lc rgb 'gray30' dt 2
plot for [i=1:words(vars)] f u (strcol(1) eq word(vars,i) ? $2 : 1/0):5 w linespoints pt 7 ps 0.7 lw 1.5 lc rgb rl_color(i) title word(vars,i) noenhanced, \
     for [i=1:words(vars)] f u (strcol(1) eq word(vars,i) ? $2 : 1/0):14 w lines dt 3 lw 1 lc rgb rl_color(i) notitle
