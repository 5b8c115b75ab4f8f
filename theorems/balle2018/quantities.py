"""The quantities of the Balle, Barthe & Gaboardi 2018 modules (arXiv 1807.01647v2), registered
in the vocabulary when the package is imported.

Over one subsampled instance (:class:`dpproofs.checker.oracles.subsampled.Subsampled`: a finite
base, two neighbouring datasets and the sampling, every batch enumerated): the instance's privacy
profile and pure-DP level (``delta_subsampled``, ``eps_subsampled``), the base's over the
instance's neighbouring batches (``delta_base``, ``eps_base``) and at substitution distance up to
k (``delta_base_group``, ``eps_base_group``), ``sampling_fraction`` and ``dataset_size``; the
decomposition of the proof of Theorem 8 (``decomposition_gap``, ``hs_decomposed``). Over a
:class:`Triple` (the components of advanced joint convexity, Theorem 2): ``hs_triple``. Over a
Gaussian sum-query configuration (:class:`dpproofs.checker.oracles.subsampled.GaussianSubsampled`):
its profile and RDP (``delta_sum_query``, ``rdp_sum_query``, by
:mod:`dpproofs.checker.oracles.mixtures`), the symmetric pair ``P*`` (``delta_pstar_sum_query``),
``gamma_sum_query`` and ``sigma_sum_query``.

The instance quantities are the first of the subsampling papers: the Wang-Balle-Kasiviswanathan
2019 and Zhu-Dong-Wang 2022 packages use them through this module (importing it registers them).
"""

import dataclasses
from fractions import Fraction

from flint import arb
from mpmath import mp

from dpproofs.checker import vocabulary
from dpproofs.checker.oracles import finite, mixtures, subsampled
from dpproofs.errors import InvalidArgument
from dpproofs.math import ball, precise

__all__ = [
    "Triple",
    "triples",
    "hockey_stick_combination",
    "poisson_decomposition",
    "decomposition_gap",
    "hockey_stick_decomposed",
    "symmetric_poisson_pair",
]

vocabulary.register_type(subsampled.Subsampled)
vocabulary.register_type(subsampled.GaussianSubsampled)


def poisson_decomposition(instance):
    """``(R, A, added_first)`` of a Poisson add/remove instance: with ``big = small + (y,)``,
    ``M(S(big)) = (1 - gamma) R + gamma A`` where ``R = M(S(small))`` and ``A = E_T[M(T + (y,))]``,
    ``T ~ S(small)`` (the proof of Theorem 8). ``added_first`` says
    whether ``instance.d`` is ``big``. Exact Fractions."""
    if instance.sampling != "poisson":
        raise InvalidArgument(f"sampling={instance.sampling!r}: the decomposition is of Poisson instances")
    d, d2 = instance.d, instance.d2
    added_first = len(d) == len(d2) + 1
    big, small = (d, d2) if added_first else (d2, d)
    if len(big) != len(small) + 1 or not subsampled.is_neighbour(big, small, "add_remove"):
        raise InvalidArgument(f"d={d!r}, d2={d2!r} are not add/remove neighbours")
    rest = list(big)
    for x in small:
        rest.remove(x)
    (y,) = rest
    base, q = instance.base, Fraction(instance.rate)
    r = subsampled.subsampled_distribution(base, small, sampling="poisson", rate=q)
    a = [Fraction(0)] * base.outcomes
    for batch, weight in subsampled.batches(small, sampling="poisson", rate=q).items():
        for j, pj in enumerate(base(batch + (y,))):
            a[j] += weight * pj
    return r, tuple(a), added_first


def decomposition_gap(instance):
    """``max_o |M(S(big))(o) - ((1 - gamma) R + gamma A)(o)|`` (exact; 0 when the decomposition holds)."""
    r, a, added_first = poisson_decomposition(instance)
    pair = instance.pair()
    big = pair.p if added_first else pair.q
    q = Fraction(instance.rate)
    return max(abs(b - ((1 - q) * ri + q * ai)) for b, ri, ai in zip(big, r, a))


