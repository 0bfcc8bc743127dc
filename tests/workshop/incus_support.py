"""What the Incus tests share: whether this machine can run them (else a skip that says why),
and a picture of what Incus and the host's firewall hold, to compare before and after."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO / "tools") not in sys.path:
    sys.path.insert(0, str(REPO / "tools"))

from workshop import image  # noqa: E402
from workshop.incus import Incus, usable  # noqa: E402


def ready() -> tuple[Incus, image.Box]:
    """The local Incus and the CI box whose learner image it holds; skips, saying why, when
    Incus is not installed or not answering, when not root, or without the box or the image."""
    ok, why = usable()
    if not ok:
        pytest.skip(f"Incus not usable: {why}")
    if os.geteuid() != 0:
        pytest.skip("needs root (Incus's admin socket)")
    try:
        box = image.find_box()
    except FileNotFoundError as err:
        pytest.skip(str(err))
    incus = Incus()
    if not image.has_image(incus, image.image_alias(box, "ct")):
        pytest.skip(f"no learner image for {box.key} yet: build it with "
                    "`python3 tools/workshop image` (several minutes)")
    return incus, box


def snapshot(incus: Incus) -> dict[str, list[str]]:
    """Incus's instances, profiles, networks and storage volumes (every pool), and the host's
    nftables chains."""
    nft = subprocess.run(["nft", "list", "ruleset"], capture_output=True, text=True,
                         check=False).stdout
    volumes = [f"{pool['name']}/{volume['type']}/{volume['name']}"
               for pool in incus.list_json("storage")
               for volume in json.loads(incus.run("storage", "volume", "list", pool["name"],
                                                  "--format", "json"))]
    return {
        "instances": sorted(i["name"] for i in incus.list_json("")),
        "profiles": sorted(p["name"] for p in incus.list_json("profile")),
        "networks": sorted(n["name"] for n in incus.list_json("network")),
        "storage volumes": sorted(volumes),
        "nft chains": sorted(line.split()[1] for line in nft.splitlines()
                             if line.strip().startswith("chain ")),
    }
