"""The instructor's server over real HTTP (a `python -m instructor serve` subprocess on a
loopback port): signed posts stored and exported, unsigned, forged, stale and replayed ones
refused, the rate per learner, the admin token, the event stream, deletion."""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.parse
from http.client import HTTPConnection

import pytest
from instructor_support import http, result, running, signed_post

from instructor import store
from labsteps import report


@pytest.fixture
def server(tmp_path):
    with running(tmp_path / "w.sqlite", 0, "--rate", "2", "--burst", "4") as server:
        yield server


def test_a_signed_post_is_stored_and_exported(server):
    status, text, _, _ = signed_post(server, [result("files", True), result("pool", False)])
    assert (status, json.loads(text)) == (200, {"stored": 2, "known": 0})
    assert server.rows() == [("learner-01", "01-pools-vdevs", "files", 1),
                             ("learner-01", "01-pools-vdevs", "pool", 0)]
    status, csv = server.admin("/export.csv")
    lines = csv.splitlines()
    assert status == 200
    assert lines[0] == "learner,lab,step,passed,detail,checked_at,received_at"
    assert sorted(line.split(",")[:4] for line in lines[1:]) == [
        ["learner-01", "01-pools-vdevs", "files", "pass"],
        ["learner-01", "01-pools-vdevs", "pool", "fail"]]


def test_workshop_keys_can_be_given_on_a_command_line(tmp_path):
    """`workshop up --key KEY` (argparse) takes a key starting with "-" for an option."""
    db = store.connect(tmp_path / "keys.sqlite")
    keys = [store.create_workshop(db, f"w{i}").key for i in range(40)]
    assert all(re.fullmatch(r"[0-9a-f]{64}", key) for key in keys)
    assert len(set(keys)) == 40


def test_unsigned_posts_are_refused(server):
    body = json.dumps({"workshop": server.workshop.id, "learner": "learner-01",
                       "results": [result()]}).encode()
    status, text = http(server.url + report.ENDPOINT, body,
                        {"Content-Type": "application/json"})
    assert status == 401 and "unsigned" in text
    assert server.rows() == []


def test_forged_posts_are_refused(server):
    # Signed with another key, and a signed body changed on the way.
    status, text, _, _ = signed_post(server, [result()], key="not-the-workshop-key")
    assert (status, text) == (401, "bad signature")
    body = json.dumps({"workshop": server.workshop.id, "learner": "learner-01",
                       "results": [result(passed=False)]}).encode()
    headers = report.signed_headers(server.workshop.key, body)
    forged = body.replace(b'"passed": false', b'"passed": true')
    assert forged != body
    assert http(server.url + report.ENDPOINT, forged, headers) == (401, "bad signature")
    assert server.rows() == []


def test_replayed_and_stale_posts_are_refused(server):
    status, _, headers, body = signed_post(server, [result()])
    assert status == 200
    # The same post again, byte for byte: its nonce was seen.
    status, text = http(server.url + report.ENDPOINT, body, headers)
    assert status == 409 and "replayed" in text
    # A correctly signed post from ten minutes ago (a replay once its nonce is forgotten).
    status, text, _, _ = signed_post(server, [result("pool")], now=time.time() - 600)
    assert status == 401 and "stale" in text
    assert len(server.rows()) == 1


def test_an_unknown_workshop_is_answered_like_a_bad_signature(server):
    body = json.dumps({"workshop": "nope", "learner": "learner-01",
                       "results": [result()]}).encode()
    status, text = http(server.url + report.ENDPOINT, body,
                        report.signed_headers(server.workshop.key, body))
    assert (status, text) == (401, "bad signature")


def test_a_learner_posting_too_fast_is_slowed_down_alone(server):
    # --rate 2 --burst 4: four posts at once pass, the fifth waits; another learner is not
    # affected.
    statuses = [signed_post(server, [result(f"s{i}")])[0] for i in range(6)]
    assert statuses[:4] == [200] * 4
    assert 429 in statuses[4:]
    assert signed_post(server, [result()], learner="learner-02")[0] == 200


def test_a_resent_result_is_stored_once(server):
    again = result(rid="same-result")
    assert json.loads(signed_post(server, [again])[1]) == {"stored": 1, "known": 0}
    assert json.loads(signed_post(server, [again])[1]) == {"stored": 0, "known": 1}
    assert len(server.rows()) == 1


def test_names_are_refused_as_learner_ids(server):
    status, text, _, _ = signed_post(server, [result()], learner="Ada Lovelace")
    assert status == 400 and "pseudonym" in text


def test_the_admin_pages_need_the_admin_token(server):
    assert server.admin("", token="wrong")[0] == 403
    assert server.admin("/export.csv", token=server.workshop.key)[0] == 403  # learners' key
    assert server.admin("/delete", token="", method="POST")[0] == 403
    status, page = server.admin("")
    assert status == 200 and f"<code>{server.workshop.id}</code>" in page
    # Every asset is the server's own (no CDN: the room may have no internet).
    assert 'src="/static/live.js"' in page and "//" not in page
    assert http(f"{server.url}/static/live.js")[0] == 200


def test_the_event_stream_pushes_each_stored_result(server):
    signed_post(server, [result("files")])
    url = urllib.parse.urlsplit(server.url)
    connection = HTTPConnection(url.hostname, url.port, timeout=10)
    connection.request("GET", f"/w/{server.workshop.id}/events?token={server.workshop.admin}")
    answer = connection.getresponse()
    assert answer.status == 200
    assert answer.getheader("Content-Type").startswith("text/event-stream")

    def event() -> tuple[str, object]:
        lines = []
        while (line := answer.readline().decode().rstrip("\n")) != "":
            lines.append(line)
        fields = dict(line.split(": ", 1) for line in lines)
        return fields["event"], json.loads(fields["data"])

    kind, snapshot = event()
    assert kind == "snapshot" and [r["step"] for r in snapshot] == ["files"]
    poster = threading.Thread(target=signed_post, args=(server, [result("pool", False)]))
    poster.start()
    kind, pushed = event()
    poster.join()
    assert kind == "result"
    assert (pushed["learner"], pushed["step"], pushed["passed"]) == ("learner-01", "pool", False)
    connection.close()


def test_deleting_a_workshop_removes_its_key_and_results(server):
    signed_post(server, [result()])
    status, text = server.admin("/delete", method="POST")
    assert status == 200 and json.loads(text) == {"deleted": "w1", "results": 1}
    assert server.rows() == []
    assert server.admin("/export.csv")[0] == 404
    assert signed_post(server, [result()])[0] == 401


def test_a_body_larger_than_the_limit_is_not_read(server):
    body = b"{" + b" " * (70 * 1024) + b"}"
    status, _ = http(server.url + report.ENDPOINT, body,
                     report.signed_headers(server.workshop.key, body))
    assert status == 413
