routelab-plot 1
script	reproduce_horizon
names	s:vars i:ctx i:cap i:top i:bytes
numbers	64 16384 8192 1
string	rope alibi random_qk lf_qk random-hh path random_pos_qk
