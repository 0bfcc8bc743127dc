"""labsim.scenarios.steps: stepwise work shared by a caller that steps and one that
finishes it."""

import pytest

from labsim.scenarios.steps import Resumable


def counting(log: list[int]):
    def work():
        for i in range(3):
            log.append(i)
            yield
        return sum(log)
    return work


def test_steps_then_result_does_each_step_once():
    log: list[int] = []
    job = Resumable(counting(log))
    assert job.step() and log == [0]
    assert job.result() == 3 and log == [0, 1, 2]
    assert not job.step()
    assert job.result() == 3 and log == [0, 1, 2]  # not done again


def test_stepping_to_the_end_says_so():
    log: list[int] = []
    job = Resumable(counting(log))
    taken = 0
    while job.step():
        taken += 1
    assert taken == 3 and job.result() == 3


def test_work_that_raised_starts_over():
    log: list[int] = []
    fails = [1]
    def work():
        yield
        if fails:
            fails.pop()
            raise RuntimeError("broken")
        log.append(1)
        return "done"
    job = Resumable(work)
    assert job.step()
    with pytest.raises(RuntimeError, match="broken"):
        job.step()
    assert job.result() == "done" and log == [1]