def hockey_stick_decomposed(c, a, b, instance, to, positive_part):
    """``sum_o (a0 R + a1 A - c (b0 R + b1 A))_+`` over the outcomes, ``(R, A)`` of
    :func:`poisson_decomposition`, coefficients grouped per component."""
    r, x, _ = poisson_decomposition(instance)
    w = (a[0] - c * b[0], a[1] - c * b[1])
    total = to(0)
    for ri, ai in zip(r, x):
        total += positive_part(w[0] * to(ri) + w[1] * to(ai))
    return total


@dataclasses.dataclass(frozen=True)
class Triple:
    """Three distributions ``mu0, mu1, mu1p`` on the same outcomes (exact Fractions, full support):
    the components of the mixtures ``mu = (1-eta) mu0 + eta mu1``, ``mu' = (1-eta) mu0 + eta mu1p``
    of advanced joint convexity (Theorem 2)."""

    mu0: tuple
    mu1: tuple
    mu1p: tuple

    def __post_init__(self):
        for name in ("mu0", "mu1", "mu1p"):
            object.__setattr__(self, name, subsampled.exact_distribution(name, getattr(self, name)))
        if not len(self.mu0) == len(self.mu1) == len(self.mu1p):
            raise InvalidArgument("mu0, mu1, mu1p must have the same number of outcomes")

    def __str__(self):
        def show(d):
            return "(" + ", ".join(map(str, d)) + ")"
        return f"mu0={show(self.mu0)}, mu1={show(self.mu1)}, mu1p={show(self.mu1p)}"


def hockey_stick_combination(c, a, b, triple, to, positive_part):
    """``sum_i (sum_j a_j nu_j(i) - c sum_j b_j nu_j(i))_+`` for ``nu = (mu0, mu1, mu1p)``.

    ``a``, ``b`` are coefficient triples (numbers of the backend); ``to`` converts the exact
    probabilities; ``positive_part`` is the backend's ``max(., 0)``. With ``a``, ``b`` weights of
    mixtures this is the hockey-stick divergence ``H_c`` of the two mixtures.
    """
    # grouped per component, (a_j - c b_j) nu_j: a shared component cancels exactly when c = 1
    weights = [a[j] - c * b[j] for j in range(3)]
    total = to(0)
    for i in range(len(triple.mu0)):
        nu = (to(triple.mu0[i]), to(triple.mu1[i]), to(triple.mu1p[i]))
        total += positive_part(weights[0] * nu[0] + weights[1] * nu[1] + weights[2] * nu[2])
    return total



def symmetric_poisson_pair(config):
    """``P* = ((1-q) N(0) + q N(1), (1-q) N(0) + q N(-1))`` at the rate and sigma of ``config``
    (Poisson): the pair of ``x = 1`` against ``x' = -1`` with no other record."""
    q = Fraction(config.rate) if config.sampling == "poisson" else config.gamma
    return subsampled.MixturePair((1 - q, q), (Fraction(0), Fraction(1)), (1 - q, q), (Fraction(0), Fraction(-1)), config.sigma)


def triples(min_size=2, max_size=5):
    """Random :class:`Triple` s of full-support rational distributions."""
    from hypothesis import strategies as st

    @st.composite
    def draw_triple(draw):
        size = draw(st.integers(min_size, max_size))
        dists = []
        for _ in range(3):
            w = draw(st.lists(st.integers(1, 100), min_size=size, max_size=size))
            dists.append(tuple(Fraction(x, sum(w)) for x in w))
        return Triple(*dists)

    return draw_triple()


vocabulary.register_type(Triple)

# --- registrations ----------------------------------------------------------------------------------

_INSTANCE = ("instance", ((vocabulary.TYPE, subsampled.Subsampled),))
_TRIPLE = ("triple", ((vocabulary.TYPE, Triple),))
_CONFIG = ("config", ((vocabulary.TYPE, subsampled.GaussianSubsampled),))
_EPS = ("eps", ())
_K = ("k", ((">=", 1), (vocabulary.INTEGER, None)))
_C = ("c", ((">=", 0),))
_ALPHA = ("alpha", ((">", 1),))


