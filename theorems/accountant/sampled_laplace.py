"""The Poisson-subsampled Laplace mechanism in both accountants (ids ``accountant.sampled_laplace.*``).

``dp.SampledLaplace(q, b)``: each record joins the batch with probability ``q``, then Laplace noise
of scale ``b`` is added (L1 sensitivity 1). Its add/remove dominating pairs are
``((1-q) P + q Q, P)`` and ``(P, (1-q) P + q Q)`` with ``(P, Q) = (Lap(0, b), Lap(1, b))`` (Zhu, Dong &
Wang 2022, arXiv 2106.08567v3, Theorem 11). With ``R = Q/P = e^{(2u-1)/b}`` on ``[0, 1]`` (constant
outside), everything about one step is explicit:

* the exact Rényi divergence of each direction is ``log(atoms + integral over [0, 1])/(alpha-1)``
  (the library's :func:`dpproofs.mechanisms.sampled_laplace_divergence`, mpmath quadrature); at
  integer orders the add direction is the binomial sum of the Laplace moments
  ``E_P[R^j] = j/(2j-1) e^{(j-1)/b} + (j-1)/(2j-1) e^{-j/b} = e^{(j-1) D_j(Lap)}`` (Mironov 2017,
  arXiv 1702.07476v3, Table II), in arb here (:func:`add_direction`);
* the exact privacy profile of one step, ``max`` of both directions' hockey sticks, is a sum of
  closed-form exponential masses (:func:`one_step_delta`, mpmath and arb).

Claims (the shipped answers, called as a user calls them):

* ``.rdp``: ``Accountant([alpha]).compose(SampledLaplace(q, b), T).rdp``, inflated as the
  accountant converts it (``1 + fast.RTOL + 3 2^-52``), >= ``T`` times the max of both exact
  directions (quadrature; fractional and integer orders);
* ``.rdp_integer``: the same at integer orders against the binomial sum (arb: certified);
* ``.replace_one``: under ``relation="replace_one"`` the curve is >= the add/remove divergence of
  the neighbouring datasets that differ by replacing a record with a zero one (they exist);
* ``.pld.upper`` / ``.pld.lower``: ``PLDAccountant().compose(SampledLaplace(q, b)).epsilon_bounds``
  contains the exact tight epsilon of one step (closed-form profile, arb: certified);
* mutants, refuted at ball-certified pinned points: the RDP bound without its weight ``w``
  (``rdp_integer.mutant.no_weight``), with the Laplace chi-square missing its ``e^{-2/b}/3`` term
  (``rdp_integer.mutant.chi2_truncated``), and the PLD ends moved inward by the bracket's width.
"""

import functools

import mpmath
import sympy
from flint import arb

import dpproofs as dp
from dpproofs.checker.claims import Claim, Sides, Variable
from dpproofs.math import ball
from dpproofs.mechanisms import sampled_laplace_divergence

from dpproofs_theorems.accountant._common import RDP_INFLATION

__all__ = ["CLAIMS", "add_direction", "one_step_delta", "NO_WEIGHT_PIN", "CHI2_PIN", "PLD_PIN"]

SOURCE = ("dpproofs.SampledLaplace in dpproofs.Accountant and dpproofs.PLDAccountant; pairs: Zhu, Dong & Wang "
          "2022 (arXiv 2106.08567v3), Theorem 11; Laplace moments: Mironov 2017 (arXiv 1702.07476v3), Table II")

alpha, q, b, T, delta = (sympy.Symbol(n, positive=True) for n in ("alpha", "q", "b", "T", "delta"))
accountant_rdp = sympy.Function("accountant_rdp_sampled_laplace")
exact_rdp = sympy.Function("rdp_sampled_laplace")
exact_add = sympy.Function("rdp_sampled_laplace_add")
pld_lower = sympy.Function("pld_epsilon_lower_sampled_laplace")
pld_upper = sympy.Function("pld_epsilon_upper_sampled_laplace")
tight_delta = sympy.Function("tight_delta_sampled_laplace")


# --- the exact references ----------------------------------------------------------------------


