"""`ssh-keygen -q -t ed25519 -N "" [-C COMMENT] -f FILE` (OpenSSH 9.2p1), as the slow-SSH lab
(labs/net/05-slow-ssh/) makes its user key and sshd's host key: a seed from the host's seeded
generator (the one behind `wg genkey`, so a simulation repeats exactly) and the two files of
labsim.net.ssh_keys. Without -q ssh-keygen prints a fingerprint and a randomart picture,
which labsim does not draw: that form is "not modelled".

Recorded on Debian 12 (tests/unit/test_ssh_keygen.py): nothing printed with -q; an existing
FILE gets "FILE already exists." and "Overwrite (y/n)? " (no newline; stdin is not a
terminal, so no answer) and exit 1; a FILE in a directory that does not exist gets
"Saving key "FILE" failed: No such file or directory" and exit 1.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import TYPE_CHECKING

from labsim.net.ssh_keys import ed25519_public_key, new_seed, private_text, public_line
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, HostFile, written_whole
from labsim.shell.registry import command

if TYPE_CHECKING:
    from labsim.shell.session import Session

# ---------------------------------------------------------------- the command

@dataclass(frozen=True)
class KeygenRequest:
    key_type: str
    passphrase: str
    comment: str | None
    path: str
    quiet: bool


class NotModelled(Exception):
    pass


def _parse(argv: list[str]) -> KeygenRequest:
    options: dict[str, str] = {}
    quiet, args = False, argv[1:]
    while args:
        word = args.pop(0)
        if word == "-q":
            quiet = True
        elif word in ("-t", "-N", "-C", "-f") and args:
            options[word] = args.pop(0)
        else:
            raise NotModelled(f"`{' '.join(argv)}'")
    if "-f" not in options or "-N" not in options:
        raise NotModelled(f"`{' '.join(argv)}' (labsim needs -N and -f, it asks nothing)")
    if options.get("-t") != "ed25519":
        raise NotModelled(f"keys of type {options.get('-t', 'rsa')} (only -t ed25519)")
    if options["-N"]:
        raise NotModelled("a passphrase (only -N \"\")")
    return KeygenRequest(options["-t"], options["-N"], options.get("-C"), options["-f"], quiet)


@command("ssh-keygen")
def main(session: Session, argv: list[str]) -> CommandResult:
    try:
        request = _parse(argv)
    except NotModelled as err:
        return CommandResult.fail(msg.tool_not_simulated("ssh-keygen", str(err)), 2)
    if not request.quiet:
        return CommandResult.fail(msg.tool_not_simulated(
            "ssh-keygen", "without -q (a fingerprint and randomart)"), 2)
    path = session.absolute(request.path)
    if path in session.host_files or path in session.host_dirs:
        # ssh-keygen.c confirm_overwrite(): asks, and reads no "y" from a non-terminal.
        return CommandResult(stdout=f"{request.path} already exists.\nOverwrite (y/n)? ",
                             status=1)
    if posixpath.dirname(path) not in session.host_dirs:
        return CommandResult.fail(
            f'Saving key "{request.path}" failed: No such file or directory', 1)
    assert session.wireguard is not None  # the host's seeded generator
    rng = session.wireguard.rng
    seed = new_seed(rng)
    checkint = rng.getrandbits(32)
    # ssh-keygen's default comment is user@host (the shell's user is root).
    comment = request.comment if request.comment is not None else f"root@{session.hostname}"
    private = private_text(seed, comment, checkint)
    public = public_line(ed25519_public_key(seed), comment) + "\n"
    session.host_files[path] = HostFile(len(private), session.clock, private,
                                        allocated=written_whole(len(private)))
    session.host_files[path + ".pub"] = HostFile(len(public), session.clock, public,
                                                 allocated=written_whole(len(public)))
    return CommandResult()
