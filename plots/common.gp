# common.gp: terminal, output and defaults shared by every routelab figure.
# Variables set by plots/run.gp from routelab's arguments (data, never code): plotdir,
# dir (data folder), out (image file), term, and the figure's own (program/report/plot.c).
# The terminal of a figure of w x h pixels with a PNG font of f points (its
# SVG one point larger); `routelab plot` restyles a drawn figure through
# restyle_scale (its size) and restyle_font (its PNG font), which every
# figure's rl_term reads (a figure with a size of its own calls rl_term
# itself, then `set output out` again).
rl_px(x) = exists("restyle_scale") ? int(x * restyle_scale) : int(x)
rl_pt(f) = exists("restyle_font") ? restyle_font : f
rl_term(w, h, f) = term eq 'svg' ? \
    sprintf("set terminal svg size %d,%d dynamic enhanced font 'DejaVu Sans,%d'", rl_px(w), rl_px(h), rl_pt(f) + 1) : \
    term eq 'pdf' ? \
    sprintf("set terminal pdfcairo size %.2fin,%.2fin enhanced font 'DejaVu Sans,%d'", rl_px(w) / 96.0, rl_px(h) / 96.0, rl_pt(f)) : \
    sprintf("set terminal pngcairo size %d,%d enhanced font 'DejaVu Sans,%d'", rl_px(w), rl_px(h), rl_pt(f))
eval rl_term(960, 640, 11)
set output out
set datafile separator "\t"
set datafile missing "nan"
set key outside right top box opaque
set grid
set style data points
# Sixteen distinguishable colours (Okabe-Ito first), for one curve per variant,
# family, scheme or block in every figure: lc rgb rl_color(i) with i = 1, 2, ...
# No black among them (olive in its place): black and grays draw references.
# (sixteen: the mixing sweep has 13 families and laws, one colour each)
rl_colors = "#0072b2 #d55e00 #009e73 #cc79a7 #e69f00 #56b4e9 #808000 #f0e442 #8b4513 #7f7f7f #9400d3 #2e8b57 \
             #000080 #ff1493 #00ced1 #b8860b"
# (i < 1, e.g. the index of a name not in a list: the tenth, gray; gnuplot
# evaluates a plot clause's options once even for an empty iteration)
rl_color(i) = word(rl_colors, i >= 1 ? (i - 1) % words(rl_colors) + 1 : 10)
# The position of word w in the word list l (0 when absent), so that one name
# keeps its colour in every panel of a figure: lc rgb rl_color(rl_index(all, w)).
# Black and grays are kept for references (bounds, exact laws, levels).
rl_index(l, w) = sum [rl_k = 1:words(l)] (word(l, rl_k) eq w ? rl_k : 0)
# Whether w is a word of l.
rl_has(l, w) = rl_index(l, w) > 0
# Tick marks for a log axis of ratios or perplexities from lo to hi: gnuplot
# labels only powers of ten by itself, which leaves a 1-to-8 axis with the one
# label "1".  A short span gets fine steps, a long one coarse ones, so that
# labels never collide (eval 'set ytics '.rl_log_tics(lo, hi)).
rl_log_tics(lo, hi) = hi/lo < 1.6 ? "(0.8, 0.85, 0.9, 0.95, 1, 1.05, 1.1, 1.15, 1.2, 1.3, 1.4, 1.5, 1.6, 1.8)" : \
    hi/lo < 40 ? "(0.5, 0.7, 1, 1.5, 2, 3, 4, 5, 7, 10, 15, 20, 30, 40, 50, 70, 100, 150, 200)" : \
    "(0.01, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 1e4, 1e5)"
# A title that fits the figure's width: past 90 characters it breaks at the
# last space before the 90th onto a second line (a clipped title was
# unreadable).  set title rl_title(sprintf(...))
rl_brk(s, i) = i < 2 ? 0 : (s[i:i] eq ' ' ? i : rl_brk(s, i - 1))
rl_title(s) = strlen(s) <= 90 || rl_brk(s, 90) == 0 ? s : s[1:rl_brk(s, 90) - 1]."\n".s[rl_brk(s, 90) + 1:*]
