"""labsim.net.ssh_login: the phases of an SSH login, against what the real tools did.

Every figure here was measured on Debian 12 (OpenSSH 9.2p1, glibc 2.36, MIT krb5 1.20,
libnss-mdns 0.15.1) by tools/probes/slow_ssh_probe.sh, in network namespaces with a
nameserver that drops every query, and by the lab labs/net/05-slow-ssh.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labsim.net import ssh_login as m

DEAD = m.Resolver(nameservers=1, timeout=1, attempts=1, state=m.DROPS)


@pytest.mark.parametrize(("nameservers", "timeout", "attempts", "measured"), [
    # `getent hosts 192.168.50.10` against nameservers that drop queries (seconds).
    (1, 1, 1, 1.0), (1, 2, 2, 4.0), (1, 1, 3, 3.0),
    (2, 1, 1, 2.0), (2, 2, 2, 8.0),
    (3, 1, 1, 3.0), (3, 3, 2, 18.0),
])
def test_an_unanswered_lookup_waits_as_glibc_does(nameservers, timeout, attempts, measured):
    resolver = m.Resolver(nameservers, timeout, attempts, m.DROPS)
    assert m.lookup_seconds(resolver) == measured


def test_the_defaults_wait_ten_seconds_per_lookup_and_28_with_three_servers():
    assert m.lookup_seconds(m.Resolver(state=m.DROPS)) == 10.0
    # 5 + (10 // 3) + (20 // 3) = 5 + 3 + 6, twice (res_send.c send_dg()).
    assert m.per_server_timeouts(m.Resolver(nameservers=3, state=m.DROPS)) == [5, 3, 6]
    assert m.lookup_seconds(m.Resolver(nameservers=3, state=m.DROPS)) == 28.0
    # glibc reads at most three nameserver lines (MAXNS).
    assert m.lookup_seconds(m.Resolver(nameservers=5, state=m.DROPS)) == 28.0


def test_a_refusing_nameserver_costs_nothing():
    # Measured 0.005-0.007 s with port 53 closed (ICMP port unreachable), defaults or not.
    assert m.lookup_seconds(m.Resolver(state=m.REFUSES)) == m.ANSWER_SECONDS < 0.01


@pytest.mark.parametrize(("elapsed", "delay_ms", "total"), [
    # sshd -ddd, auth2.c ensure_minimum_time_since() after a 1 s UseDNS lookup:
    # "elapsed 1002.745ms, delaying 88.968ms (requested 8.529ms)"
    (1.002745, 8.529, 1.002745 + 0.088968),
    # "elapsed 1003.516ms, delaying 771.417ms (requested 6.933ms)"
    (1.003516, 6.933, 1.003516 + 0.771417),
    # no lookup: "elapsed 0.476ms, delaying 8.053ms (requested 8.529ms)"
    (0.000476, 8.529, 0.008529),
])
def test_sshd_pads_a_failed_request_to_a_doubling_of_the_user_delay(elapsed, delay_ms, total):
    # sshd prints the delay to 0.001 ms; doubled 256 times that is up to 0.13 ms off.
    assert m.padded_failure(elapsed, delay_ms) == pytest.approx(total, abs=2e-4)


@given(st.floats(0, 60), st.floats(m.MIN_FAIL_DELAY_MS,
                                   m.MIN_FAIL_DELAY_MS + m.MAX_USER_DELAY_MS))
def test_padding_never_shortens_and_at_most_doubles(elapsed, delay_ms):
    padded = m.padded_failure(elapsed, delay_ms)
    assert padded >= elapsed
    assert padded < max(2 * elapsed, delay_ms / 1000) + 1e-9


def test_the_lab_as_written_is_a_plain_login():
    login = m.login(*m.lab())
    assert login.succeeded and login.by_cause() == {}
    # Measured 0.35-0.5 s on an idle machine (up to 0.8 s under load).
    assert 0.35 <= login.seconds <= 0.5


@given(st.floats(m.MIN_FAIL_DELAY_MS, m.MIN_FAIL_DELAY_MS + m.MAX_USER_DELAY_MS))
def test_usedns_costs_the_lookup_and_up_to_as_much_again(delay_ms):
    client, server = m.lab("usedns")
    server = m.ServerSettings(use_dns=True, gssapi=True, failure_delay_ms=delay_ms,
                              resolver=DEAD)
    login = m.login(client, server)
    # Measured: 1.43-2.37 s for the whole login (a new host key, so a new delay, each run).
    assert 1.39 <= login.seconds <= 2.41
    assert 1.0 <= login.by_cause()["UseDNS"] < 2.0
    names = [p.name for p in login.phases]
    assert names.index("sshd: reverse lookup of the client (UseDNS)") \
        > names.index("connect and key exchange")


def test_usedns_costs_nothing_when_the_client_is_in_the_servers_hosts_file():
    client, server = m.lab("usedns")
    login = m.login(client, m.ServerSettings(use_dns=True, client_in_hosts_file=True,
                                             resolver=DEAD))
    assert login.by_cause() == {}


def test_gssapi_looks_the_server_up_once_per_mechanism():
    login = m.login(*m.lab("gssapi"))
    # Measured: "No Kerberos credentials available" at +1.0 s and +2.0 s; 2.46-2.8 s in all.
    assert login.by_cause() == {"GSSAPI": 2.0}
    assert 2.3 <= login.seconds <= 2.8
    mechanisms = [p for p in login.phases if p.cause == "GSSAPI"]
    assert len(mechanisms) == m.GSSAPI_MECHANISMS == 2


@pytest.mark.parametrize(("client", "server"), [
    (m.ClientSettings(target=m.BY_HOSTS_FILE, gssapi=True, resolver=DEAD),
     m.ServerSettings(gssapi=True, resolver=DEAD)),        # measured 0.50 s: files answers
    (m.ClientSettings(target=m.BY_ADDRESS, gssapi=True, resolver=DEAD),
     m.ServerSettings(gssapi=False, resolver=DEAD)),       # not offered: measured 0.48 s
])
def test_gssapi_costs_nothing_when_files_answer_or_the_server_does_not_offer_it(client,
                                                                                  server):
    login = m.login(client, server)
    assert login.succeeded and login.by_cause() == {}


def test_a_local_name_without_avahi_asks_the_dead_dns_twice_and_fails():
    login = m.login(*m.lab("mdns"))
    # Measured: "Could not resolve hostname server.local: Temporary failure in name
    # resolution" after 2.01 s (1.01 s with `hosts: files dns`).
    assert not login.succeeded
    assert login.error == "Could not resolve hostname: Temporary failure in name resolution"
    assert login.seconds == 2.0
    client, server = m.lab("mdns")
    plain = m.login(m.ClientSettings(target=m.BY_MDNS_NAME, mdns_in_nsswitch=False,
                                     resolver=DEAD), server)
    assert plain.seconds == 1.0 and not plain.succeeded


def test_avahi_waits_five_seconds_for_an_mdns_answer_nobody_gives():
    client = m.ClientSettings(target=m.BY_MDNS_NAME, avahi_running=True, resolver=DEAD)
    login = m.login(client, m.ServerSettings(resolver=DEAD))
    # Measured with avahi-daemon running in the client's namespace: 6.0 s, rc 2.
    assert login.seconds == 6.0 and not login.succeeded
    answered = m.login(m.ClientSettings(target=m.BY_MDNS_NAME, avahi_running=True,
                                        mdns_answered=True, gssapi=False,
                                        resolver=m.Resolver(state=m.ANSWERS)),
                       m.ServerSettings())
    assert answered.succeeded and answered.seconds < 0.5


def test_a_master_connection_skips_every_cause():
    client = m.ClientSettings(target=m.BY_MDNS_NAME, control_master=True,
                              master_running=True, resolver=m.Resolver(state=m.DROPS))
    login = m.login(client, m.ServerSettings(use_dns=True, gssapi=True,
                                             resolver=m.Resolver(state=m.DROPS)))
    # Measured 0.12-0.19 s, even with a HostName that no longer resolves.
    assert login.succeeded and 0.1 <= login.seconds <= 0.2
    assert [p.detail for p in login.phases] == ["mux_client_request_session"]


def test_debians_defaults_with_a_dead_name_server_take_half_a_minute():
    dead = m.Resolver(state=m.DROPS)
    login = m.login(m.ClientSettings(target=m.BY_ADDRESS, resolver=dead),
                    m.ServerSettings(use_dns=True, gssapi=True, resolver=dead))
    # 10 s for sshd's lookup, padded to 7 ms x 2048 = 14.3 s; two 10 s GSSAPI lookups.
    assert login.by_cause() == {"UseDNS": pytest.approx(14.336), "GSSAPI": 20.0}
    assert 34 < login.seconds < 35
    starts = login.starts()
    assert starts[0] == 0 and starts == sorted(starts)


def test_settings_are_checked():
    with pytest.raises(ValueError, match="nameserver state"):
        m.Resolver(state="sometimes")
    with pytest.raises(ValueError, match="target"):
        m.ClientSettings(target="carrier pigeon")
    with pytest.raises(ValueError, match="failure delay"):
        m.ServerSettings(failure_delay_ms=1.0)
    with pytest.raises(ValueError, match="not modelled"):
        m.lab("pam")


RECORD = (Path(__file__).resolve().parents[1] / "fixtures" / "probes" / "ssh"
          / "slow_ssh_probe-debian12.txt")


def recorded_lookups() -> list[tuple[int, int, int, float]]:
    """(nameservers, timeout, attempts, seconds) of the probe's getent lines against
    nameservers that drop (addresses .53-.55)."""
    rows = []
    pattern = re.compile(r"^((?:192\.168\.50\.5[345] ?)+)\s+timeout:(\d+) attempts:(\d+)\s+"
                         r"([0-9.]+) s$")
    for line in RECORD.read_text().splitlines():
        match = pattern.match(line)
        if match:
            rows.append((len(match.group(1).split()), int(match.group(2)),
                         int(match.group(3)), float(match.group(4))))
    return rows


def recorded_walls(case: str) -> list[float]:
    """The wall times of the logins of one `=== case:` of the probe's record."""
    text = RECORD.read_text().split(f"=== {case}:", 1)[1].split("\n===", 1)[0]
    return [float(x) for x in re.findall(r"^wall ([0-9.]+) s", text, re.M)]


