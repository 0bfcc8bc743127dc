"""SSH keys as OpenSSH 9.2p1 writes and reads them: real Ed25519 keys (RFC 8032) from a
32-byte seed, computed in plain integer arithmetic on the field labsim.wg.keys uses for
X25519, and the two files in OpenSSH's own formats, byte for byte (PROTOCOL.key; sshkey.c
sshkey_private_to_blob2()):

* FILE.pub: ``ssh-ed25519 BASE64 COMMENT`` and a newline (sshkey_write());
* FILE: "-----BEGIN OPENSSH PRIVATE KEY-----", the base64 of the openssh-key-v1 blob in lines
  of 70 characters, "-----END OPENSSH PRIVATE KEY-----". With no passphrase the cipher and
  KDF are "none" and the private section is padded with 1, 2, 3... to a multiple of 8.

`ssh-keygen` (labsim.shell.commands.ssh_keygen) writes them; `ssh` and `sshd` read them.
Like labsim.wg.keys, this is a model for teaching: it does not run in constant time and must
never protect real secrets.
"""

from __future__ import annotations

import base64
import hashlib
import random
import struct

from labsim.wg.keys import P

KEY_TYPE = "ssh-ed25519"
SEED_LEN = 32
# OpenSSH sshkey.c: the armour of a private key, and the width of its base64 lines.
PRIVATE_BEGIN = "-----BEGIN OPENSSH PRIVATE KEY-----"
PRIVATE_END = "-----END OPENSSH PRIVATE KEY-----"
PRIVATE_LINE = 70
AUTH_MAGIC = b"openssh-key-v1\0"
# Unencrypted private sections are padded to the "none" cipher's block size.
NONE_BLOCK = 8

# RFC 8032 section 5.1: edwards25519 over GF(p), d = -121665/121666, the base point B with
# y = 4/5 and x even, and the group order L.
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)
L = 2**252 + 27742317777372353535851937790883648493

Point = tuple[int, int, int, int]  # extended homogeneous coordinates (X, Y, Z, T)


def _recover_x(y: int, sign: int) -> int:
    """RFC 8032 section 5.1.3, step 2-4: the x with x^2 = (y^2 - 1) / (d y^2 + 1)."""
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P) % P
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P:
        raise ValueError("not a point of edwards25519")
    return P - x if x & 1 != sign else x


_BASE_Y = 4 * pow(5, P - 2, P) % P
_BASE_X = _recover_x(_BASE_Y, 0)
BASE: Point = (_BASE_X, _BASE_Y, 1, _BASE_X * _BASE_Y % P)
IDENTITY: Point = (0, 1, 1, 0)


def _add(a: Point, b: Point) -> Point:
    """RFC 8032 section 5.1.4: point addition (it doubles too)."""
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    aa = (y1 - x1) * (y2 - x2) % P
    bb = (y1 + x1) * (y2 + x2) % P
    cc = 2 * t1 * t2 * D % P
    dd = 2 * z1 * z2 % P
    e, f, g, h = bb - aa, dd - cc, dd + cc, bb + aa
    return e * f % P, g * h % P, f * g % P, e * h % P


def _multiply(scalar: int, point: Point) -> Point:
    result = IDENTITY
    while scalar:
        if scalar & 1:
            result = _add(result, point)
        point = _add(point, point)
        scalar >>= 1
    return result


def _encode(point: Point) -> bytes:
    """RFC 8032 section 5.1.2: y little-endian, the low bit of x in the top bit."""
    x, y, z, _t = point
    inverse = pow(z, P - 2, P)
    x, y = x * inverse % P, y * inverse % P
    return (y | (x & 1) << 255).to_bytes(32, "little")


def new_seed(rng: random.Random) -> bytes:
    """A private key (seed), from a seeded generator so that a simulation repeats."""
    return rng.randbytes(SEED_LEN)