class _Mp:
    exp, log, log1p, expm1 = mpmath.exp, mpmath.log, mpmath.log1p, mpmath.expm1
    binomial = staticmethod(mpmath.binomial)

    @staticmethod
    def num(x):
        return mpmath.mpf(x)

    @staticmethod
    def positive(x):
        return max(x, 0)

    @staticmethod
    def clip01(x):
        return min(max(x, 0), 1)


class _Arb:
    @staticmethod
    def num(x):
        return ball.to_arb(x)

    exp = staticmethod(lambda x: x.exp())
    log = staticmethod(lambda x: x.log())
    log1p = staticmethod(lambda x: x.log1p())
    expm1 = staticmethod(lambda x: x.expm1())
    binomial = staticmethod(lambda n, k: arb.bin_uiui(int(n), int(k)))
    positive = staticmethod(ball.positive_part)

    @staticmethod
    def clip01(x):
        return x.max(arb(0)).min(arb(1))


def add_direction(k, q_value, b_value, ops):
    """Exact ``D_k((1-q) P + q Q || P)`` at an integer order ``k >= 2``: the binomial sum
    ``log sum_j C(k, j) (1-q)^{k-j} q^j E_P[R^j] / (k - 1)`` (module docstring)."""
    k = int(k)
    q_, b_ = ops.num(q_value), ops.num(b_value)
    total = ops.num(0)
    for j in range(k + 1):
        moment = (j * ops.exp((j - 1) / b_) + (j - 1) * ops.exp(-j / b_)) / (2 * j - 1)
        total = total + ops.binomial(k, j) * (1 - q_) ** (k - j) * q_**j * moment
    return ops.log(total) / (k - 1)


def one_step_delta(epsilon, q_value, b_value, ops):
    """Exact tight delta of one SampledLaplace(q, b) step at ``epsilon >= 0``: the max of the two
    directions' hockey sticks, each two atoms (u <= 0, u >= 1) plus exponential masses on [0, 1]."""
    q_, b_, e = ops.num(q_value), ops.num(b_value), ops.exp(ops.num(epsilon))
    c_minus, c_plus = 1 - q_ + q_ * ops.exp(-1 / b_), 1 - q_ + q_ * ops.exp(1 / b_)
    tail = ops.exp(-1 / b_) / 2  # P-mass of u >= 1

    def m0(lo, hi):  # Lap(0, b) mass of [lo, hi] inside [0, 1]
        return (ops.exp(-lo / b_) - ops.exp(-hi / b_)) / 2

    def m1(lo, hi):  # Lap(1, b) mass of [lo, hi] inside [0, 1]
        return (ops.exp((hi - 1) / b_) - ops.exp((lo - 1) / b_)) / 2

    def root(level):
        """u in [0, 1] with 1 - q + q R(u) = level (decided on floats; the formula is continuous)."""
        if float(level) <= float(c_minus):
            return ops.num(0)
        if float(level) >= float(c_plus):
            return ops.num(1)
        return ops.clip01((b_ * ops.log((level - (1 - q_)) / q_) + 1) / 2)

    # add: E_P[(1 - q + q R - e^eps)_+], the integrand >= 0 from the root up
    u = root(e)
    add = (ops.positive(c_minus - e) / 2 + tail * ops.positive(c_plus - e)
           + (1 - q_ - e) * m0(u, ops.num(1)) + q_ * m1(u, ops.num(1)))
    # remove: E_P[(1 - e^eps (1 - q + q R))_+], the integrand >= 0 up to the root of R at e^{-eps}
    u = root(1 / e)
    remove = (ops.positive(1 - e * c_minus) / 2 + tail * ops.positive(1 - e * c_plus)
              + (1 - e * (1 - q_)) * m0(ops.num(0), u) - e * q_ * m1(ops.num(0), u))
    return ops.positive(add).max(ops.positive(remove)) if ops is _Arb else max(add, remove, 0)


