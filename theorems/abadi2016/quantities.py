"""The quantities the Abadi et al. 2016 (arXiv 1607.00133v2) claims are stated over, registered in
the vocabulary (:mod:`dpproofs.checker.vocabulary`) when this package is imported.

Lemma 3 and its proof (App. B). With X = mu1/mu0 (mu0 = N(0, s^2), mu1 = N(1, s^2)) and
mu = (1-q) mu0 + q mu1, Eq. 5 expands E_{nu1}[(nu0/nu1)^{lam+1}] = sum_t C(lam+1, t)
E_{nu1}[((nu0 - nu1)/nu1)^t] for the pairs (nu0, nu1) = (mu, mu0) ("add": E2 = A_{lam+1}) and
(mu0, mu) ("remove": E1 = B_{lam+1}). Lemma C.1: randomized response, the worst eps-DP
mechanism, and finite pairs. Theorem 2: finite pairs and adaptive compositions.

Each formula is written once against an arithmetic context (:mod:`dpproofs.math.formulas`) and
run by ``precise.entry`` (mpmath) and ``ball.entry`` (arb). The three quadratures
(``eq5_moment_remove``, ``eq5_series_remove``, ``gaussian_ratio_moment``) are mpmath only, on
purpose: claims compare them with closed forms. The generic quantities (``log_moment``, the
sampled-Gaussian add direction, ``delta_pair``, ``swapped``, ``joint``, ...) stay in the library.

Structured arguments: a free symbol whose value is a :class:`dpproofs.checker.oracles.finite.Pair`
or an :class:`~dpproofs.checker.oracles.finite.AdaptiveComposition` is passed as it is (claims
draw such values through ``Claim.extra``).
"""

from mpmath import mp

from dpproofs.checker import vocabulary
from dpproofs.checker.oracles import finite
from dpproofs.math import ball, formulas, precise

__all__ = [
    "eq5_moment_add",
    "eq5_moment_add_mp",
    "eq5_moment_add_ball",
    "eq5_series_add",
    "eq5_moment_remove",
    "eq5_series_remove",
    "gaussian_ratio_moment",
    "log_moment_randomized_response",
    "loss_mean_randomized_response",
]

INTEGER, TYPE = vocabulary.INTEGER, vocabulary.TYPE


# --- Lemma 3: Eq. 5 and its terms -----------------------------------------------------------


def log_moment_add(ctx, lam, q, sigma):
    """``log E2 = log A_{lam+1}``: the log moment of the pair (mu, mu0) (Eq. 4)."""
    return ctx.log_a(lam + 1, q, sigma)


def log_moment_remove(ctx, lam, q, sigma):
    """``log E1 = log B_{lam+1}``: the log moment of the pair (mu0, mu) (Eq. 3)."""
    return ctx.log_b(lam + 1, q, sigma)


def eq5_moment_add(ctx, t, q, sigma):
    """``E_mu0[((mu - mu0)/mu0)^t] = q^t M_t`` with ``M_t = E_mu0[(X-1)^t]
    = sum_j C(t,j) (-1)^{t-j} e^{j(j-1)/(2 s^2)}`` (integer t >= 0; exact sum).

    The alternating sum cancels about ``t log10(s^2)`` digits: ``t + 30`` extra digits cover it
    on the domains checked (t <= 13, sigma <= 64); the ball's enclosure is rigorous however much it
    cancels. ``M_0 = 1`` and ``M_1 = 0`` come out exactly.
    """
    t = ctx.integer(t)
    with ctx.extra_digits(lambda: t + 30):
        s2 = 2 * sigma**2
        moment = ctx.fsum(ctx.binomial(t, j) * (-1) ** (t - j) * ctx.exp(j * (j - 1) / s2) for j in range(t + 1))
        return q**t * moment


def eq5_series_add(ctx, lam, q, sigma):
    """Eq. 5 for (mu, mu0): ``sum_{t=0}^{lam+1} C(lam+1, t) E_mu0[((mu - mu0)/mu0)^t]`` (integer lam)."""
    n = ctx.integer(lam) + 1
    with ctx.extra_digits(lambda: precise.GUARD_DPS):
        return ctx.fsum(ctx.binomial(n, t) * eq5_moment_add(ctx, t, q, sigma) for t in range(n + 1))


