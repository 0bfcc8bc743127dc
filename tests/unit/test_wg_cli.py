"""`wg` in labsim's shell: the top-level command, its usage texts, genkey, genpsk and pubkey,
and the pipes that feed `wg pubkey`.

Every expected text was recorded on Debian 12's wireguard-tools 1.0.20210914 driving
wireguard-go 0.0.20220316 in a private network and mount namespace, with stdout and stderr
captured separately (so without colour).
"""

import pytest

from labsim import Session
from labsim.wg.device import WireGuardHost
from labsim.wg.keys import clamp, decode_key, encode_key, generate_private_key, public_key

IF0_PRIV = "+DYa1mgGemfMtLnbD/03oYvQSovhj9ZG6itRP8V59WA="
IF0_PUB = "S6b8N1/IV19qXZSU9u00muESx78J6f6MDJ0kDv+MUQc="
UNCLAMPED = "yMnKy8zNzs/Q0dLT1NXW19jZ2tvc3d7f4OHi4+Tl5uc="
UNCLAMPED_PUB = "TVuribBzPZ2Nzs8E8yHJC3Ybd2WmvbK92/rT56vfH2Y="

WG_USAGE = (
    "Usage: wg <cmd> [<args>]\n\nAvailable subcommands:\n"
    "  show: Shows the current configuration and device information\n"
    "  showconf: Shows the current configuration of a given WireGuard interface, "
    "for use with `setconf'\n"
    "  set: Change the current configuration, add peers, remove peers, or change peers\n"
    "  setconf: Applies a configuration file to a WireGuard interface\n"
    "  addconf: Appends a configuration file to a WireGuard interface\n"
    "  syncconf: Synchronizes a configuration file to a WireGuard interface\n"
    "  genkey: Generates a new private key and writes it to stdout\n"
    "  genpsk: Generates a new preshared key and writes it to stdout\n"
    "  pubkey: Reads a private key from stdin and writes a public key to stdout\n"
    "You may pass `--help' to any of these subcommands to view usage.\n"
)
VERSION = "wireguard-tools v1.0.20210914 - https://git.zx2c4.com/wireguard-tools/\n"
BAD_KEY = "wg: Key is not the correct length or format\n"
TRAILING = "wg: Trailing characters found after key\n"


def run(session: Session, line: str) -> tuple[str, str, int]:
    result = session.run(line)
    return result.stdout, result.stderr, result.status


@pytest.mark.parametrize(
    ("line", "stdout", "stderr", "status"),
    [
        ("wg --version", VERSION, "", 0),
        ("wg -v", VERSION, "", 0),
        ("wg version", VERSION, "", 0),
        ("wg --help", WG_USAGE, "", 0),
        ("wg -h", WG_USAGE, "", 0),
        ("wg help", WG_USAGE, "", 0),
        ("wg bogus", "", "Invalid subcommand: `bogus'\n" + WG_USAGE, 1),
        ("wg genkey extra", "", "Usage: wg genkey\n", 1),
        ("wg genpsk extra", "", "Usage: wg genpsk\n", 1),
        ("wg pubkey extra", "", "Usage: wg pubkey\n", 1),
        ("wg pubkey --help", "", "Usage: wg pubkey\n", 1),
        ("wg genkey --help", "", "Usage: wg genkey\n", 1),
        # No interfaces: `wg` (which is `wg show`) prints nothing and succeeds.
        ("wg", "", "", 0),
        ("wg show", "", "", 0),
        ("wg show all dump", "", "", 0),
        ("wg show interfaces", "", "", 0),
    ],
)
def test_top_level_and_usage(line, stdout, stderr, status):
    assert run(Session(), line) == (stdout, stderr, status)


