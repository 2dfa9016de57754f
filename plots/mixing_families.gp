# ||E[P_n]|| against n for the non-SO(2) families, with ||E[M]||^n.
load plotdir.'/common.gp'
f = dir.'/mixing_families.tsv'
# the families: those of the data whose name is not an SO(2) law (mixing_laws.gp draws those)
rl_file = f; rl_col = 1; load plotdir.'/labels.gp'
all = rl_labels
fams = ''
do for [w in all] { if (w[1:4] ne 'so2-') { fams = fams.' '.w } }
# the lengths those families were run to
# (none when the run swept SO(2) laws alone, --families so2: an empty panel)
nmax = 1
if (words(fams) > 0) {
    stats f u (strcol(1)[1:4] ne 'so2-' ? $3 : 1/0) every ::1 nooutput
    nmax = STATS_max
}
set title rl_title(sprintf("Mean route against route length (d = %d): measured ±SE (points), ‖E[M]‖^n (lines)", d))
set xlabel 'route length n (steps)'
set ylabel '‖E[P_n]‖ (operator norm)'
set logscale xy
set yrange [1e-3:1.5]
set xrange [0.8:nmax*1.25]
plot for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) ? $3 : 1/0):4:5 w yerrorbars pt 7 ps 0.6 lc rgb rl_color(rl_index(all, word(fams,i))) title word(fams,i), \
     for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) ? $3 : 1/0):6 w lines lc rgb rl_color(rl_index(all, word(fams,i))) dt 2 notitle, \
     0.1 w lines lc rgb 'gray40' dt 3 title 'ε = 0.1', 0.01 w lines lc rgb 'gray60' dt 3 title 'ε = 0.01'
