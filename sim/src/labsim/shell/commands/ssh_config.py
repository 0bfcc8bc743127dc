"""The settings `ssh` (OpenSSH 9.2p1) reads: the client's ~/.ssh/config and
/etc/ssh/ssh_config (GSSAPIAuthentication, HostName, User, Port, HostKeyAlias, ControlMaster,
ControlPath, ControlPersist; the first value read wins: `-o` and `-p` options, then
~/.ssh/config, then ssh_config), and from the server's sshd_config what decides the login
(UseDNS, GSSAPIAuthentication, and the list of authentication methods).

A missing file means Debian 12's: /etc/ssh/ssh_config as the openssh-client package ships it
(GSSAPIAuthentication yes), sshd with the package's sshd_config (UseDNS and GSSAPI off,
KbdInteractiveAuthentication no). The sshd that reads its configuration to start (and refuses
a bad one) is labsim.shell.commands.sshd (parse_config); what is read here is the text of
the sshd that answers, read as the client's side of the login needs it.
"""

from __future__ import annotations

import fnmatch
import hashlib
import math
from typing import TYPE_CHECKING

from labsim.net import model

if TYPE_CHECKING:
    pass
from labsim.shell.commands.resolver import (
    NotModelled,
    config_lines,
    host_text,
)

SSH_CONFIG = "/etc/ssh/ssh_config"
USER_SSH_CONFIG = "/root/.ssh/config"  # ~/.ssh/config of root, the user of every labsim shell
SSH_PORT = 22
LOCAL_USER = "root"  # every labsim shell is root's
HOME = "/root"
# Debian 12's /etc/ssh/ssh_config: an Include on line 19 (ssh_config.d is empty), then
# "Host *" on line 21 with GSSAPIAuthentication yes among its options.
DEBIAN_SSH_CONFIG_DEBUG = (
    f"debug1: {SSH_CONFIG} line 19: include /etc/ssh/ssh_config.d/*.conf matched no files\n"
    f"debug1: {SSH_CONFIG} line 21: Applying options for *\n")
DEBIAN_SSH_CONFIG = {"gssapiauthentication": "yes"}
# Debian 12's /etc/ssh/sshd_config, as far as this module reads it.
DEBIAN_SSHD_CONFIG = {"kbdinteractiveauthentication": "no", "usepam": "yes"}


def config_keyword(line: str) -> tuple[str, str]:
    """`Keyword value` or `Keyword=value` (readconf.c strdelim()): lower-case keyword."""
    key, _, value = line.replace("=", " ", 1).partition(" ")
    return key.lower(), value.strip().strip('"')


def read_ssh_config(files: model.HostFiles, host: str, options: dict[str, str]
                     ) -> tuple[dict[str, str], str]:
    """The client's options for ``host`` (the name as typed): ``options`` first, then those
    of ~/.ssh/config, then /etc/ssh/ssh_config's, the first value of each keyword winning
    (readconf.c); and the lines ssh -v prints about them."""
    options = dict(options)
    debug = []
    for path in (USER_SSH_CONFIG, SSH_CONFIG):
        text = host_text(files, path)
        if text is None and path == SSH_CONFIG:
            debug.append(f"debug1: Reading configuration data {SSH_CONFIG}\n"
                         + DEBIAN_SSH_CONFIG_DEBUG)
            for key, value in DEBIAN_SSH_CONFIG.items():
                options.setdefault(key, value)
        elif text is not None:
            debug.append(f"debug1: Reading configuration data {path}\n")
            debug += apply_config(path, text, host, options)
    return options, "".join(debug)


def apply_config(path: str, text: str, host: str, options: dict[str, str]) -> list[str]:
    """Add one file's options for ``host`` to ``options`` (keeping those already there)."""
    debug, applies = [], True
    for number, line in config_lines(text):
        key, value = config_keyword(line)
        if key == "host":
            applies, shown = False, ""
            for pattern in value.split():
                negated = pattern.startswith("!")
                if fnmatch.fnmatchcase(host, pattern.lstrip("!")):
                    if negated:
                        applies = False
                        break
                    applies, shown = True, shown or pattern
            if applies:
                debug.append(f"debug1: {path} line {number}: Applying options for {shown}\n")
        elif key in ("match", "include"):
            raise NotModelled(f"{key.capitalize()} in {path}")
        elif applies:
            options.setdefault(key, value)
    return debug


def yes(value: str | None) -> bool:
    return (value or "").lower() == "yes"


def persist_seconds(value: str | None) -> float | None:
    """ControlPersist: None for no, inf for yes (or 0), else seconds (plain or s/m/h)."""
    value = (value or "no").lower()
    if value == "no":
        return None
    if value == "yes":
        return math.inf
    units = {"s": 1, "m": 60, "h": 3600}
    scale = units.get(value[-1:], 1)
    number = value[:-1] if value[-1:] in units else value
    if not number.isdigit():
        raise NotModelled(f"ControlPersist {value}")
    return float(int(number) * scale) or math.inf


def control_path(path: str, local: str, host: str, user: str, typed: str,
                  port: int = SSH_PORT) -> str:
    """ssh_config(5) TOKENS; %C is the SHA-1 of %l%h%p%r (recorded: the hash of
    "vm192.168.50.1122root" named the lab's socket)."""
    tokens = {"%": "%", "h": host, "p": str(port), "r": user, "l": local, "n": typed,
              "u": LOCAL_USER, "d": HOME, "i": "0",
              "C": hashlib.sha1(f"{local}{host}{port}{user}".encode()).hexdigest()}
    out, chars = [], iter(path)
    for ch in chars:
        if ch != "%":
            out.append(ch)
            continue
        token = next(chars, "")
        if token not in tokens:
            raise NotModelled(f"the ControlPath token %{token}")
        out.append(tokens[token])
    text = "".join(out)
    return HOME + text[1:] if text.startswith("~/") else text


def auth_methods(sshd: dict[str, str]) -> str:
    """The methods sshd offers, in auth2.c's authmethods[] order; Debian's sshd has
    gssapi-keyex (its GSSAPI key exchange patch) whenever GSSAPIAuthentication is on."""
    methods = ["publickey"]
    if yes(sshd.get("gssapiauthentication")):
        methods += ["gssapi-keyex", "gssapi-with-mic"]
    if sshd.get("passwordauthentication", "yes").lower() == "yes":
        methods.append("password")
    if sshd.get("kbdinteractiveauthentication", "yes").lower() == "yes":
        methods.append("keyboard-interactive")
    return ",".join(methods)


def read_sshd_config(text: str | None) -> dict[str, str]:
    """The options of the sshd that answers (``sshd.listening()``: the text it runs with;
    None for Debian's packaged sshd_config)."""
    if text is None:
        return dict(DEBIAN_SSHD_CONFIG)
    options: dict[str, str] = {}
    for _number, line in config_lines(text):
        key, value = config_keyword(line)
        if key == "match":
            break  # what follows applies only to some connections; none of the lab's
        options.setdefault(key, value)
    return options
