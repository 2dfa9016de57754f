# SO(2) angle laws, fastest block (omega = 1): |E e^{i Phi_n}| against n.
load plotdir.'/common.gp'
f = dir.'/mixing_families.tsv'
set title sprintf("SO(2) angle laws, block 0 (ω = 1, d = %d): |E e^{iΦ_n}| measured ±SE, predicted |E e^{iθ}|^n", d)
set xlabel 'route length n (steps)'
set ylabel '|E[P_n]| on block 0'
set logscale xy
set yrange [1e-3:1.5]
set xrange [0.8:1000]
laws = "so2-constant so2-uniform so2-pm so2-gauss so2-circle so2-drift"
plot for [i=1:words(laws)] f u (strcol(1) eq word(laws,i) ? $3 : 1/0):15:16 w yerrorbars pt 7 ps 0.6 lc i title word(laws,i), \
     for [i=1:words(laws)] f u (strcol(1) eq word(laws,i) ? $3 : 1/0):17 w lines lc i dt 2 notitle
