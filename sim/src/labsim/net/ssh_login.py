"""Where the time of an SSH login goes: the phases of `ssh HOST true`, client and server.

A pure model of the slow-SSH lesson (labs/net/05-slow-ssh/): from the client's and the
server's settings, ``login(client, server)`` gives the phases of one login in order, with
their durations and the host that spends them. The causes it knows, each measured on Debian
12 with OpenSSH 9.2p1, glibc 2.36, MIT krb5 1.20 and libnss-mdns 0.15.1 by
tools/probes/slow_ssh_probe.sh:

* A lookup nobody answers (``lookup_seconds``). glibc's stub resolver (resolv/res_send.c)
  sends the query to each nameserver in turn, ``attempts`` times round the list; it waits
  ``timeout`` s for the first server and ``(timeout << i) / nameservers`` s (at least 1) for
  server i (send_dg(): ``seconds = statp->retrans << ns; if (ns > 0) seconds /=
  statp->nscount``). Measured with a nameserver that drops queries: 1 server 1x1 1.0 s,
  2x2 4.0 s, 1x3 3.0 s; 2 servers 1x1 2.0 s, 2x2 8.0 s; 3 servers 1x1 3.0 s, 3x2 18.0 s.
  The defaults (5 s, 2 attempts) make one lookup 10 s with one nameserver, 28 s with
  three. A nameserver that refuses (ICMP port unreachable) costs nothing: 0.005 s.
* UseDNS yes (sshd): at the first authentication request ("none"), the monitor looks the
  client's address up before it answers (auth.c getpwnamallow() -> get_connection_info()
  -> auth_get_canonical_hostname() -> remote_hostname(): "Trying to reverse map address").
  The answer to a failed request is then padded (auth2.c ensure_minimum_time_since()): to a
  per-user delay of 5 ms plus 0-4.2 ms (hashed from the user and the host key), doubled
  until it is longer than what the request took. So a 1 s lookup costs 1.0-2.0 s:
  measured 1.09 s (8.529 ms x 128), 1.43 s (5.585 ms x 256) and 1.77 s (6.933 ms x 256).
* GSSAPIAuthentication yes (client), when the server offers gssapi-with-mic: with no
  Kerberos ticket the client still asks krb5 about each GSSAPI mechanism, and krb5 looks
  the server's address up first, once per mechanism: two lookups on Debian 12 (measured
  1.0 s each, 2.0 s in all). Nothing when /etc/hosts names the server's address, or the
  server does not offer GSSAPI, or the client does not try it.
* mDNS (hosts: files mdns4_minimal [NOTFOUND=return] dns): for a NAME.local, nss-mdns
  first asks the unicast DNS for an SOA of ``local`` (its README: "check SOA before every
  request"; a lookup, 1.0 s here), then asks avahi-daemon; with no avahi it gives up
  (UNAVAIL) and DNS is asked for the name itself (another lookup): 2.0 s, then "Could not
  resolve hostname". With avahi running and nobody answering, avahi's resolver waits 5 s
  (avahi-core/resolve-host-name.c, TIMEOUT_MSEC) and [NOTFOUND=return] ends the lookup:
  6.0 s. Names with more than two labels (x.y.local) skip mDNS: 1.0 s, DNS only.
* ControlMaster: a login through a running master skips everything above, name lookup
  included (the mux client is tried before the host name is resolved): 0.12-0.19 s.
* No ``dns`` in the hosts line of nsswitch.conf (``hosts: files``): a name not in /etc/hosts
  fails at once, "Name or service not known" (measured 0.02 s for `ssh nosuchhost`).

The rest of a login is the fixed cost measured on this machine's veth LAN: connecting and
key exchange (0.18 s, to SSH2_MSG_SERVICE_ACCEPT), public-key authentication (0.02 s), and
running ``true`` and closing (0.19 s): 0.39 s in all, 0.35-0.5 s measured (0.8 s under load).

Known difference: with longer lookups the real UseDNS logins ran longer than the model
says: 6.65 s measured for a 4 s lookup (timeout:2 attempts:2; model 6.11 s with the probe's
5.585 ms delay) and 3.5-3.6 s for two dead nameservers at 1 s (model 3.25 s). For the lab's
1 s lookup they agree (1.77-1.83 s measured, 1.82 s modelled).

Not modelled: a Kerberos ticket and a KDC (what GSSAPI costs then), PAM modules, hostbased
authentication, a resolver cache (nscd, systemd-resolved), DNS answers with records (UseDNS
with a working DNS adds its PTR and A lookups, a few ms, modelled as ANSWER_SECONDS each).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# glibc resolv/resolv.h: MAXNS, RES_MAXRETRANS, RES_MAXRETRY (resolv.conf(5)).
MAX_NAMESERVERS = 3
MAX_TIMEOUT = 30
MAX_ATTEMPTS = 5
DEFAULT_TIMEOUT = 5
DEFAULT_ATTEMPTS = 2
# What a nameserver does with a query.
ANSWERS, DROPS, REFUSES = "answers", "drops", "refuses"
NAMESERVER_STATES = (ANSWERS, DROPS, REFUSES)
# A query answered (or refused) on a LAN: a few milliseconds (0.005 s measured with getent).
ANSWER_SECONDS = 0.005

# Measured fixed costs of a login on the lab's LAN (tools/probes/slow_ssh_probe.sh).
KEX_SECONDS = 0.18
PUBKEY_SECONDS = 0.02
SESSION_SECONDS = 0.19
MUX_SECONDS = 0.13
# sshd auth2.c: MIN_FAIL_DELAY_SECONDS 0.005, plus up to 4.29 ms per user (user_specific_delay).
MIN_FAIL_DELAY_MS = 5.0
MAX_USER_DELAY_MS = 4.294967295
# MIT krb5 1.20 on Debian 12: GSSAPI mechanisms the ssh client asks about (measured: two
# "No Kerberos credentials available" lines, one lookup before each).
GSSAPI_MECHANISMS = 2
# avahi-core/resolve-host-name.c: how long avahi waits for an mDNS answer.
AVAHI_TIMEOUT_SECONDS = 5.0

# How the client names the server.
BY_ADDRESS, BY_HOSTS_FILE, BY_DNS_NAME, BY_MDNS_NAME = "address", "hosts", "dns", "local"
TARGETS = (BY_ADDRESS, BY_HOSTS_FILE, BY_DNS_NAME, BY_MDNS_NAME)

CLIENT, SERVER = "client", "server"


@dataclass(frozen=True)
class Resolver:
    """A host's /etc/resolv.conf and what its nameservers do with a query."""

    nameservers: int = 1
    timeout: int = DEFAULT_TIMEOUT
    attempts: int = DEFAULT_ATTEMPTS
    state: str = ANSWERS

    def __post_init__(self) -> None:
        if self.state not in NAMESERVER_STATES:
            raise ValueError(f"nameserver state {self.state!r}: one of {NAMESERVER_STATES}")
        if self.nameservers < 1:
            raise ValueError("a resolver needs at least one nameserver")


