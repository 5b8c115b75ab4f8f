"""The mechanisms dpproofs accounts for: frozen, validated on construction.

Vocabulary (the contract every evaluator and the accountant rely on):

* ``Gaussian(sigma)``: adds ``N(0, sigma**2)`` noise to a query of L2 sensitivity 1.
* ``SampledGaussian(q, sigma)``: Poisson-subsamples each record with probability ``q``, then
  applies ``Gaussian(sigma)`` to a sum of per-record contributions of norm at most 1
  (one DP-SGD step; Abadi et al. 2016, Algorithm 1). Neighbours differ by adding or removing one
  record.
* ``MixtureOfGaussians(sigma, sensitivities, probabilities)``: the Gaussian mechanism whose
  sensitivity is ``sensitivities[i]`` with probability ``probabilities[i]`` (add/remove only).
* ``FixedBatchGaussian(batch_size, dataset_size, sigma)``: draws a batch of exactly ``batch_size``
  of the ``dataset_size`` records uniformly without replacement, independently at every step, then
  applies the Gaussian to the sum of the batch's contributions (norm at most 1 each). Its
  neighbouring relation is replace-one (the dataset size is fixed); ``rate`` is
  ``batch_size / dataset_size``.
* ``Laplace(scale)``: adds Laplace noise of scale ``b`` to a query of L1 sensitivity 1.
* ``SampledLaplace(q, scale)``: Poisson-subsamples each record with probability ``q``, then applies
  ``Laplace(scale)`` (L1 sensitivity 1 per record); add/remove in both accountants, replace-one in
  the RDP accountant (see the class).
* ``RandomizedResponse(epsilon)``: reports one bit truthfully with probability
  ``e^epsilon / (1 + e^epsilon)``; the worst case over all epsilon-DP pairs.
* ``KaryRandomizedResponse(p, k, special=False)``: reports the input's bucket (one of ``k``) with
  probability ``1 - p``, else a uniform one of the ``k``; the pair of two inputs, exactly (with
  ``special=True``, under add/remove: against the uniform output of a special input).
* ``ShuffledGaussian(batch_size, dataset_size, sigma, shuffle)`` (:mod:`dpproofs.mechanisms_shuffle`):
  one epoch of shuffled fixed-size batches; both accountants refuse it (no sound upper bound
  exists), :func:`dpproofs.epsilon_lower_bound` bounds it from below.

All parameters are finite floats; construction raises :class:`dpproofs.InvalidArgument`
(naming the argument, its value and the allowed range) or :class:`dpproofs.InvalidArgumentType`.
Every finite float in the mathematical range is accepted (``sigma > 0``, ``q`` in ``[0, 1]``,
``scale > 0``, ``epsilon > 0``): :mod:`dpproofs.math.limits` states why every such mechanism gets a
sound answer from the accountant in bounded time (``+inf`` at absurdly small ``sigma``, the
``TINY`` floor at huge ``sigma``), and the bounds of the exact evaluator (:func:`dpproofs.rdp`).
"""

import dataclasses
import fractions
import math
import types
from collections.abc import Iterable

import numpy as np

from dpproofs import _validate
from dpproofs.errors import InvalidArgument, InvalidArgumentType
from dpproofs.math import fast
from dpproofs.math import limits
from dpproofs.math import pairs
from dpproofs.math import reductions
from dpproofs.math import total_variation as tv

__all__ = [
    "Mechanism", "Gaussian", "SampledGaussian", "MixtureOfGaussians", "FixedBatchGaussian", "Laplace", "SampledLaplace", "RandomizedResponse",
    "KaryRandomizedResponse", "ZCDP", "RepeatAndSelect",
]

#: Largest order at which the fast evaluator is held to its tolerance (the RDP accountant's
#: ``REFINE_MAX_ORDER``; orders above it get the base mechanism's bound in the replace-one reduction).
FAST_MAX_ORDER = 131072.0


def _ball():
    from dpproofs.math import ball

    return ball


def _precise():
    from dpproofs.math import precise

    return precise


def composed_pure_epsilon(items: "Iterable[tuple[Mechanism, int]]", relation: str) -> "fractions.Fraction | float":
    """The sum of each mechanism's pure epsilon (a float upper bound,
    :meth:`Mechanism.pure_epsilon`) times its count, in exact rational arithmetic (a ``Fraction``),
    or ``inf`` when some mechanism has none. Pure DP composes by summation (Dwork & Roth 2014,
    Theorem 3.16); exact, so that an epsilon equal to it gives delta = 0.

    Args:
        items: ``(mechanism, count)`` pairs.
        relation: the neighbouring relation.

    Returns:
        The sum, or ``math.inf``.
    """
    total = fractions.Fraction(0)
    for mechanism, count in items:
        if not count:  # composed zero times: no loss, whatever its pure epsilon
            continue
        value = mechanism.pure_epsilon(relation)
        if not value < math.inf:
            return math.inf
        total += fractions.Fraction(value) * fractions.Fraction(count)
    return total


def _symmetric(pair):
    """``{"add": pair, "remove": pair}``: a pair whose two orders have the same profile."""
    return {"add": pair, "remove": pair}


def _mixture_directions(rate, sigma):
    """Both orders of ``((1-g) N(0, s^2) + g N(1, s^2), N(0, s^2))`` (one pair if ``g = 1``)."""
    if rate == 1:
        return _symmetric(pairs.GaussianPair(1.0, sigma, "add"))
    return {"add": pairs.GaussianPair(rate, sigma, "add"), "remove": pairs.GaussianPair(rate, sigma, "remove")}


def _sampled_gaussian_replace_one_pairs(rate, sigma, poisson):
    """The PLD accountant's replace-one plan of a sampled Gaussian (Poisson or WOR at rate ``rate``):
    ``(dominating, {"R0": directions, "R1": directions})``, or None at rate 0.

    * dominating, Poisson: the two-sided mixture ``((1-q) N(0) + q N(1), (1-q) N(0) + q N(-1))`` at
      sigma (:class:`~dpproofs.math.pairs.TwoSidedGaussianPair`), which dominates every replace-one
      configuration of a Poisson step in both orders at every epsilon (docs/math.md, "Poisson
      sampling under replace-one: the dominating pair"; this project's proof, claim
      ``accountant.pld.replace_one.poisson.dominating``) and is realised (x = +C, x' = -C, every other
      record 0): the upper and lower ends compose the same pair.
    * dominating, fixed-size batches (and rate 1): P1 = ((1-g) N(0, (s/2)^2) + g N(1, (s/2)^2),
      N(0, (s/2)^2)) (s/2 because the sensitivity is 2), whose profile at eps >= 0 bounds every
      replace-one configuration in both orders (docs/math.md, "Replace-one neighbours": advanced
      joint convexity, Balle, Barthe & Gaboardi 2018, arXiv 1807.01647, Theorem 2); the accountant
      composes its SYMMETRISED pair, which dominates at every eps and so under composition (Zhu,
      Dong & Wang 2022, arXiv 2106.08567v3, Theorem 10: the composition of dominating pairs). Composing
      P1 alone is not justified: worst-case pairs need not survive composition (Lebeda, Regehr,
      Kamath & Steinke 2024, arXiv 2405.20769).
    * realised: neighbouring datasets that exist, so their composed curves are LOWER bounds. R0:
      x' = 0 and every other record 0 (each step is its add/remove pair at sensitivity 1). R1:
      x = -x' of norm C and every other record x' (fixed-size batches: P1 and its swap; Poisson:
      the two-sided mixture at sigma)."""
    if rate == 0:
        return None
    half = sigma / 2
    r0 = _mixture_directions(rate, sigma)
    if not poisson or rate == 1:
        dominating = pairs.GaussianPair(rate, half, "add") if rate < 1 else pairs.GaussianPair(1.0, half, "add")
        return dominating, {"R0": r0, "R1": _mixture_directions(rate, half)}
    two_sided = pairs.TwoSidedGaussianPair(rate, sigma)
    return two_sided, {"R0": r0, "R1": _symmetric(two_sided)}


def _base_replace_one_pairs(at_two, at_one):
    """Replace-one plan of a mechanism without sampling: the pair at sensitivity 2 dominates (and is
    realised: R1), the pair at sensitivity 1 is realised (R0)."""
    return at_two, {"R0": _symmetric(at_one), "R1": _symmetric(at_two)}


