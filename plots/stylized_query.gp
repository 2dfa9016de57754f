# What each fit learned: the mean logit of the shared key direction u against
# the distance (closed form from the fitted q), and its per-block split.
load plotdir.'/common.gp'
load plotdir.'/stylized_common.gp'
fl = dir.'/stylized_logit.tsv'
fq = dir.'/stylized_query.tsv'
# the fits of the data (named by transport: random for random_qk*, householder for haar)
rl_file = fl; rl_col = 1; load plotdir.'/labels.gp'
fits = rl_labels
set multiplot layout 2,1 title sprintf("Fitted queries (d = %d, T_{train} = %d, |q| ≤ λ = %g): what the fits learned about the shared key direction u (mean ± SE across %d fits)", d, T, lambda, nfit)
set logscale x
# both panels end at the same place whatever their legends' widths
set rmargin at screen 0.66
set xlabel 'distance δ (tokens)'
set ylabel 'E[q^T P_δ u] (− mδ for ALiBi)'
set yrange [-lambda:lambda]
set arrow 1 from T, graph 0 to T, graph 1 nohead lc rgb 'black' dt 2
set label 1 'T_{train}' at T*1.1, graph 0.9
plot for [i=1:words(fits)] fl u (strcol(1) eq word(fits,i) ? $2 : 1/0):3:7 w yerrorlines pt 7 ps 0.3 lw 2 lc rgb rl_color(i) title word(fits,i) noenhanced, \
     0 w lines lc rgb 'gray50' notitle
unset arrow 1
unset label 1
set autoscale y
set xlabel 'block frequency ω_b = 10000^{-2b/d} (rad per token)'
set ylabel 'block b share of E[q^T P_δ u]'
set arrow 2 from 1.0/T, graph 0 to 1.0/T, graph 1 nohead lc rgb 'black' dt 2
set label 2 '1/T_{train}' at 1.1/T, graph 0.9
set format x '%g'
plot fq u (strcol(1) eq 'rope' ? $3 : 1/0):10:15 w yerrorlines pt 5 lc rgb rl_color(rl_index(fits, 'rope')) title 'rope, δ ≤ T_{train}', \
     fq u (strcol(1) eq 'rope' ? $3 : 1/0):11:16 w yerrorlines pt 4 dt 2 lc rgb rl_color(rl_index(fits, 'rope')) title 'rope, T_{train} < δ ≤ 128T', \
     fq u (strcol(1) eq 'random' ? $3 : 1/0):10:15 w yerrorlines pt 9 lc rgb rl_color(rl_index(fits, 'random')) title 'random, δ ≤ T_{train}', \
     fq u (strcol(1) eq 'random' ? $3 : 1/0):11:16 w yerrorlines pt 8 dt 2 lc rgb rl_color(rl_index(fits, 'random')) title 'random, T_{train} < δ ≤ 128T', \
     0 w lines lc rgb 'gray50' notitle
unset multiplot
