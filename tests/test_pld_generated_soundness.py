"""The PLD accountant on generated configurations: its brackets contain the Bromwich reference.

The rows are drawn with a seed by the generator of ``benchmarks/pld_soundness_generated.py`` (q in
[1e-5, 0.5], sigma in [0.4, 20], T in [2, 1e6], delta in [1e-12, 1e-3], log-uniform; that script
prints 60 of them with the reference, and its stored runs are beside it). Each row asks for
``epsilon_bounds(delta)`` and ``delta_bounds`` at the bracket's midpoint and checks both against
:func:`dpproofs.math.pld_exact.bromwich_delta` (a contour integral of the moment generating
function: no grid, nothing of the accountant). Rows where the reference's two contours disagree
are skipped (they are reported, not counted). Campaign-sized: ``pytest -m campaign``; the
Hypothesis profile ``ci`` runs CI_ROWS rows, ``campaign`` all of ROWS.
"""

import importlib.util
import os
import pathlib

import numpy as np
import pytest

import dpproofs as dp
from dpproofs.errors import NumericalError
from dpproofs.math import pld_exact

#: The reference's relative agreement asked (its two contours); containment is checked to it.
RTOL = 1e-6
#: Seed and sizes of the generated rows.
SEED = 20261207
ROWS = 40
CI_ROWS = 8


def _rows(count):
    """The generator of benchmarks/pld_soundness_generated.py (one definition of the ranges)."""
    path = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "pld_soundness_generated.py"
    spec = importlib.util.spec_from_file_location("pld_soundness_generated", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.draw(np.random.default_rng(SEED), count)


def _count():
    return CI_ROWS if os.environ.get("HYPOTHESIS_PROFILE", "") == "ci" else ROWS


def _reference(eps, q, sigma, steps):
    try:
        return pld_exact.bromwich_delta(eps, q, sigma, steps, rtol=RTOL)
    except (NumericalError, ArithmeticError):
        pytest.skip(f"the Bromwich reference's contours disagree at eps={eps!r} ({q}, {sigma}, {steps})")


@pytest.mark.campaign
@pytest.mark.parametrize("row", range(ROWS))
def test_generated_brackets_contain_the_bromwich_value(row):
    if row >= _count():
        pytest.skip("beyond this profile's rows")
    q, sigma, steps, delta = _rows(ROWS)[row]
    accountant = dp.PLDAccountant().compose(dp.SampledGaussian(q, sigma), steps)
    bracket = accountant.epsilon_bounds(delta)
    assert 0 <= bracket.lower <= bracket.upper
    # delta is non-increasing in epsilon: the exact epsilon lies in [lower, upper] iff these hold
    if bracket.lower > 0:
        assert _reference(bracket.lower, q, sigma, steps) >= delta * (1 - RTOL)
    assert _reference(bracket.upper, q, sigma, steps) <= delta * (1 + RTOL)
    middle = (bracket.lower + bracket.upper) / 2
    at_middle = accountant.delta_bounds(middle)
    exact = _reference(middle, q, sigma, steps)
    assert at_middle.lower * (1 - RTOL) <= exact <= at_middle.upper * (1 + RTOL)
