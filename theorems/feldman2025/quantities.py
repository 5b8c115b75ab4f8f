"""The quantities of the random-allocation modules (registered in the vocabulary on import).

Pair of one epoch (1 of t steps, Gaussian noise ``sigma``, sensitivity 1):
``P = (1/t) sum_i N(e_i, s^2 I_t)``, ``Q = N(0, s^2 I_t)``.

* ``allocation_add_log_moment(alpha, t, sigma)`` - ``log E_Q[(P/Q)^alpha]`` by the library's finite
  sum of positive terms (:func:`dpproofs.math.allocation.add_excess_exact`), mpmath and arb;
* ``allocation_add_log_moment_enumerated(alpha, t, sigma)`` - the same by brute force: every
  composition ``(a_1..a_t)`` of alpha, ``t^-alpha sum multinomial(alpha; a) prod_i E[Y^{a_i}]``
  with the Gaussian moment ``E[Y^a] = exp(a(a-1)/(2 s^2))`` (independent of the library's sum;
  t <= 6, alpha <= 12);
* ``allocation_finite_gf(alpha, t, keep20)`` and ``allocation_finite_enumerated(alpha, t, keep20)`` -
  for a FINITE base (binary randomized response keeping the bit with probability keep20/20; the
  record's bit 1 against 0): ``E_Q[(P/Q)^alpha]`` by the generating function
  ``t^-alpha alpha! [x^alpha] (sum_a mu_a x^a / a!)^t`` (``mu_a`` the base's moments) and by
  enumerating every output in ``{0,1}^t`` of the epoch; exact rationals;
* ``allocation_remove_reference(alpha, t, sigma)`` - ``D_alpha(Q || P)`` by quadrature of Euler's
  Gamma integral with the exact lognormal Laplace transform (scipy, ~1e-9 relative; a reference,
  no ball);
* ``allocation_remove_bound_float``, ``allocation_add_rdp_float`` - the float64 paths the
  accountant runs (:mod:`dpproofs.math.allocation`).
"""

import itertools
import math
from fractions import Fraction

import mpmath
from flint import arb

from dpproofs.checker import vocabulary
from dpproofs.math import allocation, ball, precise

__all__ = ["enumerated_moment", "finite_moment_gf", "finite_moment_enumerated", "remove_reference"]

_ALPHA = ("alpha", ((">=", 2), (vocabulary.INTEGER, None)))
_T = ("t", ((">=", 1), (vocabulary.INTEGER, None)))
_T_SMALL = ("t", ((">=", 1), ("<=", 6), (vocabulary.INTEGER, None)))
_SIGMA = ("sigma", ((">", 0),))
_KEEP = ("keep20", ((">=", 1), ("<=", 19), (vocabulary.INTEGER, None)))


def _number_mp(value):
    if isinstance(value, Fraction):
        return mpmath.mpf(value.numerator) / value.denominator
    return mpmath.mpf(value) if not isinstance(value, mpmath.mpf) else value


def _number_arb(value):
    if isinstance(value, Fraction):
        return arb(value.numerator) / value.denominator
    return ball.to_arb(value)


def _add_precise(alpha, t, sigma, *, dps):
    with mpmath.mp.workdps(dps + precise.GUARD_DPS):
        a, n = vocabulary.integer_arg(alpha, "alpha"), vocabulary.integer_arg(t, "t")
        return mpmath.log1p(allocation.add_excess_exact(a, n, precise.to_mpf(sigma), mpmath.expm1, _number_mp))


def _add_ball(alpha, t, sigma, *, prec):
    with ball.precision(prec):
        a, n = vocabulary.integer_arg(alpha, "alpha"), vocabulary.integer_arg(t, "t")
        return allocation.add_excess_exact(a, n, ball.to_arb(sigma), lambda x: x.expm1(), _number_arb).log1p()


