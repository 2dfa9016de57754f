# Each family far beyond its window, key aligned with the query: one panel per d.
load plotdir.'/common.gp'
cols = "#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #17becf #7f7f7f"
f = dir.'/concentration_families.tsv'
c = dir.'/concentration_curves.tsv'
n = words(ds)
ncol = (n <= 4) ? 2 : 4
nrow = (n + ncol - 1) / ncol
if (term eq 'svg') {
    set terminal svg size 1500,500*nrow dynamic enhanced font 'DejaVu Sans,11'
} else {
    set terminal pngcairo size 1500,500*nrow enhanced font 'DejaVu Sans,10'
}
set output out
fams = "householder lazy-haar-p0.1 brownian path-beta1 so2-circle so2-study-65536"
set multiplot layout nrow,ncol title "Score tails far beyond the mixing window (k̂ = q̂): measured ±SE, exact Beta law (black), cap bound (Ball) (dashed); path-beta1 plotted as the direction q̂^T Pk̂/|Pk̂|"
set logscale y
set format y '10^{%L}'
set yrange [1e-4:1.5]
set xlabel 't (score threshold)'
set ylabel 'P(|score| ≥ t)'
set key inside left bottom font ',9' box opaque
do for [j=1:n] {
    dd = word(ds,j)+0
    set title sprintf('d = %d', dd)
    set xrange [0:(5.0/sqrt(dd) < 1 ? 5.0/sqrt(dd) : 1)]
    plot for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) && $2 == dd ? $6 : 1/0):(i == 4 ? $15 : $8):(i == 4 ? $16 : $9) \
            w yerrorbars pt 7 ps 0.5 lc rgb word(cols,i) title word(fams,i), \
         c u ($1 == dd ? $2 : 1/0):4 w lines lw 2 lc rgb 'black' title 'Beta (exact)', \
         c u ($1 == dd ? $2 : 1/0):5 w lines dt 2 lw 1.5 lc rgb 'gray30' title 'cap bound (Ball)'
}
unset multiplot
