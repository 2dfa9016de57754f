# run.gp: the one script routelab runs (program/report/plot.c), as
#   gnuplot -c PLOTDIR/run.gp SCRIPT DIR OUT TERM NAMES NUMBERS [S1 [S2 [S3]]]
# Every argument is data: no path or value is ever parsed as gnuplot code.
# NAMES lists the figure's variables as kind:name (kind i integer, r real,
# s string); the i and r values are the words of NUMBERS in order, the s
# values ARG7, ARG8, ARG9 in order, each behind a "=" (gnuplot drops an
# empty argument, so none is empty; an empty NAMES or NUMBERS is "-").  The
# names are identifiers checked by program/report/plot.c, the only text that
# reaches eval.
plotdir = ARG0[1:strlen(ARG0) - strlen('/run.gp')]
dir = ARG2
out = ARG3
term = ARG4
rl_n = 0
rl_s = 0
do for [rl_i = 1:words(ARG5)] {
    rl_w = word(ARG5, rl_i)
    if (rl_w[1:2] eq 's:') {
        rl_s = rl_s + 1
        eval rl_w[3:*].' = ARGV['.sprintf('%d', 6 + rl_s).'][2:*]'
    } else {
        if (rl_w[1:2] eq 'i:' || rl_w[1:2] eq 'r:') {
            rl_n = rl_n + 1
            eval rl_w[3:*].' = '.(rl_w[1:2] eq 'i:' ? 'int' : 'real').'(word(ARG6, '.sprintf('%d', rl_n).'))'
        }
    }
}
load plotdir.'/'.ARG1.'.gp'
