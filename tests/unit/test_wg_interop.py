"""The key model against the real `wg` of wireguard-tools: the same public keys, and the same
keys accepted and refused.

These tests need the `wg` binary and fail, never skip, without it.
"""

import random
import shutil
import string
import subprocess

import pytest

from labsim.wg.keys import clamp, decode_key, encode_key, generate_private_key, public_key

INSTALL_HINT = (
    "the `wg` binary of wireguard-tools is not installed, and these tests compare the key "
    "model with it; install it with `sudo apt-get install -y wireguard-tools` "
    "(Debian and Ubuntu)"
)


def require_wg() -> str:
    """The path of `wg`; fails the calling test (rather than skipping it) if there is none."""
    path = shutil.which("wg")
    if path is None:
        pytest.fail(INSTALL_HINT, pytrace=False)
    return path


def run_wg(wg: str, command: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [wg, command], input=stdin, capture_output=True, text=True, timeout=10, check=False
    )


def wg_pubkey(wg: str, private: bytes) -> str:
    result = run_wg(wg, "pubkey", encode_key(private) + "\n")
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_public_keys_match_wg_pubkey():
    wg = require_wg()
    rng = random.Random(7748)
    keys = [generate_private_key(rng) for _ in range(20)]
    for private in keys:
        assert wg_pubkey(wg, private) == encode_key(public_key(private))


def test_unclamped_private_keys_are_clamped_the_same_way():
    wg = require_wg()
    # `wg pubkey` takes any 32 bytes; X25519 clamps them inside, here and in wg.
    rng = random.Random(25519)
    for raw in [b"\xff" * 32, b"\x00" * 32, *(rng.randbytes(32) for _ in range(5))]:
        assert wg_pubkey(wg, raw) == encode_key(public_key(raw))


def test_wg_genkey_keys_decode_and_are_clamped():
    wg = require_wg()
    for _ in range(10):
        result = run_wg(wg, "genkey")
        assert result.returncode == 0, result.stderr
        private = decode_key(result.stdout)
        assert clamp(private) == private
        assert wg_pubkey(wg, private) == encode_key(public_key(private))


def test_wg_genpsk_keys_are_not_clamped():
    wg = require_wg()
    # src/genkey.c clamps only as genkey. A random key looks clamped with odds 1/32 (five
    # fixed bits), so 20 of them all looking clamped would be a 1-in-2**100 chance.
    keys = [decode_key(run_wg(wg, "genpsk").stdout) for _ in range(20)]
    assert any(clamp(key) != key for key in keys)


BASE64_ALPHABET = string.ascii_uppercase + string.ascii_lowercase + string.digits + "+/"


@pytest.mark.parametrize("last", list(BASE64_ALPHABET))
def test_wg_and_decode_key_refuse_the_same_last_characters(last):
    wg = require_wg()
    # Only characters whose two low bits are zero can end a 32-byte key.
    text = encode_key(bytes(range(32)))[:42] + last + "="
    accepted_by_wg = run_wg(wg, "pubkey", text + "\n").returncode == 0
    try:
        decode_key(text)
        accepted_here = True
    except ValueError:
        accepted_here = False
    assert accepted_here == accepted_by_wg


@pytest.mark.parametrize(
    "text",
    [
        "",
        "AAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==",
        "AAAAAAAAAAAAAAAAAAAA-AAAAAAAAAAAAAAAAAAAAAA=",
        "AAAAAAAAAAAAAAAAAAAA_AAAAAAAAAAAAAAAAAAAAAA=",
    ],
)
def test_malformed_keys_are_refused_by_both(text):
    wg = require_wg()
    result = run_wg(wg, "pubkey", text + "\n")
    assert result.returncode != 0
    assert "Key is not the correct length or format" in result.stderr
    with pytest.raises(ValueError):
        decode_key(text)
