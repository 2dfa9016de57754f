routelab-plot 1
script	reproduce_horizon
names	s:vars i:ctx i:cap i:top i:bytes
numbers	128 32768 16384 0
string	rope random_qk random_qkv pemb_qk lf_qk alibi none rope@10000
