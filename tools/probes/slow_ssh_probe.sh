#!/bin/bash
# Measure what makes a real OpenSSH login slow, one cause at a time, for the slow-SSH lab
# (labs/net/05-slow-ssh/) and labsim's login model (sim/src/labsim/net/ssh_login.py).
#
# Debian 12: openssh-server/-client 1:9.2p1-2+deb12u10, libnss-mdns 0.15.1, glibc 2.36.
# Needs root: sshd's privilege separation calls setgroups() and setuid(sshd), which a user
# namespace made by `unshare -Urnm` (only uid 0 mapped, setgroups denied) refuses
# ("setgroups: Operation not permitted [preauth]"). So the probe runs in `unshare -nm` as
# root: a network and a mount namespace of its own that vanish with it, with a tmpfs on /run.
# Inside it, two network namespaces (client 192.168.50.10, server 192.168.50.11) joined by a
# veth. Every command runs in a fresh mount namespace of its host where /etc/resolv.conf,
# /etc/nsswitch.conf, /etc/hosts, /etc/ssh/ssh_config (and an empty ssh_config.d) and
# /etc/ssh/sshd_config are bind mounts of this probe's files. The "nameserver" 192.168.50.53 is
# a second address of the client that drops UDP and TCP port 53 (iptables in the client's
# namespace), a DNS server that never answers; so are .54 and .55 (for several nameservers).
#
# Usage: bash tools/probes/slow_ssh_probe.sh > /tmp/slow_ssh_probe.txt
# (installs openssh-server with apt-get when sshd is missing; Debian's policy-rc.d or the
# lack of systemd keeps the package from starting a daemon, and the probe checks that.)
set -u
if [[ ${SLOW_SSH_PROBE_INSIDE:-} != 1 ]]; then
	[[ $(id -u) == 0 ]] || { echo "slow_ssh_probe: needs root (see the comment)" >&2; exit 1; }
	if [[ ! -x /usr/sbin/sshd ]]; then
		echo "# installing openssh-server" >&2
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			openssh-server >&2 || exit 1
	fi
	if pgrep -x sshd >/dev/null; then
		echo "# note: an sshd runs on this host (not started by this probe)" >&2
	fi
	exec env SLOW_SSH_PROBE_INSIDE=1 unshare -nm --propagation private bash "$0" "$@"
fi

