"""Poisson sampling under replace-one: the two-sided mixture dominates every configuration (id
``accountant.pld.replace_one.poisson.dominating``).

One Poisson-subsampled Gaussian step under replace-one (the record x changed to x', contributions
of norm at most C = 1, noise N(0, s^2 I)) is, after the other records' independent and identical
part is set aside (post-processing), the pair ``A = (1-q) N(0) + q N(a)``, ``B = (1-q) N(0) + q N(b)``
with ``|a|, |b| <= 1``. docs/math.md ("Poisson sampling under replace-one: the dominating pair";
this project's proof) reduces every such pair to unit vectors a, b at an angle theta (a contraction
of the Gram matrix, then post-processing) and shows, by a majorisation in the noise's two
coordinates, that theta = pi (x = +C, x' = -C: the two-sided mixture
``((1-q) N(0) + q N(-1), (1-q) N(0) + q N(1))`` that the PLD accountant composes, and that
dp_accounting composes as its REPLACE_ONE pair) is the worst at every epsilon >= 0 (and, the pairs
being symmetric, at every epsilon).

* ``...dominating``: for unit a, b at the angle ``theta = pi * angle``, the hockey stick
  ``H_{e^eps}(A || B)`` at ``eps in [0, 3]`` is at most that of the two-sided mixture. Both sides
  exactly: in coordinates ``a = (-S, c)``, ``b = (S, c)`` (``S = sin(theta/2)/s``,
  ``c = cos(theta/2)/s``, noise 1) the set where ``A > e^eps B`` is ``{u < u*(v)}`` with
  ``e^{S u*} = 2 / (K + sqrt(K^2 + 4 e^eps))``, ``K = (1-q)(e^eps - 1) e^{S^2/2 - c v + c^2/2} / q``,
  so ``H = int dv [(1-q)(1 - e^eps) phi(v) Phi(u*) + q phi(v - c)(Phi(u* + S) - e^eps Phi(u* - S))]``,
  one quadrature (mpmath; arb: ``acb.integral`` on [-12, 12 + c] and the tails' mass, at most
  ``2 Phi(-12)``, as a one-sided radius).
* mutant ``.mutant.add_remove_pair``: the add/remove pair at sensitivity C
  (``((1-q) N(0) + q N(1), N(0))``, the worse order) does not dominate: refuted at theta = pi.
* mutant ``.mutant.orthogonal_records``: the configuration of orthogonal records (theta = pi/2,
  distance sqrt 2 C) is not the worst: refuted at theta = pi.
"""

import math

import mpmath
import sympy
from flint import acb, arb

from dpproofs.checker.claims import Claim, Sides, Variable
from dpproofs.math import ball, precise

__all__ = ["CLAIMS", "configuration_delta_precise", "configuration_delta_ball"]

SOURCE = ("this project's proof (docs/math.md, 'Poisson sampling under replace-one: the dominating pair'); "
          "the pair is dp_accounting's REPLACE_ONE sampled Gaussian (Lebeda, Regehr, Kamath & Steinke 2024, "
          "arXiv 2405.20769, discuss dominating pairs under substitution)")

angle, q, sigma, eps = (sympy.Symbol(name, real=True) for name in ("angle", "q", "sigma", "eps"))
configuration_delta = sympy.Function("replace_one_configuration_delta")
two_sided_delta = sympy.Function("two_sided_mixture_delta")
add_remove_delta = sympy.Function("sampled_gaussian_delta")

