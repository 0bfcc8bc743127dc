#!/bin/bash
# Record what real wg-quick (wireguard-tools 1.0.20210914, Debian 12 and 13) does for a default
# route with each firewall backend, for labsim's model of both (sim/src/labsim/wg/quick.py,
# labsim.net.nftables; tests/unit/test_wg_quick_firewall.py). add_default() and
# remove_firewall() in src/wg-quick/linux.bash use `nft -f` whenever `type -p nft` finds nft,
# else iptables-restore / ip6tables-restore.
#
# Runs unprivileged inside `unshare -Urnm`, set up as tools/probes/wg_quick_probe.sh (a veth
# eth0 192.168.50.10/24, /etc/wireguard a 0700 tmpfs, the keys of tests/unit/wg_samples.py).
# IPv6 is on, with addr_gen_mode=1 so that wireguard-go's tun device gets no link-local
# address (kernel WireGuard links have none). A wrapper `nft` (and `ip6tables-restore`) first
# on PATH logs the script wg-quick feeds it, then runs the real one. The part "without nft"
# runs with a PATH whose sbin folder has every tool of /usr/sbin but nft, so that `type -p
# nft` fails there as it does on a machine without the nftables package.
# Needs: wireguard-tools, wireguard-go, iproute2, iptables, nftables.
#
# Usage: bash tools/probes/wg_quick_nft_probe.sh > /tmp/wg_quick_nft_probe.txt
set -u
if [[ ${WG_QUICK_PROBE_INSIDE:-} != 1 ]]; then
	exec env WG_QUICK_PROBE_INSIDE=1 unshare -Urnm bash "$0" "$@"
fi

IF0_PRIV="+DYa1mgGemfMtLnbD/03oYvQSovhj9ZG6itRP8V59WA="
IF1_PUB="OyTIHHcA6YRXcDSvLHT0wM+MKNNsfO9u3zoT5WjQjxs="

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mount -t tmpfs tmpfs /run
mount -t tmpfs -o mode=0700 tmpfs /etc/wireguard
mkdir "$work/bin"
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"
for tool in nft ip6tables-restore; do
	real="$(command -v "$tool")"
	# The wrapper keeps the script it is fed, from its file argument (nft -f FILE, which
	# can be read only once: a pipe) or its stdin (ip6tables-restore -n), then gives it to
	# the real tool; any other command line goes straight to the real tool.
	printf '#!/bin/bash\ncase "$1" in -f) cat "$2" > %s/in; set -- -f %s/in ;; -n) cat > %s/in ;; *) exec %s "$@" ;; esac\n{ echo "=== %s $*"; cat %s/in; } >> %s/fed\nexec %s "$@" < %s/in\n' \
		"$work" "$work" "$work" "$real" "$tool" "$work" "$work" "$real" "$work" > "$work/bin/$tool"
	chmod +x "$work/bin/$tool"
done
export PATH="$work/bin:$PATH"
sysctl -qw net.ipv6.conf.default.addr_gen_mode=1 net.ipv6.conf.all.addr_gen_mode=1
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

fed() {  # what the wrappers were fed since the last call
	echo "### fed"
	cat "$work/fed" 2>/dev/null
	rm -f "$work/fed"
}

v4="[Interface]
PrivateKey = $IF0_PRIV
Address = 10.0.0.1/24

[Peer]
PublicKey = $IF1_PUB
Endpoint = 192.168.50.11:51820
AllowedIPs = 0.0.0.0/0
"
v6="[Interface]
PrivateKey = $IF0_PRIV
Address = 10.0.0.1/24, fd00::1/64

[Peer]
PublicKey = $IF1_PUB
Endpoint = 192.168.50.11:51820
AllowedIPs = 0.0.0.0/0, ::/0
"

# 1. With nft: IPv4 default route, next to an iptables-nft table made first.
run masquerade iptables -t nat -A POSTROUTING -o eth1 -j MASQUERADE
printf '%s' "$v4" > /etc/wireguard/wg0.conf
run up-nft wg-quick up wg0
fed
run tables nft list tables
run table nft list table ip wg-quick-wg0
run iptables-save iptables-save
run down-nft wg-quick down wg0
fed
run tables-after nft list tables
run iptables-save-after iptables-save
run unmasquerade iptables -t nat -D POSTROUTING -o eth1 -j MASQUERADE
printf '%s' "${v4/Address = 10.0.0.1\/24/Address = 10.0.0.1/24
PostUp = false}" > /etc/wireguard/wg0.conf
run up-failing-post-up wg-quick up wg0
run tables-after-failure nft list tables

# 2. With nft: IPv4 and IPv6 default routes.
printf '%s' "$v6" > /etc/wireguard/wg0.conf
run up-nft-v6 wg-quick up wg0
fed
run ruleset-v6 nft list ruleset
run down-nft-v6 wg-quick down wg0
fed
run ruleset-after-v6 nft list ruleset

# 3. Without nft: IPv4 and IPv6 default routes through iptables-restore and ip6tables-restore.
mkdir "$work/sbin"
for tool in /usr/local/sbin/* /usr/sbin/*; do
	[[ ${tool##*/} == nft ]] || ln -sf "$tool" "$work/sbin/"
done
export PATH="$work/bin:$work/sbin:/usr/local/bin:/usr/bin:/bin"
rm "$work/bin/nft"
hash -r
run type-nft bash -c 'type -p nft || echo "not found"'
run up-iptables-v6 wg-quick up wg0
fed
run ip6tables-save ip6tables-save
run down-iptables-v6 wg-quick down wg0
fed
run ip6tables-save-after ip6tables-save
