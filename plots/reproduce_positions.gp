# Prefix perplexity exp(mean loss of positions < l) against l (top) and the
# per-position loss (bottom), one curve per variant: the mean over seeds with
# its SE band (OUT/positions.tsv, program/reproduce/positions.c; docs/protocol.md#sampled-windows).
load plotdir.'/common.gp'
f = dir.'/positions.tsv'
unit = bytes ? 'byte' : 'token'
set multiplot layout 2,1 title sprintf("Per-position curves at the longest length (trained at T = %d; dashed: T)", ctx)
set logscale x
set key outside right top vertical Left reverse
stats f u 4 nooutput
set xrange [0.8:STATS_max*1.25]
set arrow 1 from ctx, graph 0 to ctx, graph 1 nohead lc rgb 'gray30' dt 2
set style fill transparent solid 0.2 noborder
set ylabel sprintf('prefix perplexity (per %s)', unit)
plot for [i=1:words(vars)] f u (strcol(1) eq word(vars,i) ? $4 : 1/0):($8-$9):($8+$9) w filledcurves lc rgb rl_color(i) notitle, \
     for [i=1:words(vars)] f u (strcol(1) eq word(vars,i) ? $4 : 1/0):8 w lines lw 1.5 lc rgb rl_color(i) title word(vars,i) noenhanced
set xlabel sprintf('position i + 1 (context, %ss; bins end at l)', unit)
set ylabel 'loss at the position (nats)'
plot for [i=1:words(vars)] f u (strcol(1) eq word(vars,i) ? $4 : 1/0):($6-$7):($6+$7) w filledcurves lc rgb rl_color(i) notitle, \
     for [i=1:words(vars)] f u (strcol(1) eq word(vars,i) ? $4 : 1/0):6 w lines lw 1.5 lc rgb rl_color(i) title word(vars,i) noenhanced
unset multiplot
