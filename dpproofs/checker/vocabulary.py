"""The functions a claim may use, and the two evaluators of sympy expressions built from them.

Vocabulary (each a sympy ``Function`` bound to the shared evaluator; sensitivity 1):

=================================================  ===========================================
``rdp_gaussian(alpha, sigma)``                      ``D_alpha`` of the Gaussian, ``alpha/(2 sigma^2)``; alpha > 1, sigma > 0
``rdp_laplace(alpha, b)``                           ``D_alpha`` of Laplace(scale b); alpha > 1, b > 0
``rdp_randomized_response(alpha, eps)``             ``D_alpha`` of eps-RR = worst case over eps-DP pairs; alpha > 1, eps > 0
``rdp_sampled_gaussian(alpha, q, sigma)``           sampled-Gaussian RDP, max of both directions; alpha > 1, q in [0, 1]
``log_moment(lam, q, sigma)``                       Abadi's ``alpha(lam) = log max(E1, E2)``; lam > 0
``delta_gaussian(eps, sigma)``                      exact Gaussian privacy profile; eps >= 0
``delta_laplace(eps, b)``                           exact Laplace privacy profile; eps >= 0
``delta_randomized_response(eps_prime, eps)``       exact eps-RR profile at eps_prime
``delta_sampled_gaussian(eps, q, sigma)``           exact one-step sampled-Gaussian profile
``delta_composed_pure(eps_prime, eps, n)``          optimal n-fold composition of eps-DP (KOV 2015); n integer
``Phi(x)``                                          standard normal CDF
``accountant_epsilon_<m>(...)`` and its kin         the shipped accountant's answers (floats): see the end of FUNCTIONS
``rdp_sampled_gaussian_add(alpha, q, sigma)``       add-direction sampled-Gaussian RDP ``log A_alpha/(alpha-1)``
=================================================  ===========================================

Mironov 2017 quantities (the section at the end of :data:`FUNCTIONS`; each registration carries
its domain and a one-line doc): over a finite pair and an event, ``rdp_pair``, ``delta_pair``,
the pair's ``eps_pair`` and ``l1_pair``, and ``prob_P``, ``prob_Q``; over an adaptive
composition, ``joint``, ``rdp_step`` and ``eps_composition``; the events of n-fold randomized
response, ``rr_event_P`` and ``rr_event_Q``; the add direction of the sampled Gaussian,
its ``rdp_sampled_gaussian_add`` and ``delta_sampled_gaussian_add``. Pairs, compositions and
events are *structured* arguments (:data:`STRUCTURED_TYPES`).

Wang-Balle-Kasiviswanathan 2019 and Zhu-Dong-Wang 2022 quantities (the block after the subsampled
instances' one): over a subsampled instance, ``instance_pair`` (its exact pair), ``base_rdp`` (the
base's ``eps(j)`` over the instance's neighbouring batches), ``zdw_pair`` (the dominating pair built
on the base's randomized-response pair), ``wor_chi_moment`` and ``wor_ternary_chi`` (the moments of
WBK19's proof); over finite pairs, ``hockey_stick_pair`` (every real eps), ``product_pair``,
``power_pair``, ``symmetrised``, ``rr_dominating_pair``, ``rr_step_pair`` (adaptive compositions); ``wor_p1_configuration`` (the Gaussian configuration realising P1);
the shipped ``wbk19_shipped_log_moment`` (mpmath/arb) and ``wbk19_shipped_log_moment_float``.

plus sympy's ``log``, ``exp``, ``sqrt``, ``erfc``, ``Abs``, ``Min``, ``Max``, ``tanh``, ``sinh``,
``cosh``, ``binomial`` and arithmetic.

:func:`evaluate_mp` computes an expression at a point with mpmath (through
:mod:`dpproofs.math.precise`); :func:`evaluate_ball` encloses it in an arb ball (through
:mod:`dpproofs.math.ball`). Both raise :class:`UnsupportedExpression` for anything else.

Abadi et al. 2016 quantities (log E1 and E2, the Eq. 5 moments and series of both pairs, the log
moment and E[Z] of randomized response, quantities of finite pairs and of adaptive compositions,
``ceil``) are registered in their own block of :data:`FUNCTIONS`, each with the domain of every
argument (checked on every call) and a one-line doc: ``FUNCTIONS[name].domain``,
``FUNCTIONS[name].doc``. Finite pairs and adaptive compositions are vocabulary *types*
(:data:`STRUCTURED_TYPES`): a variable holding one is passed to the functions as it is.
"""

import functools

import sympy
from mpmath import mp
from flint import arb

from dpproofs.checker.oracles import finite
from dpproofs.errors import DPProofsError, InvalidArgument, NumericalError
from dpproofs.math import ball
from dpproofs.math import precise

__all__ = [
    "FUNCTIONS",
    "UnsupportedExpression",
    "evaluate_mp",
    "evaluate_ball",
    "ball_supported",
    "Phi",
]


class UnsupportedExpression(DPProofsError, ValueError):
    """An expression uses something the evaluators do not know."""


def _function(name, nargs):
    return sympy.Function(name, nargs=nargs)


class _Binding:
    """One vocabulary function: its sympy symbol, its two evaluators, its domain and doc.

    ``domain`` (optional) gives, per argument, ``(name, conditions)`` with conditions a tuple of
    ``(relation, bound)`` (``">"``, ``">="``, ``"<"``, ``"<="``), or ``(name, cls)`` for a
    structured argument (see :data:`STRUCTURED_TYPES`). The evaluators refuse an argument
    outside it (:class:`InvalidArgument`); in ball arithmetic only a certain violation is refused.
    """

    def __init__(self, symbol, precise_fn, ball_fn, integer_args=(), domain=(), doc="", strict_ball=False):
        self.symbol = symbol
        self.strict_ball = strict_ball  # a ball must be CERTAINLY inside (else: not certainly outside)
        self.precise = precise_fn
        self.ball = ball_fn
        self.integer_args = integer_args  # positions that must be exact integers
        self.domain = domain
        self.doc = doc

    def check_domain(self, args, in_ball):
        """Raise OutsideDomain (an InvalidArgument) when an argument is (certainly, for balls) outside
        the domain, InvalidArgument when a structured argument has the wrong type.

        Conditions per argument: a class (a structured argument of that type), or a tuple of
        ``(relation, bound)`` with relation one of ``">", ">=", "<", "<="``, ``"type"`` (bound: the
        class) or ``"integer"`` (enforced by the evaluators through ``integer_args``)."""
        for (name, conditions), value in zip(self.domain, args):
            types = [conditions] if isinstance(conditions, type) else [b for r, b in conditions if r == _TYPE]
            if types:
                if not isinstance(value, tuple(types)):
                    raise InvalidArgument(f"argument {name}={value!r} of {self.symbol} must be a {types[0].__name__}")
                continue
            if isinstance(value, STRUCTURED_TYPES):
                raise InvalidArgument(f"argument {name} of {self.symbol} must be a number, not a {type(value).__name__}")
            for relation, bound in conditions:
                if relation in (">", ">=", "<", "<=") and _outside(value, relation, bound, in_ball, self.strict_ball):
                    from dpproofs.errors import OutsideDomain  # a refusal of the point: the search skips it

                    raise OutsideDomain(
                        f"argument {name}={value} of {self.symbol} is outside its domain {name} {relation} {bound}"
                    )


def _outside(value, relation, bound, in_ball, strict):
    """Whether ``value`` is refused for ``relation bound``. A ball: with ``strict``, unless it is
    certainly inside (formulas valid only inside, e.g. a log of the argument); otherwise only when
    certainly outside (the evaluators enclose their own values over a ball that merely straddles
    a bound). An mpf or int: when the relation fails."""
    if in_ball and isinstance(value, arb):
        low, high = value.lower(), value.upper()  # exact endpoints: plain comparisons are exact
        if strict:
            return not {">": low > bound, ">=": low >= bound, "<": high < bound, "<=": high <= bound}[relation]
        return {">": high <= bound, ">=": high < bound, "<": low >= bound, "<=": low > bound}[relation]
    return not {">": value > bound, ">=": value >= bound, "<": value < bound, "<=": value <= bound}[relation]


_TYPE = "type"
_INTEGER = "integer"


Phi = _function("Phi", 1)

_ORDER, _POSITIVE, _NON_NEGATIVE, _RATE = ((">", 1),), ((">", 0),), ((">=", 0),), ((">=", 0), ("<=", 1))
#: The exact sampled-Gaussian sums have about alpha terms (dpproofs.math.limits.MAX_EXACT_ORDER), and
#: the optimal composition of eps-DP about n: beyond these an evaluation would not end in bounded time.
_EXACT_ORDER = ((">", 1), ("<=", 10_000))
MAX_COMPOSITIONS = 100_000

