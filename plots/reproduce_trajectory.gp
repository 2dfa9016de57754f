# The orderings read at every stage of training (trajectory.tsv): per ordering
# (ids, its id in the orderings table), the per-seed mean of its statistic (a
# difference of log ratios) against the training step, +- its seed SE; the
# gray band is +-delta (the rule's minimal effect size), inside which a
# difference is absent at this scale.  ids, delta and ctx are arguments.
load plotdir.'/common.gp'
f = dir.'/trajectory.tsv'
set title rl_title("Orderings through training: mean difference of log ratios ± seed SE (gray: ±δ = log 1.05)")
set xlabel 'optimizer step'
set ylabel sprintf('difference of log(ppl(L)/ppl(T)) (T = %d)', ctx)
set key outside right top vertical Left reverse
stats f u 3 nooutput
xlo = STATS_min
xhi = STATS_max
undefine STATS_*
stats f u ($8 - $9) nooutput
ylo = STATS_min
undefine STATS_*
stats f u ($8 + $9) nooutput
yhi = STATS_max
undefine STATS_*
ylo = (ylo < -delta ? ylo : -delta) * 1.2
yhi = (yhi > delta ? yhi : delta) * 1.2
set xrange [xlo - 0.05*(xhi - xlo) : xhi + 0.05*(xhi - xlo)]
set yrange [ylo:yhi]
set object 1 rect from graph 0, first -delta to graph 1, first delta fc rgb 'gray88' fs solid 1.0 noborder behind
plot for [i=1:words(ids)] f u (strcol(2) eq word(ids,i) ? $3 : 1/0):8:9 w yerrorlines pt 7 ps 0.7 lw 1.5 lc rgb rl_color(i) title word(ids,i) noenhanced, \
     0 w lines lc rgb 'black' dt 3 notitle
