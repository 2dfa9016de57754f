routelab-plot 1
script	reproduce_train
names	s:vars i:seeds i:smooth i:bytes
numbers	3 50 0
string	rope random_qk random_qkv pemb_qk lf_qk alibi none rope@10000