FUNCTIONS = {
    "rdp_gaussian": _Binding(
        _function("rdp_gaussian", 2), precise.rdp_gaussian, ball.rdp_gaussian,
        domain=(("alpha", _ORDER), ("sigma", _POSITIVE)),
        doc="D_alpha of the Gaussian mechanism, alpha / (2 sigma^2) (Mironov 2017 Prop. 7)",
    ),
    "rdp_laplace": _Binding(
        _function("rdp_laplace", 2), precise.rdp_laplace, ball.rdp_laplace,
        domain=(("alpha", _ORDER), ("b", _POSITIVE)),
        doc="D_alpha of the Laplace mechanism of scale b (Mironov 2017 Prop. 6)",
    ),
    "rdp_randomized_response": _Binding(
        _function("rdp_randomized_response", 2),
        precise.rdp_randomized_response,
        ball.rdp_randomized_response,
        # eps > 0: the precise evaluator's digit budget needs log(eps) (eps = 0 is the trivial
        # mechanism, D = 0); alpha > 1: the ball evaluator divides by alpha - 1
        domain=(("alpha", _ORDER), ("eps", _POSITIVE)),
        doc="D_alpha of eps-RR = worst case over eps-DP pairs (Mironov 2017 Prop. 5)",
    ),
    "rdp_sampled_gaussian": _Binding(
        _function("rdp_sampled_gaussian", 3), precise.rdp_sampled_gaussian, ball.rdp_sampled_gaussian,
        domain=(("alpha", _EXACT_ORDER), ("q", _RATE), ("sigma", _POSITIVE)),
        doc="sampled-Gaussian RDP, the max of both directions (Mironov, Talwar & Zhang 2019); alpha <= 1e4",
    ),
    "log_moment": _Binding(
        _function("log_moment", 3),
        precise.log_moment_sampled_gaussian,
        ball.log_moment_sampled_gaussian,
        domain=(("lam", ((">", 0), ("<=", 9_999))), ("q", _RATE), ("sigma", _POSITIVE)),
        doc="Abadi et al. 2016's alpha(lambda) = log max(E1, E2); lam <= 9999",
    ),
    "delta_gaussian": _Binding(
        _function("delta_gaussian", 2), precise.delta_gaussian, ball.delta_gaussian,
        domain=(("eps", _NON_NEGATIVE), ("sigma", _POSITIVE)),
        doc="exact privacy profile of the Gaussian mechanism (Balle & Wang 2018 Thm 8)",
    ),
    "delta_laplace": _Binding(
        _function("delta_laplace", 2), precise.delta_laplace, ball.delta_laplace,
        domain=(("eps", _NON_NEGATIVE), ("b", _POSITIVE)),
        doc="exact privacy profile of the Laplace mechanism",
    ),
    "delta_randomized_response": _Binding(
        _function("delta_randomized_response", 2),
        precise.delta_randomized_response,
        ball.delta_randomized_response,
        domain=(("eps_prime", _NON_NEGATIVE), ("eps", _NON_NEGATIVE)),
        doc="exact privacy profile of eps-RR at eps_prime",
    ),
    "delta_sampled_gaussian": _Binding(
        _function("delta_sampled_gaussian", 3),
        precise.delta_sampled_gaussian,
        ball.delta_sampled_gaussian,
        domain=(("eps", _NON_NEGATIVE), ("q", _RATE), ("sigma", _POSITIVE)),
        doc="exact one-step privacy profile of the sampled Gaussian, max of both directions",
    ),
    "delta_composed_pure": _Binding(
        _function("delta_composed_pure", 3),
        precise.delta_composed_pure,
        ball.delta_composed_pure,
        integer_args=(2,),
        domain=(("eps_prime", _NON_NEGATIVE), ("eps", _NON_NEGATIVE), ("n", ((">=", 1), ("<=", MAX_COMPOSITIONS)))),
        doc="optimal n-fold composition of eps-DP (Kairouz, Oh & Viswanath 2015); n <= 1e5",
    ),
    # --- Mironov 2017 quantities ------------------------------------------------------------
    # Finite pairs P = M(d), Q = M(d') (finite.Pair), adaptive compositions (finite.AdaptiveComposition)
    # and events (finite.Event) are structured arguments: a claim draws them through ``extra``.
    "rdp_pair": _Binding(
        _function("rdp_pair", 2), finite.rdp_pair_precise, finite.rdp_pair_ball,
        domain=(("alpha", ((">=", 1),)), ("pair", finite.Pair)),
        doc="D_alpha(P || Q) of a finite pair (alpha = 1: KL)",
    ),
    "delta_pair": _Binding(
        _function("delta_pair", 2), finite.delta_pair_precise, finite.delta_pair_ball,
        domain=(("eps", ((">=", 0),)), ("pair", finite.Pair)),
        doc="hockey-stick divergence sum_i (p_i - e^eps q_i)_+ of a finite pair (its privacy profile)",
    ),
    "eps_pair": _Binding(
        _function("eps_pair", 1), finite.eps_pair_precise, finite.eps_pair_ball,
        domain=(("pair", finite.Pair),),
        doc="max_i |log(p_i/q_i)|: the pair is eps-DP in both directions exactly at this eps",
    ),
    "l1_pair": _Binding(
        _function("l1_pair", 1), finite.l1_pair_precise, finite.l1_pair_ball,
        domain=(("pair", finite.Pair),),
        doc="||P - Q||_1 of a finite pair",
    ),
    "prob_P": _Binding(
        _function("prob_P", 2), finite.prob_p_precise, finite.prob_p_ball,
        domain=(("pair", finite.Pair), ("A", finite.Event)),
        doc="P(A) for an event A of a finite pair",
    ),
    "prob_Q": _Binding(
        _function("prob_Q", 2), finite.prob_q_precise, finite.prob_q_ball,
        domain=(("pair", finite.Pair), ("A", finite.Event)),
        doc="Q(A) for an event A of a finite pair",
    ),
    "joint": _Binding(
        _function("joint", 1), finite.joint_exact, finite.joint_exact,
        domain=(("C", finite.AdaptiveComposition),),
        doc="the pair of joint output distributions of an adaptive composition (a finite.Pair)",
    ),
    "rdp_step": _Binding(
        _function("rdp_step", 3), finite.rdp_step_precise, finite.rdp_step_ball,
        integer_args=(2,),
        domain=(("alpha", ((">", 1),)), ("C", finite.AdaptiveComposition), ("i", ((">=", 0),))),
        doc="max over prefixes of D_alpha of step i of an adaptive composition (its RDP budget)",
    ),
    "eps_composition": _Binding(
        _function("eps_composition", 1), finite.eps_composition_precise, finite.eps_composition_ball,
        domain=(("C", finite.AdaptiveComposition),),
        doc="max over steps and prefixes of eps_pair: every step of the composition is eps-DP",
    ),
    "rr_event_P": _Binding(
        _function("rr_event_P", 4), finite.rr_event_p_precise, finite.rr_event_p_ball,
        integer_args=(1, 3),
        domain=(("eps", ((">", 0),)), ("n", ((">=", 1),)), ("u", ((">=", 0), ("<=", 1))),
                ("shape", ((">=", 0), ("<=", 1)))),
        doc="P(S) under n-fold eps-RR, S = {l >= k} (shape 0) or {l = k} (shape 1) heads, "
        "k = min(n, floor(u (n+1)))",
    ),
    "rr_event_Q": _Binding(
        _function("rr_event_Q", 4), finite.rr_event_q_precise, finite.rr_event_q_ball,
        integer_args=(1, 3),
        domain=(("eps", ((">", 0),)), ("n", ((">=", 1),)), ("u", ((">=", 0), ("<=", 1))),
                ("shape", ((">=", 0), ("<=", 1)))),
        doc="Q(S) (the neighbour's n-fold RR) of the event of rr_event_P",
    ),
    "rdp_sampled_gaussian_add": _Binding(
        _function("rdp_sampled_gaussian_add", 3), precise.rdp_sampled_gaussian_add, ball.rdp_sampled_gaussian_add,
        domain=(("alpha", ((">", 1),)), ("q", ((">=", 0), ("<=", 1))), ("sigma", ((">", 0),))),
        doc="log A_alpha / (alpha-1): sampled-Gaussian RDP in the add direction (P = mu, Q = mu0)",
    ),
    "delta_sampled_gaussian_add": _Binding(
        _function("delta_sampled_gaussian_add", 3), precise.delta_sampled_gaussian_add,
        ball.delta_sampled_gaussian_add,
        domain=(("eps", ((">=", 0),)), ("q", ((">=", 0), ("<=", 1))), ("sigma", ((">", 0),))),
        doc="exact add-direction privacy profile of one sampled-Gaussian step",
    ),
}

