routelab-plot 1
script	reproduce_trajectory
names	s:ids r:delta i:ctx
numbers	4.8790164169432049e-02 64
string	vtraj:random_qk>random_qkv@16 vtraj:random_qk>random_qkv@128