class Mechanism:
    """Base class of the mechanism vocabulary.

    A mechanism carries its own analysis, the way a ``scipy.stats`` distribution carries its
    ``_pdf``: the accountants, :func:`dpproofs.rdp`, ``supports()``, the CLI and the integrations
    ask the mechanism and contain no list of mechanism classes. A subclass provides:

    * :meth:`refusal` (``None`` where it is supported; the default: supported everywhere),
    * :meth:`rdp_curve` (float64 upper bounds of the one-step RDP at an array of orders, per
      relation; the RDP accountant), :meth:`rdp_ball` (an arb enclosure of an upper bound at an
      integer order; certified mode), :meth:`rdp_exact` and :meth:`log_moment_exact` (mpmath;
      :func:`dpproofs.rdp`, :func:`dpproofs.log_moment`),
    * :meth:`pld_pairs` (its neighbouring pairs, :mod:`dpproofs.math.pairs`; the PLD accountant),
    * :meth:`total_variation` (an upper bound on one step's total variation, the profile at
      epsilon = 0; default 1: the PLD accountant's exact answer epsilon = 0 where it is small),
    * :attr:`silent` (True when the output ignores the data: zero privacy loss).

    Adding a mechanism is one class here (it registers itself for :meth:`from_dict`).
    """

    _registry = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        Mechanism._registry[cls.__name__] = cls

    # --- what the accountants ask -------------------------------------------------------------

    def refusal(self, accountant: str, relation: str):
        """The :class:`dpproofs.InvalidArgument` an accountant of kind ``accountant`` ("rdp" or
        "pld") raises for this mechanism under ``relation``, or None if it is supported."""
        return None

    @property
    def silent(self) -> bool:
        """Whether the output ignores the data (zero privacy loss), e.g. sampling rate 0."""
        return False

    def rdp_curve(self, orders, relation):
        """Float64 RDP of one application at ``orders`` (numpy array) under ``relation``: within
        ``fast.RTOL`` of the exact value or above it (the reductions: :mod:`dpproofs.math.reductions`)."""
        raise InvalidArgumentType(f"mechanism={self!r} has no RDP analysis")

    def rdp_ball(self, order, relation, prec):
        """arb enclosure of an upper bound on the RDP of one application at the integer ``order``."""
        raise InvalidArgumentType(f"mechanism={self!r} has no certified RDP analysis")

    def rdp_exact(self, alpha, dps):
        """mpmath value of the worst-pair Rényi divergence of one application (add/remove)."""
        raise InvalidArgumentType(f"mechanism={self!r} is not supported by the exact evaluator")

    def log_moment_exact(self, lam, dps):
        """Abadi et al. 2016 (arXiv 1607.00133v2) Eq. 2: ``lam * D_{lam+1}`` (symmetric mechanisms)."""
        precise = _precise()
        import mpmath

        with mpmath.mp.workdps(dps + precise.GUARD_DPS):
            return precise.to_mpf(lam) * self.rdp_exact(lam + 1, dps + precise.GUARD_DPS)

    def check_exact_order(self, name, value, order):
        """Raise InvalidArgument if the exact evaluator cannot answer at ``order`` (default: any order)."""

    def total_variation(self, relation: str) -> float:
        """An upper bound (a float, rounded up, at most 1) on the total variation distance between
        the outputs of one application on any two neighbouring datasets under ``relation``: the
        privacy profile at epsilon = 0, ``delta(0) = sup_S P(S) - Q(S)``, in both orders. The
        accountants compose it (:func:`dpproofs.math.total_variation.composed`): where the composed
        bound is at most delta, the tight epsilon is exactly 0. The default, 1, is always true (a
        mechanism without a useful bound)."""
        return 1.0

    def pure_epsilon(self, relation: str) -> float:
        """An upper bound (rounded up) on the epsilon for which one application is (epsilon, 0)-DP
        under ``relation`` (its RDP at order infinity); default ``inf`` (no pure guarantee, e.g. the
        Gaussian). The RDP accountant composes it (pure DP composes by summation: Dwork & Roth 2014,
        Theorem 3.16) and answers the smaller of the two bounds."""
        return math.inf

    def rdp_dominating(self, relation="add_remove"):
        """A mechanism whose RDP curve under ``relation`` is cheap and bounds this one's in both
        orders (None, the default: this one's own curve is cheap). The PLD accountant starts its
        search from that bound and computes this mechanism's own only where its answer falls back
        to RDP or its bracket is wide."""
        return None

    def pld_lower_post_processing(self):
        """A mechanism whose pair is a post-processing of this one's realised worst-case pair, for
        the PLD accountant's lower end where this one is accounted through :meth:`pld_components`
        (its tight epsilon is then at most this one's); None (the default): the lower end is 0."""
        return None

    def pld_components(self):
        """A composition ``((mechanism, count), ...)`` of which this mechanism is a post-processing
        (so it dominates this one's every divergence, through any composition), for the PLD
        accountant to compose in its place; None (the default) when the mechanism has its own pairs.
        The accountant's lower end is then not a lower bound of this mechanism and is reported as 0."""
        return None

    def pld_pairs(self, relation):
        """The PLD accountant's pairs: under ``"add_remove"`` ``{"add": pair, "remove": pair}`` (the
        same object twice for a symmetric mechanism), under ``"replace_one"`` ``(dominating,
        {"R0": directions, "R1": directions})`` (an upper pair, and pairs of datasets that exist,
        whose curves are lower bounds); None for zero privacy loss."""
        raise InvalidArgumentType(f"mechanism={self!r} has no PLD analysis")

    # --- serialisation ------------------------------------------------------------------------

    def to_dict(self) -> dict:
        """A plain-JSON description: ``{"type": name, **parameters}``."""
        return {"type": type(self).__name__, **dataclasses.asdict(self)}

    @staticmethod
    def from_dict(data: dict) -> "Mechanism":
        """Inverse of :meth:`to_dict`; validates like the constructor."""
        if not isinstance(data, dict) or "type" not in data:
            raise InvalidArgumentType(
                f"data={data!r} must be a dict with a 'type' key, as made by Mechanism.to_dict()"
            )
        kinds = dict(Mechanism._registry)
        kind = _validate.choice("data['type']", data["type"], kinds)
        parameters = {key: value for key, value in data.items() if key != "type"}
        try:
            return kinds[kind](**parameters)
        except TypeError as error:
            raise InvalidArgumentType(f"data={data!r}: {error}") from None


@dataclasses.dataclass(frozen=True)
class Gaussian(Mechanism):
    """Gaussian mechanism with noise multiplier ``sigma`` (sensitivity 1)."""

    sigma: float

    def __post_init__(self):
        object.__setattr__(self, "sigma", _validate.real("sigma", self.sigma, 0, low_open=True))

    def rdp_curve(self, orders, relation):
        # replace-one: sensitivity 2, N(2) vs N(0) = Gaussian(sigma/2)
        return fast.rdp_gaussian(orders, self.sigma if relation == "add_remove" else self.sigma / 2)

    def rdp_ball(self, order, relation, prec):
        return _ball().rdp_gaussian(order, self.sigma if relation == "add_remove" else self.sigma / 2, prec=prec)

    def rdp_exact(self, alpha, dps):
        return _precise().rdp_gaussian(alpha, self.sigma, dps=dps)

    def total_variation(self, relation: str) -> float:
        # L2 sensitivity 1 (add/remove) or 2 (replace-one): erf(d / (2 sqrt 2 sigma)), BW18 Thm 8 at 0
        return tv.gaussian(1.0 if relation == "add_remove" else 2.0, self.sigma)

    def pld_pairs(self, relation):
        at_one = pairs.GaussianPair(1.0, self.sigma, "add")
        if relation == "add_remove":
            return _symmetric(at_one)
        return _base_replace_one_pairs(pairs.GaussianPair(1.0, self.sigma / 2, "add"), at_one)



