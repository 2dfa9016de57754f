# Far mass inside a trained model against W, per layer (mean over heads), with two forms of the bound:
# M/(M + K e^{2 lambda}) at the row's max |logit| (dashed) and M/(M + K e^{Delta}),
# Delta = max near - min far logit of the row (dotted; softmax is shift-invariant, so it is the tighter).
load plotdir.'/common.gp'
f = dir.'/probe.tsv'
set title rl_title(sprintf("%s: attention mass beyond the last W positions, last queries of %d-token windows (trained at %d)", name, L, T)) noenhanced
set xlabel 'W (tokens)'
set ylabel 'far mass ρ_D (mean over heads)'
# log y: the bound is often orders of magnitude below the measured mass
set logscale xy
set yrange [*:1.5]
set format y '10^{%T}'  # powers of ten, not 0.000010
set key font ',9'
set arrow from T, graph 0 to T, graph 1 nohead lc rgb 'gray30' dt 2
plot for [l=0:layers-1] f u ($1 == L && $2 == l ? $4 : 1/0):5 smooth unique w linespoints pt 7 ps 0.7 lc rgb rl_color(l+1) title sprintf('layer %d', l), \
     for [l=0:layers-1] f u ($1 == L && $2 == l ? $4 : 1/0):7 smooth unique w lines dt 2 lc rgb rl_color(l+1) title sprintf('bound (max |logit|), layer %d', l), \
     for [l=0:layers-1] f u ($1 == L && $2 == l ? $4 : 1/0):13 smooth unique w lines dt 3 lw 2 lc rgb rl_color(l+1) title sprintf('bound (range Δ), layer %d', l)
