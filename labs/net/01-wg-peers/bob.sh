# step keys: a private key and a port for wg0, and its tunnel address
wg genkey | wg set wg0 listen-port 51820 private-key /dev/stdin
ip addr add 10.0.0.2/24 dev wg0
ip link set wg0 up
wg show wg0 public-key

# step peers: alice, reachable on the LAN, owns 10.0.0.1 inside the tunnel
wg set wg0 peer ${ALICE_PUBKEY} endpoint 192.168.50.10:51820 allowed-ips 10.0.0.1/32
wg show wg0 allowed-ips
ip route