@dataclass(frozen=True)
class ClientSettings:
    target: str = BY_HOSTS_FILE
    # hosts: files mdns4_minimal [NOTFOUND=return] dns (Debian's default with libnss-mdns)
    mdns_in_nsswitch: bool = True
    avahi_running: bool = False
    # Someone answers the mDNS query for the name (the server publishes it with avahi).
    mdns_answered: bool = False
    # hosts: ... dns: names that are not in /etc/hosts (or mDNS) are asked of the DNS.
    dns_in_nsswitch: bool = True
    # /etc/hosts names the server's address: krb5's lookups of it (GSSAPI) are answered there.
    server_address_in_hosts_file: bool = False
    gssapi: bool = True  # Debian's /etc/ssh/ssh_config: GSSAPIAuthentication yes
    control_master: bool = False
    master_running: bool = False
    resolver: Resolver = field(default_factory=Resolver)

    def __post_init__(self) -> None:
        if self.target not in TARGETS:
            raise ValueError(f"target {self.target!r}: one of {TARGETS}")


@dataclass(frozen=True)
class ServerSettings:
    use_dns: bool = False  # the default since OpenSSH 6.8
    gssapi: bool = False
    client_in_hosts_file: bool = False
    # auth2.c user_specific_delay(): 5 ms plus 0-4.29 ms, fixed for a user and host key.
    failure_delay_ms: float = 7.0
    resolver: Resolver = field(default_factory=Resolver)

    def __post_init__(self) -> None:
        top = MIN_FAIL_DELAY_MS + MAX_USER_DELAY_MS
        if not MIN_FAIL_DELAY_MS <= self.failure_delay_ms <= top:
            raise ValueError(f"failure delay: {MIN_FAIL_DELAY_MS}-{top:.2f} ms")


