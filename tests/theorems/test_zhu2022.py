"""Exhaustive enumeration behind the zhu2022 composition claims: every fixed-size-batch replace-one
configuration of randomized response on the parity, binary records, n <= 4, b <= 2.

Certified comparisons (arb balls through dpproofs.checker.decide) on a grid of eps; the claims themselves
are checked by the registry contract test.
"""

import itertools
from fractions import Fraction

import pytest

from dpproofs.checker.oracles import finite
from dpproofs.checker.oracles import subsampled
from dpproofs.checker.decide import Outcome, compare

from dpproofs_theorems.zhu2022.quantities import dominating_pair as _zdw_pair
from dpproofs_theorems.zhu2022.quantities import symmetrised as _symmetrised

PREC = 128
EPS_GRID = [Fraction(k, 8) for k in range(-8, 25)]  # -1 .. 3


def _configurations(keep, max_n=4, max_b=2):
    base = subsampled.randomized_response(keep)
    for n in range(1, max_n + 1):
        for b in range(1, min(max_b, n) + 1):
            for d in itertools.product((0, 1), repeat=n):
                for i in range(n):
                    d2 = d[:i] + (1 - d[i],) + d[i + 1:]
                    yield subsampled.Subsampled(base, d, d2, "fixed", batch_size=b)


def _h(pair, eps):
    return finite.delta_ball(pair, eps, PREC)


@pytest.mark.parametrize("k", [2, 3])
def test_every_small_configuration_composed_is_below_the_symmetrised_pair_and_some_exceed_the_pair_and_its_swap(k):
    exceed = []
    for inst in _configurations(Fraction(3, 4)):
        pair, p1 = inst.pair(), _zdw_pair(inst)
        composed = subsampled.compose(pair, k)
        sym = subsampled.compose(_symmetrised(p1), k)
        top = (subsampled.compose(p1, k), subsampled.compose(p1.swapped(), k))
        for eps in EPS_GRID:
            assert compare(_h(composed, eps), _h(sym, eps), "<=") is not Outcome.VIOLATED, (str(inst), eps)
            if eps >= 0 and all(compare(_h(composed, eps), _h(t, eps), ">") is Outcome.HOLDS for t in top):
                exceed.append((str(inst), eps))
    assert exceed, "no configuration above max(P1^k, P2^k)"
    assert any("d=(1, 1, 0), d2=(0, 1, 0)" in text for text, _ in exceed)


def test_every_small_configuration_is_below_the_per_step_pair_for_nonnegative_eps_only():
    below_at_positive, above_at_negative = True, 0
    for inst in _configurations(Fraction(3, 4)):
        pair, p1 = inst.pair(), _zdw_pair(inst)
        for eps in EPS_GRID:
            outcome = compare(_h(pair, eps), _h(p1, eps), "<=")
            if eps >= 0:
                below_at_positive &= outcome is not Outcome.VIOLATED
            elif outcome is Outcome.VIOLATED:
                above_at_negative += 1
    assert below_at_positive
    assert above_at_negative > 0
