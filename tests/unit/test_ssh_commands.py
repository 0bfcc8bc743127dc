"""`ssh`, `getent hosts` and `time` (labsim.shell.commands.ssh) on three sessions of one
network: the slow-SSH lab (labs/net/05-slow-ssh/) typed into a client, a server and a name
server that drops queries, against the login model (labsim.net.ssh_login) and recordings.

Recorded on Debian 12 (openssh-client/-server 1:9.2p1-2+deb12u10, glibc 2.36, iptables 1.8.9
nf_tables, bash 5.2.15) as tools/probes/slow_ssh_probe.sh does it: network namespaces
client (192.168.50.10) and server (192.168.50.11, and 192.168.50.53, where iptables drops
UDP and TCP port 53), each command in a mount namespace with its own /etc/resolv.conf
(`nameserver 192.168.50.53`, `options timeout:1 attempts:1`), /etc/nsswitch.conf,
/etc/hosts and ssh(d)_config. The key fingerprint lines of `ssh -v` ("Offering public
key", "Server accepts key"), its key exchange details and the "Transferred" lines are left
out of labsim's output; every line it prints is one of the recorded ones. The times in the
comments are the recorded wall times.
"""

from __future__ import annotations

import hashlib
import json

from hypothesis import given, settings
from hypothesis import strategies as st
from pytest import approx

from labsim.net import ssh_login as lm
from labsim.net.model import Network, add_host
from labsim.shell.base import CommandResult
from labsim.shell.commands.iptables import IPTABLES_NO_RULE
from labsim.shell.commands.time_keyword import USER_SECONDS
from labsim.shell.session import Session
from labsim.web import Bridge

NOTICE_TAIL = "is not simulated here; try it in the lab VM (see vagrant/README.md)"

DNS = "192.168.50.53"


def write(path: str, *lines: str) -> str:
    """A command line that writes ``lines`` to ``path`` with echo | tee (as a learner can)."""
    return "; ".join(f"echo '{line}' | tee {'-a ' if i else ''}{path}"
                     for i, line in enumerate(lines))


RESOLV = write("/etc/resolv.conf", f"nameserver {DNS}", "options timeout:1 attempts:1")
NSSWITCH = write("/etc/nsswitch.conf", "hosts:          files dns")
NSSWITCH_MDNS = write("/etc/nsswitch.conf",
                      "hosts:          files mdns4_minimal [NOTFOUND=return] dns")


def ssh_config(hostname: str = "192.168.50.11", gssapi: str = "no", master: bool = True) -> str:
    """labs/net/05-slow-ssh/ssh_config and its variants (the options ssh reads)."""
    lines = ["Host server", f"    HostName {hostname}", "", "Host *", "    User root",
             "    BatchMode yes", f"    GSSAPIAuthentication {gssapi}"]
    if master:
        lines += ["    ControlMaster auto", "    ControlPath /run/lab/cm-%C",
                  "    ControlPersist 60"]
    return write("/etc/ssh/ssh_config", *lines)


def sshd_config(use_dns: str = "no") -> str:
    """labs/net/05-slow-ssh/sshd_config (UseDNS no) and sshd_config-usedns."""
    return write("/etc/ssh/sshd_config", "Port 22", "PermitRootLogin prohibit-password",
                 "KbdInteractiveAuthentication no", "UsePAM yes", "GSSAPIAuthentication yes",
                 f"UseDNS {use_dns}")


def ok(session: Session, line: str) -> CommandResult:
    result = session.run(line)
    assert result.status == 0, (line, result)
    return result


