"""`sshd [-t] [-f FILE] [-p PORT] [-o OPTION]`, `setpriv --clear-groups`
(labsim.shell.commands.sshd), `mkdir -m`, `pkill -F`, and ssh against a server that a script
starts, or has not started.

Recorded on Debian 12 (openssh-server 1:9.2p1-2+deb12u10, util-linux 2.38.1) in
`unshare -nm --propagation private` with a tmpfs on /run, a host key made by
`ssh-keygen -q -t ed25519 -N "" -f /run/lab/host_key` (or /run/lab/k), each configuration
written to the file named and checked with `/usr/sbin/sshd -t -f FILE`; `ssh -v -o
BatchMode=yes -F /dev/null ADDRESS true` with nothing listening.
"""

from __future__ import annotations

import pytest

from labsim.net import ssh_login as lm
from labsim.net.model import Network, add_host
from labsim.shell.base import CommandResult
from labsim.shell.commands.sshd import SshdProcess
from labsim.shell.session import Session

# labs/net/05-slow-ssh/sshd_config without its comments.
LAB_SSHD_CONFIG = ["Port 22", "HostKey /run/lab/host_key", "PidFile /run/lab/sshd.pid",
                   "AuthorizedKeysFile /run/lab/authorized_keys",
                   "PermitRootLogin prohibit-password", "KbdInteractiveAuthentication no",
                   "UsePAM yes", "GSSAPIAuthentication yes", "UseDNS no"]
REFUSED = "ssh: connect to host 192.168.50.11 port 22: Connection refused\n"
# The lab's ssh_config, as options.
LOGIN = ("-o BatchMode=yes -o IdentityFile=/run/lab/id_ed25519 "
         "-o UserKnownHostsFile=/run/lab/known_hosts -o GlobalKnownHostsFile=/dev/null "
         "-o StrictHostKeyChecking=yes -o GSSAPIAuthentication=no -o ControlPath=none")


def ok(session: Session, line: str) -> CommandResult:
    result = session.run(line)
    assert result.status == 0, (line, result)
    return result


def write(session: Session, path: str, lines: list[str]) -> None:
    ok(session, "; ".join(f"echo '{line}' | tee {'-a ' if i else ''}{path}"
                          for i, line in enumerate(lines)))


def lab(package_sshd: bool = False) -> tuple[Session, Session]:
    """A client and a server as netkit's labsim backend makes them: hosts that run no sshd
    until a script starts one (``package_sshd=True``: a page's host, which has Debian's)."""
    network = Network()
    for name, address in (("client", "192.168.50.10/24"), ("server", "192.168.50.11/24")):
        add_host(network, name, address).package_sshd = package_sshd
    client, server = (Session(network=network, hostname=h) for h in ("client", "server"))
    for session in (client, server):
        ok(session, "mkdir -p /run/lab /etc/ssh")
    ok(server, 'ssh-keygen -q -t ed25519 -N "" -C server -f /run/lab/host_key')
    return client, server


def exchange_keys(client: Session, server: Session) -> None:
    """What netkit does with ${CLIENT_SSH_PUBKEY} and ${SERVER_SSHHOST_PUBKEY}."""
    ok(client, 'ssh-keygen -q -t ed25519 -N "" -C root@client -f /run/lab/id_ed25519')
    client_key = client.run("cat /run/lab/id_ed25519.pub").stdout.strip()
    host_key = server.run("cat /run/lab/host_key.pub").stdout.strip()
    ok(server, f"echo '{client_key}' | tee /run/lab/authorized_keys")
    ok(client, f"echo '192.168.50.11 {host_key}' | tee /run/lab/known_hosts")


def sshd_t(server: Session, path: str, lines: list[str]) -> CommandResult:
    write(server, path, lines)
    return server.run(f"/usr/sbin/sshd -t -f {path}")


