"""Compositions of Gaussian mechanisms answered from their closed form, certified.

Composing Gaussian mechanisms of noise multipliers ``sigma_i`` (``n_i`` steps each) is exactly the
Gaussian mechanism of ``mu = sqrt(sum_i n_i / sigma_i^2)`` (sensitivity over noise): the privacy loss
of each step is ``N(mu_i^2/2, mu_i^2)`` under the first distribution, and these add (Dong, Roth & Su
2022, arXiv 1905.02383v3, Corollary 3.3: mu-GDP composes to sqrt(sum mu_i^2)-GDP, tightly). Its
profile is Balle & Wang 2018 (arXiv 1805.06530v2), Theorem 8:
``delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)``
(:func:`dpproofs.math.formulas.delta_gaussian` at noise ``1/mu``). The PLD accountant answers a
ledger of Gaussians from it (no grid, any number of steps, any noise): the root in mpmath, and each
end of the bracket checked in arb (ball arithmetic) before it is returned.
"""

import fractions
import math

import numpy as np

from dpproofs.math import precise

__all__ = ["gaussian_mu", "epsilon_bracket", "delta_bracket", "MAX_MU"]

#: Largest mu answered here (epsilons up to about 5e299, within float range). The arb checks hold
#: to it: at mu = 1e100 and 1e150, delta 1e-15..0.5, each bracket certified 1.8e-12 wide in at most
#: 3.7 s (the mpmath root, then 2048 bits). Up to mu = 1e5 arb's own erfc suffices; at mu = 1e6 it
#: lost all accuracy, and the Mills-ratio enclosure (:func:`dpproofs.math.ball.erfc`) carries the
#: checks. Beyond it the accountant keeps its other paths (the RDP bound).
MAX_MU = 1e150
#: Working precisions (bits) of the arb checks, tried in turn.
PRECISIONS = (128, 512, 2048)
#: Relative margins put around the mpmath root before the arb checks, tried in turn.
MARGINS = (2.0**-40, 2.0**-30, 2.0**-20)


def gaussian_mu(active, relation):
    """``mu^2`` of the composition ``active`` (a list of ``(mechanism, steps)``), an exact rational
    (:class:`fractions.Fraction`: each float sigma is exact, so no rounding can make the answer
    optimistic), when every mechanism is a Gaussian (``Gaussian``, ``SampledGaussian`` at rate 1,
    ``RandomAllocationGaussian`` of one step) and ``0 < mu <= MAX_MU``; else None. Under replace-one
    each step's sensitivity is 2 (the clipped sum moves by up to 2C)."""
    from dpproofs.mechanisms import Gaussian, SampledGaussian
    from dpproofs.mechanisms_allocation import RandomAllocationGaussian

    sensitivity = 1 if relation == "add_remove" else 2
    total = fractions.Fraction(0)
    for mechanism, steps in active:
        kind = type(mechanism)
        if (kind is Gaussian or (kind is SampledGaussian and mechanism.q == 1)
                or (kind is RandomAllocationGaussian and mechanism.steps == 1)):  # one step per epoch
            total += steps * sensitivity**2 / fractions.Fraction(mechanism.sigma) ** 2
        else:
            return None
    return total if 0 < total <= MAX_MU**2 else None


def _delta_ball(epsilon, mu2, prec):
    """An arb enclosure of the profile at ``epsilon`` for the exact ``mu2`` (noise ``1/mu`` as a ball)."""
    from flint import arb

    from dpproofs.math import ball

    with ball.precision(prec):
        noise = 1 / (arb(mu2.numerator) / arb(mu2.denominator)).sqrt()
        return ball.delta_gaussian(epsilon, noise, prec=prec)


def _mu(mu2):
    return precise.mp.sqrt(precise.mp.mpf(mu2.numerator) / mu2.denominator)


def _delta_precise(epsilon, mu2, dps=30):
    with precise.mp.workdps(dps):
        return precise.delta_gaussian(epsilon, 1 / _mu(mu2), dps=dps)