@dataclasses.dataclass(frozen=True)
class SampledGaussian(Mechanism):
    """Poisson-subsampled Gaussian: sampling rate ``q`` in [0, 1], noise multiplier ``sigma``."""

    q: float
    sigma: float

    def __post_init__(self):
        object.__setattr__(self, "q", _validate.real("q", self.q, 0, 1))
        object.__setattr__(self, "sigma", _validate.real("sigma", self.sigma, 0, low_open=True))

    @property
    def silent(self):
        return self.q == 0

    def rdp_curve(self, orders, relation):
        if relation == "add_remove":
            # the add direction log A_a/(a-1), the max of both (Mironov, Talwar & Zhang 2019, arXiv 1908.10530, Thm 5)
            return fast.rdp_sampled_gaussian(orders, self.q, self.sigma)
        # Mironov 2017 (arXiv 1702.07476v3) Prop. 11 through D minus x: add/remove at 2a and 2a - 1
        return reductions.poisson_replace_one_rdp(
            orders, self.q, self.sigma, fast.rdp_sampled_gaussian, max_order=FAST_MAX_ORDER
        )

    def rdp_dominating(self, relation="add_remove"):
        """Under replace-one, ``Gaussian(sigma)``: its replace-one RDP ``2 alpha / sigma^2`` (L2
        sensitivity 2) bounds this one's at every order (the coupling bound of
        :func:`dpproofs.math.reductions.poisson_replace_one_rdp`, which takes the minimum with it).
        Its own curve needs the add/remove RDP at ``2 alpha`` and ``2 alpha - 1`` up to 10 000: about
        50 ms in a fresh process, where the PLD bracket takes 10 ms and is tight (docs/math.md, "Replace-one
        neighbours and fixed-size batches": the dominating pair). Add/remove: None (its curve is cheap, and the PLD
        accountant's width model starts from it)."""
        return Gaussian(self.sigma) if relation == "replace_one" else None

    def rdp_ball(self, order, relation, prec):
        ball = _ball()

        def add_remove(a):
            return ball.positive_part(ball.log_a_integer(a, self.q, self.sigma, prec=prec)) / (a - 1)

        if relation == "add_remove":
            return add_remove(order)
        if self.q == 0:
            return ball.to_arb(0)
        from flint import arb

        combined = reductions.prop11_combination(arb(order), add_remove(2 * order), add_remove(2 * order - 1))
        return combined.min(reductions.replace_one_gaussian_rdp(order, ball.to_arb(self.sigma)))

    def rdp_exact(self, alpha, dps):
        # the larger of the add and remove directions, each exact (docs/math.md#poisson-subsampled-gaussian)
        return _precise().rdp_sampled_gaussian(alpha, self.q, self.sigma, dps=dps)

    def log_moment_exact(self, lam, dps):
        return _precise().log_moment_sampled_gaussian(lam, self.q, self.sigma, dps=dps)

    def check_exact_order(self, name, value, order):
        """The exact evaluator's bounds (dpproofs.math.limits); q = 0 and q = 1 are closed forms."""
        if self.q in (0.0, 1.0):
            return
        if order > limits.MAX_EXACT_ORDER:
            raise InvalidArgument(
                f"{name}={value!r} is outside the allowed range of the exact sampled-Gaussian evaluator: "
                f"the order must be at most {limits.MAX_EXACT_ORDER:g} (its cost grows with the order)"
            )
        if not limits.SIGMA_TINY <= self.sigma <= limits.SIGMA_HUGE:
            raise InvalidArgument(
                f"sigma={self.sigma!r} is outside the range [{limits.SIGMA_TINY:g}, {limits.SIGMA_HUGE:g}] "
                f"of the exact sampled-Gaussian evaluator (the float Accountant accepts any sigma > 0)"
            )

    def total_variation(self, relation: str) -> float:
        # the record is used with probability q: q times the Gaussian's (math.total_variation)
        return tv.subsampled(self.q, tv.gaussian(1.0 if relation == "add_remove" else 2.0, self.sigma))

    def pld_pairs(self, relation):
        if relation == "replace_one":
            return _sampled_gaussian_replace_one_pairs(self.q, self.sigma, poisson=True)
        if self.q == 0:
            return None
        return _mixture_directions(self.q, self.sigma)



#: How far the probabilities of a :class:`MixtureOfGaussians` may sum from 1: float probabilities as
#: users type them (``[0.1] * 10`` sums to ``1 - 2**-53``), a few ulps per term; the mixture's
#: weights are the probabilities divided by their exact sum.
PROBABILITY_SUM_TOL = 1e-9


@dataclasses.dataclass(frozen=True)
class MixtureOfGaussians(Mechanism):
    """The mixture-of-Gaussians mechanism (Choquette-Choo, Ganesh, Steinke & Thakurta 2023, arXiv
    2310.15526; dp_accounting's ``MixtureOfGaussiansDpEvent``): a Gaussian mechanism of noise
    ``sigma`` whose sensitivity is random, ``sensitivities[i]`` with probability
    ``probabilities[i]``. One dataset gives ``N(0, sigma^2)``, its neighbour (one record added or
    removed) ``sum_i p_i N(c_i, sigma^2)``; by their Corollary 4.7 this scalar pair also dominates
    the vector-valued mechanism whose sensitivity vectors have the norms ``c_i``.
    ``MixtureOfGaussians(s, (0, 1), (1 - q, q))`` is ``SampledGaussian(q, s)``.

    The PLD accountant accounts for it tightly (:class:`dpproofs.math.pairs.MixtureOfGaussiansPair`,
    both orders). The RDP accountant uses ``log(sum_i p_i e^{(alpha-1) alpha c_i^2 / (2 sigma^2)}) /
    (alpha - 1)``, in either order, by joint convexity of ``e^{(alpha - 1) D_alpha}`` (van Erven &
    Harremoës 2014, arXiv 1206.2459v2, Theorem 13) over the component pairs
    (:func:`dpproofs.math.formulas.rdp_mixture_of_gaussians_bound`), min'd with ``Gaussian(sigma /
    c_max)`` (its largest term: ``c_max`` the largest sensitivity of positive probability): sound,
    not tight. Add/remove only (replace-one: refused, as dp_accounting does).

    Args:
        sigma (float): the noise standard deviation (in units of the sensitivities), finite ``> 0``.
        sensitivities (tuple[float, ...]): the ``c_i``, finite and ``>= 0`` (dp_accounting refuses
            negative ones), some ``c_i > 0`` of positive probability being the interesting case
            (else the mechanism is :attr:`silent`).
        probabilities (tuple[float, ...]): the ``p_i`` in ``[0, 1]``, as many as sensitivities,
            summing to 1 within :data:`PROBABILITY_SUM_TOL`.

    Raises:
        InvalidArgument: an argument outside its range, or lengths that differ, naming it.
        InvalidArgumentType: an argument that is not a real number or a sequence of them.
    """

    sigma: float
    sensitivities: tuple
    probabilities: tuple

    def __post_init__(self):
        object.__setattr__(self, "sigma", _validate.real("sigma", self.sigma, 0, low_open=True))
        for name in ("sensitivities", "probabilities"):
            values = getattr(self, name)
            if isinstance(values, (str, bytes, dict)) or not isinstance(values, Iterable):
                raise InvalidArgumentType(f"{name}={values!r} must be a sequence of real numbers")
        sensitivities = tuple(_validate.real(f"sensitivities[{i}]", c, 0) for i, c in enumerate(self.sensitivities))
        probabilities = tuple(_validate.real(f"probabilities[{i}]", p, 0, 1) for i, p in enumerate(self.probabilities))
        if not sensitivities or len(sensitivities) != len(probabilities):
            raise InvalidArgument(
                f"sensitivities={sensitivities!r} and probabilities={probabilities!r} must be non-empty and of "
                f"the same length")
        total = math.fsum(probabilities)
        if abs(total - 1) > PROBABILITY_SUM_TOL:
            raise InvalidArgument(
                f"probabilities={probabilities!r} must sum to 1 (within {PROBABILITY_SUM_TOL:g}; sum: {total!r})")
        object.__setattr__(self, "sensitivities", sensitivities)
        object.__setattr__(self, "probabilities", probabilities)

    @property
    def largest_sensitivity(self) -> float:
        """``c_max``: the largest sensitivity of positive probability (0 if there is none > 0)."""
        return max(c for c, p in zip(self.sensitivities, self.probabilities) if p > 0)

    @property
    def silent(self):
        return self.largest_sensitivity == 0

    def refusal(self, accountant, relation):
        if relation == "replace_one":
            return InvalidArgument(
                f"mechanism={self!r} with relation='replace_one' is not supported: the mixture of Gaussians "
                f"is defined for a record added or removed (dp_accounting accepts MixtureOfGaussiansDpEvent "
                f"only under ADD_OR_REMOVE_ONE and REPLACE_SPECIAL); allowed: relation='add_remove'")
        return None

    def _dominating_sigma(self):
        """``sigma / c_max`` rounded down (less noise: never less loss)."""
        value = self.sigma / self.largest_sensitivity
        exact = fractions.Fraction(self.sigma) / fractions.Fraction(self.largest_sensitivity)
        return value if fractions.Fraction(value) <= exact else math.nextafter(value, 0.0)

    def _weights(self):
        """``(c_i, p_i / sum p)`` of the components of positive probability (exact rationals)."""
        total = sum(fractions.Fraction(p) for p in self.probabilities)
        return [(c, fractions.Fraction(p) / total) for c, p in zip(self.sensitivities, self.probabilities) if p > 0]

    def rdp_curve(self, orders, relation):
        # joint convexity (class docstring): the weighted bound, min'd with Gaussian(sigma / c_max)
        # (its largest term alone); zero loss if silent
        if self.silent:
            return np.zeros(np.shape(orders))
        parts = self._weights()
        mixture = fast.rdp_mixture_of_gaussians(orders, self.sigma, [c for c, _ in parts],
                                                [float(w) for _, w in parts])
        return np.minimum(mixture, fast.rdp_gaussian(orders, self._dominating_sigma()))

    def rdp_ball(self, order, relation, prec):
        ball = _ball()
        if self.silent:
            return ball.to_arb(0)
        from dpproofs.math import formulas

        with ball.precision(prec):
            parts = self._weights()
            mixture = formulas.rdp_mixture_of_gaussians_bound(
                ball.Arb(prec), ball.to_arb(order), ball.to_arb(self.sigma),
                [ball.to_arb(c) for c, _ in parts], [ball.to_arb(w) for _, w in parts])
            return mixture.min(ball.rdp_gaussian(order, self._dominating_sigma(), prec=prec))

    def total_variation(self, relation: str) -> float:
        # joint convexity of the total variation: TV(sum p_i N(c_i), N(0)) <= sum p_i TV(N(c_i), N(0))
        # (weights p_i / sum p), each term rounded up (math.total_variation); the sum of k terms
        # and the division within (k + 1) ulp: raised by 4 (k + 2) ulp
        terms = [p * tv.gaussian(c, self.sigma) for c, p in zip(self.sensitivities, self.probabilities) if p > 0 and c > 0]
        if not terms:
            return 0.0
        value = math.fsum(terms) / math.fsum(self.probabilities)
        return min(1.0, math.nextafter(value * (1 + 4 * (len(terms) + 2) * 2.0**-53), math.inf))

    def pld_pairs(self, relation):
        if self.silent:
            return None
        try:
            return {direction: pairs.MixtureOfGaussiansPair(self.sigma, self.sensitivities, self.probabilities,
                                                             direction)
                    for direction in ("add", "remove")}
        except InvalidArgument:
            # sigma so small against the sensitivities (c_max^2 / (2 sigma^2) above
            # pairs.MOG_MAX_EXPONENT, losses of 1e13 and more) that the pair cannot certify its
            # positions: the dominating Gaussian(sigma / c_max) (class docstring), whose pair the
            # accountant handles at any sigma (dpproofs.math.limits)
            return _symmetric(pairs.GaussianPair(1.0, self._dominating_sigma(), "add"))


