"""The compression probe (tools/probes/compression_content_probe.sh) runs to its end in
labsim on every taught release: no command fails, and what it prints has the shape the
recordings will be compared with (until they exist, tests/fixtures/probes/zfs/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from labsim import Session, run_script
from labsim.zfs import compressors
from labsim.zfs.versions import get_version

PROBE = Path(__file__).resolve().parents[2] / "tools" / "probes" / \
    "compression_content_probe.sh"


@pytest.mark.skipif(compressors.zstd_backend() is None, reason="no zstd: labsim[compress]")
@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_probe_runs_to_the_end(version):
    pairs = run_script(PROBE.read_text(), Session(version=get_version(version)))
    failed = [(line, result.stderr) for line, result in pairs if result.status]
    assert not failed
    ratios = {}
    get = next(result.stdout for line, result in pairs if line.startswith("zfs get -p -r"))
    for row in get.splitlines()[1:]:
        name, prop, value, _ = row.split()
        if prop == "compressratio":
            ratios[name] = float(value)
    assert len(ratios) == 17
    assert all(ratios[f"labc/off-{rs}"] == 1.0 for rs in ("4k", "16k", "128k", "1m"))
    for name in ("lz4", "gzip", "zstd"):
        # larger records compress better; each algorithm saves something at 128K
        assert ratios[f"labc/{name}-128k"] > 1.3
        assert ratios[f"labc/{name}-1m"] >= ratios[f"labc/{name}-16k"]
    assert ratios["labc/zstd-1m"] > ratios["labc/lz4-1m"]
