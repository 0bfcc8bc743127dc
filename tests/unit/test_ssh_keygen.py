"""`ssh-keygen -q -t ed25519 -N "" -C COMMENT -f FILE` (labsim.shell.commands.ssh_keygen):
real Ed25519 keys (RFC 8032 test vectors) in OpenSSH's file formats, byte for byte as
OpenSSH 9.2p1 wrote a key recorded on Debian 12, and the command's texts.

Recorded on Debian 12 (openssh-client 1:9.2p1-2+deb12u10), in `unshare -nm` with a tmpfs on
/run: `ssh-keygen -q -t ed25519 -N "" -C server -f /run/lab/host_key`, then the same again
(stdin /dev/null) and with -f /run/nodir/key.
"""

from __future__ import annotations

import base64
import shutil
import struct
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labsim.net import ssh_keys as kg
from labsim.net.model import Network, add_host
from labsim.shell.session import Session

RECORDED_PUBLIC = ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGsvYYZSHGrnRbkZdulb1WeqMZz/CenTPHiiGuWf3"
                   "uuD server")
RECORDED_PRIVATE = """\
-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
QyNTUxOQAAACBrL2GGUhxq50W5GXbpW9VnqjGc/wnp0zx4ohrln97rgwAAAJBGgrv7RoK7
+wAAAAtzc2gtZWQyNTUxOQAAACBrL2GGUhxq50W5GXbpW9VnqjGc/wnp0zx4ohrln97rgw
AAAEAnTZ7jcXEDiz02fGF9VDw9v7dOko6kyrUIo5eT77ygg2svYYZSHGrnRbkZdulb1Weq
MZz/CenTPHiiGuWf3uuDAAAABnNlcnZlcgECAwQFBgc=
-----END OPENSSH PRIVATE KEY-----
"""
KEYGEN = 'ssh-keygen -q -t ed25519 -N "" -C server -f /run/lab/host_key'


def lab_session(hostname: str = "server") -> Session:
    network = Network()
    add_host(network, hostname, "192.168.50.11/24")
    session = Session(network=network, hostname=hostname)
    assert session.run("mkdir -p /run/lab").status == 0
    return session


# RFC 8032 section 7.1, TEST 1-3: secret key -> public key.
@pytest.mark.parametrize(("secret", "public"), [
    ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"),
    ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"),
    ("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
     "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025"),
])
def test_ed25519_public_keys_match_rfc_8032(secret, public):
    assert kg.ed25519_public_key(bytes.fromhex(secret)).hex() == public


def test_the_recorded_key_files_are_rebuilt_byte_for_byte():
    """From the recorded private key's seed and check number, labsim writes the same two
    files OpenSSH wrote."""
    seed = kg.private_seed(RECORDED_PRIVATE)
    assert seed is not None
    assert kg.public_line(kg.ed25519_public_key(seed), "server") == RECORDED_PUBLIC
    blob = base64.b64decode("".join(RECORDED_PRIVATE.splitlines()[1:-1]))
    section = blob.index(b"\x00\x00\x00\x90") + 4  # the private section's length, then it
    (checkint,) = struct.unpack(">I", blob[section:section + 4])
    assert kg.private_text(seed, "server", checkint) == RECORDED_PRIVATE


def test_keygen_quietly_writes_a_key_pair():
    session = lab_session()
    result = session.run(KEYGEN)
    assert (result.stdout, result.stderr, result.status) == ("", "", 0)
    public = session.run("cat /run/lab/host_key.pub").stdout
    private = session.run("cat /run/lab/host_key").stdout
    assert public.endswith(" server\n") and public.count("\n") == 1
    seed = kg.private_seed(private)
    assert seed is not None
    assert kg.parse_public_line(public) == (kg.ed25519_public_key(seed), "server")
    assert private.startswith(kg.PRIVATE_BEGIN + "\n")
    assert all(len(line) <= 70 for line in private.splitlines())


def test_keys_repeat_per_host_and_differ_between_hosts():
    """The host's generator is seeded with its place in the network (as for wg genkey)."""
    first, again = lab_session(), lab_session()
    add_host(first.network, "client", "192.168.50.10/24")
    other = Session(network=first.network, hostname="client")
    other.run("mkdir -p /run/lab")
    for session in (first, again, other):
        session.run(KEYGEN)
    keys = [s.run("cat /run/lab/host_key.pub").stdout for s in (first, again, other)]
    assert keys[0] == keys[1] != keys[2]