def lab(cause: str | None = None, *, drop: bool = True) -> tuple[Session, Session, Session]:
    """The lab's three hosts as sessions of one network, set up as the lab's files say
    (as written, or with one variant's files)."""
    network = Network()
    add_host(network, "client", "192.168.50.10/24")
    add_host(network, "server", "192.168.50.11/24")
    add_host(network, "dns", f"{DNS}/24")
    client, server, dns = (Session(network=network, hostname=h)
                           for h in ("client", "server", "dns"))
    if drop:
        ok(dns, "iptables -A INPUT -p udp --dport 53 -j DROP")
        ok(dns, "iptables -A INPUT -p tcp --dport 53 -j DROP")
    for session in (client, server):
        ok(session, f"mkdir -p /etc/ssh /run/lab; {RESOLV}")
    ok(client, NSSWITCH_MDNS if cause == "mdns" else NSSWITCH)
    ok(server, NSSWITCH)
    ok(client, write("/etc/hosts", "127.0.0.1 localhost", "192.168.50.10 client"))
    ok(server, write("/etc/hosts", "127.0.0.1 localhost", "192.168.50.11 server"))
    ok(server, sshd_config("yes" if cause == "usedns" else "no"))
    ok(client, ssh_config(hostname="server.local" if cause == "mdns" else "192.168.50.11",
                          gssapi="yes" if cause == "gssapi" else "no",
                          master=cause != "no-master"))
    return client, server, dns


def timed(session: Session, line: str) -> tuple[CommandResult, str]:
    """Run ``time LINE``; the result and the real time bash would print."""
    result = session.run(f"time {line}")
    assert result.stderr.endswith(f"\nuser\t0m{USER_SECONDS:.3f}s\nsys\t0m0.001s\n"), result
    real = result.stderr.rsplit("\nreal\t", 1)[1].split("\n")[0]
    return result, real


def bash_time(seconds: float) -> str:
    ms = round(seconds * 1000)
    return f"{ms // 60000}m{ms % 60000 // 1000}.{ms % 1000:03d}s"


# ------------------------------------------------------------------ time

# bash -c 'time sleep 0.1' on this machine (bash 5.2.15), byte for byte:
RECORDED_TIME = "\nreal\t0m0.101s\nuser\t0m0.001s\nsys\t0m0.000s\n"


def test_time_prints_what_bash_prints_with_the_session_clock():
    session = Session()
    result = session.run("time sleep 0.1")
    assert result == CommandResult(stderr="\nreal\t0m0.100s\nuser\t0m0.003s\nsys\t0m0.001s\n")
    # the same layout as the recording, only the figures differ
    assert [line.split("\t")[0] for line in result.stderr.split("\n")] == \
        [line.split("\t")[0] for line in RECORDED_TIME.split("\n")]
    assert session.run("time sleep 61.5").stderr.startswith("\nreal\t1m1.500s\n")
    # the command's own output and status come first
    failed = session.run("time false")
    assert failed.status == 1 and failed.stderr.startswith("\nreal\t0m0.000s\n")
    assert session.run("time echo hi").stdout == "hi\n"
    assert session.run("time").stderr == "\nreal\t0m0.000s\nuser\t0m0.000s\nsys\t0m0.000s\n"


# ------------------------------------------------------------------ the lab's causes

def test_the_fixed_lab_logs_in_in_the_models_time_and_then_rides_the_master():
    client, _server, _dns = lab()
    result, real = timed(client, "ssh server true")
    assert result.status == 0 and result.stdout == ""
    assert real == bash_time(lm.login(*lm.lab()).seconds) == "0m0.397s"  # 0.42 s recorded
    # the second login goes over the master connection: 0.114 s recorded
    result, real = timed(client, "ssh server true")
    assert real == bash_time(lm.MUX_SECONDS) == "0m0.130s"
    # ControlPersist 60: a minute after the last session the master has gone
    ok(client, "sleep 61")
    assert timed(client, "ssh server true")[1] == "0m0.397s"


def test_usedns_on_the_server_costs_the_lookup_and_the_padding():
    client, server, _dns = lab("usedns")
    result, real = timed(client, "ssh server true")
    assert real == bash_time(lm.login(*lm.lab("usedns")).seconds) == "0m2.182s"  # 1.52 s
    # the client's address in the server's /etc/hosts answers sshd's lookup
    ok(server, "echo '192.168.50.10 client' | tee -a /etc/hosts")
    ok(client, "sleep 61")
    assert timed(client, "ssh server true")[1] == "0m0.397s"