work="$(mktemp -d /tmp/slow-ssh-probe.XXXXXX)"
cleanup() {
	# Anything still running in the probe's namespaces was started by the probe.
	for h in client server; do
		ip netns pids "$h" 2>/dev/null | xargs -r kill 2>/dev/null
	done
	# sshd and a ControlPersist master were started by us: stop them by pid.
	for pidfile in "$work"/*.pid; do
		[[ -f $pidfile ]] && kill "$(cat "$pidfile")" 2>/dev/null
	done
	rm -rf "$work"
}
trap cleanup EXIT
mount -t tmpfs probe /run
mkdir -p /run/netns /run/sshd
ip link set lo up

for host in client server; do
	ip netns add "$host"
	ip -n "$host" link set lo up
	mkdir -p "$work/$host/ssh_config.d"
done
ip link add name eth0 netns client type veth peer name eth0 netns server
ip -n client addr add 192.168.50.10/24 dev eth0
ip -n client addr add 192.168.50.53/24 dev eth0
ip -n client addr add 192.168.50.54/24 dev eth0
ip -n client addr add 192.168.50.55/24 dev eth0
ip -n server addr add 192.168.50.11/24 dev eth0
ip -n client link set eth0 up
ip -n server link set eth0 up
ip netns exec client iptables -A INPUT -d 192.168.50.52/30 -p udp --dport 53 -j DROP
ip netns exec client iptables -A INPUT -d 192.168.50.52/30 -p tcp --dport 53 -j DROP

ssh-keygen -q -t ed25519 -N '' -C lab-host -f "$work/server/host_key"
ssh-keygen -q -t ed25519 -N '' -C lab-client -f "$work/client/id_ed25519"
cp "$work/client/id_ed25519.pub" "$work/server/authorized_keys"
printf '192.168.50.11 %s\n' "$(cut -d' ' -f1-2 "$work/server/host_key.pub")" \
	> "$work/client/known_hosts"
printf 'server %s\n' "$(cut -d' ' -f1-2 "$work/server/host_key.pub")" \
	>> "$work/client/known_hosts"

# files HOST: the lab's defaults, rewritten before each case.
files() {
	local h=$1
	printf 'nameserver 192.168.50.53\noptions timeout:1 attempts:1\n' > "$work/$h/resolv.conf"
	printf 'hosts: files dns\n' > "$work/$h/nsswitch.conf"
	printf '127.0.0.1 localhost\n192.168.50.11 server\n' > "$work/$h/hosts"
}
client_config() {  # client_config EXTRA-LINES (first: ssh keeps the first value it reads)
	printf 'Host *\n%b  BatchMode yes\n  User root\n  IdentityFile %s\n  UserKnownHostsFile %s\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  GSSAPIAuthentication no\n' \
		"${1:-}" "$work/client/id_ed25519" "$work/client/known_hosts" > "$work/client/ssh_config"
}
server_config() {  # server_config EXTRA-LINES (first: sshd keeps the first value it reads)
	printf '%bPort 22\nHostKey %s\nPidFile none\nAuthorizedKeysFile %s\nStrictModes no\nUsePAM yes\nKbdInteractiveAuthentication no\nLogLevel DEBUG1\n' \
		"${1:-}" "$work/server/host_key" "$work/server/authorized_keys" > "$work/server/sshd_config"
}

# on HOST CMD...: CMD in HOST's network namespace and a fresh mount namespace with its files.
on() {
	local h=$1
	shift
	ip netns exec "$h" unshare -m --propagation private sh -c '
		w=$1; shift
		for f in resolv.conf nsswitch.conf hosts; do mount --bind "$w/$f" "/etc/$f"; done
		[ -f "$w/ssh_config" ] && mount --bind "$w/ssh_config" /etc/ssh/ssh_config
		mount --bind "$w/ssh_config.d" /etc/ssh/ssh_config.d
		[ -f "$w/sshd_config" ] && mount --bind "$w/sshd_config" /etc/ssh/sshd_config
		exec "$@"' sh "$work/$h" "$@"
}

# Timestamps every line a command writes to stderr (seconds since it started) and ends with
# "wall N.NNN s exit S".
cat > "$work/stamp.py" <<'EOF'
import subprocess, sys, time
start = time.monotonic()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
for line in child.stderr:
    print(f"{time.monotonic() - start:7.3f} {line.rstrip()}")
status = child.wait()
print(f"wall {time.monotonic() - start:.3f} s exit {status}")
EOF

start_sshd() {
	# The pid is sshd's own (sh execs it), so that stop_sshd stops sshd, not a wrapper.
	on server sh -c 'echo $$ > "$0"; exec /usr/sbin/sshd -D -e -f /etc/ssh/sshd_config' \
		"$work/sshd.pid" 2> "$work/sshd.log" &
	for _ in $(seq 100); do
		ip netns exec server ss -Hltn 'sport = :22' | grep -q . && return
		sleep 0.05
	done
	echo "sshd did not start:"; cat "$work/sshd.log"; exit 1
}
stop_sshd() {
	local pid
	pid=$(cat "$work/sshd.pid")
	kill "$pid"
	while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
	wait 2>/dev/null
	rm -f "$work/sshd.pid"
}

# measure LABEL TARGET [SSH-ARGS...]: three timed logins (-v on the last, with timestamps);
# the server's debug log of that last login, stamped by arrival.
measure() {
	local label=$1 target=$2
	shift 2
	echo "=== $label: ssh $* $target true"
	for i in 1 2; do
		on client python3 "$work/stamp.py" ssh "$@" "$target" true | tail -1
	done
	: > "$work/sshd.log"
	on client python3 "$work/stamp.py" ssh -v "$@" "$target" true \
		| grep -E 'Connecting to|Connection established|SSH2_MSG_SERVICE_ACCEPT|Authentications that|Next authentication|Authenticated to|Unspecified GSS|No Kerberos|mux|Exit status|^wall|resolve|Could not'
	echo "--- sshd (last login)"
	grep -a -E 'Connection from|KEX done|userauth-request|PAM: setting PAM_RHOST|reverse|Accepted|Authentication refused|gssapi' "$work/sshd.log" | head -12
}

for h in client server; do files "$h"; done
client_config
server_config 'UseDNS no\n'
start_sshd
echo "##### versions"
ssh -V 2>&1
dpkg-query -W -f '${Package} ${Version}\n' openssh-server libnss-mdns libc6 libgssapi-krb5-2 avahi-daemon 2>/dev/null
echo "##### baseline: everything fixed (UseDNS no, GSSAPIAuthentication no, hosts: files dns)"
measure baseline server

echo "##### the resolver alone: getent hosts (a PTR lookup) on the server, nameserver drops"
# resolv NAMESERVERS OPTIONS: time one reverse lookup of the client's address.
resolv() {
	printf 'nameserver %s\n' $1 > "$work/server/resolv.conf"
	printf 'options %s\n' "$2" >> "$work/server/resolv.conf"
	local started ended
	started=$(date +%s.%N)
	on server getent hosts 192.168.50.10 >/dev/null
	ended=$(date +%s.%N)
	printf '%-48s %-22s %6.3f s\n' "$1" "$2" "$(echo "$ended - $started" | bc)"
}
resolv 192.168.50.53 "timeout:1 attempts:1"
resolv 192.168.50.53 "timeout:2 attempts:2"
resolv 192.168.50.53 "timeout:1 attempts:3"
resolv "192.168.50.53 192.168.50.54" "timeout:1 attempts:1"
resolv "192.168.50.53 192.168.50.54" "timeout:2 attempts:2"
resolv "192.168.50.53 192.168.50.54 192.168.50.55" "timeout:1 attempts:1"
resolv "192.168.50.53 192.168.50.54 192.168.50.55" "timeout:3 attempts:2"
resolv 192.168.50.53 "timeout:5 attempts:2"
echo "(port 53 closed: ICMP port unreachable, glibc moves on at once)"
resolv 192.168.50.10 "timeout:5 attempts:2"
echo "(an address nobody has: ARP gives up after 3 s, before the 5 s timeout)"
resolv 192.168.50.99 "timeout:5 attempts:1"
files server

echo "##### cause 1: UseDNS yes on the server, nameserver drops (timeout:1 attempts:1)"
stop_sshd; server_config 'UseDNS yes\nLogLevel DEBUG3\n'; start_sshd
measure "usedns yes, PAM yes" server
echo "--- sshd: the lookup, and the padding of the failed 'none' request (auth2.c)"
grep -a -E 'reverse map|ensure_minimum_time_since' "$work/sshd.log" | head -3
stop_sshd; server_config 'UseDNS yes\nUsePAM no\n'; start_sshd
measure "usedns yes, PAM no" server
printf 'nameserver 192.168.50.53\noptions timeout:2 attempts:2\n' > "$work/server/resolv.conf"
stop_sshd; server_config 'UseDNS yes\n'; start_sshd
measure "usedns yes, timeout:2 attempts:2" server
printf 'nameserver 192.168.50.53\nnameserver 192.168.50.54\noptions timeout:1 attempts:1\n' \
	> "$work/server/resolv.conf"
measure "usedns yes, two dead nameservers, timeout:1 attempts:1" server
files server
printf '127.0.0.1 localhost\n192.168.50.11 server\n192.168.50.10 client\n' > "$work/server/hosts"
measure "usedns yes, client in the server's /etc/hosts" server
files server
printf 'nameserver 192.168.50.99\noptions timeout:1 attempts:1\n' > "$work/server/resolv.conf"
measure "usedns yes, nameserver address nobody has (ARP fails)" server
files server
printf 'nameserver 192.168.50.10\noptions timeout:5 attempts:2\n' > "$work/server/resolv.conf"
measure "usedns yes, port 53 closed (ICMP port unreachable), timeout:5 attempts:2" server
files server
stop_sshd; server_config 'UseDNS no\n'; start_sshd
measure "fixed: usedns no" server

echo "##### cause 2: GSSAPIAuthentication yes (no Kerberos: no krb5.conf, no ticket, no KDC)"
stop_sshd; server_config 'UseDNS no\nGSSAPIAuthentication yes\n'; start_sshd
client_config '  GSSAPIAuthentication yes\n'
measure "client gssapi yes, server gssapi yes, by name" server
measure "client gssapi yes, server gssapi yes, by address" 192.168.50.11
printf '127.0.0.1 localhost\n' > "$work/client/hosts"
measure "client gssapi yes, server yes, by address, no /etc/hosts entry" 192.168.50.11
files client
stop_sshd; server_config 'UseDNS no\n'; start_sshd
measure "client gssapi yes, server gssapi no (default)" server
client_config '  GSSAPIAuthentication yes\n  GSSAPIKeyExchange yes\n'
measure "client gssapi yes + GSSAPIKeyExchange yes, server no" server
client_config
measure "fixed: client gssapi no" server

echo "##### cause 3: mDNS in the client's nsswitch (avahi-daemon not running)"
printf 'hosts: files mdns4_minimal [NOTFOUND=return] dns\n' > "$work/client/nsswitch.conf"
measure "mdns4_minimal, name in /etc/hosts" server
measure "mdns4_minimal, server.local (not in hosts)" server.local
printf 'hosts: files mdns4 dns\n' > "$work/client/nsswitch.conf"
measure "mdns4 (full), unknown name" nosuchhost
printf 'hosts: files dns\n' > "$work/client/nsswitch.conf"
measure "files dns, unknown name" nosuchhost
measure "files dns, server.local" server.local
echo "##### cause 3b: the same with avahi-daemon running on the client (nobody answers mDNS)"
printf 'hosts: files mdns4_minimal [NOTFOUND=return] dns\n' > "$work/client/nsswitch.conf"
printf '[server]\nhost-name=client\nuse-ipv6=no\nenable-dbus=no\nallow-interfaces=eth0\n[publish]\ndisable-publishing=yes\n' \
	> "$work/client/avahi-daemon.conf"
on client sh -c 'echo $$ > "$0"; exec avahi-daemon --no-drop-root --no-chroot --no-rlimits -f "$1"' \
	"$work/avahi.pid" "$work/client/avahi-daemon.conf" > "$work/avahi.log" 2>&1 &
for _ in $(seq 100); do [[ -S /run/avahi-daemon/socket ]] && break; sleep 0.05; done
measure "mdns4_minimal, server.local, avahi running" server.local
measure "mdns4_minimal, x.y.local (three labels), avahi running" x.y.local
kill "$(cat "$work/avahi.pid")"; rm -f "$work/avahi.pid"
files client

echo "##### cause 4: ControlMaster / ControlPersist"
mkdir -p "$work/client/cm"
client_config "  ControlMaster auto\n  ControlPath $work/client/cm/%%C\n  ControlPersist 30\n"
echo "=== first login (starts the master)"
on client python3 "$work/stamp.py" ssh server true | tail -1
master_pid=$(pgrep -f "ssh: $work/client/cm/" | head -1)
echo "$master_pid" > "$work/master.pid"
echo "master: pid ${master_pid:-none}"
measure "second login over the master" server
echo "=== ssh -O check"
on client ssh -O check server 2>&1
on client ssh -O exit server 2>&1
rm -f "$work/master.pid"
stop_sshd
echo "##### done"
