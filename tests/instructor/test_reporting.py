"""Learners' reports (labs/labsteps/report.py) against a real server: queued while the server
is down and resent on the next run, never holding the lab up long when it does not answer;
`netkit sim --report-to` and `labkit verify --report` from the command line; the pull mode
over an exec prefix; a short load test."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import socket
import subprocess
import sys
import time

import pytest
from instructor_support import ENV, REPO, free_port, running, signed_post

from instructor import guard, loadtest, pull
from labsteps import StepResult, report


def results(*steps: str) -> list[StepResult]:
    return [StepResult("01-pools-vdevs", s, s != "pool", "" if s != "pool" else "no pool")
            for s in steps]


def test_results_wait_in_the_queue_while_the_server_is_down_and_go_on_the_next_run(tmp_path):
    port = free_port()
    queue = tmp_path / "queue.jsonl"
    db_path = tmp_path / "w.sqlite"
    with running(db_path, port):
        pass  # makes the workshop; the server is down again
    from instructor import store

    key = store.workshop(store.connect(db_path), "w1").key
    config = report.Config(f"http://127.0.0.1:{port}", "w1", "learner-07", key)
    first = report.report(results("files", "pool"), config, queue)
    assert (first.sent, first.queued) == (0, 2) and "unreachable" in first.problem
    assert len(queue.read_text().splitlines()) == 2
    with running(db_path, port) as server:
        second = report.report(results("files"), config, queue)
        assert (second.sent, second.queued, second.problem) == (3, 0, "")
        assert sorted(server.rows()) == [("learner-07", "01-pools-vdevs", "files", 1),
                                         ("learner-07", "01-pools-vdevs", "files", 1),
                                         ("learner-07", "01-pools-vdevs", "pool", 0)]
        assert queue.read_text() == ""
        # Nothing left to send: a third run sends nothing again.
        assert report.flush(queue, config).sent == 0


def test_a_server_that_does_not_answer_holds_the_lab_for_one_timeout_only(tmp_path):
    with socket.socket() as silent:  # accepts connections (the backlog), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        config = report.Config(f"http://127.0.0.1:{silent.getsockname()[1]}", "w1", "l1", "k")
        started = time.monotonic()
        delivery = report.report(results("files", "pool", "mirror"), config,
                                 tmp_path / "q.jsonl", timeout=0.5)
        took = time.monotonic() - started
    assert (delivery.sent, delivery.queued) == (0, 3)
    assert took < 2.0, took


def test_results_the_server_refuses_are_given_up_after_max_tries(tmp_path):
    with running(tmp_path / "w.sqlite") as server:
        wrong = report.Config(server.url, "w1", "learner-01", "a-wrong-key")
        queue = tmp_path / "q.jsonl"
        report.enqueue(queue, wrong, results("files"))
        deliveries = [report.flush(queue, wrong) for _ in range(report.MAX_TRIES)]
    assert all("401" in d.problem for d in deliveries)
    assert [d.queued for d in deliveries] == [1] * (report.MAX_TRIES - 1) + [0]
    assert deliveries[-1].dropped == 1


def test_the_reporting_configuration_comes_from_the_workshop_file_and_environment(tmp_path):
    path = tmp_path / "workshop.toml"
    path.write_text('url = "http://10.0.0.1:8088"\nworkshop = "w1"\nkey = "k"\n')
    config = report.load_config(None, {"ZFL_WORKSHOP_FILE": str(path)})
    assert (config.url, config.workshop, config.key) == ("http://10.0.0.1:8088", "w1", "k")
    assert config.learner.startswith("l-")  # a pseudonym from the machine and the key
    assert config.learner != report.load_config(None, {"ZFL_WORKSHOP_FILE": str(path),
                                                       "ZFL_WORKSHOP_KEY": "k2"}).learner
    given = report.load_config("http://x:1", {"ZFL_WORKSHOP_FILE": str(path),
                                              "ZFL_LEARNER": "learner-03"})
    assert (given.url, given.learner) == ("http://x:1", "learner-03")
    with pytest.raises(report.ReportError, match="workshop, key"):
        report.load_config("http://x:1", {"ZFL_WORKSHOP_FILE": str(tmp_path / "none")})


def cli_env(server, tmp_path, learner: str) -> dict[str, str]:
    return {**ENV, "ZFL_WORKSHOP_FILE": str(tmp_path / "none.toml"),
            "ZFL_WORKSHOP": server.workshop.id, "ZFL_WORKSHOP_KEY": server.workshop.key,
            "ZFL_LEARNER": learner, "ZFL_REPORT_QUEUE": str(tmp_path / f"{learner}.jsonl")}


def test_netkit_sim_reports_its_checks(tmp_path):
    _netkit_reports_every_check(tmp_path, "sim", "learner-05")


def test_netkit_run_reports_from_outside_its_own_network_namespace(tmp_path):
    """`netkit run` checks the lab in a network namespace of its own, where even the host's
    loopback is out of reach: the results still reach the server (the run that made the
    namespace sends them), and the JSON on stdout is the lab's alone."""
    sys.path.insert(0, str(REPO / "labs"))
    from netkit import real

    missing = real.missing_tools()
    assert not missing, f"the real labs need {', '.join(missing)}: apt-get install " + (
        real.PACKAGES)
    _netkit_reports_every_check(tmp_path, "run", "learner-08")