#: mpmath and arb evaluators of :func:`eq5_moment_add` (``f(t, q, sigma, dps=)``, ``f(..., prec=)``)
eq5_moment_add_mp, eq5_moment_add_ball = precise.entry(eq5_moment_add), ball.entry(eq5_moment_add)


@precise.entry
def eq5_moment_remove(ctx, t, q, sigma):
    """``E_mu[((mu0 - mu)/mu)^t] = E_mu0[r^{1-t} (-q (X-1))^t]`` (r = mu/mu0) by tanh-sinh quadrature
    (mpmath only).

    An independent route to the remove direction (no closed form is used): the quadrature is split
    at ``0, 1/2, 1, +-2s, +-6s``, where the integrand changes shape.
    """
    t = ctx.integer(t)
    with mp.extradps(5):

        def integrand(x):
            u = mp.expm1((2 * x - 1) / (2 * sigma**2))  # X - 1
            return (1 + q * u) ** (1 - t) * (-q * u) ** t * mp.exp(-(x**2) / (2 * sigma**2))

        points = [-mp.inf, -6 * sigma, -2 * sigma, 0, mp.mpf(1) / 2, 1, 2 * sigma, 6 * sigma, mp.inf]
        return mp.quad(integrand, points) / (sigma * mp.sqrt(2 * mp.pi))


@precise.entry
def eq5_series_remove(ctx, lam, q, sigma):
    """Eq. 5 for (mu0, mu): ``sum_{t=0}^{lam+1} C(lam+1, t) E_mu[((mu0 - mu)/mu)^t]`` (quadrature per term)."""
    n = ctx.integer(lam) + 1
    return mp.fsum(mp.binomial(n, t) * eq5_moment_remove(t, q, sigma, dps=ctx.dps) for t in range(n + 1))


@precise.entry
def gaussian_ratio_moment(ctx, k, sigma):
    """``E_mu0[(mu1/mu0)^k]`` by tanh-sinh quadrature of ``e^{k(2z-1)/(2s^2)}`` against N(0, s^2)
    (mpmath only). Deliberately not the closed form ``e^{(k^2-k)/(2 s^2)}``: claims compare the two.
    """
    with mp.extradps(5):
        value = mp.quad(lambda z: mp.exp(k * (2 * z - 1) / (2 * sigma**2) - z**2 / (2 * sigma**2)),
                        [-mp.inf, 0, k, mp.inf])
        return value / (sigma * mp.sqrt(2 * mp.pi))


# --- Lemma C.1: randomized response -------------------------------------------------------------


def _log_moment_rr(ctx, lam, epsilon):
    return lam * formulas.rdp_randomized_response(ctx, lam + 1, epsilon)


def _monotone_corners(function, args, directions, prec):
    """Enclosure of ``function`` over a box of balls, as the union of its values at the two extreme
    corners: valid only for a function non-decreasing (+1) or non-increasing (-1) in each argument
    on its whole domain (the caller states why)."""
    args = [ball.to_arb(value) for value in args]
    if all(value.is_exact() for value in args):
        return function(*args, prec=prec)
    low, high = [], []
    for value, sign in zip(args, directions):
        a, b = (value, value) if value.is_exact() else (ball.to_arb(value.lower()), ball.to_arb(value.upper()))
        low.append(a if sign > 0 else b)
        high.append(b if sign > 0 else a)
    with ball.precision(prec):
        return function(*low, prec=prec).union(function(*high, prec=prec))


#: ``alpha(lam) = lam D_{lam+1}(RR_eps)``: the log moment of eps-randomized response, the largest
#: over every eps-DP pair (Mironov 2017, arXiv 1702.07476v3, Prop. 5 and its proof).
log_moment_randomized_response = precise.entry(_log_moment_rr)
_log_moment_rr_ball = ball.entry(_log_moment_rr)


