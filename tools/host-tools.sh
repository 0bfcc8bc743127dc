#!/usr/bin/env bash
# Installs, from Debian, the host tools the tests run for real and are missing: chromium (the
# browser tests), wireguard-tools, wireguard-go, iproute2, iputils-ping, iptables, curl,
# procps, openssh-server and libnss-mdns (the namespace labs the network model is checked
# against). Needs root or sudo only when something is missing.
#
# The labs start their own sshd inside a network namespace and only need the binary. Debian's
# openssh-server postinst would also start and enable a system sshd listening on port 22 of
# this machine, which nobody asked for: so the packages are installed with services held back
# (a policy-rc.d that answers 101, "action forbidden", which invoke-rc.d and
# deb-systemd-invoke honour; see /usr/share/doc/init-system-helpers/README.policy-rc.d), and
# an ssh service this script brought in is disabled again.
set -euo pipefail
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v wg >/dev/null || missing+=(wireguard-tools)
command -v wireguard-go >/dev/null || missing+=(wireguard-go)
command -v ip >/dev/null || missing+=(iproute2)
command -v ping >/dev/null || missing+=(iputils-ping)
command -v iptables >/dev/null || [ -x /usr/sbin/iptables ] || missing+=(iptables)
command -v curl >/dev/null || missing+=(curl)
command -v sysctl >/dev/null || [ -x /usr/sbin/sysctl ] || missing+=(procps)
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
ls /usr/lib/*/libnss_mdns4_minimal.so.2 >/dev/null 2>&1 || missing+=(libnss-mdns)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing Debian packages: ${missing[*]} (needs root or sudo)" >&2
as_root=()
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null || { echo "host-tools: not root and no sudo" >&2; exit 1; }
  as_root=(sudo)
fi
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\n# held back by zfs-field-labs tools/host-tools.sh while it installs\nexit 101\n' \
    | "${as_root[@]}" tee "$policy" >/dev/null
  "${as_root[@]}" chmod 755 "$policy"
  trap '"${as_root[@]}" rm -f "$policy"' EXIT
fi
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
if [[ " ${missing[*]} " == *" openssh-server "* ]] && command -v systemctl >/dev/null \
   && [ -d /run/systemd/system ]; then
  "${as_root[@]}" systemctl disable --quiet ssh.service ssh.socket 2>/dev/null || true
  echo "host-tools: openssh-server installed for its sshd binary; its service is disabled" >&2
fi
