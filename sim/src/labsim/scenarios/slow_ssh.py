"""Slow SSH logins: where the seconds of `ssh server true` go.

The reader sets the client's and the server's settings and the state of the site's name
server; the chart lays out the phases of one login (labsim.net.ssh_login.login) end to end,
coloured by the setting to blame, above the same login with every cause fixed and, with a
ControlMaster, the next login over the master connection. The figures are those measured
on Debian 12 (tools/probes/slow_ssh_probe.sh): a resolver that gets no answer waits its
timeout per attempt and nameserver, and sshd pads its answer to the first request.

The defaults are the worst case the lesson starts from: glibc's resolver defaults (5 s x 2
attempts) with a dead name server, UseDNS yes and GSSAPI offered by the server and tried by
the client (Debian 12's own sshd has both off; its ssh_config tries GSSAPI): the
half-minute login of the stories. The lab (labs/net/05-slow-ssh/) uses 1 s x 1.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from labsim.figures import Span, span_chart
from labsim.net import ssh_login as model
from labsim.scenarios.base import ScenarioResult, Simulation, typed_params
from labsim.scenarios.controls import Control

TARGETS = [
    [model.BY_ADDRESS, "by its address (ssh 192.168.50.11)"],
    [model.BY_HOSTS_FILE, "by a name in the client's /etc/hosts"],
    [model.BY_DNS_NAME, "by a name in DNS (server.example.org)"],
    [model.BY_MDNS_NAME, "by its mDNS name (server.local)"],
]
NAMESERVER = [
    [model.DROPS, "is down: drops every query"],
    [model.REFUSES, "is down: refuses (port unreachable)"],
    [model.ANSWERS, "answers"],
]

CONTROLS: list[Control] = [
    {"name": "nameserver", "label": "The site's name server", "kind": "select",
     "options": NAMESERVER, "default": model.DROPS},
    {"name": "timeout", "label": "resolv.conf options timeout", "kind": "range", "min": 1,
     "max": 30, "step": 1, "default": model.DEFAULT_TIMEOUT, "unit": "s"},
    {"name": "attempts", "label": "resolv.conf options attempts", "kind": "range", "min": 1,
     "max": 5, "step": 1, "default": model.DEFAULT_ATTEMPTS},
    {"name": "nameservers", "label": "nameserver lines (all alike)", "kind": "range",
     "min": 1, "max": 3, "step": 1, "default": 1},
    {"name": "use_dns", "label": "server: UseDNS yes", "kind": "checkbox", "default": True},
    {"name": "server_gssapi", "label": "server: GSSAPIAuthentication yes", "kind": "checkbox",
     "default": True},
    {"name": "client_gssapi", "label": "client: GSSAPIAuthentication yes", "kind": "checkbox",
     "default": True},
    {"name": "target", "label": "The client names the server", "kind": "select",
     "options": TARGETS, "default": model.BY_ADDRESS},
    {"name": "mdns", "label": "client: mdns4_minimal in nsswitch.conf", "kind": "checkbox",
     "default": True},
    {"name": "avahi", "label": "client: avahi-daemon running", "kind": "checkbox",
     "default": False},
    {"name": "control_master", "label": "client: ControlMaster auto, ControlPersist",
     "kind": "checkbox", "default": False},
]

# Legend: the fixed cost of a login, then each cause.
FIXED = "login itself"
GROUPS = [(FIXED, "#9E9E9E"), ("UseDNS", "#D55E00"), ("GSSAPI", "#E69F00"),
          ("mDNS", "#CC79A7"), ("DNS", "#56B4E9"), ("ControlMaster", "#009E73")]
ROW_NOW, ROW_FIXED, ROW_NEXT = "this login", "every cause fixed", "next login (master)"


@dataclass(frozen=True)
class Params:
    nameserver: str
    timeout: int
    attempts: int
    nameservers: int
    use_dns: bool
    server_gssapi: bool
    client_gssapi: bool
    target: str
    mdns: bool
    avahi: bool
    control_master: bool
    notes: tuple[str, ...] = ()


def read(values: object) -> Params:
    return typed_params(Params, CONTROLS, values)


def settings(p: Params) -> tuple[model.ClientSettings, model.ServerSettings]:
    resolver = model.Resolver(nameservers=p.nameservers, timeout=p.timeout,
                              attempts=p.attempts, state=p.nameserver)
    client = model.ClientSettings(target=p.target, mdns_in_nsswitch=p.mdns,
                                  avahi_running=p.avahi, gssapi=p.client_gssapi,
                                  control_master=p.control_master, resolver=resolver)
    server = model.ServerSettings(use_dns=p.use_dns, gssapi=p.server_gssapi,
                                  resolver=resolver)
    return client, server


def fixed(client: model.ClientSettings, server: model.ServerSettings
          ) -> tuple[model.ClientSettings, model.ServerSettings]:
    """The same machines with every cause removed: UseDNS no, GSSAPIAuthentication no, and
    the server named in /etc/hosts (which neither DNS nor mDNS is asked about)."""
    return (replace(client, gssapi=False, target=model.BY_HOSTS_FILE, master_running=False),
            replace(server, use_dns=False))


def run(p: Params) -> ScenarioResult:
    client, server = settings(p)
    now = model.login(client, server)
    best = model.login(*fixed(client, server))
    logins = [(ROW_NOW, now), (ROW_FIXED, best)]
    if client.control_master and now.succeeded:
        logins.append((ROW_NEXT, model.login(replace(client, master_running=True), server)))
    spans = [span for row, login in logins for span in _spans(row, login)]
    vlines: list[tuple[float, str, str]] = (
        [] if now.succeeded else [(now.seconds, "ssh gives up", "#D55E00")])
    figure = span_chart([row for row, _login in logins], spans, GROUPS,
                        title=_title(now), x_title="seconds since `ssh server true` started",
                        vlines=vlines)
    return ScenarioResult(figure, _summary(now, best, logins, p.notes), _transcript(p, now))


def _spans(row: str, login: model.Login) -> list[Span]:
    out = []
    for start, phase in zip(login.starts(), login.phases, strict=True):
        group = phase.cause or (
            "ControlMaster" if phase.name.startswith("session over") else FIXED)
        detail = f"<br>{phase.detail}" if phase.detail else ""
        out.append(Span(row, round(start, 4), round(phase.seconds, 4), group,
                        f"{phase.name} ({phase.host})<br>{phase.seconds:.3f} s{detail}",
                        f"{phase.seconds:.1f} s" if phase.seconds >= 0.95 else ""))
    return out


def _title(login: model.Login) -> str:
    if not login.succeeded:
        return f"ssh fails after {login.seconds:.1f} s: {login.error}"
    return f"A login that takes {login.seconds:.2f} s"


def _summary(now: model.Login, best: model.Login, logins: list[tuple[str, model.Login]],
             notes: tuple[str, ...]) -> str:
    causes = now.by_cause()
    if now.succeeded:
        lines = [f"This login takes {now.seconds:.2f} s; with every cause fixed, "
                 f"{best.seconds:.2f} s."]
    else:
        lines = [f"ssh gives up after {now.seconds:.2f} s ({now.error})."]
    if causes:
        lines.append("Waiting on: " + ", ".join(f"{name} {seconds:.2f} s" for name, seconds
                                                in sorted(causes.items(),
                                                          key=lambda kv: -kv[1])) + ".")
    else:
        lines.append("Nothing waits on a lookup.")
    if len(logins) == 3:
        lines.append(f"The next login rides on the master: {logins[2][1].seconds:.2f} s, "
                     "whatever the settings.")
    return " ".join(lines + [n + "." for n in notes])


def _transcript(p: Params, login: model.Login) -> str:
    """The settings behind the chart, as the files say them, and the command."""
    hosts = ("files mdns4_minimal [NOTFOUND=return] dns" if p.mdns else "files dns")
    servers = "".join(f"nameserver 192.168.50.{53 + n}\n" for n in range(p.nameservers))
    target = {model.BY_ADDRESS: "192.168.50.11", model.BY_HOSTS_FILE: "server",
              model.BY_DNS_NAME: "server.example.org", model.BY_MDNS_NAME: "server.local"}
    lines = [
        "# client and server: /etc/resolv.conf",
        servers + f"options timeout:{p.timeout} attempts:{p.attempts}",
        "# client: /etc/nsswitch.conf",
        f"hosts: {hosts}",
        "# server: /etc/ssh/sshd_config",
        f"UseDNS {'yes' if p.use_dns else 'no'}",
        f"GSSAPIAuthentication {'yes' if p.server_gssapi else 'no'}",
        "# client: /etc/ssh/ssh_config",
        f"GSSAPIAuthentication {'yes' if p.client_gssapi else 'no'}",
    ]
    if p.control_master:
        lines += ["ControlMaster auto", "ControlPath ~/.ssh/cm-%C", "ControlPersist 10m"]
    status = "" if login.succeeded else "   # fails"
    lines += [f"$ time ssh {target[p.target]} true{status}",
              f"real\t{_minutes(login.seconds)}"]
    return "\n".join(lines) + "\n"


def _minutes(seconds: float) -> str:
    """As bash's `time` prints it: 0m2.185s."""
    return f"{int(seconds // 60)}m{seconds % 60:.3f}s"


SCENARIO = Simulation("slow-ssh", "Slow SSH logins: where the time goes", CONTROLS, read, run)
