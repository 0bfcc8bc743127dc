# step keys: a key pair; the private key goes to the file PostUp reads
wg genkey | tee /etc/wireguard/wg0.key | wg pubkey

# step up: the interface, from the file
wg-quick up wg0

# step join: bob joins: one `wg set` on the running interface, nothing else changes
wg show wg0 latest-handshakes
wg set wg0 peer ${BOB_PUBKEY} allowed-ips 10.0.0.3/32
wg show wg0 latest-handshakes
wg show wg0 endpoints

# step save: write the running interface into the file (comments and all formatting go)
wg-quick save wg0
cat /etc/wireguard/wg0.conf
