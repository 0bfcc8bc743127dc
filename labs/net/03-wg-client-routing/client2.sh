# step keys: a key pair; the private key goes to the file PostUp reads
wg genkey | tee /etc/wireguard/wg0.key | wg pubkey

# step up: the tunnel; wg-quick routes the AllowedIPs into it
wg-quick up wg0
ip route

# step talk: the first packet to the server makes the handshake
ping -c 1 10.0.0.1