def test_the_labs_server_script_checks_and_starts_sshd():
    client, server = lab()
    write(server, "/run/lab/sshd_config", LAB_SSHD_CONFIG)
    assert client.run("ssh 192.168.50.11 true").stderr == REFUSED
    for line in ("mount --bind /run/lab/sshd_config /etc/ssh/sshd_config",
                 "mkdir -p -m 0755 /run/sshd", "setpriv --clear-groups true",
                 "/usr/sbin/sshd -t", "/usr/sbin/sshd"):
        result = server.run(line)
        assert (result.stdout, result.stderr, result.status) == ("", "", 0), line
    assert "/run/sshd" in server.host_dirs and "0755" not in server.run("ls /run").stdout
    pid = server.run("cat /run/lab/sshd.pid").stdout
    assert pid.strip().isdigit() and pid.endswith("\n")
    exchange_keys(client, server)
    result = client.run(f"ssh {LOGIN} 192.168.50.11 true")
    assert (result.stdout, result.stderr, result.status) == ("", "", 0)


def started(client: Session, server: Session) -> None:
    ok(server, "mkdir -p /run/sshd")
    write(server, "/etc/ssh/sshd_config", LAB_SSHD_CONFIG)
    ok(server, "/usr/sbin/sshd")


def test_a_key_the_server_does_not_know_is_refused():
    """Recorded: the client's key is not in authorized_keys (or there is no such file)."""
    client, server = lab()
    started(client, server)
    exchange_keys(client, server)
    ok(server, 'ssh-keygen -q -t ed25519 -N "" -C other -f /run/lab/other')
    ok(server, "cat /run/lab/other.pub | tee /run/lab/authorized_keys")
    denied = ("root@192.168.50.11: Permission denied "
              "(publickey,gssapi-keyex,gssapi-with-mic,password).\n")
    result = client.run(f"ssh {LOGIN} 192.168.50.11 true")
    assert (result.stdout, result.stderr, result.status) == ("", denied, 255)
    result = client.run(f"ssh -o IdentityFile=/run/lab/nokey {LOGIN} 192.168.50.11 true")
    assert result.stderr == ("no such identity: /run/lab/nokey: No such file or directory\n"
                             + denied)


def test_a_host_key_the_client_does_not_know_fails_verification():
    client, server = lab()
    started(client, server)
    exchange_keys(client, server)
    ok(client, "echo '192.168.50.99 ssh-ed25519 AAAA' | tee /run/lab/known_hosts")
    result = client.run(f"ssh {LOGIN} 192.168.50.11 true")
    assert (result.stdout, result.stderr, result.status) == (
        "", "No ED25519 host key is known for 192.168.50.11 and you have requested strict "
        "checking.\nHost key verification failed.\n", 255)


def test_a_changed_host_key_gets_the_warning():
    client, server = lab()
    started(client, server)
    exchange_keys(client, server)
    ok(client, 'ssh-keygen -q -t ed25519 -N "" -C other -f /run/lab/other')
    other = client.run("cat /run/lab/other.pub").stdout.strip()
    ok(client, f"echo '192.168.50.11 {other}' | tee /run/lab/known_hosts")
    result = client.run(f"ssh {LOGIN} 192.168.50.11 true")
    lines = result.stderr.splitlines()
    assert result.status == 255 and len(lines) == 15
    assert lines[1] == "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @"
    assert lines[7].startswith("SHA256:") and len(lines[7]) == len("SHA256:.") + 43
    assert lines[10:] == [
        "Offending ED25519 key in /run/lab/known_hosts:1", "  remove with:",
        '  ssh-keygen -f "/run/lab/known_hosts" -R "192.168.50.11"',
        "Host key for 192.168.50.11 has changed and you have requested strict checking.",
        "Host key verification failed."]


