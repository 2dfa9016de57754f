# SO(2) block scores, q = k spread evenly vs concentrated in the low-frequency quarter.
load plotdir.'/common.gp'
f = dir.'/concentration_so2.tsv'
c = dir.'/concentration_curves.tsv'
# the angle laws and the query configurations of the data
rl_file = f; rl_col = 1; load plotdir.'/labels.gp'
laws = rl_labels
rl_col = 2; load plotdir.'/labels.gp'
cfgs = rl_labels
eval rl_term(1500, 660, 10)
set output out
# no SO(2) law when the run swept other families alone (--families householder):
# a panel that says so, and nothing else to read from the empty tables
if (words(laws) == 0) {
    unset border; unset tics; unset key
    set label 1 'no SO(2) family in this run (--families): nothing to show' at graph 0.5, graph 0.5 center
    plot [0:1] [0:1] 1/0 notitle
    exit
}
stats f u 7 every ::1 nooutput
xmax = STATS_max
stats dir.'/concentration_so2_scale.tsv' u 4 every ::1 nooutput
smin = STATS_min
smax = STATS_max
set multiplot layout 1,3 title "SO(2) blocks, aligned q = k: s = Σ_b a_b cos Φ_b, a_b = |q_b|^2; Hoeffding 2exp(-t^2/(2Σa_b^2)) as lines"
set key outside bottom center horizontal font ',9' box opaque
set bmargin 10
set logscale y
set format y '10^{%L}'
set yrange [1e-4:1.5]
set xrange [0:xmax*1.05]
set xlabel 'x = t √d'
set ylabel 'P(|s - E s| ≥ t)'
dmax = word(ds, words(ds))+0
do for [L=1:words(laws)] {
    law = word(laws, L)
    set title rl_title((law eq 'circle') ? 'circle angles (all blocks mixed), centered' : "study's U(-ω_b, ω_b), n = 65,536, centered")
    if (law ne 'circle') {
        set label 1 "low quarter (□): those blocks barely move,\nVar s ≤ 3·10^{-4}, so |s - Es| < t\nat every t of the grid (no points)" at graph 0.3, graph 0.22 font ',9'
    } else {
        unset label 1
    }
    plot for [g=1:words(cfgs)] for [i=1:words(ds)] f u (strcol(1) eq law && strcol(2) eq word(cfgs,g) && $3 == word(ds,i)+0 && $8 > 0 ? $7 : 1/0):8:9 \
            w yerrorbars pt (g == 1 ? 7 : 4) ps 0.55 lc rgb rl_color(i) title (g == 1 ? 'd = '.word(ds,i) : ''), \
         c u ($1 == dmax ? $3 : 1/0):6 w lines lw 2 lc rgb 'black' title 'Hoeffding, spread (● points)', \
         c u ($1 == dmax ? $3 : 1/0):7 w lines lw 2 dt 2 lc rgb 'black' title 'Hoeffding, low quarter (□ points)'
}
unset label 1
# the scale of |s| itself: sqrt(d) * rms(s) against d (flat = O(1/sqrt d))
g = dir.'/concentration_so2_scale.tsv'
set title rl_title('scale of the score itself: √d · rms(s) (flat in d ⇔ O(1/√d))')
unset logscale y
set logscale xy
set format y '%g'
set xrange [(word(ds,1)+0)/1.5:dmax*1.5]
set yrange [smin/2:smax*2]
set xlabel 'd (dimension)'
set ylabel '√d · rms(s)'
set key outside bottom center horizontal font ',9' box opaque
set bmargin 10
plot for [L=0:1] for [gg=0:1] g u ($1 == L && $2 == gg ? $3 : 1/0):4:5 w yerrorbars pt (gg == 0 ? 7 : 4) ps 0.9 lc rgb rl_color(1+2*L+gg) \
        title (L == 0 ? 'circle, ' : 'U(-ω_b,ω_b) n = 65,536, ').(gg == 0 ? 'spread' : 'low quarter'), \
     for [L=0:1] for [gg=0:1] g u ($1 == L && $2 == gg ? $3 : 1/0):6 w lines lc rgb rl_color(1+2*L+gg) dt 2 notitle, \
     1/0 w lines dt 2 lc rgb 'black' title 'exact (χ_b^n)'
unset multiplot
