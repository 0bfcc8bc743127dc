# step keys: a key pair; the private key goes to the file PostUp reads
wg genkey | tee /etc/wireguard/wg0.key | wg pubkey

# step up: masquerade what leaves to the internet, then the tunnel (forwarding stays off)
iptables -t nat -A POSTROUTING -o eth1 -j MASQUERADE
iptables -t nat -S POSTROUTING
wg-quick up wg0
ip route
