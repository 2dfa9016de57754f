routelab-plot 1
script	reproduce_train
names	s:vars i:seeds i:smooth i:bytes
numbers	6 50 1
string	rope random_qk random_qkv pemb_qk pemb-shared_qk lf_qk alibi none rope@10000