# --- the shipped answers -----------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _curve(alpha_value, q_value, b_value, steps, relation="add_remove"):
    """``Accountant([alpha], relation=...).compose(SampledLaplace(q, b), T).rdp[0]``, as a user calls it."""
    return float(dp.Accountant([alpha_value], relation=relation).compose(dp.SampledLaplace(q_value, b_value), steps).rdp[0])


@functools.lru_cache(maxsize=256)
def _bracket(q_value, b_value, delta_value):
    return dp.PLDAccountant().compose(dp.SampledLaplace(q_value, b_value)).epsilon_bounds(delta_value)


def _args(point):
    return float(point["alpha"]), float(point["q"]), float(point["b"]), int(point.get("T", 1))


def _curve_sides(reference, relation="add_remove", ball_reference=None, shipped=None):
    """Sides ``(shipped curve, T * reference)``; ``shipped(point, ops)`` overrides the accountant."""

    def lhs(point, ops):
        if shipped is not None:
            return shipped(point, ops)
        a, q_value, b_value, steps = _args(point)
        # the accountant converts its curve inflated by 1 + fast.RTOL + 3 2^-52 (dpproofs.accountant.rdp,
        # point (1)): at q = 1 the curve is the fast Laplace RDP, within fast.RTOL of the exact one
        return ops.num(_curve(a, q_value, b_value, steps, relation)) * _INFLATION(ops)

    def precise_side(point, dps):
        with mpmath.workdps(dps + 10):
            a, q_value, b_value, steps = _args(point)
            return lhs(point, _Mp), steps * reference(a, q_value, b_value)

    def ball_side(point, prec):
        a, q_value, b_value, steps = _args(point)
        with ball.precision(prec):
            return lhs(point, _Arb), steps * ball_reference(a, q_value, b_value)

    return Sides(precise_side, ball_side if ball_reference is not None else None)


def _INFLATION(ops):
    return ops.num(RDP_INFLATION.p) / ops.num(RDP_INFLATION.q)


def _both_directions(a, q_value, b_value):
    return max(sampled_laplace_divergence(a, q_value, b_value, d) for d in ("add", "remove"))


def _add_mp(a, q_value, b_value):
    return add_direction(a, q_value, b_value, _Mp)


def _add_arb(a, q_value, b_value):
    return add_direction(a, q_value, b_value, _Arb)


ALPHA = Variable("alpha", 1.01, 256)
ALPHA_INT = Variable("alpha", 2, 256, integer=True)
Q = Variable("q", 1e-3, 1.0)
B = Variable("b", 0.2, 20.0)
STEPS = Variable("T", 1, 10**6, integer=True)

rdp = Claim(
    id="accountant.sampled_laplace.rdp",
    source=SOURCE,
    statement=sympy.Ge(accountant_rdp(alpha, q, b, T) * RDP_INFLATION, T * exact_rdp(alpha, q, b)),
    variables=(ALPHA, Q, B, STEPS),
    title="SampledLaplace: the RDP accountant's curve >= T times the max of both exact directions",
    explanation="the exact side is max over add/remove of log(atoms + integral)/(alpha - 1), the integral by "
                "mpmath quadrature (no ball: this claim is checked, not certified).",
    sides=_curve_sides(_both_directions),
    cost=0.2,
)
rdp_integer = Claim(
    id="accountant.sampled_laplace.rdp_integer",
    source=SOURCE,
    statement=sympy.Ge(accountant_rdp(alpha, q, b, T) * RDP_INFLATION, T * exact_add(alpha, q, b)),
    variables=(ALPHA_INT, Q, B, STEPS),
    title="SampledLaplace, integer orders: the RDP curve >= T times the exact add direction (binomial sum)",
    sides=_curve_sides(_add_mp, ball_reference=_add_arb),
)
replace_one = Claim(
    id="accountant.sampled_laplace.replace_one",
    source=SOURCE,
    statement=sympy.Ge(accountant_rdp(alpha, q, b, T) * RDP_INFLATION, T * exact_add(alpha, q, b)),
    variables=(ALPHA_INT, Q, B, STEPS),
    title="SampledLaplace under replace-one: the RDP curve >= the add/remove divergence of a pair that exists",
    explanation="replacing a record by a zero record (no contribution) is the add/remove pair, so the "
                "replace-one worst case is at least its divergence.",
    sides=_curve_sides(_add_mp, relation="replace_one", ball_reference=_add_arb),
)