def test_ssh_is_refused_until_sshd_starts():
    client, server = lab()
    start = client.clock
    result = client.run("ssh -v 192.168.50.11 true")
    assert result.status == 255
    assert result.stderr.endswith(
        "debug1: Connecting to 192.168.50.11 [192.168.50.11] port 22.\n"
        "debug1: connect to address 192.168.50.11 port 22: Connection refused\n" + REFUSED)
    assert client.clock - start == pytest.approx(lm.ANSWER_SECONDS, abs=1e-3)


def test_a_pages_host_runs_debians_sshd_without_being_started():
    client, server = lab(package_sshd=True)
    assert client.run("ssh 192.168.50.11 true").status == 0
    # ssh.service made /run/sshd; Debian's sshd_config (no file here) is valid.
    assert server.run("/usr/sbin/sshd -t") == CommandResult()


def test_sshd_keeps_the_configuration_it_started_with():
    """sshd reads sshd_config once: UseDNS yes written after the start changes nothing
    until a restart (a login stays at the model's fixed cost, no reverse lookup)."""
    client, server = lab()
    started(client, server)
    exchange_keys(client, server)
    write(server, "/etc/ssh/sshd_config", [*LAB_SSHD_CONFIG[:-1], "UseDNS yes"])
    start = client.clock
    ok(client, f"ssh {LOGIN} 192.168.50.11 true")
    fixed = lm.KEX_SECONDS + lm.PUBKEY_SECONDS + lm.SESSION_SECONDS
    assert client.clock - start == pytest.approx(fixed + 0.007, abs=0.003)


def test_a_second_sshd_changes_nothing():
    _client, server = lab()
    ok(server, "mkdir -p /run/sshd")
    write(server, "/etc/ssh/sshd_config", LAB_SSHD_CONFIG)
    ok(server, "/usr/sbin/sshd")
    pid = server.run("cat /run/lab/sshd.pid").stdout
    result = server.run("/usr/sbin/sshd")
    assert (result.stdout, result.stderr, result.status) == ("", "", 0)
    assert server.run("cat /run/lab/sshd.pid").stdout == pid
    assert sum(isinstance(f, SshdProcess) for f in server.host_files.values()) == 1


