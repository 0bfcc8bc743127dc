# step setup: a name server that is down in the worst way: it drops queries, never refuses them
iptables -A INPUT -p udp --dport 53 -j DROP
iptables -A INPUT -p tcp --dport 53 -j DROP
