"""The ``incus`` command line, run as a subprocess: the only way this package talks to Incus.

Everything goes through :class:`Incus`, which runs ``incus`` with ``--force-local`` (the
local daemon's unix socket, never a remote) and fails loudly with the command's own error.
:func:`usable` says whether Incus can be used here, and if not, why (the reason is what the
tests print when they skip).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from typing import Any


class IncusError(Exception):
    """An ``incus`` command failed; the message is its own error output."""


@dataclass(frozen=True)
class Incus:
    """The ``incus`` client (``binary``) of the local daemon."""

    binary: str = "incus"
    timeout: float = 600.0

    def run(self, *args: str, stdin: str | bytes | None = None,
            timeout: float | None = None) -> str:
        """Run ``incus ARGS``; its standard output, or :class:`IncusError`."""
        data = stdin.encode() if isinstance(stdin, str) else stdin
        # The command as errors name it: its verb and object, never the values given with it
        # (they carry the learners' passwords and the workshop key).
        what = "incus " + " ".join(args[:2])
        try:
            done = subprocess.run([self.binary, "--force-local", *args], input=data,
                                  capture_output=True, timeout=timeout or self.timeout,
                                  check=False)
        except subprocess.TimeoutExpired:
            raise IncusError(f"{what}: no answer in {timeout or self.timeout:.0f} s") from None
        if done.returncode != 0:
            err = done.stderr.decode(errors="replace").strip()
            raise IncusError(f"{what}: {err or f'exit {done.returncode}'}")
        return done.stdout.decode(errors="replace")

    def query(self, path: str) -> Any:
        """``incus query PATH``: the REST API's answer, decoded."""
        return json.loads(self.run("query", path))

    def list_json(self, kind: str) -> list[dict[str, Any]]:
        """``incus KIND list --format json`` for KIND in instance ("" ), profile, network,
        image, storage."""
        args = ("list",) if kind == "" else (kind, "list")
        return json.loads(self.run(*args, "--format", "json"))

    def exec(self, instance: str, command: list[str], stdin: str | None = None,
             env: dict[str, str] | None = None, timeout: float | None = None) -> str:
        """Run COMMAND in INSTANCE (``incus exec``); its standard output."""
        env_args: list[str] = []
        for name, value in (env or {}).items():
            env_args += ["--env", f"{name}={value}"]
        return self.run("exec", instance, *env_args, "--", *command, stdin=stdin,
                        timeout=timeout)


def usable(incus: Incus | None = None) -> tuple[bool, str]:
    """(True, server description) when the ``incus`` client is installed and its local
    daemon answers; else (False, why not)."""
    incus = incus or Incus()
    if shutil.which(incus.binary) is None:
        return False, ("the incus client is not installed (Debian 13: apt-get install incus; "
                       "Debian 12: from bookworm-backports)")
    try:
        server = incus.query("/1.0")
    except IncusError as err:
        return False, f"the Incus daemon does not answer: {err}"
    env = server.get("environment", {})
    return True, (f"Incus {env.get('server_version', '?')}, drivers {env.get('driver', '?')}, "
                  f"storage {env.get('storage', '?')}")


def drivers(incus: Incus) -> list[str]:
    """The instance drivers the daemon can use now: "lxc" (containers), "qemu" (VMs)."""
    text = incus.query("/1.0").get("environment", {}).get("driver", "")
    return [name.strip() for name in text.split("|") if name.strip()]
