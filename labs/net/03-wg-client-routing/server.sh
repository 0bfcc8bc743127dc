# step keys: one key pair per interface
wg genkey | tee /etc/wireguard/wg0.key | wg pubkey
wg genkey | tee /etc/wireguard/wg1.key | wg pubkey

# step up: forward between peers and interfaces, then both tunnels
sysctl -w net.ipv4.ip_forward=1
wg-quick up wg0
wg-quick up wg1
ip route

# step talk: what the server knows about its peers
wg show wg0 endpoints
wg show wg1 endpoints