def test_gssapi_on_the_client_costs_two_lookups():
    client, _server, _dns = lab("gssapi")
    assert timed(client, "ssh server true")[1] == bash_time(
        lm.login(*lm.lab("gssapi")).seconds) == "0m2.397s"  # 2.40 s recorded
    ok(client, "sleep 61")
    # -o comes before the file: the first value wins
    assert timed(client, "ssh -o GSSAPIAuthentication=no server true")[1] == "0m0.397s"
    ok(client, "sleep 61")
    # ~/.ssh/config is read before /etc/ssh/ssh_config
    ok(client, "mkdir -p /root/.ssh; echo 'GSSAPIAuthentication no' | tee /root/.ssh/config")
    assert timed(client, "ssh server true")[1] == "0m0.397s"
    ok(client, "sleep 61")
    # /etc/hosts naming the server's address answers krb5's lookups
    ok(client, "rm /root/.ssh/config; echo '192.168.50.11 server' | tee -a /etc/hosts")
    assert timed(client, "ssh server true")[1] == "0m0.397s"


def test_mdns_gives_up_after_two_lookups():
    client, _server, _dns = lab("mdns")
    result, real = timed(client, "ssh server true")
    assert result.status == 255
    # recorded, after 2.02 s:
    assert result.stderr.startswith(
        "ssh: Could not resolve hostname server.local: Temporary failure in name resolution\n")
    model = lm.login(*lm.lab("mdns"))
    assert not model.succeeded and real == bash_time(model.seconds) == "0m2.000s"


def test_without_a_master_every_login_pays_in_full():
    client, _server, _dns = lab("no-master")
    timed(client, "ssh server true")
    assert timed(client, "ssh server true")[1] == bash_time(
        lm.login(*lm.lab("no-master")).seconds) == "0m0.397s"


def test_the_remote_command_runs_on_the_server_with_the_servers_files():
    client, server, _dns = lab()
    assert ok(client, "ssh server echo hi").stdout == "hi\n"  # recorded
    assert client.run("ssh server false").status == 1  # recorded: exit 1
    ok(server, "echo marker | tee /root/note")
    assert ok(client, "ssh server cat /root/note").stdout == "marker\n"
    assert ok(client, "ssh root@192.168.50.11 true").stdout == ""


# ------------------------------------------------------------------ ssh -v

BANNER = ("OpenSSH_9.2p1 Debian-2+deb12u10, OpenSSL 3.0.19 27 Jan 2026\n"
          "debug1: Reading configuration data /etc/ssh/ssh_config\n"
          "debug1: /etc/ssh/ssh_config line 1: Applying options for server\n"
          "debug1: /etc/ssh/ssh_config line 4: Applying options for *\n")
# %C of root@192.168.50.11:22 from host "client"
SOCKET = "/run/lab/cm-" + hashlib.sha1(b"client192.168.50.1122root").hexdigest()
CONNECT = ("debug1: Connecting to 192.168.50.11 [192.168.50.11] port 22.\n"
           "debug1: Connection established.\n"
           "debug1: Authenticating to 192.168.50.11:22 as 'root'\n"
           "debug1: SSH2_MSG_SERVICE_ACCEPT received\n"
           "debug1: Authentications that can continue: "
           "publickey,gssapi-keyex,gssapi-with-mic,password\n")
AUTHENTICATED = ("debug1: Next authentication method: publickey\n"
                 'Authenticated to 192.168.50.11 ([192.168.50.11]:22) using "publickey".\n')
NO_KERBEROS = ("debug1: No credentials were supplied, or the credentials were unavailable or "
               "inaccessible\nNo Kerberos credentials available (default cache: "
               "FILE:/tmp/krb5cc_0)\n\n\n")


def test_verbose_first_login_starts_the_master():
    client, _server, _dns = lab()
    assert ok(client, "ssh -v server true").stderr == (
        BANNER + "debug1: auto-mux: Trying existing master\n"
        f'debug1: Control socket "{SOCKET}" does not exist\n' + CONNECT + AUTHENTICATED
        + "debug1: setting up multiplex master socket\n"
        "debug1: control_persist_detach: backgrounding master process\n"
        "debug1: forking to background\n"
        "debug1: Sending command: true\n"
        "debug1: mux_client_request_session: master session id: 2\n")
    # the master's socket is a file of the client's
    assert ok(client, "ls /run/lab").stdout == SOCKET.rsplit("/", 1)[1] + "\n"
    # recorded, in full:
    assert ok(client, "ssh -v server true").stderr == (
        BANNER + "debug1: auto-mux: Trying existing master\n"
        "debug1: mux_client_request_session: master session id: 2\n")


