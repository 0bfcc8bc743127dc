# step up: a home router: forward, and masquerade what leaves by eth0
sysctl -w net.ipv4.ip_forward=1
iptables -t nat -A POSTROUTING -o eth0 -j MASQUERADE
iptables -t nat -S POSTROUTING