def _netkit_reports_every_check(tmp_path, mode: str, learner: str) -> None:
    """`netkit MODE 01-wg-peers --report-to URL` against a real server: all six checks
    sent, the server holding exactly what the run printed, under the learner's name."""
    with running(tmp_path / "w.sqlite") as server:
        done = subprocess.run(
            [sys.executable, "-m", "netkit", mode, "01-wg-peers", "-q", "--json",
             "--report-to", server.url], cwd=REPO / "labs", capture_output=True, text=True,
            env=cli_env(server, tmp_path, learner), timeout=300)
        assert done.returncode == 0, done.stderr
        printed = json.loads(done.stdout)
        assert "report: 6 sent" in done.stderr, done.stderr
        assert sorted((r["step"], r["passed"]) for r in printed["results"]) == sorted(
            (step, bool(passed)) for _l, _lab, step, passed in server.rows())
        assert {row[0] for row in server.rows()} == {learner}


@pytest.mark.skipif(os.geteuid() != 0, reason="labkit verify runs as root (zpool, zfs)")
def test_labkit_verify_reports_every_step_done_or_not(tmp_path):
    sys.path.insert(0, str(REPO / "labs"))
    import labkit

    steps = [s.name for s in labkit.load_lab("01-pools-vdevs").steps]
    with running(tmp_path / "w.sqlite") as server:
        done = subprocess.run(
            [sys.executable, "-m", "labkit", "verify", "01-pools-vdevs", "--json",
             "--report", server.url], cwd=REPO / "labs", capture_output=True, text=True,
            env=cli_env(server, tmp_path, "learner-06"), timeout=300)
        printed = json.loads(done.stdout)
        assert done.returncode == (0 if all(r["passed"] for r in printed["results"]) else 1)
        assert [r["step"] for r in printed["results"]] == steps
        assert sorted(row[2] for row in server.rows()) == sorted(steps)
        assert f"report: {len(steps)} sent" in done.stderr


def test_pull_runs_the_checks_through_an_exec_prefix_and_reports_them(tmp_path):
    with running(tmp_path / "w.sqlite") as server:
        check = f"{sys.executable} -m netkit sim {{lab}} -q --json"
        done = subprocess.run(
            [sys.executable, "-m", "instructor", "--db", str(server.db_path), "pull", "w1",
             "learner-01", "learner-02", "--lab", "01-wg-peers", "--kit", "netkit",
             "--exec", "env ZFL_ENVIRONMENT={name}", "--labs-dir", str(REPO / "labs"),
             "--check", check, "--url", server.url],
            capture_output=True, text=True, timeout=600,
            env={**ENV, "ZFL_REPORT_QUEUE": str(tmp_path / "pull.jsonl")}, cwd=REPO)
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.splitlines() == [
            f"{learner}: 6 of 6 passed; report: 6 sent" for learner in ("learner-01",
                                                                        "learner-02")]
        learners = [row[0] for row in server.rows()]
        assert learners == ["learner-01"] * 6 + ["learner-02"] * 6


