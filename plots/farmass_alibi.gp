# ALiBi far mass (Householder and NoPE) for four of the study's slopes, with the closed forms.
load plotdir.'/common.gp'
eval rl_term(1400, 950, 11)
set output out
f = dir.'/farmass.tsv'
# four of the data's nonzero slopes, as listed in farmass.tsv (steepest first): the
# steepest, the shallowest and two between, evenly by rank
rl_file = f; rl_col = 5; load plotdir.'/labels.gp'
all = ''
do for [w in rl_labels] { if (w + 0 > 0) { all = all.' '.w } }
ns = words(all)
slopes = ''
do for [k=0:3] { slopes = slopes.' '.word(all, 1 + int((ns - 1)*k/3.0 + 0.5)) }
names = ''
do for [w in slopes] { names = names.' '.sprintf('2^{%d}', int(floor(log(w + 0)/log(2) + 0.5))) }
stats f u 6 every ::1 nooutput
lmin = STATS_min
lmax = STATS_max
set multiplot layout 2,2 title sprintf("ALiBi bias −m·δ (d = %d, K = %d): the far mass stays bounded and falls below the rotation-only lower bound", d, K)
set logscale xy
set format y '10^{%T}'
set xrange [lmin/1.25:lmax*1.25]
set yrange [1e-5:3]
set xlabel 'context length L = K + M_L (tokens)'
set ylabel 'far mass ρ_D'
unset key
do for [j=1:words(lams)] {
    lam = word(lams,j)+0
    set title rl_title(sprintf("λ = %g", lam))
    plot for [i=1:words(slopes)] f u (strcol(1) eq 'householder' && $4 == lam && abs($5 - word(slopes,i)) < 1e-12 ? $6 : 1/0):8:9 w yerrorbars pt 7 ps 0.6 lc rgb rl_color(i), \
         for [i=1:words(slopes)] f u (strcol(1) eq 'none' && $4 == lam && abs($5 - word(slopes,i)) < 1e-12 ? $6 : 1/0):8 w points pt 6 ps 1.0 lc rgb rl_color(i), \
         for [i=1:words(slopes)] f u (strcol(1) eq 'none' && $4 == lam && abs($5 - word(slopes,i)) < 1e-12 ? $6 : 1/0):13 w lines dt 2 lw 1.5 lc rgb rl_color(i), \
         f u (strcol(1) eq 'householder' && $4 == lam && $5 == 0 ? $6 : 1/0):12 w lines lw 2.5 lc rgb 'black', \
         f u (strcol(1) eq 'householder' && $4 == lam && $5 == 0 ? $6 : 1/0):8 w lines lw 1.5 lc rgb 'gray40'
}
unset border; unset tics; unset xlabel; unset ylabel; unset title; unset logscale
set xrange [0:1]; set yrange [0:1]
set key center center box opaque font ',12' spacing 1.4
plot for [i=1:words(slopes)] NaN w linespoints pt 7 ps 1.2 lw 2 lc rgb rl_color(i) title 'slope m = '.word(names,i), \
     NaN w points pt 7 ps 1.2 lc rgb 'black' title 'filled: Householder + ALiBi (mean ± SE)', \
     NaN w points pt 6 ps 1.2 lc rgb 'black' title 'open: NoPE + ALiBi (the study''s alibi)', \
     NaN w lines dt 2 lw 1.5 lc rgb 'black' title 'dashed: worst-case closed form (far +λ, near −λ)', \
     NaN w lines lw 2.5 lc rgb 'black' title 'rotation-only lower bound M/(M + K e^{2λ})', \
     NaN w lines lw 1.5 lc rgb 'gray40' title 'Householder without bias (measured)'
unset multiplot
