# Per SO(2) block: the far contribution against M_L for circle angles and the study's U(-w_b, w_b).
load plotdir.'/common.gp'
if (term eq 'svg') { set terminal svg size 1500,620 dynamic enhanced font 'DejaVu Sans,12' } \
else { set terminal pngcairo size 1500,620 enhanced font 'DejaVu Sans,11' }
set output out
f = dir.'/values_blocks.tsv'
blocks = "0 4 8 12 16 20 24 31"
cols = "#e41a1c #377eb8 #4daf4a #984ea3 #ff7f00 #a65628 #f781bf #666666"
set multiplot layout 1,2 title sprintf("Per SO(2) block (d = %d): ‖r_b‖_{rms}/‖v̄_b‖ against far tokens M_L, measured ±SE (points) and exact (lines); ρ_D = %g", d, rho)
set logscale xy
set format y '10^{%T}'
set xrange [0.8:1e5]
set yrange [1e-3:2]
set xlabel 'far tokens M_L'
set ylabel '‖r_b‖_{rms} / ‖v̄_b‖'
set key inside left bottom box opaque font ',9' maxrows 4
set title 'circle-uniform angles U(−π, π): every block mixes in one step'
plot for [i=1:words(blocks)] f u (strcol(1) eq 'so2-circle' && $3 == word(blocks,i)+0 ? $6 : 1/0):10:11 w yerrorbars pt 7 ps 0.4 lc rgb word(cols,i) title 'b = '.word(blocks,i), \
     for [i=1:words(blocks)] f u (strcol(1) eq 'so2-circle' && $3 == word(blocks,i)+0 ? $6 : 1/0):12 w lines lw 2 lc rgb word(cols,i) notitle, \
     rho/sqrt(x) w lines lw 2 lc rgb 'black' dt 4 title 'ρ/√M_L'
set title "the study's U(−ω_b, ω_b), ω_b = 10000^{−2b/d}: fast blocks incoherent, slow ones coherent"
plot for [i=1:words(blocks)] f u (strcol(1) eq 'so2-study' && $3 == word(blocks,i)+0 ? $6 : 1/0):10:11 w yerrorbars pt 7 ps 0.4 lc rgb word(cols,i) title 'b = '.word(blocks,i), \
     for [i=1:words(blocks)] f u (strcol(1) eq 'so2-study' && $3 == word(blocks,i)+0 ? $6 : 1/0):12 w lines lw 2 lc rgb word(cols,i) notitle, \
     rho/sqrt(x) w lines lw 2 lc rgb 'black' dt 4 title 'ρ/√M_L', \
     rho w lines lw 2 lc rgb 'gray30' dt 3 title 'coherent ρ'
unset multiplot