def test_the_default_comment_is_root_at_the_host():
    session = lab_session("client")
    session.run('ssh-keygen -q -t ed25519 -N "" -f /run/lab/id_ed25519')
    assert session.run("cat /run/lab/id_ed25519.pub").stdout.endswith(" root@client\n")


def test_an_existing_file_is_not_overwritten():
    session = lab_session()
    session.run(KEYGEN)
    before = session.run("cat /run/lab/host_key").stdout
    result = session.run(KEYGEN)
    # Recorded: the question goes to stdout, with no newline; nothing answers it.
    assert (result.stdout, result.stderr, result.status) == (
        "/run/lab/host_key already exists.\nOverwrite (y/n)? ", "", 1)
    assert session.run("cat /run/lab/host_key").stdout == before


def test_a_missing_directory():
    result = lab_session().run('ssh-keygen -q -t ed25519 -N "" -C server -f /run/nodir/key')
    assert (result.stdout, result.stderr, result.status) == (
        "", 'Saving key "/run/nodir/key" failed: No such file or directory\n', 1)


@pytest.mark.parametrize("line", [
    'ssh-keygen -t ed25519 -N "" -f /run/lab/k',  # not quiet: randomart
    'ssh-keygen -q -t rsa -N "" -f /run/lab/k',
    "ssh-keygen -q -t ed25519 -N secret -f /run/lab/k",
    "ssh-keygen -q -t ed25519 -f /run/lab/k",
    "ssh-keygen -l -f /run/lab/k",
])
def test_other_forms_are_not_modelled(line):
    result = lab_session().run(line)
    assert result.status == 2 and result.stderr.startswith("labsim: ssh-keygen: ")
    assert "is not simulated" in result.stderr


@given(st.binary(min_size=32, max_size=32), st.integers(0, 2**32 - 1),
       st.text(alphabet="abcdefghijklmnopqrstuvwxyz@.-", max_size=40))
def test_private_files_carry_their_seed_and_pad_to_eight(seed, checkint, comment):
    text = kg.private_text(seed, comment, checkint)
    assert kg.private_seed(text) == seed
    blob = base64.b64decode("".join(text.splitlines()[1:-1]))
    # magic, "none", "none", "", one key, the 51-byte public blob; then the private section.
    start = len(kg.AUTH_MAGIC) + 8 + 8 + 4 + 4 + 4 + 51
    (section_length,) = struct.unpack(">I", blob[start:start + 4])
    assert section_length % kg.NONE_BLOCK == 0 and start + 4 + section_length == len(blob)
    public = kg.ed25519_public_key(seed)
    assert kg.parse_public_line(kg.public_line(public, comment)) == (public, comment)


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs OpenSSH's ssh-keygen")
def test_openssh_reads_labsims_private_key(tmp_path):
    """The real ssh-keygen derives the same public key from labsim's private key file."""
    session = lab_session()
    session.run(KEYGEN)
    path = tmp_path / "host_key"
    path.write_text(session.run("cat /run/lab/host_key").stdout)
    path.chmod(0o600)
    derived = subprocess.run(["ssh-keygen", "-y", "-f", str(path)], capture_output=True,
                             text=True, check=True).stdout
    assert derived == session.run("cat /run/lab/host_key.pub").stdout


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs OpenSSH's ssh-keygen")
def test_fingerprints_are_openssh_s(tmp_path):
    """`ssh-keygen -l -f FILE.pub`: "256 SHA256:... COMMENT (ED25519)"."""
    session = lab_session()
    session.run(KEYGEN)
    public = session.run("cat /run/lab/host_key.pub").stdout
    path = tmp_path / "host_key.pub"
    path.write_text(public)
    listed = subprocess.run(["ssh-keygen", "-l", "-f", str(path)], capture_output=True,
                            text=True, check=True).stdout
    parsed = kg.parse_public_line(public)
    assert parsed is not None
    assert listed == f"256 {kg.fingerprint(parsed[0])} server (ED25519)\n"
