# Training and validation loss against step, one colour per variant, every seed.
load plotdir.'/common.gp'
set title "Training curves (thin: training loss; points: validation loss; every seed)"
set xlabel 'optimizer step'
set ylabel sprintf('cross-entropy (nats per %s)', bytes ? 'byte' : 'token')
set datafile missing 'NA'
set key outside bottom center horizontal maxrows 2
logfile(i, j) = dir.'/models/'.word(vars,i).'/'.word(seeds,j).'/log.tsv'
plot for [i=1:words(vars)] for [j=1:words(seeds)] logfile(i, j) u 1:2 every ::1 w lines lw 0.6 lc rgb rl_color(i) notitle, \
     for [i=1:words(vars)] for [j=1:words(seeds)] logfile(i, j) u 1:3 every ::1 w linespoints pt 7 ps 0.6 lc rgb rl_color(i) title (j == 1 ? word(vars,i) : '') noenhanced
