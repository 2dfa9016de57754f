# stylized_common.gp: scheme names, labels, colours and points shared by the
# stylized figures.  random_qk and random_qkv share their scores (same fitted
# query, same draws), so the score-side figures draw them as one curve.
schemes = "nope rope random_qk random_qkv haar alibi alibi+random_qkv"
cols = "#7b3294 #009e73 #56b4e9 #e69f00 #cc79a7 #0072b2 #d55e00"
pts = "7 5 9 8 11 13 4"
score_schemes = "nope rope random_qk haar alibi alibi+random_qkv"
score_labels = "nope rope random_qk=random_qkv haar alibi alibi+random_qkv"
score_cols = "#7b3294 #009e73 #56b4e9 #cc79a7 #0072b2 #d55e00"
score_pts = "7 5 9 11 13 4"
set format x '%.0s%c'
set key Left reverse
