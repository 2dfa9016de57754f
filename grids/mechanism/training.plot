routelab-plot 1
script	reproduce_train
names	s:vars i:seeds i:smooth i:bytes
numbers	10 50 1
string	rope alibi random_qk lf_qk random-hh path random_pos_qk
