routelab-plot 1
script	probe_distance
names	i:L i:T s:name i:layers
numbers	8192 64 4
string	rope