def enumerated_moment(alpha, t, sigma, exp, number):
    """``E_Q[(P/Q)^alpha]`` by enumerating every composition of ``alpha`` into ``t`` parts."""
    two_s2 = 2 * number(sigma) ** 2
    total = number(0)
    for comp in itertools.product(range(alpha + 1), repeat=t):
        if sum(comp) != alpha:
            continue
        multinomial = math.factorial(alpha)
        for a in comp:
            multinomial //= math.factorial(a)
        total += number(multinomial) * exp(number(sum(a * (a - 1) for a in comp)) / two_s2)
    return total / number(t) ** alpha


def _enum_precise(alpha, t, sigma, *, dps):
    with mpmath.mp.workdps(dps + precise.GUARD_DPS):
        a, n = vocabulary.integer_arg(alpha, "alpha"), vocabulary.integer_arg(t, "t")
        return mpmath.log(enumerated_moment(a, n, precise.to_mpf(sigma), mpmath.exp, _number_mp))


def _enum_ball(alpha, t, sigma, *, prec):
    with ball.precision(prec):
        a, n = vocabulary.integer_arg(alpha, "alpha"), vocabulary.integer_arg(t, "t")
        return enumerated_moment(a, n, ball.to_arb(sigma), lambda x: x.exp(), _number_arb).log()


vocabulary.register(
    "allocation_add_log_moment", _add_precise, _add_ball, domain=(_ALPHA, _T, _SIGMA),
    doc="log E_Q[(P/Q)^alpha] of random 1-of-t allocation (Gaussian), the library's finite sum (dpproofs.math.allocation)")
vocabulary.register(
    "allocation_add_log_moment_enumerated", _enum_precise, _enum_ball,
    domain=(("alpha", ((">=", 2), ("<=", 12), (vocabulary.INTEGER, None))), _T_SMALL, _SIGMA),
    doc="log E_Q[(P/Q)^alpha] of random 1-of-t allocation by enumerating every composition of alpha into t parts")


# --- a finite base: binary randomized response, exact rationals ---------------------------------


def _rr(keep20):
    keep = Fraction(int(keep20), 20)
    # output distributions of the base on the record's bit 1 (P1) and 0 (Q1), over outputs (0, 1)
    return (1 - keep, keep), (keep, 1 - keep)


def finite_moment_enumerated(alpha, t, keep20):
    """``E_Q[(P/Q)^alpha]`` of 1-of-t allocation of the randomized-response base, every output of
    the epoch enumerated: P = (1/t) sum_i (P1 at step i, Q1 elsewhere), Q = Q1 at every step."""
    p1, q1 = _rr(keep20)
    total = Fraction(0)
    for out in itertools.product((0, 1), repeat=t):
        q = Fraction(1)
        for o in out:
            q *= q1[o]
        p = Fraction(0)
        for i in range(t):
            term = Fraction(1)
            for j, o in enumerate(out):
                term *= p1[o] if j == i else q1[o]
            p += term
        p /= t
        total += q * (p / q) ** alpha
    return total


def finite_moment_gf(alpha, t, keep20):
    """The same by the generating function ``t^-alpha alpha! [x^alpha] (sum_a mu_a x^a / a!)^t``,
    ``mu_a = E_{Q1}[(P1/Q1)^a]`` (the identity behind the Gaussian sum, for any base)."""
    p1, q1 = _rr(keep20)
    mu = [sum(q * (p / q) ** a for p, q in zip(p1, q1)) for a in range(alpha + 1)]
    g = [mu[a] / math.factorial(a) for a in range(alpha + 1)]
    power = [Fraction(1)] + [Fraction(0)] * alpha
    for _ in range(t):
        power = [sum(power[i] * g[m - i] for i in range(m + 1)) for m in range(alpha + 1)]
    return Fraction(math.factorial(alpha)) * power[alpha] / Fraction(t) ** alpha


vocabulary.register(
    "allocation_finite_enumerated", *vocabulary.exact_evaluators(finite_moment_enumerated, 0, 1, 2),
    domain=(("alpha", ((">=", 2), ("<=", 10), (vocabulary.INTEGER, None))),
            ("t", ((">=", 1), ("<=", 7), (vocabulary.INTEGER, None))), _KEEP),
    doc="E_Q[(P/Q)^alpha] of 1-of-t allocation of randomized response (keep20/20), every output enumerated")
