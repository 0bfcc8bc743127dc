# step keys: a key pair; the private key goes to the file PostUp reads
wg genkey | tee /etc/wireguard/wg0.key | wg pubkey

# step up: the interface, from the file
wg-quick up wg0

# step join: bob joins: his peer is in the file now, and the interface restarts to read it
wg show wg0 latest-handshakes
wg-quick down wg0
wg-quick up wg0
wg show wg0 latest-handshakes
wg show wg0 endpoints

# step save: the file as edited
cat /etc/wireguard/wg0.conf
