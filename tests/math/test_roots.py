"""The one-dimensional searches of dpproofs.math.roots, in floats and in mpmath numbers."""

import math

from mpmath import mp

import pytest

from dpproofs.math.roots import bisect_predicate, golden_section, golden_section_on_log, illinois


def test_illinois_returns_an_evaluated_bracket_with_its_signs_around_the_root():
    seen = {}

    def g(x):
        seen[x] = 1.0 - math.log(x)  # positive below the root e, negative above
        return seen[x]

    low, high = illinois(g, 1.0, 10.0, g(1.0), g(10.0), converged=lambda lo, hi: hi - lo <= 1e-12)
    assert seen[low] > 0 >= seen[high]  # both ends evaluated, signs kept
    assert high - low <= 1e-12 and low < math.e <= high + 1e-15


def test_illinois_stops_after_its_step_budget():
    calls = []
    illinois(lambda x: calls.append(x) or 1.0 - x, 0.0, 2.0, 1.0, -1.0, converged=lambda lo, hi: False, max_steps=7)
    assert len(calls) == 7


def test_bisect_predicate_returns_a_point_where_the_predicate_held_from_either_side():
    holds_below = lambda x: x * x <= 2  # noqa: E731
    inside = bisect_predicate(holds_below, 0.0, 2.0)
    assert holds_below(inside) and abs(inside - math.sqrt(2)) <= 1e-12
    holds_above = lambda x: x * x >= 2  # noqa: E731
    inside = bisect_predicate(holds_above, 2.0, 0.0)
    assert holds_above(inside) and abs(inside - math.sqrt(2)) <= 1e-12


def test_golden_section_finds_the_minimum_in_floats_and_in_mpmath():
    c = golden_section_on_log(lambda c: (math.log(c) - 1.5) ** 2, math.log(1e-3), math.log(1e3), exp=math.exp,
                              steps=80, tolerance=1e-9)
    assert abs(math.log(c) - 1.5) <= 1e-8
    with mp.workdps(40):
        c = golden_section_on_log(lambda c: (mp.log(c) - 1.5) ** 2, mp.log(mp.mpf("1e-3")), mp.log(mp.mpf(1000)),
                                  exp=mp.exp, steps=90)
        assert isinstance(c, mp.mpf) and abs(mp.log(c) - 1.5) <= 1e-15


def test_golden_section_returns_the_best_point_it_evaluated_and_needs_a_stop():
    calls = []

    def f(x):
        calls.append(x)
        return (x - 0.3) ** 2

    value, x, low, high = golden_section(f, 0.0, 1.0, steps=40)
    evaluated = list(calls)
    assert value == min((c - 0.3) ** 2 for c in evaluated)
    assert abs(x - 0.3) < 1e-6 and low <= 0.3 <= high
    with pytest.raises(ValueError):
        golden_section(f, 0.0, 1.0)


def test_golden_section_stops_at_the_tolerance():
    _, _, low, high = golden_section(lambda x: abs(x - 2), 0.0, 10.0, tolerance=1e-3)
    assert high - low < 1e-3