def _log_moment_rr_corners(lam, epsilon, *, prec=ball.DEFAULT_PREC):
    """Enclosure of ``lam D_{lam+1}(RR_eps)``. Over a box it is the union of the values at the
    corners: the function is non-decreasing in lam (D_alpha >= 0 is non-decreasing in alpha,
    Mironov 2017 v3 Prop. 9) and in eps (RR_eps is a post-processing of RR_eps' for eps' > eps);
    plain interval evaluation of the log-sum-exp over a box is far too wide to certify with."""
    return _monotone_corners(_log_moment_rr_ball, (lam, epsilon), (1, 1), prec)


def _loss_mean_rr(ctx, epsilon):
    """``E[Z]`` of the privacy loss ``Z = +-eps`` of eps-RR: ``KL(RR_eps) = eps tanh(eps/2)`` (both
    factors increasing and >= 0: the ball is tight over intervals)."""
    return epsilon * ctx.tanh(epsilon / 2)


loss_mean_randomized_response = precise.entry(_loss_mean_rr)


# --- registration -------------------------------------------------------------------------------

_LAM = ("lam", ((">", 0),))
_LAM_INT = ("lam", ((">=", 0), (INTEGER, None)))
_T = ("t", ((">=", 0), (INTEGER, None)))
_Q = ("q", ((">=", 0), ("<=", 1)))
_Q_OPEN = ("q", ((">", 0), ("<", 1)))
_SIGMA = ("sigma", ((">", 0),))
_EPS_RR = ("eps", ((">", 0),))  # eps > 0: the RR evaluators size their guard digits by log10(eps)
_EPS = ("eps", ((">=", 0),))
_PAIR = ("pair", ((TYPE, finite.Pair),))
_COMPOSITION = ("composition", ((TYPE, finite.AdaptiveComposition),))


def _both(formula):
    """The precise and ball evaluators of a formula written against a context."""
    return precise.entry(formula), ball.entry(formula)


def _pair_fn(function, with_number=False):
    """Adapt ``function(pair, [number,] dps|prec)`` to the vocabulary order ``(number, pair)``."""
    if not with_number:
        return lambda pair, **precision: function(pair, *precision.values())
    return lambda number, pair, **precision: function(pair, number, *precision.values())


def _exact_ceiling(x, prec):
    value = x.ceil()
    if not value.is_exact():
        raise vocabulary.UnsupportedExpression(f"ceil: the enclosure {x} of the argument has more than one ceiling")
    return value


def _sum_min_aux(lam, c, **precision):
    return finite.sum_step_log_moments(c, lam, *precision.values(), aux="min")


def _sum_min_aux_ball(lam, c, **precision):
    return finite.sum_step_log_moments_ball(c, lam, *precision.values(), aux="min")