def ed25519_public_key(seed: bytes) -> bytes:
    """RFC 8032 section 5.1.5: the public key of a 32-byte private key (seed)."""
    if len(seed) != SEED_LEN:
        raise ValueError(f"an Ed25519 private key is {SEED_LEN} bytes, got {len(seed)}")
    digest = hashlib.sha512(seed).digest()
    scalar = int.from_bytes(digest[:32], "little")
    scalar &= (1 << 254) - 8
    scalar |= 1 << 254
    return _encode(_multiply(scalar, BASE))


# ---------------------------------------------------------------- OpenSSH's formats

def _string(data: bytes) -> bytes:
    """An SSH wire-format string (RFC 4251 section 5): uint32 length, then the bytes."""
    return struct.pack(">I", len(data)) + data


def public_blob(public: bytes) -> bytes:
    return _string(KEY_TYPE.encode()) + _string(public)


def public_line(public: bytes, comment: str) -> str:
    """A line of FILE.pub, authorized_keys or (after the host) known_hosts."""
    text = f"{KEY_TYPE} {base64.b64encode(public_blob(public)).decode()}"
    return f"{text} {comment}" if comment else text


def fingerprint(public: bytes) -> str:
    """sshkey_fingerprint() with SHA256 (the default FingerprintHash): unpadded base64."""
    digest = hashlib.sha256(public_blob(public)).digest()
    return "SHA256:" + base64.b64encode(digest).decode().rstrip("=")


def private_text(seed: bytes, comment: str, checkint: int) -> str:
    """FILE as ssh-keygen writes it with no passphrase (PROTOCOL.key)."""
    public = ed25519_public_key(seed)
    section = (struct.pack(">II", checkint, checkint) + _string(KEY_TYPE.encode())
               + _string(public) + _string(seed + public) + _string(comment.encode()))
    section += bytes(range(1, 1 + (-len(section)) % NONE_BLOCK))
    blob = (AUTH_MAGIC + _string(b"none") + _string(b"none") + _string(b"")
            + struct.pack(">I", 1) + _string(public_blob(public)) + _string(section))
    encoded = base64.b64encode(blob).decode()
    lines = [encoded[i:i + PRIVATE_LINE] for i in range(0, len(encoded), PRIVATE_LINE)]
    return "\n".join([PRIVATE_BEGIN, *lines, PRIVATE_END]) + "\n"


def parse_public_line(text: str) -> tuple[bytes, str] | None:
    """(public key, comment) of an `ssh-ed25519 BASE64 [COMMENT]` line, None for any other."""
    words = text.split(None, 2)
    if len(words) < 2 or words[0] != KEY_TYPE:
        return None
    try:
        blob = base64.b64decode(words[1], validate=True)
    except ValueError:
        return None
    if blob[:4 + len(KEY_TYPE)] != _string(KEY_TYPE.encode()) or len(blob) != 51:
        return None
    return blob[-32:], words[2].strip() if len(words) > 2 else ""


def private_seed(text: str) -> bytes | None:
    """The seed of an unencrypted OpenSSH Ed25519 private key file, None if it is not one."""
    lines = text.strip().splitlines()
    if len(lines) < 3 or lines[0] != PRIVATE_BEGIN or lines[-1] != PRIVATE_END:
        return None
    try:
        blob = base64.b64decode("".join(lines[1:-1]), validate=True)
    except ValueError:
        return None
    if not blob.startswith(AUTH_MAGIC + _string(b"none") + _string(b"none")):
        return None
    # The private section ends with the comment and padding; seed+public is the 64-byte
    # string after the public key inside it.
    marker = _string(KEY_TYPE.encode())
    start = blob.rfind(marker)
    if start < 0:
        return None
    offset = start + len(marker) + 4 + 32
    (length,) = struct.unpack(">I", blob[offset:offset + 4])
    if length != 64:
        return None
    return blob[offset + 4:offset + 4 + SEED_LEN]