def test_the_exec_prefix_names_the_environment():
    assert pull.command("incus exec {name} --", "learner-03", "true", "/labs") == [
        "incus", "exec", "learner-03", "--", "sh", "-c", "cd /labs && true"]
    assert pull.command("ssh -o BatchMode=yes", "vm3", "true", "/labs")[:4] == [
        "ssh", "-o", "BatchMode=yes", "vm3"]


def test_a_check_that_prints_no_results_is_a_problem_of_that_learner():
    pulled = pull.pull("learner-09", "env ZFL_ENVIRONMENT={name}", "echo broken >&2; exit 3",
                       "/", None)
    assert not pulled.results
    assert pulled.line() == ("learner-09: not checked: exit 3, no JSON results in the "
                             "output: broken")


def test_rate_limit_refills_at_its_rate():
    limit = guard.RateLimit(rate=2.0, burst=2.0)
    assert [limit.allow("w", "a", 0.0) for _ in range(3)] == [True, True, False]
    assert limit.allow("w", "a", 0.5) and not limit.allow("w", "a", 0.5)
    assert limit.allow("w", "b", 0.5)


def test_a_short_load_test_loses_nothing():
    figures = loadtest.run(learners=20, seconds=10.0)
    print(json.dumps(figures))
    assert figures["posts"] >= 20 * 9
    assert figures["accepted"] == figures["posts"] == figures["stored"]
    assert figures["lost"] == 0 and figures["lost_on_live_page"] == 0
    assert figures["p99_ms"] > 0


def test_the_load_test_runs_where_an_event_loop_is_running():
    """In the whole suite, Playwright's sync API keeps an event loop running in the test
    thread, where asyncio.run() refuses: the load test drives its learners apart."""
    async def inside_a_loop():
        return loadtest.run(learners=2, seconds=2.0)

    # A thread of the test's own, whose running loop calls the load test (the test's
    # thread may have one running already, in the whole suite).
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        figures = pool.submit(asyncio.run, inside_a_loop()).result()
    assert figures["posts"] >= 2 and figures["lost"] == 0


def test_posts_stale_by_less_than_the_window_pass(tmp_path):
    with running(tmp_path / "w.sqlite") as server:
        assert signed_post(server, [{"id": "a1", "lab": "l", "step": "s", "passed": True,
                                     "at": time.time()}],
                           now=time.time() - guard.WINDOW + 5)[0] == 200


def test_the_notebooks_report_only_in_a_workshop(tmp_path):
    outside = {"ZFL_WORKSHOP_FILE": str(tmp_path / "none.toml"), "HOME": str(tmp_path)}
    assert report.report_if_workshop(results("files"), outside) is None
    assert not (tmp_path / ".local").exists()  # not even a queue
    with running(tmp_path / "w.sqlite") as server:
        path = tmp_path / "workshop.toml"
        path.write_text(f'url = "{server.url}"\nworkshop = "w1"\n'
                        f'key = "{server.workshop.key}"\nlearner = "learner-04"\n')
        inside = {"ZFL_WORKSHOP_FILE": str(path), "ZFL_REPORT_QUEUE": str(tmp_path / "q")}
        delivery = report.report_if_workshop(results("files", "pool"), inside)
        assert (delivery.sent, delivery.queued) == (2, 0)
        assert {row[0] for row in server.rows()} == {"learner-04"}
        broken = {**inside, "ZFL_WORKSHOP_KEY": "", "ZFL_WORKSHOP_FILE": str(tmp_path / "x")}
        broken["ZFL_WORKSHOP"] = "w1"
        assert report.report_if_workshop(results("files"), broken).problem.startswith(
            "not reported: reporting needs url, key")