def _float_root(mu2, delta):
    """A float64 guess of the epsilon where the profile equals ``delta`` (the arb checks then certify
    it), from the project's float enclosure of the profile (:func:`dpproofs.math.fast.delta_gaussian_bounds`,
    at noise ``1/mu`` rounded), by rounds of 64 points each; None when the profile at 0 is at most
    ``delta`` or the float evaluation fails."""
    from dpproofs.math import fast

    mu = math.sqrt(float(mu2))
    noise = 1 / mu
    try:
        if not fast.delta_gaussian_bounds(0.0, noise)[1][0] > delta:
            return None
        low, high = 0.0, mu * mu / 2 + mu * (math.sqrt(2 * math.log(1 / delta)) + 1)
        for _ in range(16):  # each round narrows 64-fold: from 1e308 to an ulp well within 16
            x = np.linspace(low, high, 65)
            low_end, high_end = fast.delta_gaussian_bounds(x, noise)
            value = np.where(low_end > 0, np.sqrt(low_end * high_end), high_end)  # decreasing in epsilon
            k = int(np.argmax(value <= delta))
            if not value[k] <= delta or k == 0:
                return None
            low, high = x[k - 1], x[k]
            if high - low <= 2.0**-50 * high:
                break
        return high
    except (ValueError, ArithmeticError):
        return None


def _root(mu2, delta):
    """The epsilon where the profile of ``mu`` equals ``delta`` (mpmath, by bisection on log delta;
    the profile decreases), or 0 when the profile at 0 is already at most ``delta``."""
    mp = precise.mp
    with mp.workdps(40):
        mu = _mu(mu2)
        target = mp.log(mp.mpf(delta))
        if _delta_precise(0, mu2) <= delta:
            return mp.mpf(0)
        z = mp.sqrt(-2 * target)  # Phi(-z) <= e^{-z^2/2} / 2 = delta / 2
        low, high = mp.mpf(0), mu * mu / 2 + mu * (z + 1)  # delta(high) <= Phi(mu/2 - high/mu) < delta
        for _ in range(200):
            middle = (low + high) / 2
            value = _delta_precise(middle, mu2)
            if value > 0 and mp.log(value) > target:
                low = middle
            else:
                high = middle
            if high - low <= high * mp.mpf(2) ** -70:
                break
        return (low + high) / 2


def epsilon_bracket(mu2, delta):
    """``(lower, upper)`` floats containing the epsilon of the Gaussian of ``mu = sqrt(mu2)`` at ``delta``, each
    end certified in arb (``delta(upper) <= delta <= delta(lower)``), or None if no margin certifies."""
    guess = _float_root(mu2, delta)
    if guess is not None:
        found = _certify(guess, mu2, delta, MARGINS[:2])
        if found is not None:
            return found
    root = _root(mu2, delta)
    if root == 0:
        return 0.0, 0.0
    return _certify(root, mu2, delta, MARGINS)


def _certify(root, mu2, delta, margins):
    """``(lower, upper)`` around ``root`` whose arb profiles bracket ``delta``, or None."""
    for margin in margins:
        upper = math.nextafter(float(root * (1 + margin)), math.inf)
        lower = max(0.0, math.nextafter(float(root * (1 - margin)), -math.inf))
        if not math.isfinite(upper):
            return None
        for prec in PRECISIONS:
            high_delta, low_delta = _delta_ball(upper, mu2, prec), _delta_ball(lower, mu2, prec)
            if high_delta.upper() <= delta and (lower == 0 or low_delta.lower() >= delta):
                return lower, upper
    return None


def delta_bracket(mu2, epsilon):
    """``(lower, upper)`` floats containing the Gaussian of ``mu = sqrt(mu2)``'s delta at ``epsilon`` (the arb
    enclosure, rounded outward), or None if no precision tried gives a relative radius below 1e-6."""
    for prec in PRECISIONS:
        value = _delta_ball(epsilon, mu2, prec)
        low, high = float(value.lower()), float(value.upper())
        low, high = max(0.0, math.nextafter(low, -math.inf)), min(1.0, math.nextafter(high, math.inf))
        if high - low <= 1e-6 * high or high <= 1e-300:
            return low, high
    return None
