routelab-plot 1
script	reproduce_ratio_study
names	s:vars s:study s:seeds i:ctx i:bytes
numbers	64 1
string	random_qk random_qkv
string	random_qk random_qkv
string	seed42 seed43 seed44 seed45 seed46 seed47 seed48 seed49 seed50 seed51
