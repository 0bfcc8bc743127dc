# step keys: a key pair; the private key goes to the file PostUp reads
wg genkey | tee /etc/wireguard/wg0.key | wg pubkey

# step up: the default route through the home router, then the tunnel
ip route add default via 192.168.60.1
wg-quick up wg0
ip route
