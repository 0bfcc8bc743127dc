"""`mount --bind FILE TARGET` (labsim.shell.commands.mount): a lab file at an /etc path, in
that host's view only, and util-linux 2.38.1's failures.

Recorded on Debian 12 (util-linux 2.38.1) in `unshare -nm --propagation private` with a
tmpfs on /run: the lab's mounts print nothing and exit 0; the failures below exit 32.
"""

from __future__ import annotations

import pytest

from labsim.net.model import Network, add_host
from labsim.shell.session import Session

DMESG = "       dmesg(1) may have more information after failed mount system call.\n"


def two_hosts() -> tuple[Session, Session]:
    network = Network()
    add_host(network, "client", "192.168.50.10/24")
    add_host(network, "server", "192.168.50.11/24")
    client, server = (Session(network=network, hostname=h) for h in ("client", "server"))
    for session in (client, server):
        assert session.run("mkdir -p /run/lab /etc/ssh").status == 0
        assert session.run("echo 'nameserver 192.168.50.53' | tee /run/lab/resolv.conf"
                           ).status == 0
    return client, server


def test_a_bind_mount_shows_the_file_at_the_target_of_that_host_only():
    client, server = two_hosts()
    result = client.run("mount --bind /run/lab/resolv.conf /etc/resolv.conf")
    assert (result.stdout, result.stderr, result.status) == ("", "", 0)
    assert client.run("cat /etc/resolv.conf").stdout == "nameserver 192.168.50.53\n"
    assert server.run("cat /etc/resolv.conf").status == 1  # the server's own: not the lab's
    # The same file (one inode): what is seen at one path is what is seen at the other.
    assert client.host_files["/etc/resolv.conf"] is client.host_files["/run/lab/resolv.conf"]


def test_what_a_program_reads_is_the_mounted_file():
    """getent's resolver settings: before the mount the host has no resolv.conf (glibc asks
    127.0.0.1, where nothing listens: refused at once); after it, the lab's dead nameserver
    (timeout:1 attempts:1), which costs a second per lookup."""
    client, _server = two_hosts()
    add_host(client.network, "dns", "192.168.50.53/24")
    dns = Session(network=client.network, hostname="dns")
    assert dns.run("iptables -A INPUT -p udp --dport 53 -j DROP").status == 0
    client.run("echo 'options timeout:1 attempts:1' | tee -a /run/lab/resolv.conf")
    seconds = []
    for line in ("true", "mount --bind /run/lab/resolv.conf /etc/resolv.conf"):
        assert client.run(line).status == 0
        start = client.clock
        assert client.run("getent hosts nosuchname").status == 2
        seconds.append(client.clock - start)
    assert seconds[0] < 0.1 and seconds[1] >= 1.0


@pytest.mark.parametrize(("line", "stderr"), [
    ("mount --bind /run/lab/nope /etc/nsswitch.conf",
     "mount: /etc/nsswitch.conf: special device /run/lab/nope does not exist.\n"),
    ("mount --bind /run/lab/resolv.conf /etc/nope.conf",
     "mount: /etc/nope.conf: mount point does not exist.\n"),
    ("mount --bind /run/lab /etc/resolv.conf",
     "mount: /etc/resolv.conf: mount point is not a directory.\n"),
    ("mount --bind /run/lab/resolv.conf /etc/ssh",
     "mount: /etc/ssh: mount(2) system call failed: Not a directory.\n"),
])
def test_failures_print_what_util_linux_prints(line, stderr):
    client, _server = two_hosts()
    result = client.run(line)
    assert (result.stdout, result.stderr, result.status) == ("", stderr + DMESG, 32)


@pytest.mark.parametrize("target", ["/etc/resolv.conf", "/etc/nsswitch.conf", "/etc/hosts",
                                    "/etc/ssh/ssh_config", "/etc/ssh/sshd_config"])
def test_debians_own_files_are_there_to_mount_over(target):
    client, _server = two_hosts()
    assert client.run(f"mount -B /run/lab/resolv.conf {target}").status == 0
    assert client.run(f"cat {target}").stdout == "nameserver 192.168.50.53\n"


@pytest.mark.parametrize("line", ["mount", "mount -t tmpfs tmpfs /run",
                                  "mount --bind /run/lab/resolv.conf",
                                  "mount --bind /run/lab /mnt"])
def test_other_forms_are_not_modelled(line):
    client, _server = two_hosts()
    result = client.run(line)
    assert result.status == 2 and "labsim: mount: " in result.stderr
    assert "not simulated" in result.stderr
