routelab-plot 1
script	reproduce_ppl
names	s:vars s:study s:seeds i:ctx i:bytes
numbers	128 0
string	rope random_qk random_qkv pemb_qk lf_qk alibi none rope@10000
string	rope random_qk random_qkv pemb_qk lf_qk alibi
string	seed42 seed43 seed44
