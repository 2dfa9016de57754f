# Fitted log-log slope of the per-block far contribution, measured and exact, for both angle laws.
load plotdir.'/common.gp'
f = dir.'/values_slopes.tsv'
# the families of the data with per-block rows (block >= 0: the SO(2) laws, circle U(−π, π) and
# the study's U(−ω_b, ω_b)); the others have one overall row. Points side by side.
laws = ''
stats f u (($3 >= 0 && !rl_has(laws, strcol(1))) ? (laws = laws.' '.strcol(1), 0) : 0) every ::1 nooutput
off(i) = 0.24*(i - 0.5 - words(laws)/2.0)
set title rl_title(sprintf("Which SO(2) blocks obey the 1/√M_L law (d = %d): log-log slope of ‖r_b‖_{rms} vs M_L", d))
set xlabel 'SO(2) block b (study law: ω_b = 10000^{−2b/d}; fit over the last six octaves of M_L)'
set ylabel 'log-log slope'
set xrange [-1:d/2]
set yrange [-0.7:0.15]
set key outside right top box opaque
plot for [i=1:words(laws)] f u (strcol(1) eq word(laws,i) && $3 >= 0 ? $3 + off(i) : 1/0):8:9 w yerrorbars pt (i == 1 ? 7 : 5) ps 0.7 \
        lc rgb rl_color(i) title word(laws,i).': measured ±SE', \
     for [i=1:words(laws)] f u (strcol(1) eq word(laws,i) && $3 >= 0 ? $3 : 1/0):10 w lines lw 2 lc rgb rl_color(i) title word(laws,i).': exact', \
     -0.5 w lines lc rgb 'black' dt 4 lw 1.5 title 'incoherent law: −1/2', \
     0 w lines lc rgb 'gray30' dt 3 lw 1.5 title 'coherent law: 0'