@dataclass(frozen=True)
class Phase:
    name: str
    host: str  # who spends the time: CLIENT or SERVER
    seconds: float
    cause: str = ""  # the setting to blame, "" for the fixed cost of a login
    detail: str = ""


@dataclass(frozen=True)
class Login:
    phases: tuple[Phase, ...]
    succeeded: bool
    error: str = ""

    @property
    def seconds(self) -> float:
        return sum(p.seconds for p in self.phases)

    def starts(self) -> list[float]:
        """When each phase starts, from the moment ssh starts."""
        out, now = [], 0.0
        for phase in self.phases:
            out.append(now)
            now += phase.seconds
        return out

    def by_cause(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for p in self.phases:
            if p.cause:
                out[p.cause] = out.get(p.cause, 0.0) + p.seconds
        return out


def per_server_timeouts(resolver: Resolver) -> list[int]:
    """Seconds glibc waits for each nameserver in one round (res_send.c send_dg())."""
    servers = min(resolver.nameservers, MAX_NAMESERVERS)
    timeout = max(1, min(resolver.timeout, MAX_TIMEOUT))
    return [timeout if i == 0 else max(1, (timeout << i) // servers) for i in range(servers)]


def lookup_seconds(resolver: Resolver) -> float:
    """How long one lookup through the unicast DNS takes before it has an outcome."""
    if resolver.state != DROPS:
        return ANSWER_SECONDS
    attempts = max(1, min(resolver.attempts, MAX_ATTEMPTS))
    return float(attempts * sum(per_server_timeouts(resolver)))


def padded_failure(elapsed: float, failure_delay_ms: float) -> float:
    """What sshd's answer to a failed authentication request takes in all: the per-user
    delay, doubled until it exceeds the time the request already took (auth2.c
    ensure_minimum_time_since())."""
    seconds = failure_delay_ms / 1000
    while seconds < elapsed:
        seconds *= 2
    return seconds


def resolve(client: ClientSettings) -> tuple[list[Phase], str]:
    """The phases of looking the server's name up (one getaddrinfo() call: its A and AAAA
    queries go out together), and an error if it cannot be found."""
    dns = client.resolver
    if client.target == BY_ADDRESS:
        return [], ""
    if client.target == BY_HOSTS_FILE:
        return [Phase("look up server (/etc/hosts)", CLIENT, 0.0)], ""
    if not client.dns_in_nsswitch and not (client.target == BY_MDNS_NAME
                                           and client.mdns_in_nsswitch):
        return [], "Name or service not known"
    if client.target == BY_DNS_NAME:
        # mdns4_minimal passes on names outside .local at once.
        phase = Phase("look up server (DNS)", CLIENT, lookup_seconds(dns),
                      "DNS" if dns.state == DROPS else "")
        return [phase], "" if dns.state == ANSWERS else _unresolved(dns)
    phases = []
    if client.mdns_in_nsswitch:
        phases.append(Phase("nss-mdns: SOA of local. (DNS)", CLIENT, lookup_seconds(dns),
                            "mDNS" if dns.state == DROPS else ""))
        if client.avahi_running:
            if client.mdns_answered:
                return [*phases, Phase("avahi: mDNS answer", CLIENT, ANSWER_SECONDS)], ""
            phases.append(Phase("avahi: mDNS query unanswered", CLIENT,
                                AVAHI_TIMEOUT_SECONDS, "mDNS"))
            return phases, "Name or service not known"
    # No avahi (nss-mdns: UNAVAIL) or no mdns in nsswitch: DNS, which has no .local names.
    if not client.dns_in_nsswitch:
        return phases, "Name or service not known"
    phases.append(Phase("look up server.local (DNS)", CLIENT, lookup_seconds(dns),
                        "DNS" if dns.state == DROPS else ""))
    return phases, _unresolved(dns, answered_nxdomain=True)


def _unresolved(resolver: Resolver, answered_nxdomain: bool = False) -> str:
    if resolver.state == ANSWERS and answered_nxdomain:
        return "Name or service not known"
    return "Temporary failure in name resolution"


def login(client: ClientSettings, server: ServerSettings) -> Login:
    """The phases of `ssh SERVER true` with these settings, in order."""
    if client.control_master and client.master_running:
        return Login((Phase("session over the master connection", CLIENT, MUX_SECONDS,
                            detail="mux_client_request_session"),), True)
    phases, error = resolve(client)
    if error:
        return Login(tuple(phases), False, f"Could not resolve hostname: {error}")
    phases.append(Phase("connect and key exchange", CLIENT, KEX_SECONDS,
                        detail="to SSH2_MSG_SERVICE_ACCEPT"))
    reverse = 0.0
    if server.use_dns and not server.client_in_hosts_file:
        reverse = lookup_seconds(server.resolver)
        if server.resolver.state == ANSWERS:
            reverse *= 2  # the PTR, then the forward check of the name it gave
    none_phase = padded_failure(reverse, server.failure_delay_ms)
    if reverse:
        phases.append(Phase("sshd: reverse lookup of the client (UseDNS)", SERVER, reverse,
                            "UseDNS" if server.resolver.state == DROPS else ""))
        phases.append(Phase("sshd: padding of the failed 'none' request", SERVER,
                            none_phase - reverse,
                            "UseDNS" if server.resolver.state == DROPS else "",
                            f"{server.failure_delay_ms:g} ms doubled to {none_phase:.3f} s"))
    else:
        phases.append(Phase("sshd: answer to the 'none' request", SERVER, none_phase))
    if client.gssapi and server.gssapi:
        in_hosts = client.target == BY_HOSTS_FILE or client.server_address_in_hosts_file
        each = 0.0 if in_hosts else lookup_seconds(client.resolver)
        slow = not in_hosts and client.resolver.state == DROPS
        for n in range(GSSAPI_MECHANISMS):
            phases.append(Phase(f"GSSAPI mechanism {n + 1}: look up the server's address",
                                CLIENT, each, "GSSAPI" if slow else "",
                                "then: No Kerberos credentials available"))
    phases.append(Phase("public key authentication", CLIENT, PUBKEY_SECONDS))
    phases.append(Phase("run `true` and close", SERVER, SESSION_SECONDS))
    return Login(tuple(phases), True)


def lab(cause: str | None = None) -> tuple[ClientSettings, ServerSettings]:
    """The settings of labs/net/05-slow-ssh (a nameserver that drops, 1 s x 1 attempt), as
    written (None) or in one of its variants: "usedns", "gssapi", "mdns", "no-master"
    (a second login)."""
    dead = Resolver(nameservers=1, timeout=1, attempts=1, state=DROPS)
    client = ClientSettings(target=BY_ADDRESS, mdns_in_nsswitch=True, gssapi=False,
                            control_master=True, resolver=dead)
    server = ServerSettings(use_dns=False, gssapi=True, resolver=dead)
    if cause == "usedns":
        server = ServerSettings(use_dns=True, gssapi=True, resolver=dead)
    elif cause == "gssapi":
        client = ClientSettings(target=BY_ADDRESS, gssapi=True, control_master=True,
                                resolver=dead)
    elif cause == "mdns":
        client = ClientSettings(target=BY_MDNS_NAME, gssapi=False, control_master=True,
                                resolver=dead)
    elif cause == "no-master":
        client = ClientSettings(target=BY_ADDRESS, gssapi=False, control_master=False,
                                master_running=True, resolver=dead)
    elif cause is not None:
        raise ValueError(f"labsim: lab variant {cause!r} is not modelled")
    return client, server
