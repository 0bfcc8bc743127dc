"""Writes the network labs' notebooks, labs/net-wN-NAME.ipynb, from labs/net/ and the text
below: a title and introduction, a first cell that makes the lab (netkit.notebook.NetLab),
per step a short explanation and one cell running that step on every host that has it, the
checks, any extra cells a lab shows, and a last cell that removes the lab.

The notebooks are stored as this writes them: no outputs, cell ids derived from the notebook's
name and the cell's position, so that writing them again changes nothing
(tests/labs/test_net_notebooks.py checks it).

    python tools/net_notebooks.py           write labs/net-w*.ipynb
    python tools/net_notebooks.py --check   exit 1 if a stored notebook differs
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LABS_DIR = ROOT / "labs"
sys.path.insert(0, str(LABS_DIR))

import netkit  # noqa: E402


@dataclass(frozen=True)
class LabText:
    """What a notebook says around the lab's own steps."""

    intro: str
    steps: dict[str, str]
    checks: str
    # (markdown, code) cells after the checks.
    extra: tuple[tuple[str, str], ...] = ()


RUN_AS = ("Run the cells from the top. The first one makes the lab afresh (it removes whatever "
          "an earlier run left), so you can start again at any time by running it again.")

TEXTS: dict[str, LabText] = {
    "01-wg-peers": LabText(
        intro=(
            "Two hosts, alice and bob, share one LAN (192.168.50.0/24). Each gets a WireGuard "
            "interface `wg0`, made by the lab runner before the first step (with the kernel "
            "module in the lab VM). You give each interface a key and an address inside the "
            "tunnel, then tell each side about the other: its public key, where to reach it, "
            "and which tunnel addresses it owns (AllowedIPs)."),
        steps={
            "keys": (
                "Each host makes a private key, listens on UDP port 51820 and takes a tunnel "
                "address (10.0.0.1 for alice, 10.0.0.2 for bob). Look at the public key each "
                "prints: it is all the other side needs to know about it, and the next step "
                "hands it over."),
            "peers": (
                "Each host adds the other as a peer: its public key, its LAN address and port "
                "as the endpoint, and the one tunnel address it owns. `wg show wg0 allowed-ips` "
                "is the table WireGuard sends by; `ip route` shows that the kernel sends all of "
                "10.0.0.0/24 to `wg0`, and only the peer's AllowedIPs decide what happens "
                "next."),
        },
        checks=(
            "The checks: the LAN works, each side reaches the other through the tunnel, alice "
            "has a handshake with bob, and nothing answers at 10.0.0.3, an address no peer "
            "owns."),
        extra=((
            "The last check, by hand. The route sends 10.0.0.3 into `wg0`, but no peer's "
            "AllowedIPs cover it, so WireGuard has no key to encrypt it with. Kernel WireGuard "
            "refuses the packet at once: `ping` reports `sendmsg: Required key not available` "
            "(ENOKEY). wireguard-go, the userspace version, drops it without a word, so there "
            "you only see the ping time out.",
            'lab.run("alice", "ping -c 1 -W 1 10.0.0.3")'),),
    ),
    "02-wg-gateway": LabText(
        intro=(
            "A client on an untrusted LAN sends all its traffic through a tunnel to a gateway. "
            "The gateway forwards it to a second segment, \"the internet\" "
            "(198.51.100.0/24), and masquerades it there, so the web server on that segment "
            "sees the gateway's address, not the client's. Both ends of the tunnel come up "
            "with `wg-quick` from configuration files the lab installs, with the other end's "
            "public key filled in."),
        steps={
            "keys": (
                "Each end makes a key pair and keeps the private key in "
                "`/etc/wireguard/wg0.key`, the file the configuration's PostUp reads. Only the "
                "public key is printed; the lab puts it into the other end's configuration."),
            "up": (
                "The gateway turns on forwarding and adds a MASQUERADE rule for what leaves by "
                "`eth1`, then both ends bring their tunnel up. On the client, look at `ip rule` "
                "and the two routing tables: with AllowedIPs = 0.0.0.0/0, wg-quick puts the "
                "default route in a table of its own (51820) and adds rules that keep the "
                "tunnel's own packets out of it, so the main table keeps its LAN route. The web "
                "server only knows its own segment."),
            "talk": (
                "The client's first packet into the tunnel makes the handshake; "
                "`latest-handshakes` shows its time."),
        },
        checks=(
            "The checks: the web server answers and names the gateway as the sender, the "
            "client reaches the internet by ping, the gateway forwards, there is a handshake, "
            "the LAN still works, and the default route is in table 51820, not in the main "
            "table."),
    ),
    "03-wg-client-routing": LabText(
        intro=(
            "One server and three clients. client1 and client2 share the server's `wg0` "
            "(10.0.0.0/24); client3 is on a second interface, `wg1` (10.0.1.0/24). client1 "
            "sits behind a home router that masquerades: nobody can reach it until it has sent "
            "a packet out, because until then neither the router nor the server knows where it "
            "is. Its configuration sends that packet as soon as the tunnel is up and keeps the "
            "way open with PersistentKeepalive."),
        steps={
            "keys": (
                "A key pair per interface: two on the server (wg0 and wg1), one on each "
                "client. The private keys go to the files PostUp reads."),
            "up": (
                "The server forwards between its peers and its interfaces and brings both "
                "tunnels up; the router forwards and masquerades what leaves by `eth0`; the "
                "clients bring their tunnels up. Look at each client's `ip route`: wg-quick "
                "routes the AllowedIPs of its peer into the tunnel, which is how client2 "
                "reaches client1 and client3 through the server. client1's PostUp pings the "
                "server once."),
            "talk": (
                "client2 and client3 send their first packets. `wg show wg0 endpoints` on the "
                "server shows where each client was last seen: for client1, the router's "
                "address and a port the NAT chose."),
        },
        checks=(
            "The checks: client2 reaches client1 (which works only because client1 has "
            "already sent a packet), client1 reaches client2 through the server, client3 on "
            "`wg1` reaches client2 on `wg0`, the server has handshakes and forwards, and "
            "client3 routes wg0's subnet into its tunnel."),
    ),
    "04-wg-runtime-peers": LabText(
        intro=(
            "alice is connected to a server. Then bob joins: the server adds him with one "
            "`wg set` while the interface runs, and alice's session goes on untouched. "
            "`wg-quick save` then writes the running interface into the server's file, and "
            "bob's own file, which has `SaveConfig = true`, is rewritten when his interface "
            "goes down: its comments and host names are gone."),
        steps={
            "keys": "A key pair each; the private keys go to the files PostUp reads.",
            "up": (
                "The server and alice bring their tunnels up; alice's PostUp pings the server, "
                "which makes the handshake. `wg show wg0 endpoints` on alice shows the server's "
                "address."),
            "join": (
                "The server adds bob with `wg set` on the running interface. Compare "
                "`latest-handshakes` before and after: alice's handshake is still there, and "
                "`endpoints` still knows where she is. Then bob brings his tunnel up."),
            "save": (
                "`wg-quick save` writes the running interface into the server's file: look at "
                "the file, now with bob's peer and without the comments it had. bob's "
                "`wg-quick down` does the same to his file because of `SaveConfig = true`: his "
                "endpoint is an address now, not the name he wrote, and the port his tunnel "
                "happened to get is fixed in `ListenPort`."),
        },
        checks=(
            "The checks: the server still reaches alice and alice the server, the server has "
            "handshakes with both, bob reaches the server, and the two rewritten files say "
            "what the last step showed."),
    ),
    "05-slow-ssh": LabText(
        intro=(
            "A real OpenSSH server and client, and a name server that drops every query. Both "
            "hosts use it, with a resolver timeout of one second. As written, every cause of a "
            "slow login is fixed, so a fresh login is quick and a second login reuses the "
            "first one's connection. Each variant of the lab (`NetLab(\"05-slow-ssh\", "
            "variant=\"usedns\")`, and `gssapi`, `mdns`, `no-master`) puts one cause back. "
            "The lab needs root, `openssh-server` and `libnss-mdns`, which the lab VM has."),
        steps={
            "setup": (
                "The name server drops DNS queries (it does not refuse them, which would be "
                "quick). The server and the client get the lab's resolver and name service "
                "settings, bind-mounted over their own in the host's private mount namespace, "
                "and each makes a key: the server a host key, the client a login key."),
            "sshd": (
                "The server lets the client's key log in as root, checks its configuration "
                "with `sshd -t` and starts sshd. Its configuration says `UseDNS no`: it does "
                "not look the client's address up."),
            "login": (
                "The client logs in once. Its `ssh_config` has `ControlMaster auto`, so this "
                "login leaves a master connection that later logins can share."),
        },
        checks=(
            "The checks: the server answers on the LAN, a second login rides on the master "
            "connection, and a fresh login (never through the master) takes under 0.6 s "
            "longer than one that looks up no names. For that comparison the check starts a "
            "second sshd on the server, on port 2220 with `UseDNS no` and no GSSAPI, and logs "
            "in to it by address without GSSAPI, at least three times each way; the fastest "
            "of each counts. Any lookup the lab's dead name server leaves unanswered costs at "
            "least 1 s, so a login that waited for one fails, while the key exchange, which "
            "takes seconds on a machine without hardware virtualisation, costs both logins "
            "the same."),
    ),
}


