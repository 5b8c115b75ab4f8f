"""The time budget of ``verify`` is a safety stop that holds: the search ends at its deadline
however many samples were asked for, and a long ball-arithmetic integral ends at the safety stop
from inside. No test asserts a duration: the clocks are injected and their reads counted. The
search test's clock starts at the real clock's reading (verify computes the deadline it passes to
the search from the real clock) and then advances 1 s per read, so a slow machine only adds reads,
well within the test's limit."""

import time
import types

import pytest
from flint import arb

import dpproofs as dp
from dpproofs.checker import search
from dpproofs.errors import SafetyStop
from dpproofs.math import ball, precise, stop
from dpproofs.verification import frontend, prove


class CountingClock:
    """A clock that advances ``step`` seconds per read from the real clock's value at creation,
    and fails the test past ``limit`` reads (a search that ignores its deadline reads it 10^7 times)."""

    def __init__(self, step=1.0, limit=10_000):
        self.now, self.step, self.limit, self.reads = time.perf_counter(), step, limit, 0

    def __call__(self):
        self.reads += 1
        assert self.reads <= self.limit, "the clock was read past its limit: the deadline is not honoured"
        self.now += self.step
        return self.now


def test_a_search_of_ten_million_samples_ends_at_its_deadline(monkeypatch):
    clock = CountingClock(step=1.0, limit=200)
    monkeypatch.setattr(search, "time", types.SimpleNamespace(perf_counter=clock))
    monkeypatch.setattr(frontend, "EARLY_PROOF_BOXES", 0)  # the early proof would answer before any search
    verdict = dp.verify("alpha <= alpha**2", ["1 < alpha <= 5"], samples=10**7, time_budget=5)
    assert verdict.status in ("proved", "holds")
    assert verdict.examples < 200
    assert "stopped the search early" in verdict.evidence


def test_ten_million_samples_of_a_claim_the_early_proof_closes_draw_none(monkeypatch):
    clock = CountingClock(step=1.0, limit=0)  # the search's clock is never read
    monkeypatch.setattr(search, "time", types.SimpleNamespace(perf_counter=clock))
    # the front end's and the prover's clocks stand still: no safety stop can fire, so the verdict
    # depends on work alone (the early proof's EARLY_PROOF_BOXES), never on the machine's load
    frozen = types.SimpleNamespace(perf_counter=lambda: 0.0)
    monkeypatch.setattr(frontend, "time", frozen)
    monkeypatch.setattr(prove, "time", frozen)
    verdict = dp.verify("alpha <= alpha**2", ["1 < alpha <= 5"], samples=10**7, time_budget=5)
    assert verdict.status == "proved" and verdict.examples == 0 and "before any search" in verdict.evidence


def test_a_long_arb_integral_ends_at_the_safety_stop_after_a_bounded_number_of_clock_reads():
    # log B_3 of the sampled Gaussian at 4096 bits: 73 000 integrand calls (40 s) without a stop
    clock = CountingClock(step=1.0)
    with stop.safety_stop(clock.now + 50, clock=clock), ball.precision(4096):
        with pytest.raises(SafetyStop):
            ball.log_b(arb(3), arb("0.01"), arb(1), prec=4096)
    assert clock.reads < 2000


def test_an_mpmath_integral_ends_at_the_safety_stop():
    clock = CountingClock(step=1.0)
    with stop.safety_stop(clock.now + 5, clock=clock):
        with pytest.raises(SafetyStop):
            precise.log_a_integral(2.5, 0.01, 1.0, dps=50)
    assert clock.reads < 50


def test_an_integral_without_a_stop_is_unchanged():
    with ball.precision(256):
        inside = ball.log_b(arb(3), arb("0.01"), arb(1), prec=256)
    clock = CountingClock(step=0.0)  # never reaches the stop
    with stop.safety_stop(clock.now + 3600, clock=clock), ball.precision(256):
        stopped_late = ball.log_b(arb(3), arb("0.01"), arb(1), prec=256)
    assert inside.overlaps(stopped_late) and inside.rad() == stopped_late.rad()


def test_a_stop_nested_inside_an_earlier_one_does_not_extend_it():
    clock = CountingClock(step=0.0)
    with stop.safety_stop(clock.now - 1, clock=clock):
        with stop.safety_stop(clock.now + 3600, clock=clock):
            assert stop.stopped()
    assert not stop.stopped()


def test_a_search_stopped_before_its_first_point_says_the_budget_stopped_it():
    import dataclasses

    from dpproofs.checker import pipeline
    from dpproofs.verification import build_claim

    claim, _, _ = build_claim("x <= 2", ["0 <= x <= 1"])
    claim = dataclasses.replace(claim, pinned=(), certify=False)
    verdict = pipeline.run(claim, pipeline.Plan(examples=10, search_seconds=0.0, expectation=False))
    assert verdict.status == "undecided" and verdict.examples == 0
    assert "the time budget stopped the search before any point was evaluated" in verdict.evidence
    assert "no drawn point satisfied the hypotheses" not in verdict.evidence