vocabulary.register(
    "allocation_finite_gf", *vocabulary.exact_evaluators(finite_moment_gf, 0, 1, 2),
    domain=(("alpha", ((">=", 2), ("<=", 10), (vocabulary.INTEGER, None))),
            ("t", ((">=", 1), ("<=", 7), (vocabulary.INTEGER, None))), _KEEP),
    doc="the same by the generating function t^-alpha alpha! [x^alpha] (sum_a mu_a x^a/a!)^t")


# --- the remove direction: a quadrature reference -------------------------------------------------


def remove_reference(alpha, t, sigma):
    """``D_alpha(Q || P)`` by quadrature (float64, ~1e-9 relative): ``E[S^-b] - 1 = Gamma(b)^-1
    int u^{b-1} e^{-u} expm1(t (log phi(u/t) + u/t)) du`` with the lognormal's Laplace transform
    ``phi(v) = E[exp(-v e^W)]``, ``W ~ N(-1/(2 s^2), 1/s^2)``, itself by quadrature."""
    import warnings

    from scipy import integrate

    s = float(sigma)
    mu, sd, b = -1.0 / (2 * s * s), 1.0 / s, float(alpha) - 1.0
    t = int(t)

    def density(z):
        return math.exp(-z * z / 2) / math.sqrt(2 * math.pi)

    def log_phi_plus_v(v):
        if v < 50:
            # phi(v) e^v - 1 = E[expm1(v (1 - Y))] (Y = e^{mu + sd z}), integrated directly: no cancellation
            h = lambda z: math.expm1(v * (1 - math.exp(mu + sd * z))) * density(z)  # noqa: E731
            return math.log1p(integrate.quad(h, -40, 40, epsabs=0, epsrel=1e-13, limit=500)[0])
        h = lambda z: math.exp(-v * math.exp(mu + sd * z)) * density(z)  # noqa: E731
        return math.log(integrate.quad(h, -40, 40, epsabs=0, epsrel=1e-13, limit=500)[0]) + v

    def integrand(u):
        if u <= 0:
            return 0.0
        lw = (b - 1) * math.log(u) - u - math.lgamma(b)
        growth = t * log_phi_plus_v(u / t)
        if growth > 50:
            return math.exp(lw + growth)
        return math.exp(lw) * math.expm1(growth)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = integrate.quad(integrand, 0, math.inf, epsabs=0, epsrel=1e-10, limit=500)[0]
    return math.log1p(value) / b


def _remove_precise(alpha, t, sigma, *, dps):
    return mpmath.mpf(remove_reference(int(alpha), int(t), float(sigma)))


vocabulary.register(
    "allocation_remove_reference", _remove_precise, None,
    domain=(_ALPHA, ("t", ((">=", 2), (vocabulary.INTEGER, None))), _SIGMA),
    doc="D_alpha(Q||P) of random 1-of-t allocation by quadrature (float64 reference, ~1e-9 relative; no ball)")
vocabulary.register_float(
    "allocation_remove_bound_float",
    lambda alpha, t, sigma: float(allocation.remove_rdp_bound_float([alpha], t, sigma)[0]), "fif",
    domain=(("alpha", ()), ("t", ((vocabulary.INTEGER, None),)), ("sigma", ())),
    doc="dpproofs.math.allocation.remove_rdp_bound_float at one order (the accountant's float64 path)")
vocabulary.register_float(
    "allocation_add_rdp_float",
    lambda alpha, t, sigma: float(allocation.add_rdp_float([alpha], t, sigma)[0]), "fif",
    domain=(("alpha", ()), ("t", ((vocabulary.INTEGER, None),)), ("sigma", ())),
    doc="dpproofs.math.allocation.add_rdp_float at one order (the accountant's float64 path)")


# --- k-of-t allocation against its decomposition (a finite base, exact rationals) ---------------


def _product_law(t, step_laws):
    """``{output: probability}`` over ``{0,1}^t`` of independent steps with the given output laws."""
    law = {}
    for out in itertools.product((0, 1), repeat=t):
        weight = Fraction(1)
        for o, step in zip(out, step_laws):
            weight *= step[o]
        law[out] = weight
    return law