def _integrand(ops, q, s, theta, gamma):
    """The v-integrand of the hockey stick ``H_gamma(A || B)`` (module docstring) in the arithmetic
    ``ops`` (mpmath or arb/acb: ``exp``, ``sqrt``, ``log``, ``Phi``, ``phi``), ``u*`` and ``c``. The
    integrand is ``>= 0`` (it is ``A - gamma B`` integrated where that is positive), and at most
    ``q phi(v - c) Phi(u*(v) + S)`` (its two negative terms dropped), with ``u*`` increasing in v
    (``K`` decreases) up to ``-log(gamma) / (2 S)``: the tails' bounds of the quadratures."""
    big_s, c = ops.sin(theta / 2) / s, ops.cos(theta / 2) / s
    k0 = (1 - q) * (gamma - 1) * ops.exp(big_s * big_s / 2) / q

    def threshold(v):
        k = k0 * ops.exp(-c * v + c * c / 2)
        return ops.log(2 / (k + ops.sqrt(k * k + 4 * gamma))) / big_s

    def f(v):
        u = threshold(v)
        return ((1 - q) * (1 - gamma) * ops.phi(v) * ops.Phi(u)
                + q * ops.phi(v - c) * (ops.Phi(u + big_s) - gamma * ops.Phi(u - big_s)))

    return f, threshold, big_s, c


def _tails(ops, q, gamma, threshold, big_s, c, half_width):
    """A bound on the integrand's mass outside ``[c - half_width, c + half_width]`` (see
    :func:`_integrand`): ``q Phi(-w) [Phi(u*(c - w) + S) + Phi(S - log(gamma) / (2 S))]``."""
    below = ops.Phi(threshold(c - half_width) + big_s)
    above = ops.Phi(big_s - ops.log(gamma) / (2 * big_s))
    return q * ops.Phi(-half_width) * (below + above)


class _Mp:
    exp, sqrt, log, sin, cos = mpmath.exp, mpmath.sqrt, mpmath.log, mpmath.sin, mpmath.cos
    phi = staticmethod(lambda x: mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mpmath.pi))
    Phi = staticmethod(lambda x: precise.normal_sf(-x))  # the project's one normal tail


def configuration_delta_precise(epsilon, q_, s, angle_, *, dps):
    """``H_{e^epsilon}`` of unit records at the angle ``pi * angle_``, mpmath. Angle 0: 0 (A = B);
    angle 1 (c = 0): the integrand is ``phi(v)`` times a constant, its integral that constant; else
    one quadrature over ``[c - w, c + w]`` (the tails below ``10^-(dps + 20)`` of the value's scale),
    run twice so that its absolute tolerance is relative to the value (deltas reach 1e-95)."""
    mp = precise.mp
    with mp.workdps(dps + precise.GUARD_DPS):
        if angle_ == 0:
            return mp.mpf(0)
        q_, s, gamma = precise.to_mpf(q_), precise.to_mpf(s), mp.exp(precise.to_mpf(epsilon))
        theta = mp.pi * precise.to_mpf(angle_)
        if angle_ == 1:
            f, _, _, _ = _integrand(_Mp, q_, s, theta, gamma)
            return max(f(mp.mpf(0)) * mp.sqrt(2 * mp.pi), mp.mpf(0))  # f = phi(v) * constant
        f, _, _, c = _integrand(_Mp, q_, s, theta, gamma)
        w = mp.sqrt(2 * (dps + 20) * mp.log(10)) + 2
        points = [c - w, c - 8, c - 2, c, c + 2, c + 8, c + w]
        scale = abs(mp.quad(f, points, method="gauss-legendre")) or mp.mpf(1)
        value = scale * mp.quad(lambda v: f(v) / scale, points, method="gauss-legendre")
        return max(value, mp.mpf(0))


class _Arb:
    """The same operations on acb (the integrand must be holomorphic for acb.integral)."""
    analytic = False

    @staticmethod
    def exp(x):
        return x.exp()

    @staticmethod
    def sqrt(x):
        return x.sqrt(analytic=_Arb.analytic) if isinstance(x, acb) else x.sqrt()

    @staticmethod
    def log(x):
        return x.log(analytic=_Arb.analytic) if isinstance(x, acb) else x.log()

    @staticmethod
    def sin(x):
        return x.sin()

    @staticmethod
    def cos(x):
        return x.cos()

    @staticmethod
    def phi(x):
        return (-x * x / 2).exp() / (2 * arb.pi()).sqrt()

    @staticmethod
    def Phi(x):
        return (-x / arb(2).sqrt()).erfc() / 2  # arb for arb, acb for acb


