# E[(q^T P_n q)^2] against n, with the Haar value 1/d.
load plotdir.'/common.gp'
f = dir.'/mixing_families.tsv'
# every family of the data but PaTH's (path-*): its steps are not orthogonal, so the
# self-score shrinks with the norm instead of measuring coherence; each family in the
# colour it has in the other mixing figures
rl_file = f; rl_col = 1; load plotdir.'/labels.gp'
all = rl_labels
fams = ''
do for [w in all] { if (w[1:5] ne 'path-') { fams = fams.' '.w } }
# the y range fitted to those families' points and the two reference levels
# (no such family when the run swept PaTH alone, --families path: the references only)
ylo = 1.0/d/1.5
if (words(fams) > 0) {
    stats f u (strcol(1)[1:5] eq 'path-' ? 1/0 : $11) every ::1 nooutput
    ylo = (STATS_min < 1.0/d ? STATS_min : 1.0/d)/1.5
}
stats f u 3 every ::1 nooutput
nmax = STATS_max
set yrange [ylo:1.5]
set format y '10^{%T}'
set title rl_title(sprintf("Second moment of the self-score E[(q̂^T P_n q̂)^2] (d = %d): measured ±SE, Haar value 1/d", d))
set xlabel 'route length n (steps)'
set ylabel 'E[(q̂^T P_n q̂)^2]'
set logscale xy
set xrange [0.8:nmax*1.25]
plot for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) ? $3 : 1/0):11:12 w yerrorbars pt 7 ps 0.5 lc rgb rl_color(rl_index(all, word(fams,i))) title word(fams,i), \
     1.0/d w lines lc rgb 'black' dt 2 title 'Haar: 1/d', 2.0/(d+2) w lines lc rgb 'gray50' dt 4 title 'mixed SO(2) blocks: 2/(d+2)'
