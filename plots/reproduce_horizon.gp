# Predicted horizon (from the per-block mixing windows) against the measured one, one point per model.
load plotdir.'/common.gp'
f = dir.'/horizons.tsv'
set title rl_title(sprintf("Predicted against measured extrapolation horizon (%s)", bytes ? "bytes" : "tokens")) noenhanced
set xlabel 'predicted H = min { W_b : W_b > T }  (none: at the right edge)' noenhanced
set ylabel 'measured: first L with ratio > 1 + 2 SE  (beyond the grid: top edge)' noenhanced
set logscale xy
set xrange [ctx*0.8:cap*1.25]
set yrange [ctx*0.8:cap*1.25]
set arrow from top, graph 0 to top, graph 1 nohead dt 2 lc rgb 'gray'
set arrow from graph 0, first top to graph 1, first top nohead dt 2 lc rgb 'gray'
# each variant's points moved sideways by a few percent (the log axis: a factor), so
# that variants at the same place (rope, none and rope@10000 at "none, 2T") all show
dodge(i) = 1.08**(i - (words(vars) + 1) / 2.0)
plot for [i=1:words(vars)] f u (strcol(1) eq word(vars,i) ? $9 * dodge(i) : 1/0):10 w points pt (i%7)+4 ps 1.4 lc rgb rl_color(i) title word(vars,i) noenhanced, \
     x w lines dt 3 lc rgb 'black' notitle