def _max_over(values, ball_mode=False):
    """The largest value; 0 when there is none (a supremum of divergences over no pair)."""
    if not values:
        return arb(0) if ball_mode else mp.zero
    return finite.max_of(values)


def _group_pairs(inst, k):
    return subsampled.group_base_pairs(inst, vocabulary.integer_arg(k, "k"))


def _delta_subsampled_ball(eps, instance, *, prec):
    return finite.delta_ball(instance.pair(), eps, prec)


@vocabulary.quantity(domain=(_EPS, _INSTANCE), ball=_delta_subsampled_ball,
                     doc="H_{e^eps}(M(S(d)) || M(S(d2))) of the instance, every batch enumerated (exact pair)")
def delta_subsampled(eps, instance, *, dps):
    return finite.delta(instance.pair(), eps, dps)


@vocabulary.quantity(domain=(_INSTANCE,), ball=lambda instance, *, prec: finite.epsilon_dp_ball(instance.pair(), prec),
                     doc="max_o |log P(o)/Q(o)| of the subsampled pair: its pure-DP level")
def eps_subsampled(instance, *, dps):
    return finite.epsilon_dp(instance.pair(), dps)


def _delta_base_ball(eps, instance, *, prec):
    return _max_over([finite.delta_ball(p, eps, prec) for p in instance.base_pairs()], True)


@vocabulary.quantity(domain=(_EPS, _INSTANCE), ball=_delta_base_ball,
                     doc="max over neighbouring batches T, T' drawable from d or d2 (both orders) of H_{e^eps}(M(T)||M(T'))")
def delta_base(eps, instance, *, dps):
    return _max_over([finite.delta(p, eps, dps) for p in instance.base_pairs()])


def _eps_base_ball(instance, *, prec):
    return _max_over([finite.epsilon_dp_ball(p, prec) for p in instance.base_pairs()], True)


@vocabulary.quantity(domain=(_INSTANCE,), ball=_eps_base_ball,
                     doc="the pure-DP level of the base over the instance's neighbouring batches")
def eps_base(instance, *, dps):
    return _max_over([finite.epsilon_dp(p, dps) for p in instance.base_pairs()])


def _delta_base_group_ball(eps, k, instance, *, prec):
    return _max_over([finite.delta_ball(p, eps, prec) for p in _group_pairs(instance, k)], True)


@vocabulary.quantity(domain=(_EPS, _K, _INSTANCE), ball=_delta_base_group_ball,
                     doc="group profile: max over batches T, T' with T' = T with k copies of the differing "
                         "record substituted")
def delta_base_group(eps, k, instance, *, dps):
    return _max_over([finite.delta(p, eps, dps) for p in _group_pairs(instance, k)])


def _eps_base_group_ball(k, instance, *, prec):
    return _max_over([finite.epsilon_dp_ball(p, prec) for p in _group_pairs(instance, k)], True)


@vocabulary.quantity(domain=(_K, _INSTANCE), ball=_eps_base_group_ball,
                     doc="the pure-DP level of the base over the instance's batches at substitution distance 1..k")
def eps_base_group(k, instance, *, dps):
    return _max_over([finite.epsilon_dp(p, dps) for p in _group_pairs(instance, k)])


vocabulary.register(
    "sampling_fraction", lambda instance, *, dps: precise.to_mpf(instance.gamma),
    lambda instance, *, prec: ball.to_arb(instance.gamma), domain=(_INSTANCE,),
    doc="gamma: the Poisson rate, or batch_size / n (fixed size and with replacement)")
vocabulary.register(
    "dataset_size", lambda instance, *, dps: precise.to_mpf(len(instance.d)),
    lambda instance, *, prec: ball.to_arb(len(instance.d)), domain=(_INSTANCE,),
    doc="n = len(d), the size of the first dataset")


