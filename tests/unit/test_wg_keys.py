"""X25519 and WireGuard's key text: RFC 7748's test vectors, clamping, and base64 the way
wireguard-tools' src/encoding.c reads and writes it."""

import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labsim.wg.keys import (
    BASE_POINT,
    KEY_LEN,
    P,
    clamp,
    decode_key,
    encode_key,
    generate_private_key,
    public_key,
    x25519,
)

ALICE_PRIVATE = bytes.fromhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
ALICE_PUBLIC = bytes.fromhex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
BOB_PRIVATE = bytes.fromhex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")
BOB_PUBLIC = bytes.fromhex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
SHARED_SECRET = bytes.fromhex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")

scalars = st.binary(min_size=KEY_LEN, max_size=KEY_LEN)


@pytest.mark.parametrize(
    ("scalar", "u", "result"),
    [
        (
            "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
            "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
            "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552",
        ),
        (
            "4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
            "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
            "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957",
        ),
    ],
)
def test_rfc7748_section_5_2_vectors(scalar, u, result):
    assert x25519(bytes.fromhex(scalar), bytes.fromhex(u)).hex() == result


def _iterate(times: int) -> bytes:
    # RFC 7748 section 5.2: k = u = 9 to start; each round, k <- X25519(k, u) and u <- old k.
    k = u = BASE_POINT
    for _ in range(times):
        k, u = x25519(k, u), k
    return k


def test_rfc7748_iterated_once():
    assert _iterate(1).hex() == "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079"


def test_rfc7748_iterated_a_thousand_times():
    assert _iterate(1000).hex() == (
        "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51")


def test_rfc7748_section_6_1_diffie_hellman():
    assert public_key(ALICE_PRIVATE) == ALICE_PUBLIC
    assert public_key(BOB_PRIVATE) == BOB_PUBLIC
    assert x25519(ALICE_PRIVATE, BOB_PUBLIC) == SHARED_SECRET
    assert x25519(BOB_PRIVATE, ALICE_PUBLIC) == SHARED_SECRET


def test_clamp_sets_and_clears_the_bits_rfc7748_names():
    assert clamp(b"\xff" * 32) == b"\xf8" + b"\xff" * 30 + b"\x7f"
    assert clamp(b"\x00" * 32) == b"\x00" * 31 + b"\x40"


def test_x25519_clamps_the_scalar_itself():
    # Any 32 bytes are a private key: the bits clamping changes make no difference.
    raw = bytes(range(200, 232))
    assert clamp(raw) != raw
    assert x25519(raw, ALICE_PUBLIC) == x25519(clamp(raw), ALICE_PUBLIC)


def test_x25519_ignores_the_top_bit_of_u():
    with_top_bit = BOB_PUBLIC[:31] + bytes([BOB_PUBLIC[31] | 0x80])
    assert x25519(ALICE_PRIVATE, with_top_bit) == SHARED_SECRET


def test_x25519_accepts_u_of_p_or_more_as_reduced():
    # RFC 7748 section 5: non-canonical u = p + 9 is the base point.
    assert x25519(ALICE_PRIVATE, (P + 9).to_bytes(32, "little")) == ALICE_PUBLIC


def test_zero_u_gives_the_all_zero_secret():
    assert x25519(ALICE_PRIVATE, bytes(32)) == bytes(32)


@pytest.mark.parametrize("length", [0, 31, 33])
def test_x25519_needs_32_byte_inputs(length):
    with pytest.raises(ValueError, match="32 bytes"):
        x25519(bytes(length), BASE_POINT)
    with pytest.raises(ValueError, match="32 bytes"):
        x25519(ALICE_PRIVATE, bytes(length))


def test_one_public_key_takes_well_under_50_ms():
    best = min(_timed(public_key, ALICE_PRIVATE) for _ in range(5))
    assert best < 0.05


def _timed(function, argument) -> float:
    start = time.perf_counter()
    function(argument)
    return time.perf_counter() - start


def test_generated_keys_repeat_with_the_seed_and_are_clamped():
    first = [generate_private_key(random.Random(42)) for _ in range(2)]
    assert first[0] == first[1]
    assert generate_private_key(random.Random(43)) != first[0]
    rng = random.Random(42)
    keys = [generate_private_key(rng) for _ in range(50)]
    assert len(set(keys)) == 50
    assert all(len(key) == 32 and clamp(key) == key for key in keys)


def test_encode_key_is_wg_base64():
    text = encode_key(ALICE_PUBLIC)
    assert text == "hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo="
    assert len(text) == 44
    assert decode_key(text) == ALICE_PUBLIC


def test_decode_key_ignores_surrounding_whitespace():
    assert decode_key("  hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=\n") == ALICE_PUBLIC


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "44 characters"),
        ("hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo", "44 characters"),
        ("hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmoA", "ending in '='"),
        ("hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo==", "44 characters"),
        ("hSDwCYkwp1R0i33ctD73Wg2_Og0mOBr066SpjqqbTmo=", "has '_'"),
        ("hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066Spjqqb*m==", "has '\\*='"),
        ("hSDwCYkwp1R0i33 tD73Wg2/Og0mOBr066SpjqqbTmo=", "has ' '"),
        # 'p' is 41 = 0b101001: its low bits are not zero, so no 32 bytes encode to this.
        ("hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmp=", "not a canonical key"),
    ],
)
def test_decode_key_rejects_what_wg_rejects(text, message):
    with pytest.raises(ValueError, match=message):
        decode_key(text)


def test_decode_key_wants_text():
    with pytest.raises(TypeError, match="text"):
        decode_key(b"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=")


@pytest.mark.parametrize("length", [0, 16, 31, 33])
def test_encode_key_needs_32_bytes(length):
    with pytest.raises(ValueError, match="32 bytes"):
        encode_key(bytes(length))


@settings(max_examples=200, deadline=None)
@given(scalars)
def test_decode_undoes_encode(raw):
    text = encode_key(raw)
    assert len(text) == 44
    assert decode_key(text) == raw


@settings(max_examples=25, deadline=None)
@given(scalars, scalars)
def test_both_sides_of_diffie_hellman_agree(a, b):
    assert x25519(a, public_key(b)) == x25519(b, public_key(a))
