"""A network lab's steps: each host's script divided by labsteps' ``# step NAME: title``
markers, and the order the runner runs them in over all the hosts (:func:`plan`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from labsteps import sections
from netkit.errors import NetkitError

if TYPE_CHECKING:
    from netkit.topology import Topology


def steps(text: str) -> list[tuple[str, list[str]]]:
    """(step name, command lines) in order; lines before the first marker form step ''."""
    return [(s.name, list(s.lines)) for s in sections(text)]


def plan(topology: Topology, variant: str | None = None) -> list[tuple[str, str, list[str]]]:
    """(step, host, lines): each step on every host that has it, in the order the steps
    first appear (hosts in topology order)."""
    per_host = {h: dict(steps(p.read_text())) for h, p in topology.scripts(variant).items()}
    for lab_file in topology.files(variant):
        if lab_file.step not in per_host[lab_file.host]:
            raise NetkitError(f"{lab_file.host}: {lab_file.path} is for step "
                              f"{lab_file.step!r}, which {lab_file.host}'s script lacks")
    order: list[str] = []
    for host_steps in per_host.values():
        order += [s for s in host_steps if s not in order]
    return [(step, host, per_host[host][step])
            for step in order for host in topology.hosts if step in per_host[host]]
