routelab-plot 1
script	reproduce_positions
names	s:vars i:ctx i:bytes
numbers	64 1
string	rope random_qk random_qkv pemb_qk pemb-shared_qk lf_qk alibi none rope@10000
