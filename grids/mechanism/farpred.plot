routelab-plot 1
script	reproduce_farpred
names	s:vars i:ctx
numbers	64
string	rope alibi random_qk lf_qk random-hh path random_pos_qk