def _mixture(t, subsets, keep20):
    """P: the record in the steps of a uniform subset (``subsets``, each a set of step indices, equally
    likely), randomized response (keep20/20) of its bit 1 there and of 0 elsewhere; exact."""
    p1, q1 = _rr(keep20)
    law = {out: Fraction(0) for out in itertools.product((0, 1), repeat=t)}
    for subset in subsets:
        part = _product_law(t, [p1 if i in subset else q1 for i in range(t)])
        for out, w in part.items():
            law[out] += w / len(subsets)
    return law


def _blocks(t, k):
    """The decomposition's blocks: ``k - r`` of ``floor(t/k)`` consecutive steps, then ``r = t mod k`` of
    one more (``RandomAllocationGaussian.components``)."""
    floor, remainder = divmod(t, k)
    sizes = [floor] * (k - remainder) + [floor + 1] * remainder
    blocks, start = [], 0
    for size in sizes:
        blocks.append(range(start, start + size))
        start += size
    return blocks


def _hockey(first, second, gamma10):
    g = Fraction(int(gamma10), 10)
    return sum(max(first[o] - g * second[o], Fraction(0)) for o in first)


def allocation_k_delta(t, k, keep20, gamma10, order):
    """The hockey stick at ``e^eps = gamma10/10`` of k-of-t random allocation (every k-subset equally
    likely) of the randomized-response base, ``order`` 0: P vs Q, 1: Q vs P; every output enumerated."""
    p = _mixture(t, [set(c) for c in itertools.combinations(range(t), k)], keep20)
    q = _product_law(t, [_rr(keep20)[1]] * t)
    return _hockey(p, q, gamma10) if int(order) == 0 else _hockey(q, p, gamma10)


def allocation_k_decomposed_delta(t, k, keep20, gamma10, order, block_steps=None):
    """The same for the decomposition: one uniform step in each block (:func:`_blocks`), blocks
    independent; ``block_steps`` (a mutant's) replaces every block by the first ``block_steps`` steps."""
    blocks = _blocks(t, k)
    subsets = [set(choice) for choice in itertools.product(*blocks)]
    if block_steps is not None:  # k independent draws, each uniform over the same steps (may collide)
        subsets = [set(choice) for choice in itertools.product(range(block_steps), repeat=k)]
    p = _mixture(t, subsets, keep20)
    q = _product_law(t, [_rr(keep20)[1]] * t)
    return _hockey(p, q, gamma10) if int(order) == 0 else _hockey(q, p, gamma10)


_K = ("k", ((">=", 1), ("<=", 3), (vocabulary.INTEGER, None)))
_T_ENUM = ("t", ((">=", 3), ("<=", 6), (vocabulary.INTEGER, None)))
_GAMMA = ("gamma10", ((">=", 10), ("<=", 60), (vocabulary.INTEGER, None)))
_ORDER = ("order", ((">=", 0), ("<=", 1), (vocabulary.INTEGER, None)))
vocabulary.register(
    "allocation_k_delta", *vocabulary.exact_evaluators(allocation_k_delta, 0, 1, 2, 3, 4),
    domain=(_T_ENUM, _K, _KEEP, _GAMMA, _ORDER),
    doc="hockey stick of k-of-t random allocation of randomized response, every output enumerated (exact)")
vocabulary.register(
    "allocation_k_decomposed_delta", *vocabulary.exact_evaluators(allocation_k_decomposed_delta, 0, 1, 2, 3, 4),
    domain=(_T_ENUM, _K, _KEEP, _GAMMA, _ORDER),
    doc="the same for the decomposition into k blocks of floor/ceil(t/k) steps, one uniform step in each")
vocabulary.register(
    "allocation_k_repeated_delta",
    *vocabulary.exact_evaluators(lambda t, k, keep20, gamma10, order: allocation_k_decomposed_delta(
        t, k, keep20, gamma10, order, block_steps=t), 0, 1, 2, 3, 4),
    domain=(_T_ENUM, _K, _KEEP, _GAMMA, _ORDER),
    doc="a mutant's: k independent uniform steps over all t (k epochs of 1-of-t, collisions allowed)")