#: Types of structured arguments: a claim variable bound to one of these passes through the
#: evaluators unconverted, to the vocabulary functions that take it (Mironov 2017 section).
STRUCTURED_TYPES = (finite.Pair, finite.AdaptiveComposition, finite.Event)


# --- Abadi et al. 2016 quantities -----------------------------------------------------------------
#
# Abadi et al. 2016 (arXiv 1607.00133v2): Lemma 3 (Eq. 5 and its terms, both pairs of the
# sampled Gaussian), Lemma C.1 (randomized response, the worst eps-DP mechanism, and finite
# pairs) and Theorem 2 (finite pairs and adaptive compositions). Each entry is one registration:
# the precise and the ball evaluator, the domain of every argument (checked on every call: a
# value outside it raises InvalidArgument, a ball not certainly inside it too) and a one-line doc.
#
# Vocabulary types: a free symbol whose value in a point is a ``dpproofs.checker.oracles.finite.Pair`` (the output
# distributions P = M(d), Q = M(d') of a finite mechanism, exact rationals) or a
# ``dpproofs.checker.oracles.finite.AdaptiveComposition`` is passed to the functions as it is (claims draw such
# values through ``Claim.extra``); ``swapped(pair)`` and ``joint(composition)`` return pairs.

from dpproofs.checker.oracles import finite as _finite  # noqa: E402  (the finite-mechanism types and quantities)


def _no_ball(name):
    def unsupported(*args, prec):
        raise UnsupportedExpression(f"{name} has no ball evaluation (it is a quadrature)")

    return unsupported


def _entry(name, precise_fn, ball_fn, domain, doc):
    """One vocabulary registration: evaluators wrapped with the domain check; ``domain`` is a tuple
    ``(argument, ((relation, bound), ...))`` per argument as in dpproofs.verification."""
    integer_args = tuple(i for i, (_, conditions) in enumerate(domain) if (_INTEGER, None) in conditions)
    has_ball = ball_fn is not None
    ball_fn = ball_fn or _no_ball(name)

    # the evaluators of dpproofs.checker.vocabulary check ``domain`` (_Binding.check_domain) before each call
    binding = _Binding(_function(name, len(domain)), precise_fn, ball_fn, integer_args=integer_args,
                       domain=domain, doc=doc, strict_ball=True)
    binding.has_ball = has_ball
    return binding


def _pair_fn(function, with_number=None):
    """Adapt ``function(pair, [number,] dps|prec)`` to the vocabulary order ``(number, pair)``."""
    if with_number is None:
        return lambda pair, **precision: function(pair, *precision.values())
    return lambda number, pair, **precision: function(pair, number, *precision.values())


_LAM = ("lam", ((">", 0),))
_LAM_INT = ("lam", ((">=", 0), (_INTEGER, None)))
_T = ("t", ((">=", 0), (_INTEGER, None)))
_Q = ("q", ((">=", 0), ("<=", 1)))
_SIGMA = ("sigma", ((">", 0),))
_EPS_RR = ("eps", ((">", 0),))  # eps > 0: the RR evaluators size their guard digits by log10(eps)
_EPS = ("eps", ((">=", 0),))
_PAIR = ("pair", ((_TYPE, _finite.Pair),))
_COMPOSITION = ("composition", ((_TYPE, _finite.AdaptiveComposition),))

FUNCTIONS["log_moment"].domain = (_LAM, _Q, _SIGMA)
FUNCTIONS["log_moment"].doc = "Abadi's alpha(lam) = log max(E1, E2) of one sampled-Gaussian step (Eqs. 3-4)"

FUNCTIONS.update({
    "log_moment_add": _entry(
        "log_moment_add", precise.log_moment_add, ball.log_moment_add, (_LAM, _Q, _SIGMA),
        "log E2 = log A_{lam+1} = log E_mu0[(mu/mu0)^{lam+1}]: the pair (mu, mu0) (Eq. 4)"),
    "log_moment_remove": _entry(
        "log_moment_remove", precise.log_moment_remove, ball.log_moment_remove, (_LAM, _Q, _SIGMA),
        "log E1 = log B_{lam+1} = log E_mu[(mu0/mu)^{lam+1}]: the pair (mu0, mu) (Eq. 3)"),
    "eq5_moment_add": _entry(
        "eq5_moment_add", precise.eq5_moment_add, ball.eq5_moment_add, (_T, _Q, _SIGMA),
        "E_mu0[((mu - mu0)/mu0)^t] = q^t E_mu0[(mu1/mu0 - 1)^t], exact alternating sum (Eq. 5, t-th moment)"),
    "eq5_moment_remove": _entry(
        "eq5_moment_remove", precise.eq5_moment_remove, None, (_T, ("q", ((">", 0), ("<", 1))), _SIGMA),
        "E_mu[((mu0 - mu)/mu)^t] by quadrature (Eq. 5 for (mu0, mu), t-th moment); no ball"),
    "eq5_series_add": _entry(
        "eq5_series_add", precise.eq5_series_add, ball.eq5_series_add, (_LAM_INT, _Q, _SIGMA),
        "sum_{t=0}^{lam+1} C(lam+1, t) eq5_moment_add(t, q, sigma): the right side of Eq. 5 for (mu, mu0)"),
    "eq5_series_remove": _entry(
        "eq5_series_remove", precise.eq5_series_remove, None, (_LAM_INT, ("q", ((">", 0), ("<", 1))), _SIGMA),
        "sum_{t=0}^{lam+1} C(lam+1, t) eq5_moment_remove(t, q, sigma): Eq. 5 for (mu0, mu); no ball"),
    "gaussian_ratio_moment": _entry(
        "gaussian_ratio_moment", precise.gaussian_ratio_moment, None, (("k", ()), _SIGMA),
        "E_mu0[(mu1/mu0)^k] for mu0 = N(0, s^2), mu1 = N(1, s^2), by quadrature; no ball"),
    "log_moment_randomized_response": _entry(
        "log_moment_randomized_response", precise.log_moment_randomized_response,
        ball.log_moment_randomized_response, (_LAM, _EPS_RR),
        "lam D_{lam+1}(RR_eps): the log moment of eps-RR, the largest over every eps-DP pair"),
    "loss_mean_randomized_response": _entry(
        "loss_mean_randomized_response", precise.loss_mean_randomized_response,
        ball.loss_mean_randomized_response, (_EPS,),
        "E[Z] of the privacy loss Z = +-eps of eps-RR: KL(RR_eps) = eps tanh(eps/2)"),
    "delta_sampled_gaussian_add": _entry(
        "delta_sampled_gaussian_add", precise.delta_sampled_gaussian_add, ball.delta_sampled_gaussian_add,
        (_EPS, _Q, _SIGMA), "the privacy profile sup_S mu(S) - e^eps mu0(S) of the pair (mu, mu0) alone"),
    "ceil": _entry(
        "ceil", lambda x, dps: mp.ceil(x), lambda x, prec: _exact_ceiling(x), (("x", ()),),
        "the least integer >= x (a ball only when the enclosure of x has one ceiling)"),
    # finite pairs (P, Q) and the privacy loss Z = log(p_i / q_i), i ~ P
    "swapped": _entry(
        "swapped", lambda pair, dps: pair.swapped(), lambda pair, prec: pair.swapped(), (_PAIR,),
        "the pair (Q, P): the neighbouring datasets in the other order"),
    "epsilon_dp_pair": _entry(
        "epsilon_dp_pair", _pair_fn(_finite.epsilon_dp), _pair_fn(_finite.epsilon_dp_ball), (_PAIR,),
        "max_i |log(p_i/q_i)|: the pure-DP level of the pair"),
    "kl_pair": _entry(
        "kl_pair", _pair_fn(_finite.kl), _pair_fn(_finite.kl_ball), (_PAIR,), "KL(P || Q) = E_P[Z]"),
    "loss_centred_range_pair": _entry(
        "loss_centred_range_pair", _pair_fn(_finite.loss_centred_range),
        _pair_fn(_finite.loss_centred_range_ball), (_PAIR,), "max_i |log(p_i/q_i) - KL(P || Q)| = max |Z - E Z|"),
    "log_moment_pair": _entry(
        "log_moment_pair", _pair_fn(_finite.log_moment, True), _pair_fn(_finite.log_moment_ball, True),
        (("lam", ((">=", 0),)), _PAIR), "log E_P[(P/Q)^lam] = lam D_{lam+1}(P || Q): one ordering"),
    "delta_pair": _entry(
        "delta_pair", _pair_fn(_finite.delta, True), _pair_fn(_finite.delta_ball, True), (_EPS, _PAIR),
        "the privacy profile sum_i (p_i - e^eps q_i)_+ = sup_S P(S) - e^eps Q(S)"),
    "loss_tail_pair": _entry(
        "loss_tail_pair", _pair_fn(_finite.loss_tail, True), _pair_fn(_finite.loss_tail_ball, True),
        (("eps", ()), _PAIR), "Pr_P[Z >= eps] (a ball only when no loss equals eps within the enclosure)"),
    "max_event_excess_pair": _entry(
        "max_event_excess_pair", _pair_fn(_finite.max_event_excess, True),
        _pair_fn(_finite.max_event_excess_ball, True), (("eps", ()), _PAIR),
        "max over every event S (enumerated) of P(S) - e^eps Q(S)"),
    # adaptive compositions M = (M_1, ..., M_k), step i's pair depending on the earlier outcomes
    "joint": _entry(
        "joint", lambda c, dps: c.joint(), lambda c, prec: c.joint(), (_COMPOSITION,),
        "the pair of joint distributions of the output tuples of the composition"),
    "sum_step_log_moments": _entry(
        "sum_step_log_moments", _pair_fn(_finite.sum_step_log_moments, True),
        _pair_fn(_finite.sum_step_log_moments_ball, True), (_LAM, _COMPOSITION),
        "sum_i alpha_{M_i}(lam), alpha_{M_i} the max over the aux input (prefix) and both orderings"),
    "sum_step_log_moments_min_aux": _entry(
        "sum_step_log_moments_min_aux",
        lambda lam, c, dps: _finite.sum_step_log_moments(c, lam, dps, aux="min"),
        lambda lam, c, prec: _finite.sum_step_log_moments_ball(c, lam, prec, aux="min"), (_LAM, _COMPOSITION),
        "sum_i of the MIN over the prefixes of step i's log moment (a wrong reading of alpha_{M_i})"),
    "loss_sum_gap": _entry(
        "loss_sum_gap", lambda c, dps: precise.to_mpf(_finite.loss_sum_gap(c)),
        lambda c, prec: ball.to_arb(_finite.loss_sum_gap(c)), (_COMPOSITION,),
        "max over output tuples o of |P(o)/Q(o) - prod_i P_i(o_i|o_<i)/Q_i(o_i|o_<i)| (exact rationals)"),
    "log_moment_factorised": _entry(
        "log_moment_factorised", _pair_fn(_finite.log_moment_factorised, True),
        _pair_fn(_finite.log_moment_factorised_ball, True), (_LAM, _COMPOSITION),
        "log E_P[(P/Q)^lam] of the joint pair by conditioning on the first outcome, recursively"),
})


