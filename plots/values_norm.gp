# The far value contribution against the number of far tokens, per transport, with the exact formula.
load plotdir.'/common.gp'
f = dir.'/values_norm.tsv'
fams = "none so2-circle so2-study householder haar"
cols = "#7b3294 #1b9e77 #2c7fb8 #e66101 #d7191c"
pts = "7 5 9 11 13"
set title sprintf("Far value contribution r = Σ_{far} α_j P(j→i) v_j (ρ_D = %g, d = %d, Haar d = %d): ‖r‖_{rms} ±SE, exact (lines)", rho, d, hd)
set xlabel 'far tokens M_L'
set ylabel '‖r‖_{rms}'
set logscale xy
set format y '10^{%T}'
set xrange [0.8:1e5]
set yrange [1e-3:2]
set key outside right top box opaque
plot for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) ? $3 : 1/0):7:8 w yerrorbars pt (word(pts,i)+0) ps 0.7 lc rgb word(cols,i) title word(fams,i), \
     for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) ? $3 : 1/0):9 w lines lc rgb word(cols,i) notitle, \
     rho w lines lw 2 lc rgb 'gray30' dt 3 title 'coherent: ρ‖v̄‖', \
     rho/sqrt(x) w lines lw 2 lc rgb 'black' dt 4 title 'ρ/√M_L (slope −1/2)'
