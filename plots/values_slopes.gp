# Fitted log-log slope of the per-block far contribution, measured and exact, for both angle laws.
load plotdir.'/common.gp'
f = dir.'/values_slopes.tsv'
set title sprintf("Which SO(2) blocks obey the 1/√M_L law (d = %d): log-log slope of ‖r_b‖_{rms} vs M_L", d)
set xlabel 'SO(2) block b (study law: ω_b = 10000^{−2b/d}; fit over the last six octaves of M_L)'
set ylabel 'log-log slope'
set xrange [-1:d/2]
set yrange [-0.7:0.15]
set key outside right top box opaque
plot f u (strcol(1) eq 'so2-circle' && $3 >= 0 ? $3 - 0.12 : 1/0):8:9 w yerrorbars pt 7 ps 0.7 lc rgb rl_color(1) title 'circle U(−π, π): measured ±SE', \
     f u (strcol(1) eq 'so2-circle' && $3 >= 0 ? $3 : 1/0):10 w lines lw 2 lc rgb rl_color(1) title 'circle: exact', \
     f u (strcol(1) eq 'so2-study' && $3 >= 0 ? $3 + 0.12 : 1/0):8:9 w yerrorbars pt 5 ps 0.7 lc rgb rl_color(2) title "study U(−ω_b, ω_b): measured ±SE", \
     f u (strcol(1) eq 'so2-study' && $3 >= 0 ? $3 : 1/0):10 w lines lw 2 lc rgb rl_color(2) title 'study: exact', \
     -0.5 w lines lc rgb 'black' dt 4 lw 1.5 title 'incoherent law: −1/2', \
     0 w lines lc rgb 'gray30' dt 3 lw 1.5 title 'coherent law: 0'
