# Largest far score against the number of distractors M_L, one panel per d.
load plotdir.'/common.gp'
f = dir.'/scoregap_far.tsv'
eval rl_term(1500, 620, 10)
set output out
# the families of the data
rl_file = f; rl_col = 1; load plotdir.'/labels.gp'
fams = rl_labels
# the reference curves depend on M_L and d alone: read from the first family's rows
set multiplot layout 1,words(ds) title sprintf("Largest of M_L aligned far scores on one chain: E max_j s_j ±SE (filled), 95%% quantile of max_j |s_j| (open); √(2 log M_L/d) (solid), union of cap bounds (Ball) √(2 log(2M_L/δ)/d), δ = %g (dashed)", udelta)
set logscale x
set xrange [0.8:*]
set yrange [0:1.05]
set xlabel 'M_L (far distractors)'
set ylabel 'far score'
set key outside bottom center horizontal maxrows 2 font ',9' box opaque
do for [j=1:words(ds)] {
    dd = word(ds,j)+0
    set title rl_title(sprintf('d = %d', dd))
    plot for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) && $2 == dd ? $4 : 1/0):6:7 w yerrorlines pt 7 ps 0.6 lc rgb rl_color(i) title word(fams,i), \
         for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) && $2 == dd ? $4 : 1/0):9 w points pt 6 ps 0.9 lc rgb rl_color(i) notitle, \
         f u (strcol(1) eq word(fams,1) && $2 == dd ? $4 : 1/0):8 w lines lw 2 lc rgb 'black' title '√(2 log M_L/d)', \
         f u (strcol(1) eq word(fams,1) && $2 == dd ? $4 : 1/0):10 w lines lw 2 dt 2 lc rgb 'black' title 'union of cap bounds (Ball), 1−δ'
}
unset multiplot