def test_verbose_login_with_gssapi_and_without_a_master():
    client, _server, _dns = lab("gssapi")
    assert ok(client, "ssh -v -o ControlMaster=no -o ControlPath=none server true").stderr == (
        BANNER + CONNECT + "debug1: Next authentication method: gssapi-with-mic\n"
        + NO_KERBEROS * 2 + AUTHENTICATED + "debug1: Sending command: true\n"
        "debug1: Exit status 0\n")


def test_verbose_with_debians_ssh_config_and_a_server_without_gssapi():
    client, server, _dns = lab()
    ok(client, "rm /etc/ssh/ssh_config")
    ok(server, write("/etc/ssh/sshd_config", "KbdInteractiveAuthentication no"))
    result = client.run("ssh -v root@192.168.50.11 true")
    # recorded with Debian's own /etc/ssh/ssh_config
    assert result.stderr.startswith(
        "OpenSSH_9.2p1 Debian-2+deb12u10, OpenSSL 3.0.19 27 Jan 2026\n"
        "debug1: Reading configuration data /etc/ssh/ssh_config\n"
        "debug1: /etc/ssh/ssh_config line 19: include /etc/ssh/ssh_config.d/*.conf matched "
        "no files\n"
        "debug1: /etc/ssh/ssh_config line 21: Applying options for *\n")
    assert "debug1: Authentications that can continue: publickey,password\n" in result.stderr
    # Debian's GSSAPIAuthentication yes is tried only when the server offers it
    assert "gssapi" not in result.stderr


# ------------------------------------------------------------------ name lookups

def test_getent_hosts_prints_as_glibc_does_and_takes_the_lookups_time():
    client, _server, _dns = lab()
    start = client.clock
    # recorded: "192.168.50.10   client" after 1.02 s (the IPv6 lookup goes to DNS first)
    assert client.run("getent hosts client") == CommandResult(stdout="192.168.50.10   client\n")
    assert client.clock - start == approx(1.0)
    # recorded: 0.014 s
    assert ok(client, "getent hosts 192.168.50.10").stdout == "192.168.50.10   client\n"
    assert client.clock - start == approx(1.0)
    # recorded: nothing, exit 2, after 1.02 s (PTR) and 2.02 s (AAAA, then A)
    assert client.run("getent hosts 192.168.50.11") == CommandResult(status=2)
    assert client.run("getent hosts nosuchhost") == CommandResult(status=2)
    assert client.clock - start == approx(4.0)
    # recorded: an alias finds its line; ::1 answers the IPv6 lookup at once
    ok(client, "echo '::1 localhost ip6-localhost' | tee -a /etc/hosts; "
               "echo '192.168.50.11 server srv' | tee -a /etc/hosts")
    assert ok(client, "getent hosts srv").stdout == "192.168.50.11   server srv\n"
    start = client.clock
    assert ok(client, "getent hosts localhost").stdout == (
        "::1             localhost ip6-localhost\n")
    assert client.clock == approx(start)
    # several keys: exit 2 if one is not found (recorded)
    result = client.run("getent hosts server nosuchhost")
    assert result == CommandResult(stdout="192.168.50.11   server srv\n", status=2)


def test_getent_with_mdns_and_without_dns():
    client, _server, _dns = lab("mdns")
    start = client.clock
    assert client.run("getent hosts server.local") == CommandResult(status=2)
    assert client.clock - start == approx(3.0)  # recorded 3.02 s
    ok(client, write("/etc/nsswitch.conf", "hosts: files"))
    assert client.run("getent hosts nosuchhost") == CommandResult(status=2)
    assert client.clock - start == approx(3.0)  # recorded 0.015 s


def test_getent_usage_and_unmodelled_forms():
    session = Session()
    assert session.run("getent") == CommandResult.fail(
        "getent: wrong number of arguments\n"
        "Try `getent --help' or `getent --usage' for more information.", 1)
    assert "not simulated" in session.run("getent hosts").stderr
    assert "not simulated" in session.run("getent passwd root").stderr