def _no_weight(point, ops):
    """Mutant curve: the Taylor bound without its weight w (as if (1 + x)^{a-2} were 1)."""
    a, q_value, b_value, steps = _args(point)
    t = 1 / ops.num(b_value)
    chi2 = ops.expm1(t) ** 2 * (2 * ops.exp(t) + 1) / (3 * ops.exp(2 * t))
    return ops.log1p(ops.num(a) * (a - 1) / 2 * ops.num(q_value) ** 2 * chi2) / (a - 1) * steps


def _chi2_truncated(point, ops):
    """Mutant curve: the shipped one with chi2 = (2/3) e^{1/b} - 1 (the e^{-2/b}/3 term dropped)."""
    a, q_value, b_value, steps = _args(point)
    q_, t, a_ = ops.num(q_value), 1 / ops.num(b_value), ops.num(a)
    chi2 = 2 * ops.exp(t) / 3 - 1
    log_w = max(float((a - 2) * ops.log1p(q_ * ops.expm1(t))), float(-(a + 1) * ops.log1p(q_ * ops.expm1(-t))))
    return ops.log1p(a_ * (a_ - 1) / 2 * q_ * q_ * chi2 * ops.exp(ops.num(log_w))) / (a_ - 1) * steps


NO_WEIGHT_PIN = {"alpha": 64, "q": 0.5, "b": 1.0, "T": 1}
CHI2_PIN = {"alpha": 2, "q": 0.001, "b": 1.0, "T": 1}
no_weight = rdp_integer.mutant(
    "no_weight",
    statement=sympy.Ge(sympy.Function("sampled_laplace_bound_without_weight")(alpha, q, b, T), T * exact_add(alpha, q, b)),
    sides=_curve_sides(_add_mp, ball_reference=_add_arb, shipped=_no_weight),
    explanation="without w the bound grows like log(alpha) where the exact K(alpha) grows like alpha log c_+",
    pinned=(NO_WEIGHT_PIN,),
)
chi2_truncated = rdp_integer.mutant(
    "chi2_truncated",
    statement=sympy.Ge(sympy.Function("sampled_laplace_bound_chi2_truncated")(alpha, q, b, T), T * exact_add(alpha, q, b)),
    sides=_curve_sides(_add_mp, ball_reference=_add_arb, shipped=_chi2_truncated),
    explanation="the Laplace chi-square e^{D_2} - 1 without its e^{-2/b}/3 term is 5% small at b = 1: at order 2 "
                "and q = 0.001 the bound is nearly tight, so the truncation falls below the exact value",
    pinned=(CHI2_PIN,),
)


def _pld_sides(which, shift=0.0):
    """Sides ``(delta_exact(end) [+ delta if a lower end is 0], delta)``; ``shift``: the end moved
    inward by that many bracket widths (mutants)."""

    def end(point):
        bounds = _bracket(float(point["q"]), float(point["b"]), float(point["delta"]))
        width = bounds.upper - bounds.lower
        return bounds.upper - shift * width if which == "upper" else bounds.lower + shift * width

    def sides(point, ops):
        e = end(point)
        d = ops.num(point["delta"])
        value = one_step_delta(e, point["q"], point["b"], ops)
        return value + (d if which == "lower" and e == 0 else 0), d

    def precise_side(point, dps):
        with mpmath.workdps(dps + 10):
            return sides(point, _Mp)

    def ball_side(point, prec):
        with ball.precision(prec):
            return sides(point, _Arb)

    return Sides(precise_side, ball_side)


