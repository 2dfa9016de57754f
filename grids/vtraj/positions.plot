routelab-plot 1
script	reproduce_positions
names	s:vars i:ctx i:bytes
numbers	64 1
string	random_qk random_qkv