def _exact_ceiling(x):
    value = x.ceil()
    if not value.is_exact():
        raise UnsupportedExpression(f"ceil: the enclosure {x} of the argument has more than one ceiling")
    return value


# --- end of the Abadi et al. 2016 quantities ---------------------------------------------------------


# --- the shipped accountant, as a user calls it (claims under ``accountant.``) -----------------
#
# Each function below calls the public ``dpproofs.Accountant`` / ``dpproofs.calibrate_sigma``
# exactly as a user does, with float64 arguments, and returns the float answer, which is exact as
# an mpf and as an arb ball: a claim such as ``delta_gaussian(accountant_epsilon_gaussian(sigma, T,
# delta, 0, 0, 0), sigma/sqrt(T)) <= delta`` is certified by the ball evaluation of its exact side.
# Arguments are rounded to the nearest float64 (an arb ball that straddles two floats cannot be
# passed on and raises UnsupportedExpression); ``T`` and the 0/1 flags must be exact integers.
# Flags: ``classic`` (1: conversion="classic", 0: "improved"), ``refine`` and ``certified``
# (1: True). The accountant uses the default orders (its integer ones in certified mode).
#
# name                                                       value
# accountant_epsilon_<m>(<params>, T, delta, classic, refine, certified)   acc.epsilon(delta, ...)
# accountant_order_<m>(<params>, T, delta, classic, refine, certified)     alpha of acc.epsilon_and_order
# accountant_delta_<m>(<params>, T, epsilon, classic, certified)           acc.delta(epsilon, ...)
# accountant_rdp_<m>(alpha, <params>, T)                     Accountant([alpha]).compose(m, T).rdp[0]
# calibrated_sigma(epsilon, delta, q, T, classic)            dp.calibrate_sigma(...) (sampled Gaussian)
# rdp_sampled_gaussian_add(alpha, q, sigma)                  exact add-direction RDP, log A_alpha/(alpha-1)
#
# with <m>(<params>): gaussian(sigma), laplace(b), randomized_response(eps),
# sampled_gaussian(q, sigma); domains are the accountant's (it raises InvalidArgument outside).


def _float_of(value):
    """The float64 nearest to an mpf or an arb ball (a ball must round to one float)."""
    if isinstance(value, arb):
        low, high = float(value.lower()), float(value.upper())
        if low != high:
            raise UnsupportedExpression(f"the ball {value} does not round to one float64 for the accountant")
        return low
    return float(value)


def _int_of(value):
    number = _float_of(value)
    if not number.is_integer():
        raise UnsupportedExpression(f"{value} must be an integer for the accountant")
    return int(value.unique_fmpz()) if isinstance(value, arb) else int(value)


def _accountant_binding(name, compute, kinds):
    """A binding whose precise and ball forms both return ``compute(*plain arguments)`` exactly;
    ``kinds`` is a string of ``f`` (float) and ``i`` (integer) per argument."""

    def plain(args):
        return [(_int_of if kind == "i" else _float_of)(a) for kind, a in zip(kinds, args, strict=True)]

    def precise_fn(*args, dps):
        return mp.mpf(float(compute(*plain(args))))

    def ball_fn(*args, prec):
        return arb(float(compute(*plain(args))))

    integer_positions = tuple(i for i, kind in enumerate(kinds) if kind == "i")
    return name, _Binding(_function(name, len(kinds)), precise_fn, ball_fn, integer_args=integer_positions)


def _accountant_functions():
    from dpproofs.accountant import rdp as shipped
    from dpproofs import mechanisms

    makers = {
        "gaussian": (mechanisms.Gaussian, 1),
        "laplace": (mechanisms.Laplace, 1),
        "randomized_response": (mechanisms.RandomizedResponse, 1),
        "sampled_gaussian": (mechanisms.SampledGaussian, 2),
    }

    def conversion(classic):
        return "classic" if classic else "improved"

    @functools.lru_cache(maxsize=64)
    def composed(make, params, steps, certified=False, orders=None):
        """The composed accountant, built as a user builds it; cached so that the several answers
        one statement asks of it (epsilon, its order) share its RDP curve (certified balls take
        ~0.7 s). Only the instance is cached: every answer calls the public methods anew."""
        return shipped.Accountant(orders, certified=bool(certified)).compose(make(*params), steps)

    bindings = []
    for label, (make, count) in makers.items():
        def epsilon(*args, make=make, count=count):
            params, (steps, delta, classic, refine, certified) = args[:count], args[count:]
            return composed(make, params, steps, certified).epsilon(delta, conversion(classic), refine=bool(refine))

        def order(*args, make=make, count=count):
            params, (steps, delta, classic, refine, certified) = args[:count], args[count:]
            accountant = composed(make, params, steps, certified)
            return accountant.epsilon_and_order(delta, conversion(classic), refine=bool(refine))[1]

        def delta(*args, make=make, count=count):
            params, (steps, eps, classic, certified) = args[:count], args[count:]
            return composed(make, params, steps, certified).delta(eps, conversion(classic))

        def rdp(alpha, *args, make=make, count=count):
            params, (steps,) = args[:count], args[count:]
            return composed(make, params, steps, orders=(alpha,)).rdp[0]

        bindings += [
            _accountant_binding(f"accountant_epsilon_{label}", epsilon, "f" * count + "ifiii"),
            _accountant_binding(f"accountant_order_{label}", order, "f" * count + "ifiii"),
            _accountant_binding(f"accountant_delta_{label}", delta, "f" * count + "ifii"),
            _accountant_binding(f"accountant_rdp_{label}", rdp, "f" + "f" * count + "i"),
        ]

    def calibrated(eps, delta, q, steps, classic):
        return shipped.calibrate_sigma(epsilon=eps, delta=delta, q=q, steps=steps, conversion=conversion(classic))

    bindings.append(_accountant_binding("calibrated_sigma", calibrated, "fffii"))
    found = dict(bindings)
    return found


FUNCTIONS.update(_accountant_functions())