def test_a_second_sshd_on_another_port_for_netkits_baseline_login():
    """netkit's login check (labs/netkit/ssh.py) starts a second sshd with -p and -o next to
    the lab's, logs in to it by address with HostKeyAlias, and stops it with pkill -F. The
    -o options win over the file's (UseDNS yes there). Texts recorded with the lab's files
    (ssh -v as labsim abbreviates it)."""
    client, server = lab()
    ok(server, "mkdir -p /run/sshd")
    ok(server, "echo 'nameserver 192.168.50.53' | tee /etc/resolv.conf; "
               "echo 'options timeout:1 attempts:1' | tee -a /etc/resolv.conf")
    write(server, "/etc/ssh/sshd_config", [*LAB_SSHD_CONFIG[:-1], "UseDNS yes"])
    ok(server, "/usr/sbin/sshd")
    exchange_keys(client, server)
    baseline = ("/usr/sbin/sshd -p 2220 -o UseDNS=no -o GSSAPIAuthentication=no "
                "-o PidFile=/run/netkit-baseline-sshd.pid")
    assert server.run(baseline) == CommandResult()
    ports = sorted(f.port for f in server.host_files.values() if isinstance(f, SshdProcess))
    assert ports == [22, 2220]
    assert server.run(baseline) == CommandResult()  # cannot bind 2220: nothing changes
    assert server.run("cat /run/netkit-baseline-sshd.pid").stdout.strip().isdigit()
    fixed = lm.KEX_SECONDS + lm.PUBKEY_SECONDS + lm.SESSION_SECONDS
    start = client.clock
    to_baseline = (f"ssh -v {LOGIN} -o HostKeyAlias=192.168.50.11 -p 2220 "
                   "192.168.50.11 true")
    result = client.run(to_baseline)
    assert result.status == 0
    assert client.clock - start == pytest.approx(fixed, abs=0.01)  # no reverse lookup
    assert ("debug1: Connecting to 192.168.50.11 [192.168.50.11] port 2220.\n"
            "debug1: Connection established.\n"
            "debug1: Authenticating to 192.168.50.11:2220 as 'root'\n"
            "debug1: using hostkeyalias: 192.168.50.11\n"
            "debug1: using hostkeyalias: 192.168.50.11\n") in result.stderr
    assert "debug1: Authentications that can continue: publickey,password\n" in result.stderr
    assert ('Authenticated to 192.168.50.11 ([192.168.50.11]:2220) using "publickey".\n'
            in result.stderr)
    start = client.clock
    ok(client, f"ssh {LOGIN} 192.168.50.11 true")  # port 22: UseDNS yes, a 1 s lookup
    assert client.clock - start > fixed + 1.0
    unknown = client.run(f"ssh {LOGIN} -o HostKeyAlias=other -p 2220 192.168.50.11 true")
    assert (unknown.stderr, unknown.status) == (
        "No ED25519 host key is known for other and you have requested strict checking.\n"
        "Host key verification failed.\n", 255)
    assert server.run("pkill -F /run/netkit-baseline-sshd.pid") == CommandResult()
    assert server.run("cat /run/netkit-baseline-sshd.pid").status == 1  # sshd removed it
    refused = client.run(f"ssh {LOGIN} -o HostKeyAlias=192.168.50.11 -p 2220 "
                         "192.168.50.11 true")
    assert (refused.stderr, refused.status) == (
        "ssh: connect to host 192.168.50.11 port 2220: Connection refused\n", 255)
    again = server.run("pkill -F /run/netkit-baseline-sshd.pid")
    assert (again.stderr, again.status) == (
        "pkill: pidfile not valid\nTry `pkill --help' for more information.\n", 1)
    ok(client, f"ssh {LOGIN} 192.168.50.11 true")  # the lab's sshd runs on


@pytest.mark.parametrize(("options", "stderr", "status"), [
    ("-p 2221 -o Foo=bar", "command-line: line 0: Bad configuration option: Foo\n", 1),
    ("-p 2221 -o UseDNS=maybe", 'command-line line 0: unsupported option "maybe".\n', 255),
    ("-p 99999", "Bad port number.\n", 1),
])
def test_sshd_command_line_options_are_checked(options, stderr, status):
    """Recorded: /usr/sbin/sshd OPTIONS with the lab's sshd_config."""
    _client, server = lab()
    ok(server, "mkdir -p /run/sshd")
    write(server, "/etc/ssh/sshd_config", LAB_SSHD_CONFIG)
    result = server.run(f"/usr/sbin/sshd {options}")
    assert (result.stdout, result.stderr, result.status) == ("", stderr, status)
    assert not any(isinstance(f, SshdProcess) for f in server.host_files.values())


