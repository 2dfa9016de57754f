# Each family far beyond its window, key aligned with the query: one panel per d.
load plotdir.'/common.gp'
f = dir.'/concentration_families.tsv'
c = dir.'/concentration_curves.tsv'
# the families of the data
rl_file = f; rl_col = 1; load plotdir.'/labels.gp'
fams = rl_labels
n = words(ds)
ncol = (n <= 4) ? 2 : 4
nrow = (n + ncol - 1) / ncol
eval rl_term(1500, 500*nrow, 10)
set output out
set multiplot layout nrow,ncol title "Score tails far beyond the mixing window (k̂ = q̂): measured ±SE, exact Beta law (black), cap bound (Ball) (dashed); PaTH (path-*) plotted as the direction q̂^T Pk̂/|Pk̂|"
set logscale y
set format y '10^{%L}'
set yrange [1e-4:1.5]
set xlabel 't (score threshold)'
set ylabel 'P(|score| ≥ t)'
set key inside left bottom font ',9' box opaque
# PaTH's transport is not orthogonal: its score is read as a direction (columns 15, 16)
dir_col(w) = w[1:5] eq 'path-' ? 1 : 0
do for [j=1:n] {
    dd = word(ds,j)+0
    set title rl_title(sprintf('d = %d', dd))
    set xrange [0:(5.0/sqrt(dd) < 1 ? 5.0/sqrt(dd) : 1)]
    plot for [i=1:words(fams)] f u (strcol(1) eq word(fams,i) && $2 == dd ? $6 : 1/0):(dir_col(word(fams,i)) ? $15 : $8):(dir_col(word(fams,i)) ? $16 : $9) \
            w yerrorbars pt 7 ps 0.5 lc rgb rl_color(i) title word(fams,i), \
         c u ($1 == dd ? $2 : 1/0):4 w lines lw 2 lc rgb 'black' title 'Beta (exact)', \
         c u ($1 == dd ? $2 : 1/0):5 w lines dt 2 lw 1.5 lc rgb 'gray30' title 'cap bound (Ball)'
}
unset multiplot