# --- Subsampled mechanisms on concrete datasets (Balle, Barthe & Gaboardi 2018 and issue 12) -------
#
# Vocabulary types from dpproofs.checker.oracles.subsampled: a ``Subsampled`` instance (a finite base mechanism, two
# datasets and the sampling, enumerated exactly over every batch), a ``Triple`` (mu0, mu1, mu1p:
# the components of the two mixtures of advanced joint convexity, arXiv 1807.01647v2 Thm 2), and a
# ``GaussianSubsampled`` instance (the Gaussian sum query on 1-D records in [-1, 1], clipping
# norm 1; its output is a finite Gaussian mixture, divergences by quadrature / arb enclosures).

from dpproofs.checker.oracles import subsampled as _subsampled  # noqa: E402

STRUCTURED_TYPES = STRUCTURED_TYPES + (_subsampled.Subsampled, _subsampled.Triple, _subsampled.GaussianSubsampled)

_INSTANCE = ("instance", ((_TYPE, _subsampled.Subsampled),))
_TRIPLE = ("triple", ((_TYPE, _subsampled.Triple),))
_CONFIG = ("config", ((_TYPE, _subsampled.GaussianSubsampled),))


def _max_over(values, ball_mode=False):
    """The largest value; 0 when there is none (a supremum of divergences over no pair)."""
    if not values:
        return arb(0) if ball_mode else mp.zero
    return _finite.max_of(values)


def _sub_delta_precise(eps, inst, dps):
    return _finite.delta(inst.pair(), eps, dps)


def _sub_delta_ball(eps, inst, prec):
    return _finite.delta_ball(inst.pair(), eps, prec)


def _base_delta_precise(eps, inst, dps):
    return _max_over([_finite.delta(p, eps, dps) for p in inst.base_pairs()])


def _base_delta_ball(eps, inst, prec):
    return _max_over([_finite.delta_ball(p, eps, prec) for p in inst.base_pairs()], True)


def _base_group_delta_precise(eps, k, inst, dps):
    return _max_over([_finite.delta(p, eps, dps) for p in _subsampled.group_base_pairs(inst, _finite._arb_int(k))])


def _base_group_delta_ball(eps, k, inst, prec):
    return _max_over([_finite.delta_ball(p, eps, prec) for p in _subsampled.group_base_pairs(inst, _finite._arb_int(k))], True)


def _triple_hs(backend):
    def evaluate(c, a0, a1, a2, b0, b1, b2, triple, **precision):
        if backend == "mp":
            return _subsampled.hockey_stick_combination(c, (a0, a1, a2), (b0, b1, b2), triple, precise.to_mpf,
                                                        lambda x: max(x, mp.zero))
        with ball.precision(precision["prec"]):
            return _subsampled.hockey_stick_combination(c, (a0, a1, a2), (b0, b1, b2), triple, ball.to_arb,
                                                        ball.positive_part)
    return evaluate


def _decomposed_hs(backend):
    def evaluate(c, a0, a1, b0, b1, inst, **precision):
        if backend == "mp":
            return _subsampled.hockey_stick_decomposed(c, (a0, a1), (b0, b1), inst, precise.to_mpf,
                                                       lambda x: max(x, mp.zero))
        with ball.precision(precision["prec"]):
            return _subsampled.hockey_stick_decomposed(c, (a0, a1), (b0, b1), inst, ball.to_arb, ball.positive_part)
    return evaluate


_C = ("c", ((">=", 0),))
_COEF = tuple((name, ()) for name in ("a0", "a1", "a2", "b0", "b1", "b2"))  # mixture weights; unchecked (1 - beta can be a ball around 0)
_ALPHA = ("alpha", ((">", 1),))

FUNCTIONS.update({
    "delta_subsampled": _entry(
        "delta_subsampled", lambda eps, inst, dps: _sub_delta_precise(eps, inst, dps),
        lambda eps, inst, prec: _sub_delta_ball(eps, inst, prec), (("eps", ()), _INSTANCE),
        "H_{e^eps}(M(S(d)) || M(S(d2))) of the instance, every batch enumerated (exact pair)"),
    "eps_subsampled": _entry(
        "eps_subsampled", lambda inst, dps: _finite.epsilon_dp(inst.pair(), dps),
        lambda inst, prec: _finite.epsilon_dp_ball(inst.pair(), prec), (_INSTANCE,),
        "max_o |log P(o)/Q(o)| of the subsampled pair: its pure-DP level"),
    "delta_base": _entry(
        "delta_base", lambda eps, inst, dps: _base_delta_precise(eps, inst, dps),
        lambda eps, inst, prec: _base_delta_ball(eps, inst, prec), (("eps", ()), _INSTANCE),
        "max over neighbouring batches T, T' drawable from d or d2 (both orders) of H_{e^eps}(M(T)||M(T'))"),
    "eps_base": _entry(
        "eps_base", lambda inst, dps: _max_over([_finite.epsilon_dp(p, dps) for p in inst.base_pairs()]),
        lambda inst, prec: _max_over([_finite.epsilon_dp_ball(p, prec) for p in inst.base_pairs()], True),
        (_INSTANCE,), "the pure-DP level of the base over the instance's neighbouring batches"),
    "delta_base_group": _entry(
        "delta_base_group", lambda eps, k, inst, dps: _base_group_delta_precise(eps, k, inst, dps),
        lambda eps, k, inst, prec: _base_group_delta_ball(eps, k, inst, prec),
        (("eps", ()), ("k", ((">=", 1), (_INTEGER, None))), _INSTANCE),
        "group profile: max over batches T, T' with T' = T with k copies of the differing record substituted"),
    "eps_base_group": _entry(
        "eps_base_group",
        lambda k, inst, dps: _max_over([_finite.epsilon_dp(p, dps) for p in _subsampled.group_base_pairs(inst, _finite._arb_int(k))]),
        lambda k, inst, prec: _max_over([_finite.epsilon_dp_ball(p, prec)
                                         for p in _subsampled.group_base_pairs(inst, _finite._arb_int(k))], True),
        (("k", ((">=", 1), (_INTEGER, None))), _INSTANCE),
        "the pure-DP level of the base over the instance's batches at substitution distance 1..k"),
    "sampling_fraction": _entry(
        "sampling_fraction", lambda inst, dps: precise.to_mpf(inst.gamma), lambda inst, prec: ball.to_arb(inst.gamma),
        (_INSTANCE,), "gamma: the Poisson rate, or batch_size / n (fixed size and with replacement)"),
    "dataset_size": _entry(
        "dataset_size", lambda inst, dps: precise.to_mpf(len(inst.d)), lambda inst, prec: ball.to_arb(len(inst.d)),
        (_INSTANCE,), "n = len(d), the size of the first dataset"),
    "hs_triple": _entry(
        "hs_triple", _triple_hs("mp"), _triple_hs("ball"), (_C,) + _COEF + (_TRIPLE,),
        "sum_i (a.nu(i) - c b.nu(i))_+ for nu = (mu0, mu1, mu1p): H_c of two mixtures of the triple"),
    "delta_sum_query": _entry(
        "delta_sum_query", lambda eps, config, dps: _subsampled.delta_mixture(config.mixture(), eps, dps),
        lambda eps, config, prec: _subsampled.delta_mixture_ball(config.mixture(), eps, prec),
        (("eps", ()), _CONFIG),
        "H_{e^eps} of the subsampled Gaussian sum query on the instance (level-set CDFs; rigorous ball)"),
    "rdp_sum_query": _entry(
        "rdp_sum_query", lambda alpha, config, dps: _subsampled.rdp_mixture(config.mixture(), alpha, dps),
        lambda alpha, config, prec: _subsampled.rdp_mixture_ball(config.mixture(), alpha, prec),
        (_ALPHA, _CONFIG), "D_alpha of the subsampled Gaussian sum query on the instance (quadrature; acb.integral)"),
    "decomposition_gap": _entry(
        "decomposition_gap", lambda inst, dps: precise.to_mpf(_subsampled.decomposition_gap(inst)),
        lambda inst, prec: ball.to_arb(_subsampled.decomposition_gap(inst)), (_INSTANCE,),
        "max_o |M(S(big))(o) - ((1-q) R + q A)(o)| of a Poisson add/remove instance (exact rationals)"),
    "hs_decomposed": _entry(
        "hs_decomposed", _decomposed_hs("mp"), _decomposed_hs("ball"),
        (_C, ("a0", ()), ("a1", ()), ("b0", ()), ("b1", ()), _INSTANCE),
        "sum_o (a0 R + a1 A - c (b0 R + b1 A))_+ for R = M(S(small)), A = E_T M(T + y): H_c of two mixtures"),
    "delta_pstar_sum_query": _entry(
        "delta_pstar_sum_query",
        lambda eps, config, dps: _subsampled.delta_mixture(_subsampled.symmetric_poisson_pair(config), eps, dps),
        lambda eps, config, prec: _subsampled.delta_mixture_ball(_subsampled.symmetric_poisson_pair(config), eps, prec),
        (("eps", ()), _CONFIG),
        "H_{e^eps} of P* = ((1-q)N(0)+qN(1), (1-q)N(0)+qN(-1)) at the instance's rate and sigma"),
    "gamma_sum_query": _entry(
        "gamma_sum_query", lambda config, dps: precise.to_mpf(config.gamma),
        lambda config, prec: ball.to_arb(config.gamma), (_CONFIG,), "the rate q or batch_size / n of the instance"),
    "sigma_sum_query": _entry(
        "sigma_sum_query", lambda config, dps: precise.to_mpf(config.sigma),
        lambda config, prec: ball.to_arb(config.sigma), (_CONFIG,), "sigma = noise std / clipping norm of the instance"),
})
# --- Wang-Balle-Kasiviswanathan 2019 and Zhu-Dong-Wang 2022 quantities (theorems/wang2019, zhu2022) ----
#
# Over finite pairs (dpproofs.checker.oracles.finite.Pair) and one subsampled instance (dpproofs.checker.oracles.subsampled.Subsampled:
# a finite base, two neighbouring datasets and the sampling). Every value is an exact rational until
# the final exp/log, so the ball flavour is as tight as the precision. Sources at the point of use:
# (The instance's gamma and the base's pure-DP level are the block above's ``sampling_fraction`` and
# ``eps_base``.) WBK19 = Wang, Balle & Kasiviswanathan 2019 (arXiv 1808.00087v2), Theorem 9 and its proof;
# ZDW22 = Zhu, Dong & Wang 2022 (arXiv 2106.08567), dominating pairs (Definition, composition and
# subsampling theorems); Sym = the symmetrised pair of the notes.


