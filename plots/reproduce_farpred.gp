# Far mass beyond T predicted from within T against the probe, one panel per
# variant (docs/theory/farpred.md#far-mass-prediction): head-mean measured far mass per seed
# (points), routelab's predictor (solid), mixing switched off (dash-dot), dilution
# (dashed) and the bound (dotted) as their means across seeds (smooth
# unique).  Data: farpred_summary.tsv (variant, seed, length, mult,
# measured, route, nomix, meanfield, dilution, bound).
load plotdir.'/common.gp'
f = dir.'/farpred_summary.tsv'
set datafile missing NaN
rl_file = f; rl_col = 1; load plotdir.'/labels.gp'
vs = rl_labels
n = words(vs)
ncol = (n <= 4) ? n : 4
nrow = (n + ncol - 1) / ncol
eval rl_term(420*ncol, 380*nrow, 10)
set output out
set multiplot layout nrow,ncol title sprintf("Far mass beyond T = %d, head mean: measured (points, per seed), routelab (solid), mixing off (dash-dot), dilution (dashed), bound (dotted)", ctx)
set logscale x 2
set xrange [1.5:*]
set yrange [0:1.02]
set xlabel 'L / T'
set ylabel 'far mass ρ_D(L)'
set key off
do for [j=1:n] {
    set title rl_title(word(vs,j)) noenhanced
    plot f u (strcol(1) eq word(vs,j) ? $4 : 1/0):5 w points pt 7 ps 0.6 lc rgb rl_color(1), \
         f u (strcol(1) eq word(vs,j) ? $4 : 1/0):6 smooth unique w lines lw 1.5 lc rgb rl_color(2), \
         f u (strcol(1) eq word(vs,j) ? $4 : 1/0):7 smooth unique w lines dt 4 lw 1.2 lc rgb rl_color(4), \
         f u (strcol(1) eq word(vs,j) ? $4 : 1/0):9 smooth unique w lines dt 2 lw 1.2 lc rgb rl_color(3), \
         f u (strcol(1) eq word(vs,j) ? $4 : 1/0):10 smooth unique w lines dt 3 lw 1.2 lc rgb 'gray30'
}
unset multiplot
