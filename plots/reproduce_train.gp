# Training and validation loss against step, one colour per variant.
load plotdir.'/common.gp'
set title "Training curves (thin: training loss; points: validation loss)"
set xlabel 'optimizer step'
set ylabel 'cross-entropy (nats per byte)'
set datafile missing 'NA'
plot for [i=1:words(vars)] dir.'/models/'.word(vars,i).'/log.tsv' u 1:2 every ::1 w lines lw 0.6 lc rgb rl_color(i) notitle, \
     for [i=1:words(vars)] dir.'/models/'.word(vars,i).'/log.tsv' u 1:3 every ::1 w linespoints pt 7 ps 0.6 lc rgb rl_color(i) title word(vars,i) noenhanced
