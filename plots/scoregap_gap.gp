# Gap and softmax weight ratio against M_L (n_near = 4), one column per d.
load plotdir.'/common.gp'
f = dir.'/scoregap_gap.tsv'
eval rl_term(1500, 1000, 10)
set output out
# the families of the data
rl_file = f; rl_col = 1; load plotdir.'/labels.gp'
fams = rl_labels
# the lower bound needs mixed far keys: drawn for every family but the study's
# (so2-study*, unmixed at δ₀), which gets the upper bound instead
study(w) = strstrt(w, 'study') > 0
nn = 4
set multiplot layout 2,words(ds) title "Score gap and softmax weight ratio, target at n_{near} = 4, logits λ·score with λ = √d: measured ±SE (points), predicted bounds (dashed, dotted)"
set logscale x
set xrange [0.8:*]
set key outside bottom center horizontal maxrows 2 font ',9' box opaque
do for [j=1:words(ds)] {
    dd = word(ds,j)+0
    # one legend for the figure, under its first panel: the panels share it
    if (j == 1) { set key outside bottom center horizontal maxrows 2 font ',9' box opaque } else { unset key }
    set title rl_title(sprintf('gap, d = %d', dd))
    set xlabel 'M_L (far distractors)'
    set ylabel 's_{near} − max_j s_j'
    set yrange [*:*]
    plot for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) && $2 == dd && $4 == nn ? $3 : 1/0):7:8 w yerrorlines pt 7 ps 0.6 lc rgb rl_color(i) title word(fams,i), \
         for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) && !study(word(fams,i)) && $2 == dd && $4 == nn ? $3 : 1/0):9 w lines dt 2 lw 1.5 lc rgb rl_color(i) notitle, \
         for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) && study(word(fams,i)) && $2 == dd && $4 == nn ? $3 : 1/0):16 w lines dt 3 lw 2 lc rgb rl_color(i) notitle, \
         0 w lines lc rgb 'gray40' notitle, 1/0 w lines dt 2 lc rgb 'black' title 'lower bound E s_{near} − √(2 log M_L/d)', \
         1/0 w lines dt 3 lw 2 lc rgb 'black' title 'upper bound E s_{near} − max_j E s_j'
}
unset key
do for [j=1:words(ds)] {
    dd = word(ds,j)+0
    set title rl_title(sprintf('weight ratio, d = %d', dd))
    set xlabel 'M_L (far distractors)'
    set ylabel 'E log_{10}( w_{target} / Σ_{far} w_j )'
    plot for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) && $2 == dd && $4 == nn ? $3 : 1/0):13:14 w yerrorlines pt 7 ps 0.6 lc rgb rl_color(i) title word(fams,i), \
         for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) && $2 == dd && $4 == nn ? $3 : 1/0):15 w lines dt 2 lw 1.5 lc rgb rl_color(i) notitle, \
         0 w lines lc rgb 'gray40' title 'ratio 1', 1/0 w lines dt 2 lc rgb 'black' title 'λE s_{near} − log E Σ e^{λ s_j}'
}
unset multiplot
