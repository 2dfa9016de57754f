routelab-plot 1
script	probe_distance
names	i:L i:T s:name i:layers
numbers	16384 128 4
string	random_qkv
