# Routelab's mix-or-stay condition: D_b(mult T) per SO(2) block against omega_b, one
# panel per head (regime), one curve per step law, bars [lo, hi] of the truncated distance.
load plotdir.'/common.gp'
eval rl_term(1500, 560, 11)
set output out
f = dir.'/mixstay_blocks.tsv'
rl_file = f; rl_col = 1; load plotdir.'/labels.gp'
regs = rl_labels
rl_file = f; rl_col = 6; load plotdir.'/labels.gp'
laws = rl_labels
set multiplot layout 1,words(regs) title sprintf("Routelab's mix-or-stay condition: D_b(%dT) = max_{far δ} min_{δ' < T} d_U(μ_δ, μ_{δ'}) per block (bars: the truncation's bracket)", mult)
set logscale x
set xlabel 'block frequency ω_b (radians per step)'
set ylabel 'D_b (Watson distance)'
set yrange [0:0.55]
# the key below the panels: the drifting laws rise to 1/2 at the slow blocks (left)
set key outside below horizontal font ',9'

do for [r=1:words(regs)] {
    set title rl_title(word(regs, r))
    plot for [i=1:words(laws)] f u (strcol(1) eq word(regs,r) && strcol(6) eq word(laws,i) ? $8 : 1/0):10:10:11 \
             w yerrorlines pt 7 ps 0.5 lc rgb rl_color(i) title word(laws,i), \
         1/sqrt(12) w lines lc rgb 'gray40' dt 3 title 'point mass vs uniform: 1/√12'
}
unset multiplot
