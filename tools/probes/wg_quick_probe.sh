#!/bin/bash
# Record what real wg-quick (wireguard-tools 1.0.20210914, Debian 12) prints over wireguard-go,
# for labsim's wg-quick model (sim/src/labsim/wg/quick.py, tests/unit/test_wg_quick.py).
#
# Runs unprivileged inside `unshare -Urnm` (a user, network and mount namespace that vanish
# with the process): tmpfs on /run (wireguard-go's control sockets) and on /etc/wireguard
# (mode 0700, as the wireguard-tools package makes it), a private /etc/hosts that names
# bob, and a veth eth0 192.168.50.10/24 (its peer eth1 unaddressed) standing in for the LAN.
# Keys are the fixed ones of tests/unit/wg_samples.py so that outputs compare text for text.
# Nothing is left behind: every interface is deleted at the end (wireguard-go exits when its
# tun device goes), and routes, rules, iptables rules and sysctls live in the namespace.
# The host has no WireGuard module, so wg-quick falls back to wireguard-go (see the tests
# for what kernel WireGuard prints instead). Needs: wireguard-tools, wireguard-go, iproute2,
# iptables (nftables not installed: wg-quick then uses iptables-restore).
#
# Usage: bash tools/probes/wg_quick_probe.sh > /tmp/wg_quick_probe.txt
set -u
if [[ ${WG_QUICK_PROBE_INSIDE:-} != 1 ]]; then
	exec env WG_QUICK_PROBE_INSIDE=1 unshare -Urnm bash "$0" "$@"
fi

IF0_PRIV="+DYa1mgGemfMtLnbD/03oYvQSovhj9ZG6itRP8V59WA="
IF1_PUB="OyTIHHcA6YRXcDSvLHT0wM+MKNNsfO9u3zoT5WjQjxs="
P1_PUB="9OvDm8avt0nMWJ/5bWdfOuxHbPwD5nHFpJHpsHOJxSk="

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mount -t tmpfs tmpfs /run
mount -t tmpfs -o mode=0700 tmpfs /etc/wireguard
printf '127.0.0.1\tlocalhost\n192.168.50.11\tbob\n' > "$work/hosts"
mount --bind "$work/hosts" /etc/hosts
ip link set lo up
ip link add eth0 type veth peer name eth1
ip link set eth1 up
ip addr add 192.168.50.10/24 dev eth0
ip link set eth0 up
umask 022

# run LABEL CMD...: the command's stdout, stderr and exit status, each marked.
run() {
	local label="$1" status
	shift
	echo "### $label: $*"
	"$@" >"$work/out" 2>"$work/err"
	status=$?
	echo "--- stdout"; cat "$work/out"
	echo "--- stderr"; cat "$work/err"
	echo "--- status $status"
}

conf() {  # conf NAME TEXT: write /etc/wireguard/NAME.conf
	printf '%s' "$2" > "/etc/wireguard/$1.conf"
}

# 1. The non-default-route case: several addresses, a hostname endpoint, hooks, SaveConfig.
conf wg0 "# alice's tunnel
[Interface]
# the key
PrivateKey = $IF0_PRIV
Address = 10.0.0.1/24, 10.0.0.5/32
Address = 10.0.3.1/24
SaveConfig = true
PreUp = echo pre-up %i
PostUp = echo post-up %i; echo second
PreDown = echo pre-down %i
PostDown = echo post-down %i

[Peer]
# bob
PublicKey = $IF1_PUB
Endpoint = bob:51820
AllowedIPs = 10.0.0.2/32, 10.0.1.0/24
PersistentKeepalive = 25

[Peer]
PublicKey = $P1_PUB
AllowedIPs = 10.0.2.0/24, 10.0.0.0/16
"
run strip wg-quick strip wg0
run up wg-quick up wg0
run addr ip -brief address show dev wg0
run link ip link show dev wg0
run route ip route
run showconf wg showconf wg0
run up-again wg-quick up wg0
run save wg-quick save wg0
run saved cat /etc/wireguard/wg0.conf
run down wg-quick down wg0
run saved-after-down cat /etc/wireguard/wg0.conf
run route-after-down ip route
run down-again wg-quick down wg0

# 2. MTU and Table=off; a file given by path, in a world-readable directory.
mkdir -p "$work/d"; chmod 755 "$work/d"
printf '[Interface]\nPrivateKey = %s\nListenPort = 51000\nMTU = 1420\nTable = off\n\n[Peer]\nPublicKey = %s\nAllowedIPs = 10.0.1.0/24\nEndpoint = 192.168.50.11:51820\n' \
	"$IF0_PRIV" "$IF1_PUB" > "$work/d/wg1.conf"
run up-path wg-quick up "$work/d/wg1.conf"
run route-off ip route
run save-path wg-quick save "$work/d/wg1.conf"
run saved-path cat "$work/d/wg1.conf"
run down-path wg-quick down "$work/d/wg1.conf"

# 3. Table = 1234, and no endpoint at all (MTU from nothing: 1500 - 80).
conf wg2 "[Interface]
PrivateKey = $IF0_PRIV
Address = 10.0.0.1/24
Table = 1234

[Peer]
PublicKey = $IF1_PUB
AllowedIPs = 10.0.1.0/24, 10.0.0.2/32
"
run up-table wg-quick up wg2
run route-table ip route show table 1234
run down-table wg-quick down wg2

