routelab-plot 1
script	reproduce_ratio
names	s:vars s:study s:seeds i:ctx i:bytes
numbers	64 1
string	rope random_qk random_qkv pemb_qk pemb-shared_qk lf_qk alibi none rope@10000
string	rope random_qk random_qkv pemb_qk pemb-shared_qk lf_qk alibi
string	seed42 seed43 seed44 seed45 seed46 seed47
