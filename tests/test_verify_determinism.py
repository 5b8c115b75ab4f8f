"""The same claim, domain and seed give the same JSON on any machine and under any load.

Budgets count work (draws, pinned points, boxes, bits), never seconds; the time budget is only a
safety stop that the verdict reports. Compared: the whole JSON object except ``seconds`` (the
measured wall time, the one field that describes the run rather than the answer; the CLI's
``--json`` leaves it out, so its output is compared byte for byte). Tested three
ways: twice in one process; in a subprocess pinned to one CPU with ``taskset -c 0`` (when
available); and with every ball evaluation deliberately slowed down.
"""

import json
import shutil
import subprocess
import sys
import time

import pytest

import dpproofs as dp
from dpproofs.checker import arithmetic

#: A proof that closes (search, exact corners, 1843 boxes) and one that stops at its box budget.
CASES = [
    ("rdp_laplace(alpha, b) <= 2/b", ["1.5 <= alpha <= 32", "0.5 <= b <= 4"]),
    ("x*(1 - x) <= 0.25 - 1e-9", ["0 <= x <= 1"]),
]


def _answer(data):
    return json.dumps({k: v for k, v in data.items() if k != "seconds"}, sort_keys=True)


def _cli_json(claim, where, prefix=()):
    """The bytes ``dpproofs verify --json`` prints (its wall time goes to stderr)."""
    argv = [*prefix, sys.executable, "-m", "dpproofs", "verify", claim, *[x for w in where for x in ("--where", w)],
            "--seed", "7", "--json"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode in (0, 1), done.stderr
    assert "seconds" not in json.loads(done.stdout) and "answered in" in done.stderr
    return done.stdout


@pytest.mark.parametrize("claim, where", CASES)
def test_the_same_claim_and_seed_give_the_same_json_twice(claim, where):
    first = dp.verify(claim, where, seed=7).to_dict()
    second = dp.verify(claim, where, seed=7).to_dict()
    assert _answer(first) == _answer(second)


@pytest.mark.skipif(shutil.which("taskset") is None, reason="taskset is not installed")
def test_the_json_is_the_same_on_one_cpu_under_taskset():
    claim, where = CASES[0]
    free = _cli_json(claim, where)
    pinned = _cli_json(claim, where, prefix=("taskset", "-c", "0"))
    assert free == pinned  # byte-identical


def test_the_json_is_the_same_when_every_ball_evaluation_is_slowed_down(monkeypatch):
    claim, where = CASES[0]
    first = dp.verify(claim, where, seed=7).to_dict()
    real = arithmetic.evaluate_ball

    calls = [0]

    def slow(*args, **kwargs):
        calls[0] += 1
        time.sleep(0.0002)
        return real(*args, **kwargs)

    monkeypatch.setattr(arithmetic, "evaluate_ball", slow)
    second = dp.verify(claim, where, seed=7).to_dict()
    assert calls[0] > 0  # the slowed evaluator did the work (counted: wall times vary with the load)
    assert _answer(first) == _answer(second)


def test_a_time_budget_that_stops_the_proof_says_so_in_the_verdict():
    verdict = dp.verify("sqrt(x*y) <= (x + y)/2", ["0.1 <= x <= 10", "0.1 <= y <= 10"], time_budget=0.8)
    assert verdict.status == "holds"
    assert "time budget" in verdict.evidence  # (how soon it stops is counted in work: tests/test_verify.py)