def test_the_model_matches_the_recorded_lookups():
    rows = recorded_lookups()
    assert len(rows) == 8
    for nameservers, timeout, attempts, seconds in rows:
        resolver = m.Resolver(nameservers, timeout, attempts, m.DROPS)
        # getent's own start-up and the last reply's arrival: up to 0.1 s more.
        assert 0 <= seconds - m.lookup_seconds(resolver) < 0.1, (nameservers, timeout)


def test_the_model_matches_the_recorded_logins():
    dead = DEAD
    fixed = m.login(*m.lab())
    assert all(abs(w - fixed.seconds) < 0.2 for w in recorded_walls("baseline"))
    mdns = m.login(m.ClientSettings(target=m.BY_MDNS_NAME, resolver=dead), m.ServerSettings())
    walls = recorded_walls("mdns4_minimal, server.local (not in hosts)")
    assert all(abs(w - mdns.seconds) < 0.05 for w in walls)
    avahi = m.login(m.ClientSettings(target=m.BY_MDNS_NAME, avahi_running=True,
                                     resolver=dead), m.ServerSettings())
    walls = recorded_walls("mdns4_minimal, server.local, avahi running")
    assert all(abs(w - avahi.seconds) < 0.05 for w in walls)
    # The probe's sshd asked for 5.585 ms ("requested 5.585ms"): 1.0 s padded to 1.43 s.
    usedns = m.login(m.ClientSettings(target=m.BY_HOSTS_FILE, gssapi=False, resolver=dead),
                     m.ServerSettings(use_dns=True, failure_delay_ms=5.585, resolver=dead))
    walls = recorded_walls("usedns yes, PAM yes")
    assert all(abs(w - usedns.seconds) < 0.2 for w in walls), (walls, usedns.seconds)
    gssapi = m.login(m.ClientSettings(target=m.BY_ADDRESS, resolver=dead),
                     m.ServerSettings(gssapi=True, resolver=dead))
    walls = recorded_walls("client gssapi yes, server yes, by address, no /etc/hosts entry")
    assert all(abs(w - gssapi.seconds) < 0.25 for w in walls), (walls, gssapi.seconds)