@dataclasses.dataclass(frozen=True)
class FixedBatchGaussian(Mechanism):
    """One DP-SGD step on a fixed-size batch: ``batch_size`` of the ``dataset_size`` records drawn
    uniformly WITHOUT replacement, independently at every step, then the Gaussian mechanism on the
    sum of the batch's clipped contributions.

    ``sigma`` is the noise multiplier: noise standard deviation divided by the clipping norm C
    (as in Opacus, and as dp_accounting documents its ``GaussianDpEvent``), whatever the
    neighbouring relation. A record's clipped contribution has norm at most C, so replacing one
    record moves the sum by up to 2C (replace-one sensitivity 2 in units of C); adding or removing
    one moves it by up to C. The accountant handles that factor; never rescale sigma yourself.

    The loader this models draws each batch afresh (b of n uniformly, independently of the other
    steps). It is NOT the common shuffled-epoch loader (a random permutation cut into consecutive
    batches): there is no tight analysis of that, and neither Poisson nor this accounting applies
    to it as such (:class:`dpproofs.ShuffledGaussian`; certified lower bounds:
    :func:`dpproofs.epsilon_lower_bound`).

    ``batch_size`` and ``dataset_size`` are integers with ``1 <= batch_size <= dataset_size``;
    ``sigma > 0`` finite. ``rate`` is ``batch_size / dataset_size`` (gamma). The dataset size is
    public and fixed, so the accountant accounts for it under ``relation="replace_one"`` only.
    """

    batch_size: int
    dataset_size: int
    sigma: float

    def __post_init__(self):
        dataset_size = _validate.integer("dataset_size", self.dataset_size, 1)
        batch_size = _validate.integer("batch_size", self.batch_size, 1, dataset_size)
        object.__setattr__(self, "dataset_size", dataset_size)
        object.__setattr__(self, "batch_size", batch_size)
        object.__setattr__(self, "sigma", _validate.real("sigma", self.sigma, 0, low_open=True))

    @property
    def rate(self):
        """``batch_size / dataset_size``: the probability that a given record is in the batch."""
        return self.batch_size / self.dataset_size

    def refusal(self, accountant, relation):
        return reductions.unsupported(self, relation)

    def rdp_curve(self, orders, relation):
        # Wang, Balle & Kasiviswanathan 2019 (arXiv 1808.00087v2) Thm 9, Gaussian at sensitivity 2; pair: the batch with x vs the
        # batch with x' (coupled), worst realised pair ((1-g)N(0)+gN(2), N(0)) and its swap
        gamma = reductions.gamma_upper(self.batch_size, self.dataset_size)
        return reductions.wor_replace_one_rdp(orders, gamma, self.sigma)

    def rdp_ball(self, order, relation, prec):
        gamma = fractions.Fraction(self.batch_size, self.dataset_size)  # exact
        return reductions.wor_replace_one_rdp_integer(order, gamma, self.sigma, backend="arb")

    def total_variation(self, relation: str) -> float:
        if relation != "replace_one":
            return 1.0  # not supported under add/remove (refusal): no bound claimed
        # the replaced record is in the batch with probability b/n: b/n times the Gaussian's at
        # sensitivity 2 (math.total_variation)
        rate = reductions.gamma_upper(self.batch_size, self.dataset_size)
        return tv.subsampled(rate, tv.gaussian(2.0, self.sigma))

    def pld_pairs(self, relation):
        rate = reductions.gamma_upper(self.batch_size, self.dataset_size)
        return _sampled_gaussian_replace_one_pairs(rate, self.sigma, poisson=False)



@dataclasses.dataclass(frozen=True)
class Laplace(Mechanism):
    """Laplace mechanism with scale ``scale`` (sensitivity 1; it is (1/scale)-DP)."""

    scale: float

    def __post_init__(self):
        object.__setattr__(self, "scale", _validate.real("scale", self.scale, 0, low_open=True))

    def rdp_curve(self, orders, relation):
        # replace-one: L1 sensitivity 2, Laplace(scale/2)
        return fast.rdp_laplace(orders, self.scale if relation == "add_remove" else self.scale / 2)

    def rdp_ball(self, order, relation, prec):
        return _ball().rdp_laplace(order, self.scale if relation == "add_remove" else self.scale / 2, prec=prec)

    def rdp_exact(self, alpha, dps):
        return _precise().rdp_laplace(alpha, self.scale, dps=dps)

    def total_variation(self, relation: str) -> float:
        # L1 sensitivity 1 (add/remove) or 2 (replace-one): 1 - e^{-d/(2b)}
        return tv.laplace(1.0 if relation == "add_remove" else 2.0, self.scale)

    def pure_epsilon(self, relation: str) -> float:
        """``d / scale`` at L1 sensitivity ``d`` (1 under add/remove, 2 under replace-one; Dwork &
        Roth 2014, Theorem 3.6), rounded up (one division: within half an ulp)."""
        return math.nextafter((1.0 if relation == "add_remove" else 2.0) / self.scale, math.inf)

    def pld_pairs(self, relation):
        at_one = pairs.LaplacePair(self.scale)
        if relation == "add_remove":
            return _symmetric(at_one)
        return _base_replace_one_pairs(pairs.LaplacePair(self.scale / 2), at_one)



@dataclasses.dataclass(frozen=True)
class RandomizedResponse(Mechanism):
    """Binary randomized response that is exactly ``epsilon``-DP."""

    epsilon: float

    def __post_init__(self):
        object.__setattr__(
            self, "epsilon", _validate.real("epsilon", self.epsilon, 0, low_open=True)
        )

    # epsilon-DP under either relation: the relation changes nothing

    def rdp_curve(self, orders, relation):
        return fast.rdp_randomized_response(orders, self.epsilon)

    def rdp_ball(self, order, relation, prec):
        return _ball().rdp_randomized_response(order, self.epsilon, prec=prec)

    def rdp_exact(self, alpha, dps):
        return _precise().rdp_randomized_response(alpha, self.epsilon, dps=dps)

    def total_variation(self, relation: str) -> float:
        return tv.randomized_response(self.epsilon)  # tanh(eps/2), under either relation

    def pure_epsilon(self, relation: str) -> float:
        """``epsilon`` itself (exactly epsilon-DP, under either relation)."""
        return self.epsilon

    def pld_pairs(self, relation):
        eps = self.epsilon
        p = 1.0 / (1.0 + math.exp(-eps))  # e^eps / (1 + e^eps)
        pair = pairs.FinitePair(((eps, p), (-eps, 1.0 - p)))
        if relation == "add_remove":
            return _symmetric(pair)
        return _base_replace_one_pairs(pair, pair)