def _papers_functions():
    import itertools as _it
    from fractions import Fraction as _Fr

    def instance_type():
        from dpproofs.checker.oracles import subsampled

        return subsampled.Subsampled

    def check_instance(value, name, sampling=None):
        if not isinstance(value, instance_type()):
            raise InvalidArgument(f"{name}: argument {value!r} must be a dpproofs.checker.oracles.subsampled.Subsampled instance")
        if sampling is not None and value.sampling != sampling:
            raise InvalidArgument(f"{name}: the instance samples {value.sampling!r}, not {sampling!r}")
        return value

    def check_pair(value, name):
        if not isinstance(value, _finite.Pair):
            raise InvalidArgument(f"{name}: argument {value!r} must be a finite.Pair")
        return value

    # -- pairs built from pairs (exact rationals) --------------------------------------------------

    def product(pair, other):
        check_pair(pair, "product_pair")
        check_pair(other, "product_pair")
        return _finite.Pair(tuple(a * b for a in pair.p for b in other.p), tuple(a * b for a in pair.q for b in other.q))

    def power(pair, k):
        check_pair(pair, "power_pair")
        if int(k) != k or k < 1:
            raise InvalidArgument(f"power_pair: k={k} must be an integer >= 1")
        from dpproofs.checker.oracles import subsampled

        return subsampled.compose(pair, int(k))

    def symmetrised(pair):
        """Sym(P, Q): every outcome of positive loss l (p > q) kept, its mirror (q, p) added, the
        rest of the mass on one outcome of loss 0 (valid when P(L > 0) + Q(L > 0) <= 1)."""
        check_pair(pair, "symmetrised")
        up = [(a, b) for a, b in zip(pair.p, pair.q) if a > b]
        rest = 1 - sum(a + b for a, b in up)
        if rest < 0:
            raise InvalidArgument(f"symmetrised: P(L>0) + Q(L>0) = {1 - rest} > 1 for {pair!r}")
        p = [a for a, _ in up] + [b for _, b in up]
        q = [b for _, b in up] + [a for a, _ in up]
        if rest > 0:
            p.append(rest)
            q.append(rest)
        return _finite.Pair(tuple(p), tuple(q))

    def randomized_response_pair(ratio):
        """(P, Q) = ((r, 1)/(1+r), (1, r)/(1+r)): eps-RR at eps = log r, the dominating pair of every
        eps-DP mechanism in both orders (Kairouz, Oh & Viswanath 2015)."""
        r = _Fr(ratio)
        return _finite.Pair((r / (1 + r), 1 / (1 + r)), (1 / (1 + r), r / (1 + r)))

    def mixture(gamma, dominating):
        """((1 - g) Q + g P, Q) of a pair (P, Q)."""
        g = _Fr(gamma)
        return _finite.Pair(tuple((1 - g) * b + g * a for a, b in zip(dominating.p, dominating.q)), dominating.q)

    # -- one instance ---------------------------------------------------------------------------------

    def pair_of(inst):
        return check_instance(inst, "instance_pair").pair()

    def base_ratio(inst):
        """max over the instance's neighbouring batch pairs of max_i p_i/q_i (exact): e^{eps(inf)}."""
        pairs = check_instance(inst, "zdw_pair").base_pairs()
        return max([_Fr(1)] + [max(_Fr(a) / _Fr(b) for a, b in zip(pr.p, pr.q)) for pr in pairs])

    def base_rdp_precise(j, inst, *, dps):
        pairs = check_instance(inst, "base_rdp").base_pairs()
        return max([mp.zero] + [_finite.rdp(pr, j, dps) for pr in pairs])

    def base_rdp_ball(j, inst, *, prec):
        pairs = check_instance(inst, "base_rdp").base_pairs()
        out = arb(0)
        for pr in pairs:
            out = out.max(_finite.rdp_ball(pr, j, prec))
        return out

    def dominating_pair(inst):
        """ZDW22's pair for the instance's sampling, from the base's dominating pair RR(e^{eps(inf)}):
        fixed (WOR, replace-one): ((1-g)Q + gP, Q); Poisson (add/remove): the same when d is the larger
        dataset (remove), (Q, (1-g)Q + gP) when d2 is (add)."""
        check_instance(inst, "zdw_pair")
        pair = mixture(inst.gamma, randomized_response_pair(base_ratio(inst)))
        if inst.sampling == "poisson" and len(inst.d2) > len(inst.d):
            return pair.swapped()
        return pair

    def wor_parts(inst):
        """(A, B, R) of a WOR replace-one instance (d, d2 differ at one index i): R the output given i
        not in the batch (the same under d and d2), A and B given i in the batch, under d and d2."""
        check_instance(inst, "wor_parts", "fixed")
        d, d2, b = inst.d, inst.d2, inst.batch_size
        diff = [k for k in range(len(d)) if d[k] != d2[k]]
        if len(d) != len(d2) or len(diff) != 1:
            raise InvalidArgument(f"wor_parts: {inst} is not a replace-one pair differing at one index")
        i, n, m = diff[0], len(d), inst.base.outcomes
        a, bb, r = [_Fr(0)] * m, [_Fr(0)] * m, [_Fr(0)] * m
        with_i = without = 0
        for subset in _it.combinations(range(n), b):
            if i in subset:
                with_i += 1
                for k, v in enumerate(inst.base(tuple(d[s] for s in subset))):
                    a[k] += v
                for k, v in enumerate(inst.base(tuple(d2[s] for s in subset))):
                    bb[k] += v
            else:
                without += 1
                for k, v in enumerate(inst.base(tuple(d[s] for s in subset))):
                    r[k] += v
        a = [x / with_i for x in a]
        bb = [x / with_i for x in bb]
        r = [x / without for x in r] if without else list(bb)
        return a, bb, r

    def wor_moment(j, inst, signed):
        """E_Y[((A - B)/Y)^j] (signed) or E_Y[|A - B|^j / Y^j] (the ternary-|chi|^j divergence of
        (A, B) relative to Y = M(S(d2)) = (1-g) R + g B), exact."""
        if int(j) != j or j < 0:
            raise InvalidArgument(f"wor moment: j={j} must be an integer >= 0")
        j = int(j)
        a, bb, r = wor_parts(inst)
        g = inst.gamma
        total = _Fr(0)
        for ak, bk, rk in zip(a, bb, r):
            y = (1 - g) * rk + g * bk
            x = (ak - bk) / y
            total += y * (x**j if signed else abs(x) ** j)
        return total

    def integer_arg(value, name):
        if isinstance(value, arb):
            if not (value.is_exact() and value.is_integer()):
                raise UnsupportedExpression(f"{name} must be an exact integer")
            return int(value.unique_fmpz())
        if int(value) != value:
            raise InvalidArgument(f"{name}={value} must be an integer")
        return int(value)

    def exact_fn(fn, *integer_positions):
        def precise_fn(*args, dps):
            args = [integer_arg(a, f"argument {k + 1}") if k in integer_positions else a for k, a in enumerate(args)]
            return precise.to_mpf(fn(*args))

        def ball_fn(*args, prec):
            args = [integer_arg(a, f"argument {k + 1}") if k in integer_positions else a for k, a in enumerate(args)]
            with ball.precision(prec):
                return ball.to_arb(fn(*args))

        return precise_fn, ball_fn

    def pair_fn(fn, *integer_positions):
        def apply(*args, **precision):
            args = [integer_arg(a, f"argument {k + 1}") if k in integer_positions else a for k, a in enumerate(args)]
            return fn(*args)

        return apply, apply

    # -- the shipped bound (dpproofs.math.reductions, fixed-size batches, replace-one) -------------------

    def shipped_precise(alpha, gamma, sigma, *, dps):
        from dpproofs.math import reductions as subsampling

        with mp.workdps(dps + precise.GUARD_DPS):
            return subsampling.wbk19_log_moment(integer_arg(alpha, "alpha"), precise.to_mpf(gamma),
                                                precise.to_mpf(sigma), backend="mpmath")

    def shipped_ball(alpha, gamma, sigma, *, prec):
        from dpproofs.math import reductions as subsampling

        with ball.precision(prec):
            return subsampling.wbk19_log_moment(integer_arg(alpha, "alpha"), gamma, sigma, backend="arb")

    def shipped_float(alpha, gamma, sigma):
        from dpproofs.math import reductions as subsampling

        return subsampling.wbk19_log_moment(integer_arg(alpha, "alpha"), _float_of(gamma), _float_of(sigma))

    def shipped_rdp_float(alpha, gamma, sigma):
        from dpproofs.math import reductions as subsampling

        return float(subsampling.wor_replace_one_rdp([_float_of(alpha)], _float_of(gamma), _float_of(sigma))[0])

    def p1_configuration(config):
        """The Gaussian sum-query configuration that realises P1 = ((1-g) N(0) + g N(2), N(0)) (in units
        of C, noise sigma) at the same n, b and sigma: x = 1 replaced by x' = -1, every other record -1."""
        from dpproofs.checker.oracles import subsampled

        if not isinstance(config, subsampled.GaussianSubsampled) or config.sampling != "fixed":
            raise InvalidArgument(f"wor_p1_configuration: {config!r} must be a fixed-size GaussianSubsampled")
        n = len(config.d)
        return subsampled.GaussianSubsampled((1,) + (-1,) * (n - 1), (-1,) * n, "fixed", config.sigma,
                                             batch_size=config.batch_size)

    inst = ("inst", ((_TYPE, instance_type()),))
    pair = ("pair", ((_TYPE, _finite.Pair),))
    j_int = ("j", ((">=", 0), (_INTEGER, None)))
    table = {
        "instance_pair": (*pair_fn(pair_of), (inst,),
                          "the exact pair (M(S(d)), M(S(d2))) of a subsampled instance (every batch enumerated)"),
        "base_rdp": (base_rdp_precise, base_rdp_ball, (("j", ((">", 1),)), inst),
                     "eps(j): max over the instance's neighbouring batch pairs (both orders) of D_j"),
        "zdw_pair": (*pair_fn(dominating_pair), (inst,),
                     "ZDW22's dominating pair of the subsampled instance, built on RR(e^{eps(inf)}) (a finite.Pair)"),
        "wor_chi_moment": (*exact_fn(lambda j, i: wor_moment(j, i, True), 0), (j_int, inst),
                           "E_Y[((A - B)/Y)^j] of a WOR replace-one instance (X = (1-g)R + gA, Y = (1-g)R + gB)"),
        "wor_ternary_chi": (*exact_fn(lambda j, i: wor_moment(j, i, False), 0), (j_int, inst),
                            "E_Y[|A - B|^j / Y^j]: the ternary-|chi|^j divergence of (A, B) relative to Y"),
        "product_pair": (*pair_fn(product), (pair, pair), "(P x P', Q x Q'): two independent steps"),
        "power_pair": (*pair_fn(power, 1), (pair, ("k", ((">=", 1), (_INTEGER, None)))),
                       "the k-fold product of a finite pair (dpproofs.checker.oracles.subsampled.compose)"),
        "rr_dominating_pair": (*pair_fn(lambda pr: randomized_response_pair(
                                   max(_Fr(a) / _Fr(b) for a, b in zip(check_pair(pr, "rr_dominating_pair").p + pr.q,
                                                                      pr.q + pr.p)))), (pair,),
                               "eps-RR at the pair's pure-DP level eps = max_i |log p_i/q_i| (a finite.Pair)"),
        "rr_step_pair": (*pair_fn(lambda c, i: randomized_response_pair(max(
                             _Fr(a) / _Fr(b) for pr in c.step_pairs(i) for a, b in zip(pr.p + pr.q, pr.q + pr.p))), 1),
                         (("C", ((_TYPE, _finite.AdaptiveComposition),)), ("i", ((">=", 0), (_INTEGER, None)))),
                         "eps_i-RR at the max pure-DP level of step i over its prefixes: one pair dominating "
                         "every pair step i may run"),
        "symmetrised": (*pair_fn(symmetrised), (pair,),
                        "Sym(P, Q): positive-loss outcomes, their mirrors, the rest at loss 0 (a finite.Pair)"),
        "hockey_stick_pair": (_pair_fn(_finite.delta, True), _pair_fn(_finite.delta_ball, True),
                              (("eps", ()), pair),
                              "sum_i (p_i - e^eps q_i)_+ at every real eps (e^eps < 1 included)"),
        "wor_p1_configuration": (*pair_fn(p1_configuration), (("config", ((_TYPE, _subsampled.GaussianSubsampled),)),),
                                 "the configuration realising P1 at the same n, b, sigma (a GaussianSubsampled)"),
        "wbk19_shipped_log_moment": (shipped_precise, shipped_ball,
                                     (("alpha", ((">=", 2), (_INTEGER, None))), ("gamma", ((">=", 0), ("<=", 1))),
                                      ("sigma", ((">", 0),))),
                                     "dpproofs.math.reductions.wbk19_log_moment (mpmath / arb backends)"),
    }
    found = {name: _entry(name, p, b, domain, doc) for name, (p, b, domain, doc) in table.items()}
    found.update(dict([
        _accountant_binding("wbk19_shipped_log_moment_float", shipped_float, "iff"),
        _accountant_binding("wor_replace_one_rdp_float", shipped_rdp_float, "fff"),
    ]))
    return found