PLD_VARS = (Variable("q", 1e-3, 1.0), Variable("b", 0.2, 20.0), Variable("delta", 1e-10, 1e-2))
pld_upper_claim = Claim(
    id="accountant.sampled_laplace.pld.upper",
    source=SOURCE,
    statement=sympy.Le(tight_delta(pld_upper(q, b, delta), q, b), delta),
    variables=PLD_VARS,
    title="PLDAccountant upper end for one SampledLaplace step: delta_exact(upper) <= delta",
    sides=_pld_sides("upper"),
    cost=0.5,
)
pld_lower_claim = Claim(
    id="accountant.sampled_laplace.pld.lower",
    source=SOURCE,
    statement=sympy.Ge(tight_delta(pld_lower(q, b, delta), q, b)
                       + delta * sympy.KroneckerDelta(pld_lower(q, b, delta), 0), delta),
    variables=PLD_VARS,
    title="PLDAccountant lower end for one SampledLaplace step: delta_exact(lower) >= delta",
    sides=_pld_sides("lower"),
    cost=0.5,
)
PLD_PIN = {"q": 0.1, "b": 1.0, "delta": 1e-5}
_up, _low = pld_upper(q, b, delta), pld_lower(q, b, delta)
pld_upper_inward = pld_upper_claim.mutant(
    "moved_inward",
    statement=sympy.Le(tight_delta(_up - sympy.Rational(3, 2) * (_up - _low), q, b), delta),
    sides=_pld_sides("upper", shift=1.5),
    explanation="the upper end moved down by 1.5 bracket widths lies below the lower end, so below eps*",
    pinned=(PLD_PIN,),
)
pld_lower_inward = pld_lower_claim.mutant(
    "moved_inward",
    statement=sympy.Ge(tight_delta(_low + sympy.Rational(3, 2) * (_up - _low), q, b), delta),
    sides=_pld_sides("lower", shift=1.5),
    explanation="the lower end moved up by 1.5 bracket widths lies above the upper end, so above eps*",
    pinned=(PLD_PIN,),
)

CLAIMS = [rdp, rdp_integer, replace_one, pld_upper_claim, pld_lower_claim,
          no_weight, chi2_truncated, pld_upper_inward, pld_lower_inward]


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen): the RDP accountant's curve for one SampledLaplace step
# against the exact divergence of each direction (quadrature), and the ratio.


def _figure_curve_vs_exact(path):
    """The shipped RDP curve of one SampledLaplace step against both exact directions, over orders."""
    from dpproofs.docgen import pyplot, save

    plt = pyplot()
    orders = [1.05, 1.2, 1.5, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233]
    fig, axes = plt.subplots(1, 2, figsize=(9, 4.2))
    for (q_value, b_value), color in (((0.01, 1.0), "tab:blue"), ((0.2, 0.5), "tab:orange")):
        curve = [_curve(float(a), q_value, b_value, 1) for a in orders]
        add = [float(sampled_laplace_divergence(a, q_value, b_value, "add")) for a in orders]
        remove = [float(sampled_laplace_divergence(a, q_value, b_value, "remove")) for a in orders]
        label = f"q = {q_value}, b = {b_value}"
        axes[0].loglog(orders, curve, "o-", ms=3, color=color, label=f"accountant, {label}")
        axes[0].loglog(orders, add, "--", color=color, lw=0.8, label=f"exact add, {label}")
        axes[0].loglog(orders, remove, ":", color=color, lw=0.8, label=f"exact remove, {label}")
        axes[1].semilogx(orders, [c / max(a, r) for c, a, r in zip(curve, add, remove)], "o-", ms=3, color=color,
                         label=label)
    axes[1].axhline(1, color="k", lw=0.8)
    axes[0].set_xlabel("order alpha")
    axes[0].set_ylabel("RDP of one step")
    axes[0].legend(fontsize=6.5)
    axes[1].set_xlabel("order alpha")
    axes[1].set_ylabel("accountant / max(exact add, exact remove)  (must be >= 1)")
    axes[1].legend(fontsize=6.5)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("accountant_sampled_laplace_rdp.png",
                   "The RDP accountant's curve for one SampledLaplace step (Taylor bound with its weight, min'd "
                   "with the Laplace RDP) against the exact Rényi divergence of both directions, and their ratio",
                   _figure_curve_vs_exact),)


FIGURES = _figures()