def test_unknown_names_and_nameservers_that_refuse():
    client, _server, dns = lab()
    start = client.clock
    # recorded: after 1.03 s
    result = client.run("ssh nosuchhost true")
    assert result == CommandResult(stderr="ssh: Could not resolve hostname nosuchhost: "
                                   "Temporary failure in name resolution\n", status=255)
    assert client.clock - start == approx(1.0)
    # the name server's host without its DROP rules: nothing listens on port 53, it refuses
    ok(dns, "iptables -D INPUT -p udp --dport 53 -j DROP")
    start = client.clock
    assert client.run("ssh nosuchhost true").stderr.endswith(
        "Temporary failure in name resolution\n")  # recorded after 0.03 s
    assert client.clock - start == approx(lm.ANSWER_SECONDS, abs=1e-6)
    # no resolv.conf: glibc asks 127.0.0.1, where nothing listens (recorded 0.04 s)
    ok(client, "rm /etc/resolv.conf")
    start = client.clock
    assert client.run("ssh nosuchhost true").status == 255
    assert client.clock - start == approx(lm.ANSWER_SECONDS, abs=1e-6)
    # hosts: files only: recorded at once, with glibc's other message
    ok(client, write("/etc/nsswitch.conf", "hosts: files"))
    assert client.run("ssh nosuchhost true").stderr == (
        "ssh: Could not resolve hostname nosuchhost: Name or service not known\n")


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 5), st.integers(1, 3), st.integers(1, 3))
def test_an_unanswered_lookup_takes_what_the_resolver_model_says(timeout, attempts, servers):
    """Nameservers at addresses nobody has never answer: ssh waits the model's time."""
    session = Session()
    lines = [f"nameserver 10.9.9.{n}" for n in range(1, servers + 1)]
    ok(session, write("/etc/resolv.conf", *lines, f"options timeout:{timeout} "
                                                  f"attempts:{attempts}"))
    start = session.clock
    assert session.run("ssh nosuchhost true").status == 255
    resolver = lm.Resolver(servers, timeout, attempts, lm.DROPS)
    assert session.clock - start == approx(lm.lookup_seconds(resolver))


def test_unmodelled_ssh_forms_say_so():
    client, _server, _dns = lab()
    assert client.run("ssh server").stderr == (
        "labsim: ssh: an interactive login (give a command) "
        f"{NOTICE_TAIL}\n")
    assert "not simulated" in client.run("ssh -J jump server true").stderr
    assert "not simulated" in client.run("ssh -p x server true").stderr
    assert "which no host of the network has" in client.run("ssh 192.168.50.99 true").stderr
    assert client.run("ssh 192.168.50.99 true").status == 2


# ------------------------------------------------------------------ iptables

def test_iptables_appends_and_deletes_the_labs_drop_rules():
    """Recorded in `unshare -Urn`: iptables -A/-D/-I and -S."""
    _client, _server, dns = lab()
    assert ok(dns, "iptables -S").stdout == (
        "-P INPUT ACCEPT\n-P FORWARD ACCEPT\n-P OUTPUT ACCEPT\n"
        "-A INPUT -p udp -m udp --dport 53 -j DROP\n"
        "-A INPUT -p tcp -m tcp --dport 53 -j DROP\n")
    ok(dns, "iptables -D INPUT -p udp --dport 53 -j DROP")
    assert ok(dns, "iptables -S INPUT").stdout == (
        "-P INPUT ACCEPT\n-A INPUT -p tcp -m tcp --dport 53 -j DROP\n")
    assert dns.run("iptables -D INPUT -p udp --dport 53 -j DROP") == CommandResult.fail(
        IPTABLES_NO_RULE, 1)
    ok(dns, "iptables -I INPUT -p udp --dport 53 -j DROP")
    assert ok(dns, "iptables -S INPUT").stdout.splitlines()[1] == (
        "-A INPUT -p udp -m udp --dport 53 -j DROP")


# ------------------------------------------------------------------ the lesson page

