# Validation perplexity against evaluation length, one curve per variant (mean over seeds).
load plotdir.'/common.gp'
f = dir.'/summary.tsv'
set title sprintf("Validation perplexity against evaluation length (trained at T = %d)", ctx)
set xlabel 'evaluation length L (tokens)'
set ylabel 'perplexity (byte level)'
set logscale xy
set arrow from ctx, graph 0 to ctx, graph 1 nohead lc rgb 'gray30' dt 2
plot for [i=1:words(vars)] f u (strcol(1) eq word(vars,i) ? $2 : 1/0):5 w linespoints pt 7 ps 0.7 lw 1.5 lc rgb rl_color(i) title word(vars,i) noenhanced