def configuration_delta_ball(epsilon, q_, s, angle_, *, prec):
    """An arb enclosure of :func:`configuration_delta_precise`: angle 1 in closed form; else
    ``acb.integral`` (rigorous, its tolerance relative to a first estimate of the value) on
    ``[c - w, c + w]``, ``Phi(-w) <= 2^-prec``, plus ``[0, tails]`` (:func:`_tails`)."""
    with ball.precision(prec):
        if angle_ == 0:
            return arb(0)
        q_, s, gamma = ball.to_arb(q_), ball.to_arb(s), ball.to_arb(epsilon).exp()
        if angle_ == 1:
            # theta = pi exactly: c = 0, S = 1/s (arb's cos(pi/2) is only a ball around 0)
            f, _, _, _ = _integrand(_Exact, q_, s, arb(0), gamma)  # _Exact ignores the angle
            return ball.positive_part(f(arb(0)) * (2 * arb.pi()).sqrt())
        f, threshold, big_s, c = _integrand(_Arb, q_, s, arb.pi() * ball.to_arb(angle_), gamma)

        def holomorphic(v, analytic):
            _Arb.analytic = analytic
            return f(v)

        mid = float(c.mid())

        def integral(w, tol):
            cuts = [mid - w, mid - 8, mid - 2, mid, mid + 2, mid + 8, mid + w]
            return sum((acb.integral(holomorphic, cuts[i], cuts[i + 1], abs_tol=tol, rel_tol=arb(2) ** -prec)
                        for i in range(len(cuts) - 1)), acb(0)).real

        # the absolute tolerance 2^-prec, and tails of 2^-prec, leave deltas of 1e-95 unresolved: the
        # tolerance is scaled to a first pass's magnitude (its midpoint or radius), and the range
        # widened until the tails' bound is below the value's 2^-(prec/2) (at most to w = 64)
        w = math.sqrt(2 * prec * math.log(2)) + 2
        body = integral(w, arb(2) ** -prec)
        if body.rad() > abs(body.mid()) * arb(2) ** -(prec // 2):
            body = integral(w, max(abs(body.mid()), body.rad()) * arb(2) ** -prec)
        while True:
            # the range is [mid - w, mid + w] with mid = c up to rounding: the tails beyond
            # [c - (w - 1), c + (w - 1)] cover it
            tail = _tails(_Arb, q_, gamma, threshold, big_s, c, arb(w) - 1)
            if w >= 64 or not tail > abs(body.mid()) * arb(2) ** -(prec // 2):
                break
            w += 4
            body = integral(w, max(abs(body.mid()), body.rad()) * arb(2) ** -prec)
        return ball.positive_part(body.union(body + tail))


class _Exact:
    """theta = pi: S = 1/s, c = 0 exactly (``_integrand`` with ``ops.sin`` = 1, ``ops.cos`` = 0)."""
    exp = staticmethod(_Arb.exp)
    sqrt = staticmethod(_Arb.sqrt)
    log = staticmethod(_Arb.log)
    phi = staticmethod(_Arb.phi)
    Phi = staticmethod(lambda x: ball.normal_sf(-x))
    sin = staticmethod(lambda x: arb(1))
    cos = staticmethod(lambda x: arb(0))


def _two_sided(point, dps=None, prec=None, sigma_factor=1):
    from dpproofs_theorems.accountant.pld_replace_one import two_sided_delta_ball, two_sided_delta_precise

    s = point["sigma"] * sigma_factor
    if prec is None:
        return two_sided_delta_precise(point["eps"], point["q"], s, dps=dps)
    return two_sided_delta_ball(point["eps"], point["q"], s, prec=prec)


def _sides(rhs_precise, rhs_ball):
    def precise_side(point, dps):
        return configuration_delta_precise(point["eps"], point["q"], point["sigma"], point["angle"], dps=dps), \
            rhs_precise(point, dps)

    def ball_side(point, prec):
        return configuration_delta_ball(point["eps"], point["q"], point["sigma"], point["angle"], prec=prec), \
            rhs_ball(point, prec)

    return Sides(precise_side, ball_side)


ANGLE = Variable("angle", 0.0, 1.0)
Q = Variable("q", 1e-3, 0.9)
SIGMA = Variable("sigma", 0.3, 4.0)
EPS = Variable("eps", 0.0, 3.0)
_VARS = (ANGLE, Q, SIGMA, EPS)

dominating = Claim(
    id="accountant.pld.replace_one.poisson.dominating",
    source=SOURCE,
    statement=sympy.Le(configuration_delta(angle, q, sigma, eps), two_sided_delta(q, sigma, eps)),
    variables=_VARS,
    title="Poisson replace-one: records at any angle are below the two-sided mixture (x' = -x) at every epsilon",
    sides=_sides(lambda p, dps: _two_sided(p, dps=dps), lambda p, prec: _two_sided(p, prec=prec)),
    cost=0.5,
)


def _add_remove_precise(point, dps):
    from dpproofs.math import formulas

    with precise.mp.workdps(dps + precise.GUARD_DPS):
        return formulas.delta_sampled_gaussian(precise.Mp(dps), precise.to_mpf(point["eps"]),
                                               precise.to_mpf(point["q"]), precise.to_mpf(point["sigma"]))


def _add_remove_ball(point, prec):
    from dpproofs.math import formulas

    with ball.precision(prec):
        return formulas.delta_sampled_gaussian(ball.Arb(prec), ball.to_arb(point["eps"]), ball.to_arb(point["q"]),
                                               ball.to_arb(point["sigma"]))


_PIN = {"angle": 1.0, "q": 0.1, "sigma": 1.0, "eps": 0.5}
add_remove_pair = dominating.mutant(
    "add_remove_pair",
    statement=sympy.Le(configuration_delta(angle, q, sigma, eps), add_remove_delta(q, sigma, eps)),
    sides=_sides(_add_remove_precise, _add_remove_ball),
    explanation="the add/remove pair ((1-q) N(0) + q N(1), N(0)) is below the replace-one configuration "
    "x' = -x: replacing a record can move the sum by 2C, and both datasets hide it at rate q",
    pinned=(_PIN,),
)
orthogonal_records = dominating.mutant(
    "orthogonal_records",
    statement=sympy.Le(configuration_delta(angle, q, sigma, eps), configuration_delta(sympy.Rational(1, 2), q, sigma, eps)),
    sides=_sides(
        lambda p, dps: configuration_delta_precise(p["eps"], p["q"], p["sigma"], 0.5, dps=dps),
        lambda p, prec: configuration_delta_ball(p["eps"], p["q"], p["sigma"], 0.5, prec=prec)),
    explanation="orthogonal records (distance sqrt 2 C) are not the worst configuration: x' = -x is above them",
    pinned=(_PIN,),
)

CLAIMS = [dominating, add_remove_pair, orthogonal_records]


# --- figures (docs) ---------------------------------------------------------------------------------


def _figure_angles(path):
    """H at three epsilons against the angle between the records, q = 0.1, sigma = 1 (mpmath)."""
    from dpproofs.docgen import pyplot, save

    angles = [i / 20 for i in range(21)]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for e, style in ((0.0, "o-"), (0.5, "s--"), (1.0, "x:")):
        values = [float(configuration_delta_precise(e, 0.1, 1.0, a, dps=15)) for a in angles]
        ax.plot([180 * a for a in angles], values, style, markersize=3, label=f"epsilon = {e}")
    ax.set_xlabel("angle between the replaced and the replacing record (degrees); q = 0.1, sigma = 1")
    ax.set_ylabel("delta(epsilon) of the step")
    ax.set_yscale("log")
    ax.legend(fontsize=7)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("accountant_pld_replace_one_poisson_dominating.png",
                   "One Poisson step under replace-one: delta against the angle between the two records, "
                   "largest at 180 degrees (x' = -x, the pair the accountant composes)", _figure_angles),)


FIGURES = _figures()
