# Per SO(2) block: the far contribution against M_L for circle angles and the study's U(-w_b, w_b).
load plotdir.'/common.gp'
eval rl_term(1500, 620, 11)
set output out
f = dir.'/values_blocks.tsv'
# every fourth block and the slowest, from the blocks of the data; the two laws of the data
nb = 0
stats f u (nb = (int($3) + 1 > nb ? int($3) + 1 : nb), 0) every ::1 nooutput
blocks = ''
do for [b=0:nb-1:4] { blocks = blocks.sprintf(' %d', b) }
if (nb > 0 && (nb - 1) % 4 != 0) { blocks = blocks.sprintf(' %d', nb - 1) }
rl_file = f; rl_col = 1; load plotdir.'/labels.gp'
laws = rl_labels
# no SO(2) law when the run swept other families alone (--families householder):
# a panel that says so, and nothing else to read from the empty table
if (words(laws) == 0) {
    unset border; unset tics; unset key
    set label 1 'no SO(2) family in this run (--families): nothing to show' at graph 0.5, graph 0.5 center
    plot [0:1] [0:1] 1/0 notitle
    exit
}
stats f u 6 every ::1 nooutput
set xrange [STATS_min/1.25:STATS_max*1.25]
set multiplot layout 1,2 title sprintf("Per SO(2) block (d = %d): ‖r_b‖_{rms}/‖v̄_b‖ against far tokens M_L, measured ±SE (points) and exact (lines); ρ_D = %g", d, rho)
set logscale xy
set format y '10^{%T}'
set yrange [1e-3:2]
set xlabel 'far tokens M_L'
set ylabel '‖r_b‖_{rms} / ‖v̄_b‖'
set key inside left bottom box opaque font ',9' maxrows 4
set title rl_title((word(laws, 1) eq 'so2-circle' ? 'circle-uniform angles U(−π, π): every block mixes in one step' : word(laws, 1)))
plot for [i=1:words(blocks)] f u (strcol(1) eq word(laws, 1) && $3 == word(blocks,i)+0 ? $6 : 1/0):10:11 w yerrorbars pt 7 ps 0.4 lc rgb rl_color(i) title 'b = '.word(blocks,i), \
     for [i=1:words(blocks)] f u (strcol(1) eq word(laws, 1) && $3 == word(blocks,i)+0 ? $6 : 1/0):12 w lines lw 2 lc rgb rl_color(i) notitle, \
     rho/sqrt(x) w lines lw 2 lc rgb 'black' dt 4 title 'ρ/√M_L'
set title rl_title((word(laws, 2) eq 'so2-study' ? "the study's U(−ω_b, ω_b), ω_b = 10000^{−2b/d}: fast blocks incoherent, slow ones coherent" : word(laws, 2)))
plot for [i=1:words(blocks)] f u (strcol(1) eq word(laws, 2) && $3 == word(blocks,i)+0 ? $6 : 1/0):10:11 w yerrorbars pt 7 ps 0.4 lc rgb rl_color(i) title 'b = '.word(blocks,i), \
     for [i=1:words(blocks)] f u (strcol(1) eq word(laws, 2) && $3 == word(blocks,i)+0 ? $6 : 1/0):12 w lines lw 2 lc rgb rl_color(i) notitle, \
     rho/sqrt(x) w lines lw 2 lc rgb 'black' dt 4 title 'ρ/√M_L', \
     rho w lines lw 2 lc rgb 'gray30' dt 3 title 'coherent ρ'
unset multiplot
