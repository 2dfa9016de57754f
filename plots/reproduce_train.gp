# Training curves: per variant the mean over seeds of the training loss
# (a moving average over `smooth` steps) with a band of ± one SE over seeds,
# and the validation loss (points, ± SE bars), from OUT/training.tsv.
load plotdir.'/common.gp'
f = dir.'/training.tsv'
set title rl_title(sprintf("Training curves (mean of %d seed%s; band and bars: ± SE over seeds; training loss averaged over %d steps)", seeds, seeds == 1 ? '' : 's', smooth)) noenhanced
set xlabel 'optimizer step'
set ylabel sprintf('cross-entropy (nats per %s)', bytes ? 'byte' : 'token')
set datafile missing 'NA'
set key outside right top vertical Left reverse
set style fill transparent solid 0.2 noborder
# the y range fitted to the validation losses, with room above for the
# early training losses (from ~log V, left above the plot)
stats f u 6 nooutput
if (exists("STATS_min")) { vlo = STATS_min; vhi = STATS_max; \
    set yrange [vlo - 0.15*(vhi - vlo) - 0.05:vhi + 0.6*(vhi - vlo) + 0.1] }
undefine STATS_*
sel(i, c) = strcol(1) eq word(vars, i) ? column(c) : 1/0
plot for [i=1:words(vars)] f u (sel(i, 2)):($4 - (valid(5) ? $5 : 0)):($4 + (valid(5) ? $5 : 0)) \
         w filledcurves lc rgb rl_color(i) notitle, \
     for [i=1:words(vars)] f u (sel(i, 2)):4 w lines lw 1.5 lc rgb rl_color(i) title word(vars, i) noenhanced, \
     for [i=1:words(vars)] f u (sel(i, 2)):6:7 w yerrorbars pt 7 ps 0.6 lc rgb rl_color(i) notitle
