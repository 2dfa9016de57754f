routelab-plot 1
script	reproduce_positions
names	s:vars i:ctx i:bytes
numbers	128 0
string	rope random_qk random_qkv pemb_qk lf_qk alibi none rope@10000
