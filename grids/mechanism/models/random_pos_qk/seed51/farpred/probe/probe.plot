routelab-plot 1
script	probe_farmass
names	i:L i:T s:name i:layers
numbers	8192 64 4
string	random_pos_qk
