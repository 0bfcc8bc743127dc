# step keys: a key pair; the private key goes to the file PostUp reads
wg genkey | tee /etc/wireguard/wg0.key | wg pubkey

# step up: forward between interfaces and bring the tunnel up (and forget to masquerade)
sysctl -w net.ipv4.ip_forward=1
iptables -t nat -S POSTROUTING
wg-quick up wg0
ip route
