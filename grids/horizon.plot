routelab-plot 1
script	reproduce_horizon
names	s:vars i:ctx i:cap i:top i:bytes
numbers	64 16384 8192 1
string	rope random_qk random_qkv pemb_qk pemb-shared_qk lf_qk alibi none rope@10000
