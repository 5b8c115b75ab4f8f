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

import functools
import importlib.util
import os
import pathlib

import numpy as np
import pytest

import dpproofs as dp

#: Seed and sizes of the generated rows.
SEED = 20261207
ROWS = 40
CI_ROWS = 8


@functools.lru_cache(maxsize=1)
def _suite():
    """benchmarks/pld_soundness_generated.py: its generator (the ranges), its reference and its RTOL,
    defined there once."""
    path = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "pld_soundness_generated.py"
    spec = importlib.util.spec_from_file_location("pld_soundness_generated", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows(count):
    return _suite().draw(np.random.default_rng(SEED), count)


def _count():
    return CI_ROWS if os.environ.get("HYPOTHESIS_PROFILE", "") == "ci" else ROWS


def _reference(eps, q, sigma, steps):
    value = _suite().reference(eps, q, sigma, steps)
    if isinstance(value, Exception):
        pytest.skip(f"the Bromwich reference's contours disagree at eps={eps!r} ({q}, {sigma}, {steps}): {value}")
    return value


@pytest.mark.campaign
@pytest.mark.parametrize("row", range(ROWS))
def test_generated_brackets_contain_the_bromwich_value(row):
    rtol = _suite().RTOL  # the reference's agreement, defined with it in the benchmark
    if row >= _count():
        pytest.skip("beyond this profile's rows")
    q, sigma, steps, delta = _rows(ROWS)[row]
    accountant = dp.PLDAccountant().compose(dp.SampledGaussian(q, sigma), steps)
    bracket = accountant.epsilon_bounds(delta)
    assert 0 <= bracket.lower <= bracket.upper
    # delta is non-increasing in epsilon: the exact epsilon lies in [lower, upper] iff these hold
    if bracket.lower > 0:
        assert _reference(bracket.lower, q, sigma, steps) >= delta * (1 - rtol)
    assert _reference(bracket.upper, q, sigma, steps) <= delta * (1 + rtol)
    middle = (bracket.lower + bracket.upper) / 2
    at_middle = accountant.delta_bounds(middle)
    exact = _reference(middle, q, sigma, steps)
    assert at_middle.lower * (1 - rtol) <= exact <= at_middle.upper * (1 + rtol)