@dataclasses.dataclass(frozen=True)
class KaryRandomizedResponse(Mechanism):
    """k-ary randomized response: on input bucket ``x`` (one of ``k``) it outputs ``x`` with
    probability ``1 - p``, else a bucket drawn uniformly from all ``k`` (dp_accounting's
    ``RandomizedResponseDpEvent(noise_parameter=p, num_buckets=k)``).

    The pair analysed, exactly, is the two inputs' output distributions ``(R(x), R(x'))``,
    ``x != x'``: ``1 - p + p/k`` and ``p/k`` swapped on the two true buckets, ``p/k`` on each of
    the ``k - 2`` others (dp_accounting 0.6's ``REPLACE_ONE`` pair,
    ``rdp_privacy_accountant._randomized_response_rdp_replace_one``); its privacy loss takes the
    values ``+-t`` and ``0``, ``t = log(1 + k (1 - p)/p)``, so the mechanism is exactly ``t``-DP.
    Under ``"replace_one"`` that is the worst pair of neighbours, whatever ``special``.

    Under ``"add_remove"`` the neighbour of a record is its absence, and what the mechanism
    outputs then must be said:

    * ``special=False`` (default): the same two-input pair, an upper bound whatever an absent
      record outputs, as long as that is the output of some input or a mixture of inputs' outputs
      (joint convexity of the hockey-stick divergences and of ``e^{(a-1) D_a}``, van Erven &
      Harremoes 2014, arXiv 1206.2459v2, Thm 13);
    * ``special=True``: the absent record is dp_accounting's special input, whose output is
      uniform on the ``k`` buckets (its ``REPLACE_SPECIAL`` analysis,
      ``privacy_loss_distribution.from_randomized_response``): the pair ``(R(x), U)`` in both
      orders, exactly. ``U`` is the average of ``R(y)`` over the ``k`` inputs, so this pair is
      below the two-input one. Its log-ratios are ``log(1 + (k-1)(1-p))`` and ``log p``.

    For ``k = 2`` (two-input pair) this is ``RandomizedResponse(t)``; for ``k >= 3`` it is
    strictly below it at every finite order (binary ``t``-RR is the worst ``t``-DP pair: Mironov
    2017, arXiv 1702.07476v3, Prop. 5).

    Args:
        p (float): the probability of replacing the input by a uniform bucket, in ``(0, 1)``
            (``p = 1`` ignores the input and ``p = 0`` is not private: neither is a mechanism here).
        k (int): the number of buckets, an integer ``>= 2`` of any size (``10**400`` is accepted:
            only ``log k`` and ``p/k`` enter the formulas).
        special (bool): under ``"add_remove"``, an absent record outputs the uniform distribution
            (dp_accounting's special input); False: any input's output (the two-input pair).

    Raises:
        InvalidArgument: ``p`` outside ``(0, 1)`` or ``k < 2``, naming the argument and range.
        InvalidArgumentType: ``p`` not a real number or ``k`` not an integer.
    """

    p: float
    k: int
    special: bool = False

    def __post_init__(self):
        object.__setattr__(self, "p", _validate.real("p", self.p, 0, 1, low_open=True, high_open=True))
        object.__setattr__(self, "k", _validate.integer("k", self.k, 2))
        if not isinstance(self.special, bool):
            raise InvalidArgumentType(f"special={self.special!r} must be a bool (True or False)")

    def _uniform_pair(self, relation):
        """Whether ``relation`` is answered with the special pair ``(R(x), U)``."""
        return self.special and relation == "add_remove"

    @property
    def log_ratio(self) -> float:
        """``t = log(1 + k (1 - p)/p)`` in float64 (within a few ulps; :meth:`pure_epsilon` is it
        rounded up)."""
        return fast.kary_randomized_response_log_ratio(self.p, self.k)

    def rdp_curve(self, orders, relation):
        if self._uniform_pair(relation):
            return fast.rdp_kary_randomized_response_special(orders, self.p, self.k)
        return fast.rdp_kary_randomized_response(orders, self.p, self.k)

    def rdp_ball(self, order, relation, prec):
        if self._uniform_pair(relation):
            return _ball().rdp_kary_randomized_response_special(order, self.p, self.k, prec=prec)
        return _ball().rdp_kary_randomized_response(order, self.p, self.k, prec=prec)

    def rdp_exact(self, alpha, dps):
        """The exact RDP under add/remove (:func:`dpproofs.rdp`'s relation): the special pair's
        (both orders) if ``special``, else the two-input pair's."""
        if self.special:
            return _precise().rdp_kary_randomized_response_special(alpha, self.p, self.k, dps=dps)
        return _precise().rdp_kary_randomized_response(alpha, self.p, self.k, dps=dps)

    def _special_logs(self):
        """``(log r1, log p)`` of the special pair in float (a few ulps), ``r1 = 1 + (k-1)(1-p)``."""
        if self.k < 2**1000:
            return math.log1p((self.k - 1) * (1.0 - self.p)), math.log(self.p)
        return math.log(self.k) + math.log1p(-self.p), math.log(self.p)

    def total_variation(self, relation: str) -> float:
        """``1 - p`` (two inputs: ``a - b``) or ``(1 - p)(1 - 1/k)`` (the special pair), rounded up."""
        exact = fractions.Fraction(1) - fractions.Fraction(self.p)
        if self._uniform_pair(relation):
            exact *= fractions.Fraction(self.k - 1, self.k)
        return min(1.0, math.nextafter(float(exact), math.inf))

    def pure_epsilon(self, relation: str) -> float:
        """``t = log(1 + k (1 - p)/p)`` (two inputs) or ``max(log(1 + (k-1)(1-p)), -log p)`` (the
        special pair), each the logarithm of an exact rational rounded up to a float
        (:func:`dpproofs.math.fast.log_rounded_up`): tight to one float, so that an accountant's
        delta at an epsilon equal to it is exactly 0 (dp_accounting's tests ask delta(1) = 0 where
        the largest loss is 0.99999999999999996)."""
        p, k = fractions.Fraction(self.p), self.k
        if self._uniform_pair(relation):
            return max(fast.log_rounded_up(1 + (k - 1) * (1 - p)), fast.log_rounded_up(1 / p))
        return fast.log_rounded_up(1 + k * (1 - p) / p)

    def pld_pairs(self, relation):
        p, k = fractions.Fraction(self.p), self.k
        if self._uniform_pair(relation):
            # (R(x), U): under R(x) loss log r1 w.p. 1 - p + p/k, log p w.p. (k-1) p/k; under U
            # the negated losses w.p. 1/k and (k-1)/k; masses rounded once from exact rationals
            log_r1, log_p = self._special_logs()
            remove = pairs.FinitePair(((log_r1, float(1 - p + p / k)), (log_p, float((k - 1) * p / k))))
            add = pairs.FinitePair(((-log_r1, float(fractions.Fraction(1, k))), (-log_p, float(fractions.Fraction(k - 1, k)))))
            return {"add": add, "remove": remove}
        t = self.log_ratio
        # masses rounded once each from exact rationals (a huge k is fine; p/k may underflow to 0)
        pair = pairs.FinitePair(((t, float(1 - p + p / k)), (-t, float(p / k)), (0.0, float(p * (k - 2) / k))))
        if relation == "add_remove":
            return _symmetric(pair)
        return _base_replace_one_pairs(pair, pair)


@dataclasses.dataclass(frozen=True)
class ZCDP(Mechanism):
    """A step given only by its zero-concentrated DP guarantee: ``(xi, rho)``-zCDP, i.e. Rényi DP
    ``xi + rho * alpha`` at every order ``alpha > 1`` (Bun & Steinke 2016, arXiv 1605.02065v3,
    Definition 1.1; dp_accounting's ``ZCDpEvent``). The guarantee is taken as stated, under the
    accountant's relation. RDP accountant only: a zCDP bound is not a pair of distributions, so the
    PLD accountant refuses it.

    ``rho >= 0`` and ``xi >= 0`` finite.
    """

    rho: float
    xi: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "rho", _validate.real("rho", self.rho, 0))
        object.__setattr__(self, "xi", _validate.real("xi", self.xi, 0))

    def refusal(self, accountant, relation):
        if accountant == "pld":
            return InvalidArgument(
                f"mechanism={self!r} is not supported by the PLD accountant: a zCDP guarantee is a bound on "
                f"Rényi divergences, not a pair of output distributions; allowed: the RDP accountant (dpproofs.Accountant)"
            )
        return None

    @property
    def silent(self):
        return self.rho == 0 and self.xi == 0

    def rdp_curve(self, orders, relation):
        # two roundings (a product and a sum): raised by 4 ulps relative, then one float
        value = self.xi + self.rho * np.asarray(orders, dtype=np.float64)
        return np.nextafter(value * (1 + 4 * 2.0**-53), np.inf)

    def rdp_ball(self, order, relation, prec):
        from flint import arb, ctx

        saved = ctx.prec
        ctx.prec = prec
        try:
            return arb(self.xi) + arb(self.rho) * arb(order)
        finally:
            ctx.prec = saved

    def rdp_exact(self, alpha, dps):
        import mpmath

        with mpmath.mp.workdps(dps):
            return mpmath.mpf(self.xi) + mpmath.mpf(self.rho) * mpmath.mpf(alpha)


# --- the Poisson-subsampled Laplace mechanism --------------------------------------------------
#
# Neighbouring pairs (add/remove): with (P, Q) = (Lap(0, b), Lap(1, b)) the dominating pair of the
# Laplace mechanism at L1 sensitivity 1, Poisson subsampling at rate q has the dominating pairs
# ((1-q) P + q Q, P) and (P, (1-q) P + q Q) (Zhu, Dong & Wang 2022, arXiv 2106.08567v3, Theorem 11):
# the "add" and the "remove" direction. On the line u, the likelihood ratio R = Q/P = e^{(2u-1)/b}
# on [0, 1] and is constant outside it (e^{-1/b} below 0, e^{1/b} above 1): each direction is two
# loss atoms plus a continuous part on [0, 1].
#
# Rényi divergence of each direction at order a > 1, K(a) = (a - 1) D_a, with X = q (R - 1) under P
# (E_P[R] = 1, so E[X] = 0, and X lies in [c_- - 1, c_+ - 1], c_-+ = 1 - q + q e^{-+1/b}):
#   add:    e^{K} = E_P[(1 + X)^a],        remove: e^{K} = E_P[(1 + X)^{1-a}].
# Upper bound used by the RDP accountant (both directions at once, any real a > 1): Taylor's
# theorem with the Lagrange remainder around 0, f(1 + X) = 1 + f'(1) X + f''(1 + xi) X^2 / 2, and
# E[X] = 0, give e^{K} <= 1 + a (a - 1)/2 * w * q^2 chi2 with chi2 = E_P[(R - 1)^2] =
# e^{D_2(Lap)} - 1 = (2/3) e^{1/b} + (1/3) e^{-2/b} - 1 (Mironov 2017, arXiv 1702.07476v3, Table II
# at order 2) and w the largest value of f''/(a (a-1)) on the range: (1 + x)^{a-2} (add) and
# (1 + x)^{-a-1} (remove), i.e. w = max(c_+^{a-2}, c_-^{-(a+1)}) (the other end values are smaller).
# It is min'd with the Laplace's own RDP (quasi-convexity: a mixture is no further from P than Q
# is; van Erven & Harremoes 2014, arXiv 1206.2459v2, Thm 13, joint convexity of e^{(a-1) D_a}).
# The bound is close to tight for small q at small orders (the exact value is
# 1 + a(a-1)/2 q^2 chi2 + O(q^3)) and follows the exact a log c_+ growth at large orders.
# The exact divergences (dpproofs.rdp, the claims' reference) are 1-D integrals: at integer
# orders the add direction is the binomial sum of the Laplace moments E_P[R^j] = e^{(j-1) D_j}.


