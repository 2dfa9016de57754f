# Output SNR against L: component along v_t over the norm of the rest.
load plotdir.'/common.gp'
load plotdir.'/stylized_common.gp'
f = dir.'/stylized.tsv'
set title rl_title(sprintf("Output SNR vs context length (d = %d, T_{train} = %d): s = α_t v_t·V_t over |o − s v_t|", d, T))
set key inside left bottom box opaque
set xlabel 'context length L (tokens)'
set ylabel sprintf('output SNR (mean ± SE across %d fits)', nfit)
set logscale xy
set arrow from T, graph 0 to T, graph 1 nohead lc rgb 'black' dt 2 lw 1.5
set label 'T_{train}' at T*1.1, graph 0.95
plot for [i=1:words(schemes)] f u (strcol(1) eq word(schemes,i) && $17 > 0 ? $2 : 1/0):17:18 w yerrorlines \
     pt scheme_pt(word(schemes,i)) ps 0.8 lc rgb scheme_color(word(schemes,i)) title word(schemes,i) noenhanced, \
     1/sv w lines dt 2 lw 1.5 lc rgb 'black' title '1/σ_v: the target value noise alone'
