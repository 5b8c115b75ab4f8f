"""The verify suite (dpproofs/verification/suite.py): every probe's verdict with default settings.

The probes marked ``fast`` run by default; the whole suite (each probe within the default time
budget of 60 s; about 2 minutes in all) runs with ``pytest -m suite tests/test_verify_suite.py``.
"""

import pytest

import dpproofs as dp
from dpproofs.verification.suite import SUITE


def _check(probe):
    verdict = dp.verify(probe.claim, list(probe.where), integers=list(probe.integers))
    assert verdict.status == probe.verdict, (probe.claim, verdict.evidence)
    if probe.truth == "holds":
        assert verdict.status in ("proved", "holds")
    else:
        assert verdict.status == "refuted" and verdict.certified and verdict.counterexample is not None
    return verdict


FAST = [p for p in SUITE if p.fast]


@pytest.mark.parametrize("probe", FAST, ids=[p.claim for p in FAST])
def test_each_fast_probe_of_the_suite_gets_its_expected_verdict(probe):
    _check(probe)


@pytest.mark.suite
@pytest.mark.parametrize("probe", SUITE, ids=[p.claim for p in SUITE])
def test_each_probe_of_the_suite_gets_its_expected_verdict_within_the_time_budget(probe):
    _check(probe)


def test_the_suite_has_enough_true_false_and_subtle_probes_and_two_thirds_of_the_true_ones_are_proved():
    true = [p for p in SUITE if p.truth == "holds"]
    false = [p for p in SUITE if p.truth == "fails"]
    assert len(SUITE) >= 30 and len(true) >= 12 and len(false) >= 12
    assert len([p for p in SUITE if p.subtle]) >= 10
    assert len([p for p in true if p.verdict == "proved"]) * 3 >= 2 * len(true)
    assert all(p.verdict == "refuted" for p in false)
    assert len({(p.claim, p.where) for p in SUITE}) == len(SUITE)