def notebook_name(lab: str) -> str:
    """labs/net/01-wg-peers -> net-w1-wg-peers (after the storage labs, which start 0N-)."""
    number, rest = lab.split("-", 1)
    return f"net-w{int(number)}-{rest}"


def cell(kind: str, source: str, notebook: str, index: int) -> dict:
    lines = source.splitlines(keepends=True)
    body: dict = {"cell_type": kind,
                  "id": hashlib.sha256(f"{notebook}:{index}".encode()).hexdigest()[:8],
                  "metadata": {}, "source": lines}
    if kind == "code":
        body = {"cell_type": "code", "execution_count": None, "id": body["id"],
                "metadata": {}, "outputs": [], "source": lines}
    return body


def step_titles(topology: netkit.Topology) -> dict[str, list[str]]:
    """Step name -> the titles of its `# step NAME: title` markers, host by host."""
    titles: dict[str, list[str]] = {}
    for host, script in topology.scripts().items():
        for raw in script.read_text().splitlines():
            marker = netkit.STEP_MARKER.match(raw)
            if marker:
                titles.setdefault(marker.group(1), []).append(f"{host}: {marker.group(2)}")
    return titles


def build(lab: str) -> dict:
    topology = netkit.load(lab)
    text = TEXTS[lab]
    name = notebook_name(lab)
    steps = list(dict.fromkeys(step for step, _h, _l in netkit.plan(topology)))
    if set(steps) != set(text.steps):
        raise SystemExit(f"{lab}: the text describes steps {sorted(text.steps)}, "
                         f"the scripts have {steps}")
    titles = step_titles(topology)
    variants = "\n".join(f"- `{v}`: {topology.variants[v].description}"
                         for v in topology.variants)
    sources: list[tuple[str, str]] = [
        ("markdown", f"# {topology.title} (network lab W{int(lab[:2])})\n\n{text.intro}\n\n"
                     f"{RUN_AS} The same lab runs on any Linux machine with "
                     f"`sudo python3 -m netkit run {lab}` in `/labs` (or the repository's "
                     "`labs/` folder)."
                     + (f"\n\nTo see what goes wrong, make the lab with "
                        f"`NetLab(\"{lab}\", variant=\"...\")` in the first cell, one of:\n\n"
                        f"{variants}" if variants else "")),
        ("code", f'from netkit.notebook import NetLab\n\nlab = NetLab("{lab}")\nlab.up()'),
    ]
    for number, step in enumerate(steps, start=1):
        heading = "; ".join(titles.get(step, []))
        sources.append(("markdown", f"## Step {number}: {step}\n\n*{heading}*\n\n"
                                    f"{text.steps[step]}"))
        sources.append(("code", f'lab.step("{step}")'))
    sources.append(("markdown", f"## Checks\n\n{text.checks} Each check prints one line; "
                                "the cell fails if one of them fails."))
    sources.append(("code", "lab.validate()"))
    for markdown, code in text.extra:
        sources.append(("markdown", markdown))
        sources.append(("code", code))
    sources.append(("markdown", "## Clean up\n\nRemoves every namespace, link and process of "
                                "the lab."))
    sources.append(("code", "lab.down()"))
    return {"cells": [cell(kind, source, name, i) for i, (kind, source) in enumerate(sources)],
            "metadata": {"kernelspec": {"display_name": "Python 3 (ipykernel)",
                                        "language": "python", "name": "python3"},
                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def rendered(notebook: dict) -> str:
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    stale = []
    for lab in TEXTS:
        path = LABS_DIR / f"{notebook_name(lab)}.ipynb"
        text = rendered(build(lab))
        if args.check:
            if not path.is_file() or path.read_text() != text:
                stale.append(path.name)
        else:
            path.write_text(text)
    if stale:
        print(f"stale: {', '.join(stale)} (python tools/net_notebooks.py)", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
