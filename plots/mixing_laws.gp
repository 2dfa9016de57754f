# SO(2) angle laws, fastest block (omega = 1): |E e^{i Phi_n}| against n.
load plotdir.'/common.gp'
f = dir.'/mixing_families.tsv'
# the laws: the data's families whose name is an SO(2) law
rl_file = f; rl_col = 1; load plotdir.'/labels.gp'
all = rl_labels
laws = ''
do for [w in all] { if (w[1:4] eq 'so2-') { laws = laws.' '.w } }
set title rl_title(sprintf("SO(2) angle laws, block 0 (ω = 1, d = %d): |E e^{iΦ_n}| measured ±SE, predicted |E e^{iθ}|^n", d))
set xlabel 'route length n (steps)'
set ylabel '|E[P_n]| on block 0'
set logscale xy
set yrange [1e-3:1.5]
# the first 1,000 steps: block 0 (ω = 1) is where the laws differ
set xrange [0.8:1000]
plot for [i=1:words(laws)] f u (strcol(1) eq word(laws,i) ? $3 : 1/0):15:16 w yerrorbars pt 7 ps 0.6 lc rgb rl_color(rl_index(all, word(laws,i))) title word(laws,i), \
     for [i=1:words(laws)] f u (strcol(1) eq word(laws,i) ? $3 : 1/0):17 w lines lc rgb rl_color(rl_index(all, word(laws,i))) dt 2 notitle
