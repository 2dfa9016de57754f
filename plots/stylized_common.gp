# stylized_common.gp: scheme names, labels, colours and points shared by the
# stylized figures, all from the schemes of stylized.tsv (in its order).
# random_qk and random_qkv share their scores (same fitted query, same
# draws), so the score-side figures draw them as one curve.
rl_file = dir.'/stylized.tsv'; rl_col = 1; load plotdir.'/labels.gp'
schemes = rl_labels
# one colour and one point type per scheme, the same in every stylized figure
scheme_color(w) = rl_color(rl_index(schemes, w))
scheme_pt(w) = word("7 5 9 8 11 13 4 6 10 12 14 15", (rl_index(schemes, w) - 1) % 12 + 1) + 0
merged = rl_has(schemes, 'random_qk') && rl_has(schemes, 'random_qkv')
score_schemes = ''
score_labels = ''
do for [w in schemes] {
    if (!(merged && w eq 'random_qkv')) {
        score_schemes = score_schemes.' '.w
        score_labels = score_labels.' '.((merged && w eq 'random_qk') ? 'random_qk=random_qkv' : w)
    }
}
set format x '%.0s%c'
set key Left reverse