@pytest.mark.parametrize(
    ("line", "stdout", "stderr", "status"),
    [
        (f"echo {IF0_PRIV} | wg pubkey", IF0_PUB + "\n", "", 0),
        # A key with unclamped bits: X25519 clamps it, as wg does.
        (f"echo {UNCLAMPED} | wg pubkey", UNCLAMPED_PUB + "\n", "", 0),
        # Leading white space shifts the 44 characters read, so a key character trails.
        (f"echo '  {IF0_PRIV}' | wg pubkey", "", TRAILING, 1),
        (f"echo {IF0_PRIV} x | wg pubkey", "", TRAILING, 1),
        (f"echo {IF0_PRIV}AAAA | wg pubkey", "", TRAILING, 1),
        ("echo short | wg pubkey", "", BAD_KEY, 1),
        (f"echo {IF0_PRIV[:-1]}A | wg pubkey", "", BAD_KEY, 1),
        # Without a pipe, standard input is empty here (recorded as `wg pubkey < /dev/null`).
        ("wg pubkey", "", BAD_KEY, 1),
    ],
)
def test_pubkey(line, stdout, stderr, status):
    assert run(Session(), line) == (stdout, stderr, status)


def test_pubkey_reads_only_whitespace_and_nuls_after_the_key():
    # Recorded with printf '%s\n\n  \t\n' and printf '%s\0\0\n': both are accepted.
    from labsim.shell.commands import wg

    session = Session()
    for tail in ["\n\n  \t\n", "\0\0\n", ""]:
        result = wg.main(session, ["wg", "pubkey"], stdin=IF0_PRIV + tail)
        assert (result.stdout, result.status) == (IF0_PUB + "\n", 0)
    result = wg.main(session, ["wg", "pubkey"], stdin=IF0_PRIV[:20] + "\0" + IF0_PRIV[21:])
    assert (result.stderr, result.status) == (BAD_KEY, 1)


def test_genkey_is_seeded_and_repeats_in_a_fresh_session():
    first, second = Session(), Session()
    keys = [run(first, "wg genkey")[0] for _ in range(3)]
    assert keys == [run(second, "wg genkey")[0] for _ in range(3)]
    assert len(set(keys)) == 3
    for line in keys:
        assert line.endswith("\n") and len(line) == 45
        raw = decode_key(line.strip())
        assert clamp(raw) == raw
    # The keys are the host's seeded generator's: another seed gives others.
    other = Session(wireguard=WireGuardHost(seed=1))
    assert run(other, "wg genkey")[0] not in keys
    assert keys[0].strip() == encode_key(generate_private_key(WireGuardHost().rng))


def test_genpsk_is_not_clamped():
    session = Session()
    psks = [decode_key(run(session, "wg genpsk")[0].strip()) for _ in range(20)]
    assert any(clamp(p) != p for p in psks)


def test_genkey_piped_to_pubkey():
    session = Session()
    out, err, status = run(session, "wg genkey | wg pubkey")
    expected = encode_key(public_key(generate_private_key(WireGuardHost().rng)))
    assert (out, err, status) == (expected + "\n", "", 0)


def test_a_pipeline_keeps_every_stderr_and_the_last_status():
    session = Session()
    out, err, status = run(session, "wg bogus | wg pubkey")
    assert out == ""
    assert err == "Invalid subcommand: `bogus'\n" + WG_USAGE + BAD_KEY
    assert status == 1
    # A command that does not read stdin ignores it; the status is the last command's.
    assert run(session, "wg pubkey | echo done") == ("done\n", BAD_KEY, 0)


@pytest.mark.parametrize(("line", "message"), [
    # bash 5.2 (bash -c): a pipe at the end wants more input
    ("wg genkey |", "syntax error: unexpected end of file"),
    ("| wg pubkey", "syntax error near unexpected token `|'"),
    ("wg genkey | | wg pubkey", "syntax error near unexpected token `|'")])
def test_an_empty_pipeline_stage_is_a_syntax_error(line, message):
    assert run(Session(), line) == ("", f"bash: {message}\n", 2)


def test_quoted_bars_and_double_bars_are_not_pipes():
    assert run(Session(), "echo 'a|b' \"c | d\"") == ("a|b c | d\n", "", 0)
    assert run(Session(), "false || echo b | cat") == ("b\n", "", 0)