def _sampled_laplace_log_moment_bound(alpha, q, b, ops):
    """``(K, log_w)``: the upper bound on ``K(alpha) = (alpha - 1) D_alpha`` of both directions of
    the Poisson-sampled Laplace pair (the section comment) and its ``log w``, written once for a
    backend ``ops`` (Python floats, or :func:`dpproofs.math.reductions.backend`'s arb).
    ``chi2 = (e^t - 1)^2 (2 e^t + 1) / (3 e^{2t})``, ``t = 1/b``: the same number as
    ``(2/3) e^t + (1/3) e^{-2t} - 1`` without its cancellation."""
    t = 1 / b
    log_c_plus = ops.log1p(q * ops.expm1(t))
    log_c_minus = ops.log1p(q * ops.expm1(-t))  # < 0
    chi2 = ops.expm1(t) ** 2 * (2 * ops.exp(t) + 1) / (3 * ops.exp(2 * t))
    log_w = ops.maximum((alpha - 2) * log_c_plus, -(alpha + 1) * log_c_minus)
    return ops.log1p(alpha * (alpha - 1) / 2 * q * q * chi2 * ops.exp(log_w)), log_w


_ULP = 2.0**-52
#: Python floats through the C library's correctly rounded or 1-ulp functions (numpy's vectorised
#: ones may be a few ulp off, which the rounding allowance below does not cover)
_PYTHON_FLOATS = types.SimpleNamespace(log1p=math.log1p, expm1=math.expm1, exp=math.exp, maximum=max)


def _sampled_laplace_rdp_float(alpha, q, b):
    """Float64 upper bound on the sampled-Laplace RDP at order ``alpha`` (before the min with the
    Laplace's own): :func:`_sampled_laplace_log_moment_bound` in float, raised for its rounding.
    Every quantity in it is positive and comes from at most 12 correctly rounded or few-ulp
    operations (exp, expm1, log1p: <= 1 ulp in CPython's libm), except ``w = e^{log_w}``, whose
    relative error is at most ``4 ulp (|log_w| + 1)`` (the error of ``log_w`` as a product of
    ``alpha`` and a logarithm, amplified by exp). Hence ``log1p``'s argument is within
    ``(32 + 4 (|log_w| + 1)) ulp`` relative, and so is ``K`` (``log1p`` is sub-linear); we add twice
    that, and one ulp per division."""
    try:
        k, log_w = _sampled_laplace_log_moment_bound(alpha, q, b, _PYTHON_FLOATS)
    except OverflowError:
        return math.inf
    if not math.isfinite(k):
        return math.inf
    k *= 1 + 2 * (32 + 4 * (abs(log_w) + 1)) * _ULP
    return math.nextafter(k / (alpha - 1) * (1 + 4 * _ULP), math.inf)


class _SampledLaplacePair:
    """One direction of the Poisson-sampled Laplace pair on the line v along which the loss
    increases: P = p0 L0 + p1 L1, Q = q0 L0 + q1 L1 with L0 = Lap(0, b), L1 = Lap(1, b). "add":
    (p, q) = ((1-q, q), (1, 0)); "remove", mirrored (v -> 1 - v swaps L0 and L1) so that the loss
    increases: ((0, 1), (q, 1-q)). On [0, 1] the ratio r = L1/L0 = e^{(2v-1)/b}; outside, the loss is
    constant: two atoms. The interface of :mod:`dpproofs.math.pairs` (cell masses in closed form,
    relative error a few ulp, bounded by 16 ulp as for the Laplace pair; edge rounding via
    ``edge_ratio``)."""

    def __init__(self, q, b, direction):
        self.q, self.b = float(q), float(b)
        self.direction = direction
        if direction == "add":
            self.p_w, self.q_w = (1.0 - q, q), (1.0, 0.0)
        else:
            self.p_w, self.q_w = (0.0, 1.0), (q, 1.0 - q)
        e = math.exp(-1.0 / self.b)
        # the two atoms: v <= 0 (L0 mass 1/2, L1 mass e^{-1/b}/2) and v >= 1 (L0 e^{-1/b}/2, L1 1/2)
        below_p, _ = self._mix(0.5, 0.5 * e)
        above_p, _ = self._mix(0.5 * e, 0.5)
        # their losses, log(P/Q) in closed form: log(1 - q + q e^{-+1/b}), negated for "remove"
        # (as the ratio of the masses above, P/Q was 0/0 or x/0 once e^{-1/b} underflows: b < 1/745)
        near = math.log1p(q * math.expm1(-1.0 / self.b))
        far = pairs._log_mixture(q, 1.0 / self.b)
        self.min_loss, self.max_loss = (near, far) if direction == "add" else (-far, -near)
        self.atoms = ((self.min_loss, below_p), (self.max_loss, above_p))

    def _mix(self, m0, m1):
        return self.p_w[0] * m0 + self.p_w[1] * m1, self.q_w[0] * m0 + self.q_w[1] * m1

    def loss_range(self, tail_z):
        return self.min_loss, self.max_loss

    def positions(self, levels):
        """v in [0, 1] with loss(v) = level (levels clipped to the loss range)."""
        lev = np.clip(np.asarray(levels, dtype=np.float64), self.min_loss, self.max_loss)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            # (p0 + p1 r) = e^l (q0 + q1 r)  ->  r = (e^l q0 - p0) / (p1 - e^l q1): add
            # r = (e^l - (1-q)) / q, remove r = q / (e^{-l} - (1-q)); log r without overflow
            if self.direction == "add":
                log_r = pairs._log_excess_ratio(lev, self.q)
            else:
                log_r = -pairs._log_excess_ratio(-lev, self.q)
            v = (self.b * log_r + 1.0) / 2.0
        v = np.nan_to_num(v, nan=0.0, posinf=1.0, neginf=0.0)
        return np.clip(v, 0.0, 1.0)

    def cell_masses(self, edges):
        b = self.b
        u = self.positions(edges)
        lo, hi = u[:-1], u[1:]
        m0 = np.exp(-lo / b) * -np.expm1(-(hi - lo) / b) / 2      # Lap(0, b) mass of [lo, hi]
        m1 = np.exp((hi - 1) / b) * -np.expm1(-(hi - lo) / b) / 2  # Lap(1, b) mass (no overflow: as LaplacePair)
        p, q = self._mix(m0, m1)
        ep, eq = 16 * pairs.UNIT * p + pairs.SUBNORMAL_ERROR, 16 * pairs.UNIT * q + pairs.SUBNORMAL_ERROR
        self.edge_ratio = pairs._edge_ratio(u)
        zero = (0.0, 0.0)
        return p, q, ep, eq, zero, zero


