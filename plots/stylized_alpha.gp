# Target weight alpha_t against context length L, per scheme, T_train marked.
load plotdir.'/common.gp'
load plotdir.'/stylized_common.gp'
f = dir.'/stylized.tsv'
set title rl_title(sprintf("One attention layer, fitted queries (d = %d, T_{train} = %d, λ = %g): target weight vs context length", d, T, lambda))
set xlabel 'context length L (tokens)'
set ylabel sprintf('target weight α_t (mean ± SE across %d fits)', nfit)
set logscale xy
set yrange [*:1.5]
set key inside left bottom box opaque width 2
set arrow from T, graph 0 to T, graph 1 nohead lc rgb 'black' dt 2 lw 1.5
set label 'T_{train}' at T*1.1, graph 0.6
set arrow from 16*T, graph 0 to 16*T, graph 1 nohead lc rgb 'gray60' dt 3
set arrow from 128*T, graph 0 to 128*T, graph 1 nohead lc rgb 'gray60' dt 3
set label '16T' at 16*T*1.1, graph 0.6 tc rgb 'gray40'
set label '128T' at 128*T*1.1, graph 0.6 tc rgb 'gray40'
plot for [i=1:words(score_schemes)] f u (strcol(1) eq word(score_schemes,i) ? $2 : 1/0):5:6 w yerrorlines \
     pt scheme_pt(word(score_schemes,i)) ps 0.8 lc rgb scheme_color(word(score_schemes,i)) title word(score_labels,i) noenhanced
