# The far law's distance to the nearest law met within T, min_{delta' < T} d_U(mu_delta,
# mu_delta'), against delta/T: one panel per block of the CPU head, one curve per step law.
load plotdir.'/common.gp'
eval rl_term(1400, 560, 11)
set output out
f = dir.'/mixstay_curves.tsv'
rl_file = f; rl_col = 2; load plotdir.'/labels.gp'
blocks = rl_labels
rl_file = f; rl_col = 1; load plotdir.'/labels.gp'
laws = rl_labels
set multiplot layout 1,words(blocks) title sprintf("Distance of the far angle law at δ to the nearest law met within T = %d (the CPU head, mixing-matched base)", T)
set xlabel 'δ / T'
set ylabel 'min_{δ′ < T} d_U(μ_δ, μ_{δ′})'
set xrange [1:mult]
set yrange [0:0.55]
set key inside left top box opaque font ',9'
do for [c=1:words(blocks)] {
    stats f u (strcol(2) eq word(blocks,c) ? $3 : 1/0) every ::1 nooutput
    set title rl_title(sprintf('block %s (ω = %.4g)', word(blocks,c), STATS_min))
    plot for [i=1:words(laws)] f u (strcol(2) eq word(blocks,c) && strcol(1) eq word(laws,i) ? $5 : 1/0):6 \
             w lines lw 2 lc rgb rl_color(i) title word(laws,i)
}
unset multiplot