@dataclasses.dataclass(frozen=True)
class SampledLaplace(Mechanism):
    """Poisson-subsampled Laplace: each record joins the batch independently with probability
    ``q`` in [0, 1], then Laplace noise of scale ``scale > 0`` is added to a query of L1
    sensitivity 1 (per record). Neighbours: add/remove (both accountants) or replace-one (the RDP
    accountant: Mironov 2017 Prop. 11 through D minus x, min'd with Laplace(scale/2); the PLD
    accountant refuses it: no certified replace-one pair is implemented).

    RDP accountant: the upper bound of the section comment above (both directions, every order);
    PLD accountant: both directions ((1-q) Lap(0) + q Lap(1), Lap(0)) and its reverse (Zhu, Dong &
    Wang 2022, arXiv 2106.08567v3, Theorem 11), discretised like every other pair;
    :func:`dpproofs.rdp`: the larger of the two exact divergences, by mpmath quadrature."""

    q: float
    scale: float

    def __post_init__(self):
        object.__setattr__(self, "q", _validate.real("q", self.q, 0, 1))
        object.__setattr__(self, "scale", _validate.real("scale", self.scale, 0, low_open=True))

    def refusal(self, accountant, relation):
        if accountant == "pld" and relation == "replace_one":
            return InvalidArgument(
                f"mechanism={self!r} with relation='replace_one' is not supported by the PLD accountant: no "
                f"certified replace-one pair of the sampled Laplace is implemented; allowed: "
                f"relation='add_remove', or the RDP accountant (dpproofs.Accountant) for replace_one"
            )
        return None

    @property
    def silent(self):
        return self.q == 0

    def _add_remove_curve(self, orders):
        orders = np.asarray(orders, dtype=np.float64)
        laplace = fast.rdp_laplace(orders, self.scale)
        if self.q == 0:
            return np.zeros_like(orders)
        if self.q == 1:
            return laplace
        bound = np.array([_sampled_laplace_rdp_float(float(a), self.q, self.scale) for a in orders.ravel()])
        tiny = float(np.finfo(np.float64).tiny)
        return np.maximum(np.minimum(bound.reshape(orders.shape), laplace), tiny)

    def rdp_curve(self, orders, relation):
        if relation == "add_remove":
            return self._add_remove_curve(orders)
        alpha = np.asarray(orders, dtype=np.float64)
        if self.q == 0:
            return np.zeros_like(alpha)
        # Mironov 2017 (arXiv 1702.07476v3) Prop. 11 through D minus x (add/remove at 2a and 2a - 1),
        # min'd with the Laplace at L1 sensitivity 2 (the coupling bound of dpproofs.math.reductions)
        both = self._add_remove_curve(np.concatenate((2.0 * alpha, 2.0 * alpha - 1.0)))
        combined = reductions.prop11_combination(alpha, both[: len(alpha)], both[len(alpha):]) * (1 + 6 * _ULP)
        return np.minimum(combined, fast.rdp_laplace(alpha, self.scale / 2))

    def rdp_ball(self, order, relation, prec):
        ball = _ball()
        from flint import arb

        if self.q == 0:
            return ball.to_arb(0)
        q, b = ball.to_arb(self.q), ball.to_arb(self.scale)

        def add_remove(a):
            laplace = ball.rdp_laplace(a, self.scale, prec=prec)
            if self.q == 1:
                return laplace
            bound = _sampled_laplace_log_moment_bound(arb(a), q, b, reductions.backend("arb"))[0]
            return (bound / (a - 1)).min(laplace)

        if relation == "add_remove":
            return add_remove(order)
        combined = reductions.prop11_combination(arb(order), add_remove(2 * order), add_remove(2 * order - 1))
        return combined.min(ball.rdp_laplace(order, self.scale / 2, prec=prec))

    def rdp_exact(self, alpha, dps):
        """``max`` of the two directions' exact ``D_alpha``, each ``log(atoms + integral)/(alpha-1)``
        with the integral over [0, 1] by mpmath quadrature (the section comment)."""
        import mpmath

        with mpmath.mp.workdps(dps + 20):
            q, b, a = mpmath.mpf(self.q), mpmath.mpf(self.scale), mpmath.mpf(alpha)
            if q == 0:
                return mpmath.mpf(0)
            values = [sampled_laplace_divergence(a, q, b, direction) for direction in ("add", "remove")]
            return +max(values)

    def total_variation(self, relation: str) -> float:
        # the record is used with probability q: q times the Laplace's (math.total_variation)
        return tv.subsampled(self.q, tv.laplace(1.0 if relation == "add_remove" else 2.0, self.scale))

    def pld_pairs(self, relation):
        if self.q == 0:
            return None
        if self.q == 1:
            return _symmetric(pairs.LaplacePair(self.scale))
        return {"add": _SampledLaplacePair(self.q, self.scale, "add"),
                "remove": _SampledLaplacePair(self.q, self.scale, "remove")}


def sampled_laplace_divergence(alpha, q, b, direction):
    """mpmath ``D_alpha`` of one direction of the Poisson-sampled Laplace pair (the section
    comment): ``add`` = D_a((1-q) P + q Q || P), ``remove`` = D_a(P || (1-q) P + q Q), P = Lap(0, b),
    Q = Lap(1, b); atoms outside [0, 1] in closed form, the continuous part by ``mpmath.quad``."""
    import mpmath

    a, q, b = mpmath.mpf(alpha), mpmath.mpf(q), mpmath.mpf(b)
    power = a if direction == "add" else 1 - a

    def g(u):  # (1 - q + q R(u)) on [0, 1]
        return 1 - q + q * mpmath.exp((2 * u - 1) / b)

    c_minus, c_plus = 1 - q + q * mpmath.exp(-1 / b), 1 - q + q * mpmath.exp(1 / b)
    atoms = c_minus**power / 2 + c_plus**power * mpmath.exp(-1 / b) / 2
    integral = mpmath.quad(lambda u: mpmath.exp(-u / b) / (2 * b) * g(u) ** power, [0, mpmath.mpf(1) / 2, 1])
    return mpmath.log(atoms + integral) / (a - 1)


# --- repeat and select (hyperparameter tuning) --------------------------------------------------

#: Orders ``lambda_hat`` at which Theorem 2 of Papernot & Steinke is minimised, besides the orders
#: the accountant asks for: ``1 + 10^k`` for 161 values of ``k`` evenly spaced in ``[-3, 4]``.
_SELECT_GRID = 1.0 + np.logspace(-3.0, 4.0, 161)
#: Relative widening of a repeat-and-select bound computed in float64: a sum of a few
#: non-negative terms, each a product or quotient of at most four correctly rounded operations on
#: upper bounds (under 20 half-ulps together), doubled.
_SELECT_WIDEN = 40 * 2.0**-53


def _tnb_mean(gamma, shape, mp):
    """Mean of the truncated negative binomial ``TNB(shape, gamma)`` (Papernot & Steinke 2022,
    arXiv 2110.03620v2, Definition 1): ``shape (1 - gamma) / (gamma (1 - gamma^shape))``, and
    ``(1 - gamma) / (gamma log(1/gamma))`` at ``shape = 0`` (the logarithmic distribution)."""
    if shape == 0:
        return (1 - gamma) / (gamma * mp.log(1 / gamma))
    return shape * (1 - gamma) / (gamma * -mp.expm1(shape * mp.log(gamma)))


def _tnb_gamma_lower(mean, shape):
    """A float ``gamma`` at most the ``gamma`` of the truncated negative binomial of this mean and
    shape (so ``log(1/gamma)`` is an upper bound): bisection in mpmath at 40 digits on the mean,
    decreasing in ``gamma`` on ``(0, 1)``, keeping the end whose mean is at least ``mean``."""
    import mpmath

    if mean == 1:
        return 1.0
    with mpmath.mp.workdps(40):
        target = mpmath.mpf(mean)
        low, high = mpmath.mpf(1) / (2 * target), mpmath.mpf(1)
        while _tnb_mean(low, shape, mpmath) < target:
            low /= 2
        for _ in range(200):
            middle = (low + high) / 2
            if _tnb_mean(middle, shape, mpmath) >= target:
                low = middle
            else:
                high = middle
        value = float(low)
        return value if value <= low else math.nextafter(value, 0.0)