QUANTITIES = {
    # name: (precise, ball or None, domain, doc)
    "log_moment_add": (*_both(log_moment_add), (_LAM, _Q, _SIGMA),
                       "log E2 = log A_{lam+1} = log E_mu0[(mu/mu0)^{lam+1}]: the pair (mu, mu0) (Eq. 4)"),
    "log_moment_remove": (*_both(log_moment_remove), (_LAM, _Q, _SIGMA),
                          "log E1 = log B_{lam+1} = log E_mu[(mu0/mu)^{lam+1}]: the pair (mu0, mu) (Eq. 3)"),
    "eq5_moment_add": (eq5_moment_add_mp, eq5_moment_add_ball, (_T, _Q, _SIGMA),
                       "E_mu0[((mu - mu0)/mu0)^t] = q^t E_mu0[(mu1/mu0 - 1)^t], exact alternating sum "
                       "(Eq. 5, t-th moment)"),
    "eq5_moment_remove": (eq5_moment_remove, None, (_T, _Q_OPEN, _SIGMA),
                          "E_mu[((mu0 - mu)/mu)^t] by quadrature (Eq. 5 for (mu0, mu), t-th moment); no ball"),
    "eq5_series_add": (*_both(eq5_series_add), (_LAM_INT, _Q, _SIGMA),
                       "sum_{t=0}^{lam+1} C(lam+1, t) eq5_moment_add(t, q, sigma): the right side of Eq. 5 "
                       "for (mu, mu0)"),
    "eq5_series_remove": (eq5_series_remove, None, (_LAM_INT, _Q_OPEN, _SIGMA),
                          "sum_{t=0}^{lam+1} C(lam+1, t) eq5_moment_remove(t, q, sigma): Eq. 5 for (mu0, mu); "
                          "no ball"),
    "gaussian_ratio_moment": (gaussian_ratio_moment, None, (("k", ()), _SIGMA),
                              "E_mu0[(mu1/mu0)^k] for mu0 = N(0, s^2), mu1 = N(1, s^2), by quadrature; no ball"),
    "log_moment_randomized_response": (log_moment_randomized_response, _log_moment_rr_corners, (_LAM, _EPS_RR),
                                       "lam D_{lam+1}(RR_eps): the log moment of eps-RR, the largest over "
                                       "every eps-DP pair"),
    "loss_mean_randomized_response": (*_both(_loss_mean_rr), (_EPS,),
                                      "E[Z] of the privacy loss Z = +-eps of eps-RR: KL(RR_eps) = eps tanh(eps/2)"),
    "ceil": (lambda x, dps: mp.ceil(x), _exact_ceiling, (("x", ()),),
             "the least integer >= x (a ball only when the enclosure of x has one ceiling)"),
    # finite pairs (P, Q) and the privacy loss Z = log(p_i / q_i), i ~ P
    "kl_pair": (_pair_fn(finite.kl), _pair_fn(finite.kl_ball), (_PAIR,), "KL(P || Q) = E_P[Z]"),
    "loss_centred_range_pair": (_pair_fn(finite.loss_centred_range), _pair_fn(finite.loss_centred_range_ball),
                                (_PAIR,), "max_i |log(p_i/q_i) - KL(P || Q)| = max |Z - E Z|"),
    "log_moment_pair": (_pair_fn(finite.log_moment, True), _pair_fn(finite.log_moment_ball, True),
                        (("lam", ((">=", 0),)), _PAIR), "log E_P[(P/Q)^lam] = lam D_{lam+1}(P || Q): one ordering"),
    "loss_tail_pair": (_pair_fn(finite.loss_tail, True), _pair_fn(finite.loss_tail_ball, True),
                       (("eps", ()), _PAIR),
                       "Pr_P[Z >= eps] (a ball only when no loss equals eps within the enclosure)"),
    "max_event_excess_pair": (_pair_fn(finite.max_event_excess, True), _pair_fn(finite.max_event_excess_ball, True),
                              (("eps", ()), _PAIR), "max over every event S (enumerated) of P(S) - e^eps Q(S)"),
    # adaptive compositions M = (M_1, ..., M_k), step i's pair depending on the earlier outcomes
    "sum_step_log_moments": (_pair_fn(finite.sum_step_log_moments, True),
                             _pair_fn(finite.sum_step_log_moments_ball, True), (_LAM, _COMPOSITION),
                             "sum_i alpha_{M_i}(lam), alpha_{M_i} the max over the aux input (prefix) and both "
                             "orderings"),
    "sum_step_log_moments_min_aux": (_sum_min_aux, _sum_min_aux_ball, (_LAM, _COMPOSITION),
                                     "sum_i of the MIN over the prefixes of step i's log moment (a wrong reading "
                                     "of alpha_{M_i})"),
    "loss_sum_gap": (lambda c, dps: precise.to_mpf(finite.loss_sum_gap(c)),
                     lambda c, prec: ball.to_arb(finite.loss_sum_gap(c)), (_COMPOSITION,),
                     "max over output tuples o of |P(o)/Q(o) - prod_i P_i(o_i|o_<i)/Q_i(o_i|o_<i)| (exact rationals)"),
    "log_moment_factorised": (_pair_fn(finite.log_moment_factorised, True),
                              _pair_fn(finite.log_moment_factorised_ball, True), (_LAM, _COMPOSITION),
                              "log E_P[(P/Q)^lam] of the joint pair by conditioning on the first outcome, "
                              "recursively"),
}

for _name, (_precise_fn, _ball_fn, _domain, _doc) in QUANTITIES.items():
    vocabulary.register(_name, _precise_fn, _ball_fn, domain=_domain, doc=_doc)
