# labels.gp: the distinct entries of one column of a TSV, in the order they first
# appear, as a word list, so that the curves a figure draws come from its data
# and not from a list typed in the script.  In: rl_file (the TSV), rl_col (the
# column number).  Out: rl_labels.  The header line is skipped (every ::1);
# entries are single words (family, scheme and law names; numbers as written).
rl_labels = ' '
stats rl_file u (rl_w = strcol(rl_col), strstrt(rl_labels, ' '.rl_w.' ') ? 0 : (rl_labels = rl_labels.rl_w.' ', 0)) \
    every ::1 nooutput
rl_labels = rl_labels[2:strlen(rl_labels) - 1]
undefine STATS_*
