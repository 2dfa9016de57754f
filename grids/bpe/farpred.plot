routelab-plot 1
script	reproduce_farpred
names	s:vars i:ctx
numbers	128
string	rope random_qk random_qkv pemb_qk lf_qk alibi none rope@10000
