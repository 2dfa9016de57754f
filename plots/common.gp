# common.gp: terminal, output and defaults shared by every routelab figure.
# Variables set by routelab: plotdir, dir (data folder), out (image file), term.
if (term eq 'svg') {
    set terminal svg size 960,640 dynamic enhanced font 'DejaVu Sans,12'
} else {
    set terminal pngcairo size 960,640 enhanced font 'DejaVu Sans,11'
}
set output out
set datafile separator "\t"
set datafile missing "nan"
set key outside right top box opaque
set grid
set style data points
