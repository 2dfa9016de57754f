# Training and validation loss against step, one colour per variant, every seed.
load plotdir.'/common.gp'
set title "Training curves (thin: training loss; points: validation loss; every seed; the first steps above the plot)"
set xlabel 'optimizer step'
set ylabel sprintf('cross-entropy (nats per %s)', bytes ? 'byte' : 'token')
set datafile missing 'NA'
logfile(i, j) = dir.'/models/'.word(vars,i).'/'.word(seeds,j).'/log.tsv'
set key outside right top vertical Left reverse
# the y range fitted to the validation losses, with room above for the
# training noise: the first steps' losses (from ~log V) leave the plot
vlo = 1e30
vhi = -1e30
do for [i=1:words(vars)] { do for [j=1:words(seeds)] {
    stats logfile(i, j) u 3 nooutput
    if (exists("STATS_min")) { if (STATS_min < vlo) { vlo = STATS_min }; if (STATS_max > vhi) { vhi = STATS_max } }
    undefine STATS_*
} }
if (vlo < vhi) { set yrange [vlo - 0.15*(vhi - vlo) - 0.05:vhi + 0.6*(vhi - vlo) + 0.1] }
plot for [i=1:words(vars)] for [j=1:words(seeds)] logfile(i, j) u 1:2 every ::1 w lines lw 0.6 lc rgb rl_color(i) notitle, \
     for [i=1:words(vars)] for [j=1:words(seeds)] logfile(i, j) u 1:3 every ::1 w linespoints pt 7 ps 0.6 lc rgb rl_color(i) title (j == 1 ? word(vars,i) : '') noenhanced