# 4. Errors.
run missing wg-quick up wg9
run usage wg-quick
run help wg-quick --help
run bad-name wg-quick up "$work/d/bad name.conf"
touch "$work/d/x.y"
run not-conf wg-quick up "$work/d/x.y"
conf eth0 "[Interface]
"
run down-not-wg wg-quick down eth0
conf wg3 "[Interface]
PrivateKey = $IF0_PRIV
"
run down-absent wg-quick down wg3
run save-absent wg-quick save wg3
conf wg4 "[Interface]
SaveConfig = yes
"
run bad-bool wg-quick up wg4
conf wg5 "[Interface]
PrivateKey = $IF0_PRIV
Address = 10.0.0.1/24
Bogus = 1

[Peer]
PublicKey = $IF1_PUB
AllowedIPs = 10.0.1.0/24
"
run bad-line wg-quick up wg5
run after-bad-line ip link show dev wg5
conf wg6 "[Interface]
PrivateKey = $IF0_PRIV
Address = 10.0.0.300/24
"
run bad-address wg-quick up wg6
conf wg7 "[Interface]
PrivateKey = $IF0_PRIV
Address = 10.0.0.1/24
DNS = 10.0.0.53, example.com
"
run dns wg-quick up wg7
conf wg8 "[Interface]
PrivateKey = $IF0_PRIV
PostUp = nosuchcmd %i
"
run failing-hook wg-quick up wg8
conf wg8 "[Interface]
PrivateKey = $IF0_PRIV
PreUp = nosuchcmd %i
"
run failing-pre-up wg-quick up wg8
conf wg8 "[Interface]
PrivateKey = $IF0_PRIV
PreDown = nosuchcmd %i
PostDown = echo post-down %i
"
run up-for-failing-pre-down wg-quick up wg8
run failing-pre-down wg-quick down wg8
run still-there wg show interfaces
ip link del wg8
conf wg8 "[Interface]
PrivateKey = $IF0_PRIV
Address = 10.0.0.1/24,10.0.0.1/24
"
run dup-address wg-quick up wg8
conf wg8 "[Interface]
PrivateKey = $IF0_PRIV
Address = 10.0.0.1/24
[Peer]
PublicKey = $IF1_PUB
AllowedIPs = 192.168.50.0/24
"
run route-exists wg-quick up wg8
conf wg8 "[Interface]
PrivateKey = $IF0_PRIV
[Peer]
PublicKey = $IF1_PUB
Endpoint = 10.9.9.9:51820
AllowedIPs = 10.0.1.0/24
"
run unreachable-endpoint wg-quick up wg8
run unreachable-endpoint-down wg-quick down wg8
conf wg8 "  [interface]
	privatekey = $IF0_PRIV
  address=10.0.0.1/24   # trailing comment
mtu = 1400
[peer]
publickey = $IF1_PUB
endpoint = 10.9.9.9:51820
allowedips = 10.0.1.0/24"
run casing-strip wg-quick strip wg8
run casing-up wg-quick up wg8
run casing-save wg-quick save wg8
run casing-saved cat /etc/wireguard/wg8.conf
run casing-down wg-quick down wg8
printf '[Interface]\nPrivateKey = %s\n' "$IF0_PRIV" > /etc/wireguard/x.conf.conf
(
	cd "$work/d" || exit 1
	printf '[Interface]\nPrivateKey = %s\n' "$IF0_PRIV" > x.conf
	run dotconf wg-quick up x.conf
	run dotconf-down wg-quick down x.conf
	run relative wg-quick up ./x.conf
	run relative-down wg-quick down ./x.conf
	touch abcdefghijklmnop.conf
	run too-long wg-quick up ./abcdefghijklmnop.conf
)
run extra-args wg-quick up wg0 extra
printf '[Interface]\nPrivateKey = %s\n' "$IF0_PRIV" > "$work/d/wg10.conf"
chmod 644 "$work/d/wg10.conf"
chmod 1777 "$work/d"
run world wg-quick up "$work/d/wg10.conf"
run world-down wg-quick down "$work/d/wg10.conf"
chmod 755 "$work/d"

# 5. The default route: AllowedIPs 0.0.0.0/0 (fwmark, table 51820, rules, raw table).
conf wg0 "[Interface]
PrivateKey = $IF0_PRIV
Address = 10.0.0.1/24
SaveConfig = true

[Peer]
PublicKey = $IF1_PUB
Endpoint = 192.168.50.11:51820
AllowedIPs = 0.0.0.0/0
"
run up-default wg-quick up wg0
run rules ip -4 rule show
run route-51820 ip -4 route show table 51820
run route-main ip route
run fwmark wg show wg0 fwmark
run src-valid-mark sysctl net.ipv4.conf.all.src_valid_mark
run iptables-save iptables-save
run save-default wg-quick save wg0
run saved-default cat /etc/wireguard/wg0.conf
run down-default wg-quick down wg0
run rules-after ip -4 rule show
run iptables-after iptables-save

for dev in $(ip -o link show | awk -F': ' '{print $2}' | grep -v -e '^lo$' -e '^eth[01]'); do
	ip link del "$dev" 2>/dev/null
done
echo "### links left: $(ip -o link show | awk -F': ' '{print $2}' | tr '\n' ' ')"
