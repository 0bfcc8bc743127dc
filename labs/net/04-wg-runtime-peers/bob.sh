# step keys: a key pair; the private key goes to the file PostUp reads
wg genkey | tee /etc/wireguard/wg0.key | wg pubkey

# step join: bob's tunnel, once the server knows his key
wg-quick up wg0

# step save: SaveConfig = true: `wg-quick down` rewrites the file from the running interface
wg-quick down wg0
cat /etc/wireguard/wg0.conf
wg-quick up wg0