FUNCTIONS.update(_papers_functions())


# --- end of the Wang-Balle-Kasiviswanathan 2019 and Zhu-Dong-Wang 2022 quantities ------------------

#: sympy names -> function objects, for parsing user text (see dpproofs.verification)
NAMESPACE = {name: binding.symbol for name, binding in FUNCTIONS.items()}
NAMESPACE["Phi"] = Phi

_BY_SYMBOL_NAME = {binding.symbol.__name__: binding for binding in FUNCTIONS.values()}


def _integer_value(value, name):
    if value != int(value):
        raise UnsupportedExpression(f"argument {name}={value} must be an integer")
    return int(value)


# --- mpmath ------------------------------------------------------------------------------------


def evaluate_mp(expr, point, dps):
    """Value of sympy ``expr`` at ``point`` (symbol name -> number), to about ``dps`` digits."""
    with mp.workdps(dps + precise.GUARD_DPS):
        return _mp(sympy.sympify(expr), point, dps)


#: Largest argument of exp (and exponent of a power, times log|base|) the evaluators take: e^(2^40)
#: has a binary exponent of 40 bits; beyond it (``exp(exp(exp(exp(exp(x)))))``) a value would need
#: unbounded time and memory, so the point is unevaluable instead.
MAX_EXPONENT = 2.0**40


def _mp_exp(x):
    if x > MAX_EXPONENT:
        raise NumericalError(f"exp({x}) overflows (argument beyond {MAX_EXPONENT:g})")
    return mp.exp(x)


