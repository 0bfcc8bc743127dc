# step keys: a key pair; the private key goes to the file PostUp reads
wg genkey | tee /etc/wireguard/wg0.key | wg pubkey

# step up: forward between interfaces, masquerade what leaves to the internet, then the tunnel
sysctl -w net.ipv4.ip_forward=1
iptables -t nat -A POSTROUTING -o eth1 -j MASQUERADE
iptables -t nat -S POSTROUTING
wg-quick up wg0
ip route