def _hs_triple(backend):
    def evaluate(c, a0, a1, a2, b0, b1, b2, triple, **precision):
        if backend == "mp":
            return hockey_stick_combination(c, (a0, a1, a2), (b0, b1, b2), triple, precise.to_mpf,
                                            lambda x: max(x, mp.zero))
        with ball.precision(precision["prec"]):
            return hockey_stick_combination(c, (a0, a1, a2), (b0, b1, b2), triple, ball.to_arb, ball.positive_part)
    return evaluate


def _hs_decomposed(backend):
    def evaluate(c, a0, a1, b0, b1, instance, **precision):
        if backend == "mp":
            return hockey_stick_decomposed(c, (a0, a1), (b0, b1), instance, precise.to_mpf, lambda x: max(x, mp.zero))
        with ball.precision(precision["prec"]):
            return hockey_stick_decomposed(c, (a0, a1), (b0, b1), instance, ball.to_arb, ball.positive_part)
    return evaluate


# mixture weights are unchecked: 1 - beta can be a ball around 0
_COEFFICIENTS = tuple((name, ()) for name in ("a0", "a1", "a2", "b0", "b1", "b2"))

vocabulary.register(
    "hs_triple", _hs_triple("mp"), _hs_triple("ball"), domain=(_C,) + _COEFFICIENTS + (_TRIPLE,),
    doc="sum_i (a.nu(i) - c b.nu(i))_+ for nu = (mu0, mu1, mu1p): H_c of two mixtures of the triple")
vocabulary.register(
    "decomposition_gap", lambda instance, *, dps: precise.to_mpf(decomposition_gap(instance)),
    lambda instance, *, prec: ball.to_arb(decomposition_gap(instance)), domain=(_INSTANCE,),
    doc="max_o |M(S(big))(o) - ((1-q) R + q A)(o)| of a Poisson add/remove instance (exact rationals)")
vocabulary.register(
    "hs_decomposed", _hs_decomposed("mp"), _hs_decomposed("ball"),
    domain=(_C, ("a0", ()), ("a1", ()), ("b0", ()), ("b1", ()), _INSTANCE),
    doc="sum_o (a0 R + a1 A - c (b0 R + b1 A))_+ for R = M(S(small)), A = E_T M(T + y): H_c of two mixtures")
vocabulary.register(
    "delta_sum_query", lambda eps, config, *, dps: mixtures.delta_mixture(config.mixture(), eps, dps),
    lambda eps, config, *, prec: mixtures.delta_mixture_ball(config.mixture(), eps, prec), domain=(_EPS, _CONFIG),
    doc="H_{e^eps} of the subsampled Gaussian sum query on the instance (level-set CDFs; rigorous ball)")
vocabulary.register(
    "rdp_sum_query", lambda alpha, config, *, dps: mixtures.rdp_mixture(config.mixture(), alpha, dps),
    lambda alpha, config, *, prec: mixtures.rdp_mixture_ball(config.mixture(), alpha, prec), domain=(_ALPHA, _CONFIG),
    doc="D_alpha of the subsampled Gaussian sum query on the instance (quadrature; acb.integral)")
vocabulary.register(
    "delta_pstar_sum_query", lambda eps, config, *, dps: mixtures.delta_mixture(symmetric_poisson_pair(config), eps, dps),
    lambda eps, config, *, prec: mixtures.delta_mixture_ball(symmetric_poisson_pair(config), eps, prec),
    domain=(_EPS, _CONFIG),
    doc="H_{e^eps} of P* = ((1-q)N(0)+qN(1), (1-q)N(0)+qN(-1)) at the instance's rate and sigma")
vocabulary.register(
    "gamma_sum_query", lambda config, *, dps: precise.to_mpf(config.gamma),
    lambda config, *, prec: ball.to_arb(config.gamma), domain=(_CONFIG,),
    doc="the rate q or batch_size / n of the instance")
vocabulary.register(
    "sigma_sum_query", lambda config, *, dps: precise.to_mpf(config.sigma),
    lambda config, *, prec: ball.to_arb(config.sigma), domain=(_CONFIG,),
    doc="sigma = noise std / clipping norm of the instance")