def _mp(e, point, dps):
    if e.is_Symbol:
        if e.name not in point:
            raise UnsupportedExpression(f"no value for the variable {e.name!r}")
        if isinstance(point[e.name], STRUCTURED_TYPES):  # a vocabulary type: passed as it is
            return point[e.name]
        return precise.to_mpf(point[e.name])
    if e.is_Integer:
        return mp.mpf(int(e))
    if e.is_Rational:
        return mp.mpf(int(e.p)) / int(e.q)
    if e.is_Float:
        return mp.mpf(sympy.Float(e, dps + 5)._mpf_)
    if e is sympy.pi:
        return +mp.pi
    if e is sympy.E:
        return mp.e
    if e in (sympy.oo, -sympy.oo):
        return mp.inf if e is sympy.oo else -mp.inf
    args = [_mp(a, point, dps) for a in e.args]
    if e.is_Add:
        return mp.fsum(args)
    if e.is_Mul:
        return mp.fprod(args)
    if e.is_Pow:
        base, exponent = args
        if e.exp.is_Integer:
            return base ** int(e.exp)
        if base != 0 and abs(exponent) * abs(mp.log(abs(base))) > MAX_EXPONENT:
            raise NumericalError(f"{e} overflows at this point (exponent beyond {MAX_EXPONENT:g})")
        return mp.power(base, exponent)
    simple = {
        sympy.log: mp.log,
        sympy.exp: _mp_exp,
        sympy.erfc: mp.erfc,
        sympy.erf: mp.erf,
        sympy.tanh: mp.tanh,
        sympy.sinh: mp.sinh,
        sympy.cosh: mp.cosh,
        sympy.Abs: abs,
        sympy.floor: mp.floor,
        sympy.ceiling: mp.ceil,
    }
    if e.func in simple:
        if e.func is sympy.log and len(args) == 2:
            return mp.log(args[0]) / mp.log(args[1])
        return simple[e.func](*args)
    if e.func is sympy.Min:
        return min(args)
    if e.func is sympy.Max:
        return max(args)
    if e.func is sympy.binomial:
        return mp.binomial(*args)
    if e.func is Phi:
        return precise.normal_sf(-args[0])  # Phi(x) = 1 - Phi(-x): no cancellation in the tails
    binding = _BY_SYMBOL_NAME.get(getattr(e.func, "__name__", None))
    if binding is not None:
        for position in binding.integer_args:
            args[position] = _integer_value(args[position], f"#{position + 1} of {e.func}")
        binding.check_domain(args, in_ball=False)
        return binding.precise(*args, dps=dps + precise.GUARD_DPS)
    raise UnsupportedExpression(f"cannot evaluate {e.func} in {e}")


# --- arb -------------------------------------------------------------------------------------


def ball_supported(expr):
    """Whether :func:`evaluate_ball` knows every function in ``expr``."""
    try:
        _check_ball(sympy.sympify(expr))
    except UnsupportedExpression:
        return False
    return True


def _ball_exp(x):
    if not x.is_finite() or x.upper() > MAX_EXPONENT:
        raise NumericalError(f"exp of {x} overflows (argument beyond {MAX_EXPONENT:g})")
    return x.exp()


_BALL_SIMPLE = {
    sympy.log: lambda x: x.log(),
    sympy.exp: _ball_exp,
    sympy.erfc: lambda x: x.erfc(),
    sympy.erf: lambda x: x.erf(),
    sympy.tanh: lambda x: x.tanh(),
    sympy.sinh: lambda x: x.sinh(),
    sympy.cosh: lambda x: x.cosh(),
    sympy.Abs: abs,
}


def _check_ball(e):
    if e.is_Atom:
        if e.is_Symbol or e.is_Number or e in (sympy.pi, sympy.E):
            return
        raise UnsupportedExpression(f"no ball evaluation for {e}")
    known = (
        e.is_Add
        or e.is_Mul
        or e.is_Pow
        or e.func in _BALL_SIMPLE
        or e.func in (sympy.Min, sympy.Max, Phi, sympy.binomial)
        or getattr(e.func, "__name__", None) in _BY_SYMBOL_NAME
    )
    if not known:
        raise UnsupportedExpression(f"no ball evaluation for {e.func}")
    for a in e.args:
        _check_ball(a)


def evaluate_ball(expr, point, prec):
    """An arb ball containing the value of sympy ``expr`` at ``point`` (floats exact)."""
    with ball.precision(prec):
        return _ball(sympy.sympify(expr), point, prec)


def _ball(e, point, prec):
    if e.is_Symbol:
        if e.name not in point:
            raise UnsupportedExpression(f"no value for the variable {e.name!r}")
        if isinstance(point[e.name], STRUCTURED_TYPES):  # a vocabulary type: passed as it is
            return point[e.name]
        return ball.to_arb(point[e.name])
    if e.is_Integer:
        return arb(int(e))
    if e.is_Rational:
        return arb(int(e.p)) / int(e.q)
    if e.is_Float:
        with mp.workprec(prec):
            return ball.to_arb(mp.mpf(e._mpf_)) * (1 + arb(0, arb(2) ** (-prec + 2)))
    if e is sympy.pi:
        return arb.pi()
    if e is sympy.E:
        return arb(1).exp()
    args = [_ball(a, point, prec) for a in e.args]
    if e.is_Add:
        return sum(args[1:], args[0])
    if e.is_Mul:
        result = args[0]
        for a in args[1:]:
            result = result * a
        return result
    if e.is_Pow:
        base, exponent = args
        if e.exp.is_Integer:
            return base ** int(e.exp)
        if e.exp == sympy.Rational(1, 2):
            return base.sqrt()
        return (exponent * base.log()).exp()
    if e.func in _BALL_SIMPLE:
        if e.func is sympy.log and len(args) == 2:
            return args[0].log() / args[1].log()
        return _BALL_SIMPLE[e.func](*args)
    if e.func is sympy.Min:
        result = args[0]
        for a in args[1:]:
            result = result.min(a)
        return result
    if e.func is sympy.Max:
        result = args[0]
        for a in args[1:]:
            result = result.max(a)
        return result
    if e.func is sympy.binomial:
        n, k = args
        return arb.bin(n, int(k.unique_fmpz())) if k.is_exact() else (
            (n + 1).lgamma() - (k + 1).lgamma() - (n - k + 1).lgamma()
        ).exp()
    if e.func is Phi:
        return ball.normal_sf(-args[0])
    binding = _BY_SYMBOL_NAME.get(getattr(e.func, "__name__", None))
    if binding is not None:
        for position in binding.integer_args:
            if not (args[position].is_exact() and args[position].is_integer()):
                raise UnsupportedExpression(f"argument #{position + 1} of {e.func} must be an integer")
        binding.check_domain(args, in_ball=True)
        return binding.ball(*args, prec=prec)
    raise UnsupportedExpression(f"no ball evaluation for {e.func} in {e}")


# --- registration: a content package's own quantities ------------------------------------------
#
# The library registers only generic quantities (mechanisms, profiles, finite pairs). A paper's own
# quantities are registered by its content package when the package is imported, with
# :func:`register` or the :func:`quantity` decorator; :func:`load_content` imports every content
# package (found by entry point, :mod:`dpproofs.checker.registry`) so that a claim typed by a user
# sees them all.

#: Domain conditions a content package writes: ``("k", ((">=", 0), (INTEGER, None)))`` marks an
#: argument that must be an exact integer; ``("pair", ((TYPE, Pair),))`` a structured argument.
INTEGER, TYPE = _INTEGER, _TYPE


def register(name, precise, ball=None, *, domain, doc):
    """Register the vocabulary function ``name``: ``precise(*args, dps=...)`` (mpmath) and
    ``ball(*args, prec=...)`` (arb; None: no certified evaluation), ``domain`` a tuple of
    ``(argument, conditions)`` per argument, ``doc`` one line with its source. Returns the sympy
    function. Registering the same evaluator again is a no-op; another one under a taken name
    raises :class:`InvalidArgument`."""
    if not isinstance(name, str) or not name.isidentifier():
        raise InvalidArgument(f"name={name!r} must be an identifier")
    existing = FUNCTIONS.get(name)
    if existing is not None:
        if existing.precise is precise:
            return existing.symbol
        raise InvalidArgument(f"name={name!r} is already a vocabulary function")
    binding = _entry(name, precise, ball, tuple(domain), doc)
    FUNCTIONS[name] = binding
    NAMESPACE[name] = binding.symbol
    _BY_SYMBOL_NAME[binding.symbol.__name__] = binding
    return binding.symbol


def quantity(name=None, *, domain, doc, ball=None):
    """Decorator form of :func:`register` on the precise evaluator: ``@quantity(domain=..., doc=...,
    ball=...)``; the name defaults to the function's. Returns the function unchanged."""

    def decorate(precise):
        register(name or precise.__name__, precise, ball, domain=domain, doc=doc)
        return precise

    return decorate


def register_type(cls):
    """Make ``cls`` a structured argument type (passed to the functions unconverted)."""
    global STRUCTURED_TYPES
    if not isinstance(cls, type):
        raise InvalidArgument(f"cls={cls!r} must be a class")
    if cls not in STRUCTURED_TYPES:
        STRUCTURED_TYPES = STRUCTURED_TYPES + (cls,)
    return cls


def load_content():
    """Import every content package once, so that the quantities they register are known."""
    from dpproofs.checker import registry

    registry.packages()


def namespace():
    """``{name: sympy function}`` of every vocabulary function, content packages' included."""
    load_content()
    return NAMESPACE
