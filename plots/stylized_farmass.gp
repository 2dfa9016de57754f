# Far mass rho_D against L with the rotation-only lower bound.
load plotdir.'/common.gp'
load plotdir.'/stylized_common.gp'
f = dir.'/stylized.tsv'
set title rl_title(sprintf("Far mass ρ_D (distances > %d) vs context length, |logit| ≤ λ = %g (d = %d, T_{train} = %d)", K, lambda, d, T))
set xlabel 'context length L (tokens)'
set ylabel sprintf('far mass ρ_D (mean ± SE across %d fits)', nfit)
set logscale xy
set format y '10^{%T}'
set yrange [1e-9:2]
set key inside right bottom box opaque
set arrow from T, graph 0 to T, graph 1 nohead lc rgb 'black' dt 2 lw 1.5
set label 'T_{train}' at T*1.1, graph 0.05
plot for [i=1:words(score_schemes)] f u (strcol(1) eq word(score_schemes,i) ? $2 : 1/0):7:8 w yerrorlines \
     pt scheme_pt(word(score_schemes,i)) ps 0.8 lc rgb scheme_color(word(score_schemes,i)) title word(score_labels,i) noenhanced, \
     f u (strcol(1) eq 'nope' ? $2 : 1/0):9 w lines lw 2.5 lc rgb 'black' title 'lower bound M_L/(M_L + K e^{2λ}), no bias'