CLIENT_SETUP = (
    "mkdir -p /etc/ssh /root/.ssh /run/lab; "
    f"{RESOLV}; {NSSWITCH}; "
    + write("/etc/hosts", "127.0.0.1 localhost", "192.168.50.10 client") + "; "
    + write("/etc/ssh/ssh_config", "Host server", "    HostName 192.168.50.11", "",
            "Host *", "    User root", "    BatchMode yes", "    # As Debian ships it.",
            "    GSSAPIAuthentication yes"))
SERVER_SETUP = (
    "mkdir -p /etc/ssh; "
    f"{RESOLV}; {NSSWITCH}; "
    + write("/etc/hosts", "127.0.0.1 localhost", "192.168.50.11 server") + "; "
    + write("/etc/ssh/sshd_config", "Port 22", "PermitRootLogin prohibit-password",
            "KbdInteractiveAuthentication no", "UsePAM yes", "GSSAPIAuthentication yes",
            "UseDNS yes"))
DNS_SETUP = ("ip addr add 192.168.50.53/24 dev eth0; "
             "iptables -A INPUT -p udp --dport 53 -j DROP; "
             "iptables -A INPUT -p tcp --dport 53 -j DROP")
PAGE_HOSTS = json.dumps([["client", CLIENT_SETUP], ["server", SERVER_SETUP],
                         ["dns", DNS_SETUP]])
FIRST_SESSION = [
    ("cat /etc/resolv.conf", "nameserver 192.168.50.53\noptions timeout:1 attempts:1\n", ""),
    ("time ssh server true", "", "0m4.182s"),
    ("time ssh -o GSSAPIAuthentication=no server true", "", "0m2.182s"),
    ("echo 'GSSAPIAuthentication no' | tee -a /root/.ssh/config",
     "GSSAPIAuthentication no\n", ""),
    ("ssh server 'echo 192.168.50.10 client | tee -a /etc/hosts'", "192.168.50.10 client\n",
     ""),
    ("time ssh server true", "", "0m0.397s"),
]


def test_the_lesson_pages_terminals_start_broken_and_the_first_session_fixes_them():
    bridge = Bridge()

    def term(host: str, line: str) -> dict:
        return json.loads(bridge.terminal(f"w5-{host}", line, "w5", host, PAGE_HOSTS))

    # the setups ran unseen, and their files are the terminals' files
    assert term("server", "cat /etc/ssh/sshd_config")["stdout"].endswith("UseDNS yes\n")
    assert "192.168.50.53/24" in term("dns", "ip -br addr")["stdout"]
    for line, stdout, real in FIRST_SESSION:
        reply = term("client", line)
        assert reply["status"] == 0, (line, reply)
        assert reply["stdout"] == stdout, line
        if real:
            assert reply["stderr"] == f"\nreal\t{real}\nuser\t0m0.003s\nsys\t0m0.001s\n"
    # the model agrees on the first login: UseDNS, GSSAPI, and the fixed cost
    broken = lm.login(lm.ClientSettings(target=lm.BY_ADDRESS, gssapi=True,
                                        mdns_in_nsswitch=False,
                                        resolver=lm.Resolver(1, 1, 1, lm.DROPS)),
                      lm.ServerSettings(use_dns=True, gssapi=True,
                                        resolver=lm.Resolver(1, 1, 1, lm.DROPS)))
    assert bash_time(broken.seconds) == FIRST_SESSION[1][2]


def test_verbose_reads_roots_own_config_first():
    client, _server, _dns = lab()
    ok(client, "mkdir -p /root/.ssh; echo 'GSSAPIAuthentication no' | tee /root/.ssh/config")
    # recorded (in a mount namespace with that /root/.ssh/config and Debian's ssh_config):
    # "debug1: Reading configuration data /root/.ssh/config" comes first
    assert ok(client, "ssh -v server true").stderr.startswith(
        "OpenSSH_9.2p1 Debian-2+deb12u10, OpenSSL 3.0.19 27 Jan 2026\n"
        "debug1: Reading configuration data /root/.ssh/config\n"
        "debug1: Reading configuration data /etc/ssh/ssh_config\n"
        "debug1: /etc/ssh/ssh_config line 1: Applying options for server\n")
