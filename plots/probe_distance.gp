# Mean logit against distance, per layer (mean over heads).
load plotdir.'/common.gp'
f = dir.'/distance.tsv'
set title rl_title(sprintf("%s: mean logit against distance, last queries of %d-token windows (trained at %d)", name, L, T)) noenhanced
set xlabel 'distance i − j (tokens, bins [2^k, 2^{k+1}))'
set ylabel 'mean logit (scaled, with any ALiBi bias)'
set logscale x
set arrow from T, graph 0 to T, graph 1 nohead lc rgb 'gray30' dt 2
plot for [l=0:layers-1] f u ($1 == L && $2 == l && $4 > 0 ? sqrt($4*($5+1)) : 1/0):6 smooth unique w linespoints pt 7 ps 0.7 lc rgb rl_color(l+1) title sprintf('layer %d', l)
