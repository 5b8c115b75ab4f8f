"""``dpproofs check`` fails loudly for a wrong accountant: an Accountant whose epsilon is 3% too small makes
the check of the accountant's claims exit with status 1 (run in-process, with the public command).

The claims run are ``accountant.[!p]*``: every accountant claim except those under ``accountant.p*``
(the PLD accountant's, ``accountant.pld*``, and the privacy curve's), which never call
``Accountant.epsilon``; the main job (``dpproofs check``) and tests/theorems check those. 22 s here
against 64 s for ``accountant.*`` (measured, one process). That the same claims pass for the shipped
accountant is tests/theorems/test_contract.py's (every claim at its pins and on its domain) and the
main job's; a copy of it here cost another 22 s of every CI run."""

import json
import sys

import pytest

import dpproofs as dp
from dpproofs.cli import main

ARGS = ["check", "accountant.[!p]*", "--examples", "2", "--workers", "1", "--json"]  # in this process: the patch applies


def run_check(capsys):
    status = main(ARGS)
    result = json.loads(capsys.readouterr().out)
    return status, result


def _clear_memos():
    """Empty every functools cache of the library and the content (the claims memoise the shipped
    answers, e.g. theorems/accountant/sampled_laplace.py's ``_bracket``): answers computed under the
    patch must not outlive it. Without this, a later test in the same worker read a PLD bracket whose
    RDP end was 3 % low (accountant.sampled_laplace.pld.upper violated at q = 1, b = 0.2)."""
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(("dpproofs", "dpproofs_theorems")):
            continue
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


@pytest.fixture
def three_percent_low(monkeypatch):
    original = dp.Accountant.epsilon

    def epsilon(self, delta, conversion="improved", *, refine=False):
        return 0.97 * original(self, delta, conversion, refine=refine)

    _clear_memos()
    monkeypatch.setattr(dp.Accountant, "epsilon", epsilon)
    yield
    monkeypatch.undo()
    _clear_memos()


def test_an_accountant_returning_3_percent_less_epsilon_makes_check_accountant_exit_1(capsys, three_percent_low):
    status, result = run_check(capsys)
    assert status == 1
    failed = set(result["summary"]["mismatches"])
    # caught by the claims that hold the accountant's epsilon against exact values, with certified
    # counterexamples (the 3% is far above any rounding)
    assert {"accountant.epsilon.sampled_gaussian_steps.improved", "accountant.epsilon.sampled_gaussian_steps.classic",
            "accountant.calibrate.within_stated_tolerance"} <= failed, failed
    by_id = {row["id"]: row for row in result["claims"]}
    broken = [i for i in failed if by_id[i]["expected"] == "holds"]
    assert all(by_id[i]["status"] == "refuted" and by_id[i]["certified"] for i in broken), broken
