"""The two-sided mixture's positions (Poisson replace-one's dominating pair): every float position
lies within its certified radius of the 50-digit root, over rates, noises and levels a user can
reach (q from 1e-9 to 1, sigma from 0.05 to 1e3, levels up to 1e4 in size)."""

import mpmath
import numpy as np
import pytest

from dpproofs.math.pairs import TwoSidedGaussianPair


def _true_position(q, s, level):
    with mpmath.workdps(50):
        q, s, level = mpmath.mpf(q), mpmath.mpf(s), mpmath.mpf(level)
        a = mpmath.exp(-1 / (2 * s * s))
        b = (1 - q) * (1 - mpmath.exp(level))
        root = mpmath.sqrt(b * b + 4 * q * q * a * a * mpmath.exp(level))
        x = 2 * mpmath.exp(level) * q * a / (b + root) if b >= 0 else (root - b) / (2 * q * a)
        return s * s * mpmath.log(x)


@pytest.mark.parametrize("q", [1e-9, 1e-3, 0.3, 0.999999, 1.0])
@pytest.mark.parametrize("sigma", [0.05, 0.5, 4.0, 1e3])
def test_every_position_lies_within_its_certified_radius(q, sigma):
    rng = np.random.default_rng(7)
    levels = np.concatenate([rng.uniform(-50, 50, 12), [0.0, 1e-8, -1e-8, 700.0, -700.0, 1e4, -1e4]])
    u, radius = TwoSidedGaussianPair(q, sigma)._certified(levels)
    assert np.all(np.isfinite(u)) and np.all(radius > 0)
    for level, position, r in zip(levels, u, radius):
        assert abs(_true_position(q, sigma, level) - mpmath.mpf(position)) <= r, (q, sigma, level)


def test_the_loss_at_each_position_is_its_level():
    pair = TwoSidedGaussianPair(0.01, 1.0)
    for level in (-3.0, -0.1, 0.0, 0.2, 2.5):
        assert pair._loss(float(pair.positions([level])[0])) == pytest.approx(level, abs=1e-12)
