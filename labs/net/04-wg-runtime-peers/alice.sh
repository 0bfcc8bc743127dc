# step keys: a key pair; the private key goes to the file PostUp reads
wg genkey | tee /etc/wireguard/wg0.key | wg pubkey

# step up: the tunnel; PostUp's ping makes the handshake
wg-quick up wg0
wg show wg0 endpoints
