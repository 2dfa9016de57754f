routelab-plot 1
script	reproduce_positions
names	s:vars i:ctx i:bytes
numbers	64 1
string	rope alibi random_qk lf_qk random-hh path random_pos_qk
