# Perplexity-like ratio against L/T_train, next to the study's ppl(L)/ppl(512).
load plotdir.'/common.gp'
load plotdir.'/stylized_common.gp'
f = dir.'/stylized.tsv'
s = dir.'/stylized_study.tsv'
# the study's variants of the data, each in its scheme's colour
rl_file = s; rl_col = 1; load plotdir.'/labels.gp'
study = rl_labels
set title rl_title(sprintf("Degradation past T_{train}: this model (filled, d = %d, T_{train} = %d, ± SE across %d fits) vs the study (open, dashed)", d, T, nfit))
set xlabel 'L / T_{train}   (study: L / 512)'
set ylabel 'exp(E[−log α_t(L)] − E[−log α_t(T)]);  study: ppl(L) / ppl(512)'
set logscale xy
set xrange [0.2:*]
set autoscale xfixmax
set key inside left top box opaque Left reverse width 3
set arrow from 1, graph 0 to 1, graph 1 nohead lc rgb 'black' dt 2 lw 1.5
set label 'T_{train}' at 1.1, graph 0.05
plot for [i=1:words(score_schemes)] f u (strcol(1) eq word(score_schemes,i) ? $3 : 1/0):15:16 w yerrorlines \
     pt scheme_pt(word(score_schemes,i)) ps 0.8 lc rgb scheme_color(word(score_schemes,i)) title word(score_labels,i) noenhanced, \
     for [i=1:words(study)] s u (strcol(1) eq word(study,i) ? $3 : 1/0):5 w linespoints dt 2 pt 6 ps 1 \
     lc rgb scheme_color(word(study,i)) title 'study '.word(study,i) noenhanced, \
     1 w lines lc rgb 'gray50' dt 3 notitle