# Each configuration and what `sshd -t -f FILE` printed, and its exit status (recorded).
@pytest.mark.parametrize(("path", "lines", "stderr", "status"), [
    ("/run/lab/bad1", ["Port 22", "HostKey /run/lab/host_key", "UseDNS maybe"],
     '/run/lab/bad1 line 3: unsupported option "maybe".\n', 255),
    ("/run/lab/bad2", ["Port 22", "HostKey /run/lab/host_key", "FooBar yes", "UseDNS no"],
     "/run/lab/bad2: line 3: Bad configuration option: FooBar\n"
     "/run/lab/bad2: terminating, 1 bad configuration options\n", 255),
    ("/run/lab/bad3", ["Port 22", "HostKey /run/lab/nokey"],
     "Unable to load host key: /run/lab/nokey\nsshd: no hostkeys available -- exiting.\n", 1),
    ("/run/lab/bad4", ["Port 22", "HostKey /run/lab/host_key", "GSSAPIAuthentication maybe"],
     '/run/lab/bad4 line 3: unsupported option "maybe".\n', 255),
    ("/run/lab/bad5", ["Port 22", "HostKey /run/lab/host_key", "PermitRootLogin maybe"],
     '/run/lab/bad5 line 3: unsupported option "maybe".\n', 255),
    ("/run/lab/bad6", ["Port 22", "HostKey /run/lab/host_key", "UseDNS"],
     '/run/lab/bad6 line 3: no argument after keyword "UseDNS"\n'
     "/run/lab/bad6: terminating, 1 bad configuration options\n", 255),
    ("/run/lab/bad7", ["Port 22", "HostKey /run/lab/host_key", "UseDNS no", "Port x"],
     "/run/lab/bad7 line 4: Badly formatted port number.\n", 255),
    ("/run/lab/e", ["HostKey /run/lab/host_key", "UseDNS yes extra"],
     "/run/lab/e line 2: keyword UseDNS extra arguments at end of line\n"
     "/run/lab/e: terminating, 1 bad configuration options\n", 255),
    ("/run/lab/e", ["HostKey /run/lab/host_key", "Foo", "Bar 1"],
     '/run/lab/e line 2: no argument after keyword "Foo"\n'
     "/run/lab/e: line 3: Bad configuration option: Bar\n"
     "/run/lab/e: terminating, 2 bad configuration options\n", 255),
    ("/run/lab/e", ["HostKey /run/lab/host_key", "uSEdns yes", "UseDNS no", "UseDNS=no"],
     "", 0),
    ("/run/lab/good", ["Port 22", "HostKey /run/lab/host_key", "UseDNS no", "UsePAM yes",
                       "KbdInteractiveAuthentication no", "AuthorizedKeysFile /run/lab/ak",
                       "PermitRootLogin prohibit-password", "PidFile /run/lab/sshd.pid"],
     "", 0),
])
def test_sshd_t_reports_what_sshd_reports(path, lines, stderr, status):
    _client, server = lab()
    ok(server, "mkdir -p /run/sshd")
    result = sshd_t(server, path, lines)
    assert (result.stdout, result.stderr, result.status) == ("", stderr, status)


def test_the_privilege_separation_directory_is_checked_after_the_host_keys():
    _client, server = lab()
    result = sshd_t(server, "/run/lab/sshd_config", ["Port 22", "HostKey /run/lab/host_key"])
    assert (result.stderr, result.status) == (
        "Missing privilege separation directory: /run/sshd\n", 255)
    result = sshd_t(server, "/run/lab/c", ["HostKey /run/lab/nokey"])
    assert (result.stderr, result.status) == (
        "Unable to load host key: /run/lab/nokey\nsshd: no hostkeys available -- exiting.\n", 1)


def test_sshd_started_by_a_relative_name_refuses_to_run():
    _client, server = lab()
    write(server, "/run/lab/d", ["HostKey /run/lab/host_key", "UseDNS yes"])
    result = server.run("sshd -f /run/lab/d")
    assert (result.stderr, result.status) == (
        "sshd re-exec requires execution with an absolute path\n", 255)
    ok(server, "mkdir /run/sshd")
    assert server.run("sshd -t -f /run/lab/d").status == 0  # -t does not re-exec


def test_setpriv_runs_the_command():
    _client, server = lab()
    assert server.run("setpriv --clear-groups true") == CommandResult()
    assert server.run("setpriv --clear-groups false").status == 1
    unmodelled = server.run("setpriv --reuid 1000 true")
    assert unmodelled.status == 2 and "is not simulated" in unmodelled.stderr


@pytest.mark.parametrize("line", ["/usr/sbin/sshd -D", "/usr/sbin/sshd -T",
                                  "/usr/sbin/sshd -t -f /run/lab/none"])
def test_other_sshd_forms_are_not_modelled(line):
    _client, server = lab()
    result = server.run(line)
    assert result.status == 2 and result.stderr.startswith("labsim: sshd: ")
