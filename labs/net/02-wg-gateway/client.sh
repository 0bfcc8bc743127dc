# step keys: a key pair; the private key goes to the file PostUp reads
wg genkey | tee /etc/wireguard/wg0.key | wg pubkey

# step up: the tunnel, for all traffic
wg-quick up wg0
ip rule
ip route
ip route show table 51820

# step talk: the first packet makes the handshake
ping -c 1 10.0.0.1
wg show wg0 latest-handshakes
