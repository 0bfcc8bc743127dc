"""WireGuard keys: X25519 (RFC 7748) and the base64 text form that `wg` reads and prints.

X25519 is written out in plain integer arithmetic so that it runs unchanged in CPython and
in Pyodide. It is a model for teaching, not a cryptographic library: it makes no attempt to
run in constant time, and must never protect real secrets.
"""

from __future__ import annotations

import base64
import random
import string
from functools import lru_cache

KEY_LEN = 32
"""Bytes in a private key, a public key and a shared secret (wireguard-tools' WG_KEY_LEN)."""

KEY_LEN_BASE64 = 44
"""Characters in a key's base64 form: 32 bytes need 43 characters, and one '=' pads them."""

# RFC 7748 section 4.1: Curve25519 is defined over the field of integers modulo p.
P = 2**255 - 19
# RFC 7748 section 5: the ladder's constant a24 = (486662 - 2) / 4 for curve25519.
A24 = 121665
# RFC 7748 section 4.1: the base point has u = 9; public keys are X25519(private, 9).
BASE_POINT = (9).to_bytes(KEY_LEN, "little")

_BASE64_ALPHABET = frozenset(string.ascii_letters + string.digits + "+/")


def _check_length(name: str, value: bytes) -> None:
    if len(value) != KEY_LEN:
        raise ValueError(f"{name} must be {KEY_LEN} bytes, got {len(value)}")


def clamp(scalar: bytes) -> bytes:
    """``scalar`` with the three low bits and the top bit cleared and bit 254 set.

    This is decodeScalar25519 of RFC 7748 section 5, and the same three operations as
    curve25519_clamp_secret() in wireguard-tools' src/curve25519.h, which `wg genkey` runs
    on its random bytes. Clearing the low bits makes the scalar a multiple of the cofactor 8,
    so a peer cannot learn anything from a point in a small subgroup; setting bit 254 gives
    every scalar the same highest bit, so the ladder always runs the same number of steps.
    """
    _check_length("a scalar", scalar)
    clamped = bytearray(scalar)
    clamped[0] &= 248
    clamped[31] &= 127
    clamped[31] |= 64
    return bytes(clamped)


@lru_cache(maxsize=1024)
def x25519(scalar: bytes, u: bytes) -> bytes:
    """The u-coordinate of ``scalar`` times the point with u-coordinate ``u``, both 32 bytes
    little-endian (RFC 7748 section 5).

    The scalar is clamped first, as the RFC requires, so any 32 bytes are a valid private
    key. With a peer's public key as ``u`` this is the Diffie-Hellman shared secret of
    RFC 7748 section 6.1; the all-zero result that a small-order ``u`` gives is returned
    as it is, and refusing it is left to the caller (WireGuard's handshake refuses it).
    Results are kept: a widget's re-run derives the same keys again, and the ladder takes
    milliseconds in Pyodide.
    """
    _check_length("a scalar", scalar)
    _check_length("a u-coordinate", u)
    k = int.from_bytes(clamp(scalar), "little")
    # RFC 7748 section 5: the top bit of the last byte is masked off, and u-coordinates of
    # p or more are accepted and used as they are; the arithmetic below reduces them mod p.
    x1 = int.from_bytes(u, "little") & ((1 << 255) - 1)

    # The Montgomery ladder of RFC 7748 section 5, in projective coordinates (x : z):
    # (x2 : z2) holds n times the point and (x3 : z3) holds n + 1 times it, for n the bits
    # of k read so far. Each step doubles one and adds the two, with the difference of the
    # two always being the point itself, which is what lets the addition use x1 alone.
    # The RFC swaps the pairs with a constant-time cswap(); this model uses a plain swap.
    x2, z2 = 1, 0
    x3, z3 = x1, 1
    swap = 0
    for t in reversed(range(255)):
        k_t = (k >> t) & 1
        swap ^= k_t
        if swap:
            x2, x3 = x3, x2
            z2, z3 = z3, z2
        swap = k_t

        a = x2 + z2
        aa = a * a % P
        b = x2 - z2
        bb = b * b % P
        e = aa - bb
        c = x3 + z3
        d = x3 - z3
        da = d * a % P
        cb = c * b % P
        x3 = (da + cb) ** 2 % P
        z3 = x1 * (da - cb) ** 2 % P
        x2 = aa * bb % P
        z2 = e * (aa + A24 * e) % P
    if swap:
        x2, x3 = x3, x2
        z2, z3 = z3, z2

    # Back to affine: x2 / z2, with the inverse z2 ** (p - 2) (Fermat); z2 = 0 gives 0.
    result = x2 * pow(z2, P - 2, P) % P
    return result.to_bytes(KEY_LEN, "little")


def public_key(private: bytes) -> bytes:
    """The public key of a 32-byte private key: X25519 of it and the base point u = 9,
    which is what `wg pubkey` prints (wireguard-tools' curve25519_generate_public())."""
    return x25519(private, BASE_POINT)


def generate_private_key(rng: random.Random) -> bytes:
    """A clamped 32-byte private key drawn from ``rng``, the way `wg genkey` makes one.

    `wg genkey` reads 32 random bytes and clamps them (wireguard-tools' src/genkey.c calls
    curve25519_clamp_secret() when run as genkey; as genpsk it keeps them raw). The same seed
    gives the same key, so a simulation is repeatable.
    """
    return clamp(rng.randbytes(KEY_LEN))


def encode_key(raw: bytes) -> str:
    """The 44-character base64 form of a 32-byte key, as `wg` prints keys."""
    _check_length("a key", raw)
    return base64.b64encode(raw).decode("ascii")


def decode_key(text: str) -> bytes:
    """The 32 bytes of a key in `wg`'s base64 form; whitespace around it is ignored.

    Accepts exactly what wireguard-tools' key_from_base64() (src/encoding.c) accepts:
    43 base64 characters and one '='. Because 32 bytes fill only 256 of the 258 bits of 43
    characters, the last character before '=' has two spare low bits; `wg` rejects a key
    in which they are not zero, and so does this function (Python's own base64 decoder
    would quietly drop them). Raises ValueError saying what is wrong otherwise.
    """
    if not isinstance(text, str):
        raise TypeError(f"a key must be given as text, not {type(text).__name__}")
    key = text.strip()
    if len(key) != KEY_LEN_BASE64 or not key.endswith("="):
        raise ValueError(
            f"a WireGuard key is {KEY_LEN_BASE64} characters of base64 ending in '=', "
            f"got {len(key)} characters: {key!r}"
        )
    bad = sorted(set(key[:-1]) - _BASE64_ALPHABET)
    if bad:
        raise ValueError(
            f"a WireGuard key is base64 (A-Z, a-z, 0-9, '+', '/'), "
            f"but {key!r} has {''.join(bad)!r}"
        )
    # 43 characters of the alphabet and one '=' always decode to 32 bytes.
    raw = base64.b64decode(key, validate=True)
    if encode_key(raw) != key:
        raise ValueError(
            f"{key!r} is not a canonical key: its character before '=' has low bits set "
            "that 32 bytes cannot have, and wg rejects it"
        )
    return raw