@dataclasses.dataclass(frozen=True)
class RepeatAndSelect(Mechanism):
    """Run a composition of mechanisms a random number ``K`` of times and release only the best
    run (hyperparameter tuning; Papernot & Steinke 2022, "Hyperparameter tuning with Renyi
    differential privacy", arXiv 2110.03620v2). dp_accounting's ``RepeatAndSelectDpEvent``.

    ``K`` is truncated negative binomial of shape ``eta = shape`` in ``[0, inf)`` (0: logarithmic,
    1: geometric) with parameter ``gamma`` fixed by ``mean`` (Theorem 2), or Poisson of mean
    ``mean`` (``shape = inf``; Theorem 6). For one run of RDP ``eps(lambda)``:

    * Theorem 2: ``eps(lambda) + (1 + eta)(1 - 1/lambda_hat) eps(lambda_hat)
      + (1 + eta) log(1/gamma)/lambda_hat + log(mean)/(lambda - 1)`` for every ``lambda_hat >= 1``,
      minimised over the orders asked for and a fixed grid; ``mean = 1`` is one run (``K = 1``).
    * Theorem 6: ``eps(lambda) + mean * delta_hat + log(mean)/(lambda - 1)``, ``delta_hat`` an upper
      bound on the run's delta at ``log1p(1/(lambda - 1))`` (the run's RDP converted as the
      accountant does, Balle et al. 2020, arXiv 1905.09982v3, Thm 21, on the same orders; 0 where
      the run's pure epsilon is at most that).

    Rényi divergence is nondecreasing in the order (van Erven & Harremoës 2014, Theorem 3): each
    order's value is then the minimum over the orders at or above it. Pure epsilon (order
    infinity): ``(2 + eta)`` times the run's (Theorem 2 as both orders grow; Corollary 3), ``inf``
    for Poisson. RDP accountant only (float path): the PLD accountant and certified mode refuse it.

    Args:
        inner: the run, a sequence of ``(mechanism, count)`` pairs (a composition; ``count`` an
            integer ``>= 0``); pairs of ``[Mechanism.to_dict(), count]`` are accepted (from_dict).
        mean: the mean of ``K``, a finite float ``>= 1``.
        shape: ``eta`` in ``[0, inf]`` (``inf``, or the string ``"inf"``: Poisson).

    Raises:
        InvalidArgument: ``mean < 1``, ``shape < 0`` or nan, a negative count.
        InvalidArgumentType: an element of ``inner`` that is not a ``(Mechanism, count)`` pair.
    """

    inner: tuple
    mean: float
    shape: float

    def __post_init__(self):
        pairs_in = self.inner
        if isinstance(pairs_in, (str, bytes, dict)) or not hasattr(pairs_in, "__iter__"):
            raise InvalidArgumentType(f"inner={pairs_in!r} must be a sequence of (mechanism, count) pairs")
        checked = []
        for index, pair in enumerate(pairs_in):
            if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
                raise InvalidArgumentType(f"inner[{index}]={pair!r} must be a (mechanism, count) pair")
            mechanism, count = pair
            if isinstance(mechanism, dict):
                mechanism = Mechanism.from_dict(mechanism)
            if not isinstance(mechanism, Mechanism):
                raise InvalidArgumentType(f"inner[{index}][0]={mechanism!r} must be a dpproofs Mechanism")
            checked.append((mechanism, _validate.integer(f"inner[{index}][1]", count, 0)))
        object.__setattr__(self, "inner", tuple(checked))
        object.__setattr__(self, "mean", _validate.real("mean", self.mean, 1))
        shape = self.shape
        if shape == "inf" or (isinstance(shape, (int, float)) and not isinstance(shape, bool) and shape == math.inf):
            shape = math.inf
        else:
            shape = _validate.real("shape", shape, 0)
        object.__setattr__(self, "shape", shape)

    def to_dict(self) -> dict:
        """``{"type": "RepeatAndSelect", "inner": [[mechanism dict, count], ...], "mean", "shape"}``
        (``shape`` ``inf`` as the string ``"inf"``: plain JSON).

        Returns:
            dict: the description :meth:`Mechanism.from_dict` rebuilds.
        """
        return {"type": type(self).__name__, "inner": [[m.to_dict(), c] for m, c in self.inner],
                "mean": self.mean, "shape": "inf" if self.shape == math.inf else self.shape}

    def refusal(self, accountant, relation):
        if accountant == "pld":
            return InvalidArgument(
                f"mechanism={self!r} is not supported by the PLD accountant: repeat-and-select is analysed in "
                f"Rényi DP only (Papernot & Steinke 2022, arXiv 2110.03620v2); allowed: the RDP accountant "
                f"(dpproofs.Accountant)")
        for mechanism, _ in self.inner:
            refusal = mechanism.refusal(accountant, relation)
            if refusal is not None:
                return refusal
        return None

    @property
    def silent(self):
        return all(m.silent or c == 0 for m, c in self.inner)

    def _run_curve(self, orders, relation):
        """Upper bounds on the run's RDP at ``orders`` (each curve raised by ``fast.RTOL``, its
        stated accuracy, and the sum by one ulp per term)."""
        total = np.zeros(len(orders), dtype=np.float64)
        for mechanism, count in self.inner:
            if count:
                total = total + count * np.asarray(mechanism.rdp_curve(orders, relation), dtype=np.float64)
        return total * (1.0 + fast.RTOL + (len(self.inner) + 2) * 2.0**-52)

    def _run_pure_epsilon(self, relation):
        exact = composed_pure_epsilon(self.inner, relation)
        return math.inf if exact == math.inf else fast.fraction_rounded_up(exact)

    def rdp_curve(self, orders, relation):
        orders = np.asarray(orders, dtype=np.float64)
        if self.silent:
            return np.zeros(len(orders))
        if self.mean == 1 and self.shape != math.inf:
            # K = 1: one run, its curve as the accountant composes it (it adds fast.RTOL itself)
            return sum((c * np.asarray(m.rdp_curve(orders, relation), dtype=np.float64)
                        for m, c in self.inner if c), np.zeros(len(orders)))
        # the run at lambda itself as the accountant composes it (within fast.RTOL of exact or above;
        # the accountant adds fast.RTOL to the whole curve, so the sum keeps that contract), raised by
        # a few ulps per term; the runs inside the minimum over lambda_hat and delta_hat are upper
        # bounds (_run_curve)
        run = sum((c * np.asarray(m.rdp_curve(orders, relation), dtype=np.float64)
                   for m, c in self.inner if c), np.zeros(len(orders)))
        run = run * (1.0 + (len(self.inner) + 8) * 2.0**-52)
        grid = np.union1d(orders[orders > 1], _SELECT_GRID)
        run_grid = self._run_curve(grid, relation)
        log_mean = math.log(self.mean)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            tail = log_mean / (orders - 1.0)
            if self.shape != math.inf:  # Theorem 2
                log_inv_gamma = -math.log(_tnb_gamma_lower(self.mean, self.shape))
                terms = (1.0 - 1.0 / grid) * run_grid + log_inv_gamma / grid
                constant = (1.0 + self.shape) * float(np.min(terms))
                value = run + constant + tail
            else:  # Theorem 6
                value = run + self.mean * self._delta_hat(orders, grid, run_grid, relation) + tail
        value = np.where(orders > 1, value, np.inf)
        value = np.nextafter(value * (1.0 + _SELECT_WIDEN), np.inf)
        # RDP is nondecreasing in the order: the minimum over the orders at or above each one
        order = np.argsort(orders)
        suffix = np.minimum.accumulate(value[order][::-1])[::-1]
        result = np.empty_like(value)
        result[order] = suffix
        return result

    def _delta_hat(self, orders, grid, run_grid, relation):
        """Upper bounds on the run's delta at ``log1p(1/(lambda - 1))`` for each order ``lambda``:
        Balle et al. 2020 Thm 21 (``dpproofs.math.conversions``) minimised over ``grid``, plus the
        accountant's slack; 0 where the run's pure epsilon is at most the target."""
        from dpproofs.math import conversions

        pure = self._run_pure_epsilon(relation)
        terms = conversions.order_terms(grid)
        result = np.empty(len(orders))
        for index, alpha in enumerate(orders):
            if not alpha > 1:
                result[index] = np.inf
                continue
            target = math.log1p(1.0 / (alpha - 1.0))
            target = math.nextafter(target * (1 - 4 * 2.0**-52), 0.0)  # the division and log1p, rounded down
            if pure <= target:
                result[index] = 0.0
                continue
            profile = self._profile_delta(target, relation)
            with np.errstate(over="ignore", invalid="ignore"):
                log_delta = conversions.log_delta_at("improved", run_grid, terms, target)
                log_delta = log_delta + conversions.CONVERSION_SLACK * conversions.log_delta_magnitude_at(
                    "improved", run_grid, terms, target)
            best = float(np.nanmin(log_delta))
            converted = math.nextafter(math.exp(best) * (1 + 4 * 2.0**-52), math.inf)
            result[index] = min(1.0, converted, math.inf if profile is None else profile)
        return result

    def _profile_delta(self, epsilon, relation):
        """An upper bound on the run's exact privacy profile at ``epsilon`` where it is known in closed
        form, else None: Gaussians only (one Gaussian of ``mu^2 = sum count (d / sigma)^2``, ``d`` = 1
        or 2 under replace-one; Balle & Wang 2018, arXiv 1805.06530, Theorem 8:
        ``Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)``), or one Laplace of pure epsilon ``e``
        (``1 - exp((eps - e)/2)`` below ``e``, the Laplace mechanism's profile), in mpmath at 30
        digits (the one formula of each, :mod:`dpproofs.math.formulas`, at noise ``1/mu`` and scale
        ``1/e``), rounded up by ``10^-25`` absolute and 4 ulps."""
        import mpmath

        precise = _precise()
        live = [(m, c) for m, c in self.inner if c]
        with mpmath.mp.workdps(30):
            eps = mpmath.mpf(epsilon)
            if live and all(type(m) is Gaussian for m, _ in live):
                d = 1 if relation == "add_remove" else 2
                mu = mpmath.sqrt(mpmath.fsum(c * (mpmath.mpf(d) / mpmath.mpf(m.sigma)) ** 2 for m, c in live))
                value = precise.delta_gaussian(eps, 1 / mu, dps=30)
            elif len(live) == 1 and type(live[0][0]) is Laplace and live[0][1] == 1:
                value = precise.delta_laplace(eps, 1 / mpmath.mpf(live[0][0].pure_epsilon(relation)), dps=30)
            else:
                return None
            bound = float(max(value, 0) + mpmath.mpf(10) ** -25)
        return math.nextafter(bound * (1 + 4 * 2.0**-52), math.inf)

    def pure_epsilon(self, relation: str) -> float:
        if self.silent:
            return 0.0
        if self.shape == math.inf:
            return math.inf
        if self.mean == 1:
            return self._run_pure_epsilon(relation)
        return math.nextafter((2.0 + self.shape) * self._run_pure_epsilon(relation) * (1 + 4 * 2.0**-52), math.inf)

    def rdp_ball(self, order, relation, prec):
        raise InvalidArgument(
            f"mechanism={self!r} has no certified (arb) analysis: repeat-and-select is accounted by the float "
            f"RDP accountant only (dpproofs.Accountant(certified=False))")
