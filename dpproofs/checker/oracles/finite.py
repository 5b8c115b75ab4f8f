"""Finite mechanisms with exact (rational) probabilities: pairs, adaptive compositions, strategies.

The ground truth for claims "for every mechanism / every pair of distributions": a pair
``Pair(p, q)`` holds the output distributions ``M(d)`` and ``M(d')`` of a finite mechanism on a
neighbouring pair, as tuples of ``fractions.Fraction`` (full support, exact sums of 1).
An :class:`AdaptiveComposition` is a tree: step ``i`` maps each prefix of earlier outputs to a
pair, and the joint distribution over output tuples is enumerated exactly.

Quantities come in a precise (mpmath, ``dps``) and a ball (arb, ``prec``) flavour, both exact up
to the final transcendental operations.
"""

import dataclasses
import itertools
import math
from fractions import Fraction

from flint import arb
from hypothesis import strategies as st
from mpmath import mp

from dpproofs.math import ball
from dpproofs.math import precise

__all__ = [
    "Pair",
    "AdaptiveComposition",
    "pairs",
    "adaptive_compositions",
    "epsilon_dp",
    "epsilon_dp_ball",
    "rdp",
    "rdp_ball",
    "delta",
    "delta_ball",
    "log_moment",
    "log_moment_ball",
    "events",
    "neyman_pearson_events",
    "probability",
]


@dataclasses.dataclass(frozen=True)
class Pair:
    """Distributions ``p = M(d)`` and ``q = M(d')`` over outcomes ``0..n-1`` (Fractions)."""

    p: tuple
    q: tuple

    def __post_init__(self):
        if len(self.p) != len(self.q) or not self.p:
            raise ValueError("p and q must be non-empty and of equal length")
        if sum(self.p) != 1 or sum(self.q) != 1:
            raise ValueError("p and q must each sum to exactly 1")
        if any(x <= 0 for x in self.p + self.q):
            raise ValueError("p and q must have full support")

    def swapped(self):
        return Pair(self.q, self.p)

    def __len__(self):
        return len(self.p)


def _normalise(weights):
    total = sum(weights)
    return tuple(Fraction(w) / total for w in weights)


@st.composite
def pairs(draw, min_size=2, max_size=6, max_log_ratio=None):
    """Pairs of full-support distributions with rational probabilities.

    With ``max_log_ratio = eps``, every ``|log(p_i/q_i)| <= eps``: each ratio is drawn as
    ``e^{t eps}`` with ``t in [-1, 1]``, rounded *inward* to a rational, and ``p`` is renormalised
    by mixing with ``q`` until the bound holds exactly (checked in rational arithmetic against
    rational enclosures of ``e^{+-eps}``).
    """
    size = draw(st.integers(min_size, max_size))
    weights = st.integers(1, 1000)
    q = _normalise([draw(weights) for _ in range(size)])
    if max_log_ratio is None:
        p = _normalise([draw(weights) for _ in range(size)])
        return Pair(p, q)
    eps = float(max_log_ratio)
    low = Fraction(math.exp(-eps)) * Fraction(1 + 10**-12)  # strictly inside [e^-eps, e^eps]
    high = Fraction(math.exp(eps)) * Fraction(1 - 10**-12)
    ratios = [Fraction(math.exp(draw(st.floats(-1, 1)) * eps)) for _ in range(size)]
    ratios = [min(max(r, low), high) for r in ratios]
    raw = [r * qi for r, qi in zip(ratios, q)]
    p = _normalise(raw)
    # renormalising divides every ratio by sum(raw); mix p with q until ratios are in range
    mix = Fraction(1)
    while not all(low <= pi / qi <= high for pi, qi in zip(p, q)):
        mix /= 2
        p = tuple(mix * a + (1 - mix) * b for a, b in zip(_normalise(raw), q))
    return Pair(p, q)


@dataclasses.dataclass(frozen=True)
class AdaptiveComposition:
    """``steps[i]`` maps each prefix (tuple of earlier outcomes) to the step-``i`` Pair."""

    steps: tuple

    def prefixes(self, i):
        return list(self.steps[i].keys())

    def step_pairs(self, i):
        """Every pair step ``i`` may run, over all prefixes."""
        return list(self.steps[i].values())

    def joint(self):
        """The exact joint distributions of the output tuples under d and d'."""
        outcomes = [()]
        probabilities = {(): (Fraction(1), Fraction(1))}
        for step in self.steps:
            new = {}
            for prefix in outcomes:
                pair = step[prefix]
                p0, q0 = probabilities[prefix]
                for o in range(len(pair)):
                    new[prefix + (o,)] = (p0 * pair.p[o], q0 * pair.q[o])
            outcomes = list(new)
            probabilities = new
        return Pair(
            tuple(probabilities[o][0] for o in outcomes),
            tuple(probabilities[o][1] for o in outcomes),
        )


@st.composite
def adaptive_compositions(draw, steps=2, max_outcomes=3, max_log_ratio=None):
    """Adaptive compositions: each step's pair may depend on every earlier outcome."""
    tree = []
    prefixes = [()]
    for _ in range(steps):
        step = {}
        next_prefixes = []
        for prefix in prefixes:
            pair = draw(pairs(min_size=2, max_size=max_outcomes, max_log_ratio=max_log_ratio))
            step[prefix] = pair
            next_prefixes += [prefix + (o,) for o in range(len(pair))]
        tree.append(step)
        prefixes = next_prefixes
    return AdaptiveComposition(tuple(tree))


# --- quantities --------------------------------------------------------------------------------


def epsilon_dp(pair, dps=precise.DEFAULT_DPS):
    """The pure-DP level of the pair: ``max_i |log(p_i / q_i)|`` (D_inf in both directions)."""
    with mp.workdps(dps + precise.GUARD_DPS):
        return max(abs(mp.log(precise.to_mpf(a / b))) for a, b in zip(pair.p, pair.q))


def epsilon_dp_ball(pair, prec=ball.DEFAULT_PREC):
    with ball.precision(prec):
        values = [abs(ball.to_arb(a / b).log()) for a, b in zip(pair.p, pair.q)]
        top = values[0]
        for v in values[1:]:
            top = top.max(v)
        return top


def rdp(pair, alpha, dps=precise.DEFAULT_DPS):
    """``D_alpha(P || Q)``; ``alpha = 1`` is KL."""
    return precise.rdp_finite(alpha, pair.p, pair.q, dps=dps)


def rdp_ball(pair, alpha, prec=ball.DEFAULT_PREC):
    """Enclosure of ``D_alpha(P || Q)`` for ``alpha > 1`` (an exact rational alpha or a ball).

    Same excess form as :func:`precise.rdp_finite` (non-negative terms, ``log1p``), so the ball
    stays tight when ``P`` is close to ``Q`` and is exactly 0 when ``P = Q``.
    """
    with ball.precision(prec):
        a = ball.to_arb(alpha)
        total = arb(0)
        for pi, qi in zip(pair.p, pair.q):
            ratio_minus_one = ball.to_arb(Fraction(pi) / Fraction(qi) - 1)
            total += ball.to_arb(qi) * ((a * ratio_minus_one.log1p()).expm1() - a * ratio_minus_one)
        return total.log1p() / (a - 1)


def delta(pair, epsilon, dps=precise.DEFAULT_DPS):
    """Hockey-stick divergence ``sum_i (p_i - e^eps q_i)_+``."""
    return precise.delta_finite(epsilon, pair.p, pair.q, dps=dps)


def delta_ball(pair, epsilon, prec=ball.DEFAULT_PREC):
    with ball.precision(prec):
        factor = ball.to_arb(epsilon).exp()
        return sum(
            (ball.positive_part(ball.to_arb(pi) - factor * ball.to_arb(qi)) for pi, qi in zip(pair.p, pair.q)),
            arb(0),
        )


def log_moment(pair, lam, dps=precise.DEFAULT_DPS):
    """The log moment of one ordering, ``log E_P[(P/Q)^lam] = lam * D_{lam+1}(P || Q)`` (the moments
    accountant's ``alpha(lam)``, Abadi et al. 2016, arXiv 1607.00133v2, Section 3.2).

    Computed through :func:`precise.rdp_finite`, which keeps its digits (and is exactly 0) when
    ``P = Q``.
    """
    with mp.workdps(dps + precise.GUARD_DPS):
        lam = precise.to_mpf(lam)
        return lam * precise.rdp_finite(lam + 1, pair.p, pair.q, dps=dps + precise.GUARD_DPS)


def log_moment_ball(pair, lam, prec=ball.DEFAULT_PREC):
    with ball.precision(prec):
        lam = ball.to_arb(lam)
        return sum(
            ((lam + 1) * ball.to_arb(pi).log() - lam * ball.to_arb(qi).log()).exp()
            for pi, qi in zip(pair.p, pair.q)
        ).log()


def events(pair, limit=2**12):
    """Every event (subset of outcomes) as a tuple of indices; refuses more than ``limit``."""
    n = len(pair)
    if 2**n > limit:
        raise ValueError(f"{2**n} events exceed limit={limit}; use neyman_pearson_events")
    return [s for r in range(n + 1) for s in itertools.combinations(range(n), r)]


def neyman_pearson_events(pair):
    """The likelihood-ratio threshold sets ``{i : p_i/q_i >= t}`` (and the empty set).

    For any ``c``, ``max_S P(S) - c Q(S)`` is attained by one of them (Neyman-Pearson).
    """
    order = sorted(range(len(pair)), key=lambda i: pair.p[i] / pair.q[i], reverse=True)
    return [tuple(sorted(order[:k])) for k in range(len(order) + 1)]


def probability(distribution, event):
    """Exact probability (a Fraction) of an event under ``distribution`` (a tuple of Fractions)."""
    return sum((distribution[i] for i in event), Fraction(0))


# --- Vocabulary evaluators over finite pairs, compositions and events ---------------------------
#
# The functions below are evaluators that dpproofs.checker.vocabulary binds: a precise flavour
# taking ``dps`` and a ball flavour taking ``prec``, with the vocabulary's argument order (numbers
# first, as in the printed formulas). Structured arguments (a Pair, an AdaptiveComposition, an
# Event) pass through the evaluators unconverted.


@dataclasses.dataclass(frozen=True)
class Event:
    """A set of outcome indices. Indices past the end of a pair are not outcomes of it, so one
    drawn event applies to every pair (its trace on the pair's outcomes is what counts)."""

    indices: frozenset

    def on(self, pair):
        """The indices of this event that are outcomes of ``pair`` (sorted tuple)."""
        return tuple(sorted(i for i in self.indices if i < len(pair)))

    def __str__(self):
        return "{" + ", ".join(str(i) for i in sorted(self.indices)) + "}"


def event_sets(max_outcomes):
    """Non-empty events over outcomes ``0 .. max_outcomes - 1``."""
    return st.frozensets(st.integers(0, max_outcomes - 1), min_size=1).map(Event)


def swapped_composition(composition):
    """The composition run on the neighbours in the other order (every step pair swapped)."""
    return AdaptiveComposition(tuple({prefix: pair.swapped() for prefix, pair in step.items()}
                                     for step in composition.steps))


def either_order(strategy):
    """Draws of ``strategy`` (pairs or compositions) in both orders of the neighbouring inputs."""

    def orient(value, swap):
        if not swap:
            return value
        return value.swapped() if isinstance(value, Pair) else swapped_composition(value)

    return st.tuples(strategy, st.booleans()).map(lambda drawn: orient(*drawn))


def _arb_int(value):
    """An exact integer from an int, an integer-valued mpf or an exact integer arb ball."""
    if isinstance(value, arb):
        return int(value.unique_fmpz())
    return int(value)


def l1_distance(pair):
    """``||P - Q||_1`` exactly (a Fraction)."""
    return sum((abs(a - b) for a, b in zip(pair.p, pair.q)), Fraction(0))


def rdp_pair_precise(alpha, pair, *, dps):
    """``D_alpha(P || Q)`` of a finite pair (mp); ``alpha = 1`` is KL."""
    return rdp(pair, alpha, dps)


def rdp_pair_ball(alpha, pair, *, prec):
    """Enclosure of :func:`rdp_pair_precise`; an exact ``alpha = 1`` gives KL, ``sum p log(p/q)``."""
    with ball.precision(prec):
        a = ball.to_arb(alpha)
        if a.is_exact() and a == 1:
            return sum((ball.to_arb(pi) * ball.to_arb(Fraction(pi) / Fraction(qi) - 1).log1p()
                        for pi, qi in zip(pair.p, pair.q)), arb(0))
        return rdp_ball(pair, a, prec)


def delta_pair_precise(epsilon, pair, *, dps):
    """Hockey-stick divergence ``sum_i (p_i - e^eps q_i)_+`` of a finite pair (mp)."""
    return delta(pair, epsilon, dps)


def delta_pair_ball(epsilon, pair, *, prec):
    return delta_ball(pair, epsilon, prec)


def eps_pair_precise(pair, *, dps):
    """``max_i |log(p_i / q_i)|`` (mp)."""
    return epsilon_dp(pair, dps)


def eps_pair_ball(pair, *, prec):
    return epsilon_dp_ball(pair, prec)


def l1_pair_precise(pair, *, dps):
    """``||P - Q||_1`` (exact, rounded once to mp)."""
    return precise.to_mpf(l1_distance(pair))


def l1_pair_ball(pair, *, prec):
    with ball.precision(prec):
        return ball.to_arb(l1_distance(pair))


def prob_p_precise(pair, event, *, dps):
    """``P(A)`` (exact, rounded once to mp)."""
    return precise.to_mpf(probability(pair.p, event.on(pair)))


def prob_p_ball(pair, event, *, prec):
    with ball.precision(prec):
        return ball.to_arb(probability(pair.p, event.on(pair)))


def prob_q_precise(pair, event, *, dps):
    """``Q(A)`` (exact, rounded once to mp)."""
    return precise.to_mpf(probability(pair.q, event.on(pair)))


def prob_q_ball(pair, event, *, prec):
    with ball.precision(prec):
        return ball.to_arb(probability(pair.q, event.on(pair)))


def joint_exact(composition, *, dps=None, prec=None):
    """The joint Pair of an adaptive composition (exact: the same for both evaluators)."""
    return composition.joint()


def rdp_step_precise(alpha, composition, step, *, dps):
    """``max over prefixes of D_alpha(pair of step i)``: the step's worst-case RDP (mp)."""
    return max(rdp(pair, alpha, dps) for pair in composition.step_pairs(_arb_int(step)))


def rdp_step_ball(alpha, composition, step, *, prec):
    with ball.precision(prec):
        values = [rdp_ball(pair, alpha, prec) for pair in composition.step_pairs(_arb_int(step))]
        top = values[0]
        for v in values[1:]:
            top = top.max(v)
        return top


def _all_step_pairs(composition):
    return [pair for i in range(len(composition.steps)) for pair in composition.step_pairs(i)]


def eps_composition_precise(composition, *, dps):
    """``max over steps and prefixes of max_i |log(p_i/q_i)|``: every step is eps-DP (mp)."""
    return max(epsilon_dp(pair, dps) for pair in _all_step_pairs(composition))


def eps_composition_ball(composition, *, prec):
    with ball.precision(prec):
        values = [epsilon_dp_ball(pair, prec) for pair in _all_step_pairs(composition)]
        top = values[0]
        for v in values[1:]:
            top = top.max(v)
        return top


# n-fold randomized response: heads with probability p = e^eps/(1+e^eps) under d, 1-p under d';
# an event is a set of head counts l, selected by (u, shape): k = min(n, floor(u (n+1))), and
# shape 0 is {l >= k} (the likelihood-ratio / Neyman-Pearson sets), shape 1 is {l = k}.


def rr_event_threshold(n, u):
    """The head count ``k = min(n, floor(u (n+1)))`` that ``u`` in [0, 1] selects."""
    n = _arb_int(n)
    u = float(u.mid()) if isinstance(u, arb) else float(u)
    return min(n, int(u * (n + 1)))


def _rr_levels(n, u, shape):
    n, k = _arb_int(n), rr_event_threshold(n, u)
    return n, ([k] if _arb_int(shape) else range(k, n + 1))


def _rr_event_precise(epsilon, n, u, shape, dps):
    """``(P(S), Q(S))`` of n-fold eps-RR (mp, each binomial term in log space; each clipped to
    [0, 1], since a sum of probabilities may round past 1)."""
    with mp.workdps(dps + precise.GUARD_DPS):
        e = precise.to_mpf(epsilon)
        n, levels = _rr_levels(n, u, shape)
        log_p, log_1mp = -mp.log1p(mp.exp(-e)), -mp.log1p(mp.exp(e))
        p_total = q_total = mp.zero
        for ell in levels:
            log_c = mp.loggamma(n + 1) - mp.loggamma(ell + 1) - mp.loggamma(n - ell + 1)
            p_total += mp.exp(log_c + ell * log_p + (n - ell) * log_1mp)
            q_total += mp.exp(log_c + ell * log_1mp + (n - ell) * log_p)
        return min(p_total, mp.one), min(q_total, mp.one)


_RR_CACHE = {}


def rr_event_precise(epsilon, n, u, shape, *, dps):
    """``(P(S), Q(S))`` for n-fold eps-RR, memoised: a statement names P(S) and Q(S) several times."""
    key = (precise.to_mpf(epsilon), int(n), precise.to_mpf(u), int(shape), int(dps))
    if key not in _RR_CACHE:
        if len(_RR_CACHE) > 256:
            _RR_CACHE.clear()
        _RR_CACHE[key] = _rr_event_precise(epsilon, n, u, shape, dps)
    return _RR_CACHE[key]


def _clip_probability(x):
    """``x`` intersected with [0, 1] (a probability whose enclosure may poke past 1)."""
    if x.upper() <= 1:
        return x
    low = x.lower()
    return arb(1) if low >= 1 else arb(low).union(arb(1))


def rr_event_ball(epsilon, n, u, shape, *, prec):
    """Enclosures of :func:`rr_event_precise`."""
    with ball.precision(prec):
        e = ball.to_arb(epsilon)
        n, levels = _rr_levels(n, u, shape)
        log_p, log_1mp = -((-e).exp().log1p()), -(e.exp().log1p())
        p_total = q_total = arb(0)
        for ell in levels:
            log_c = arb.bin_uiui(n, ell).log()
            p_total += (log_c + ell * log_p + (n - ell) * log_1mp).exp()
            q_total += (log_c + ell * log_1mp + (n - ell) * log_p).exp()
        return _clip_probability(p_total), _clip_probability(q_total)


def rr_event_p_precise(epsilon, n, u, shape, *, dps):
    return rr_event_precise(epsilon, n, u, shape, dps=dps)[0]


def rr_event_q_precise(epsilon, n, u, shape, *, dps):
    return rr_event_precise(epsilon, n, u, shape, dps=dps)[1]


def rr_event_p_ball(epsilon, n, u, shape, *, prec):
    return rr_event_ball(epsilon, n, u, shape, prec=prec)[0]


def rr_event_q_ball(epsilon, n, u, shape, *, prec):
    return rr_event_ball(epsilon, n, u, shape, prec=prec)[1]


# --- Privacy-loss quantities of a pair and of adaptive compositions -----------------------------
#
# The privacy loss of an outcome i of a pair (P, Q) = (M(d), M(d')) is Z = c(i) = log(p_i / q_i),
# with i ~ P. Each quantity has a precise (``dps``) and a ball (``prec``) flavour; the rational
# inputs stay exact up to the final transcendental operations.


def kl(pair, dps=precise.DEFAULT_DPS):
    """``KL(P || Q) = E_P[Z]``."""
    return rdp(pair, 1, dps)


def kl_ball(pair, prec=ball.DEFAULT_PREC):
    """Enclosure of ``KL(P || Q) = sum_i p_i log(p_i / q_i)``."""
    with ball.precision(prec):
        return sum((ball.to_arb(p) * ball.to_arb(p / q).log() for p, q in zip(pair.p, pair.q)), arb(0))


def loss_centred_range(pair, dps=precise.DEFAULT_DPS):
    """``max_i |log(p_i / q_i) - KL(P || Q)|``: the range of ``Z - E Z``."""
    with mp.workdps(dps + precise.GUARD_DPS):
        mean = kl(pair, dps + precise.GUARD_DPS)
        return max(abs(mp.log(precise.to_mpf(a / b)) - mean) for a, b in zip(pair.p, pair.q))


def _ball_max(values):
    top = values[0]
    for value in values[1:]:
        top = top.max(value)
    return top


def loss_centred_range_ball(pair, prec=ball.DEFAULT_PREC):
    with ball.precision(prec):
        mean = kl_ball(pair, prec)
        return _ball_max([abs(ball.to_arb(a / b).log() - mean) for a, b in zip(pair.p, pair.q)])


def loss_tail(pair, epsilon, dps=precise.DEFAULT_DPS):
    """``Pr_P[Z >= eps]``; whether ``p_i / q_i >= e^eps`` is decided at ``dps`` digits."""
    with mp.workdps(dps + precise.GUARD_DPS):
        threshold = mp.exp(precise.to_mpf(epsilon))
        return mp.fsum(precise.to_mpf(p) for p, q in zip(pair.p, pair.q) if precise.to_mpf(p / q) >= threshold)


def loss_tail_ball(pair, epsilon, prec=ball.DEFAULT_PREC):
    """Enclosure of ``Pr_P[Z >= eps]``; raises ValueError when a membership cannot be decided."""
    with ball.precision(prec):
        threshold = ball.to_arb(epsilon).exp()
        total = arb(0)
        for p, q in zip(pair.p, pair.q):
            ratio = ball.to_arb(p / q)
            if ratio.overlaps(threshold):
                raise ValueError("an outcome's loss cannot be separated from eps")
            if (ratio - threshold).lower() > 0:
                total += ball.to_arb(p)
        return total


def max_event_excess(pair, epsilon, dps=precise.DEFAULT_DPS):
    """``max_S P(S) - e^eps Q(S)`` over *every* event S (enumerated, not only Neyman-Pearson sets)."""
    with mp.workdps(dps + precise.GUARD_DPS):
        factor = mp.exp(precise.to_mpf(epsilon))
        return max(precise.to_mpf(probability(pair.p, s)) - factor * precise.to_mpf(probability(pair.q, s))
                   for s in events(pair))


def max_event_excess_ball(pair, epsilon, prec=ball.DEFAULT_PREC):
    with ball.precision(prec):
        factor = ball.to_arb(epsilon).exp()
        return _ball_max([ball.to_arb(probability(pair.p, s)) - factor * ball.to_arb(probability(pair.q, s))
                          for s in events(pair)])


def _step_log_moments(composition, lam, moment, reduce):
    """``sum_i alpha_{M_i}(lam)``: step i's log moment is ``reduce`` over its prefixes (the aux
    input) of the larger of the two orderings."""
    return [reduce([max_of(moment(p, lam), moment(p.swapped(), lam)) for p in composition.step_pairs(i)])
            for i in range(len(composition.steps))]


def max_of(*values):
    """The largest of mpf values or of balls (for balls: an enclosure of the maximum)."""
    values = values[0] if len(values) == 1 else values
    return _ball_max(list(values)) if isinstance(values[0], arb) else max(values)


def min_of(*values):
    """The smallest of mpf values or of balls (for balls: an enclosure of the minimum)."""
    values = values[0] if len(values) == 1 else values
    if not isinstance(values[0], arb):
        return min(values)
    bottom = values[0]
    for value in values[1:]:
        bottom = bottom.min(value)
    return bottom


def sum_step_log_moments(composition, lam, dps=precise.DEFAULT_DPS, *, aux="max"):
    """``sum_i alpha_{M_i}(lam)`` with ``alpha_{M_i}`` the max (``aux="min"``: the min, a wrong
    reading kept for a mutant) over the prefixes of the larger of the two orderings."""
    with mp.workdps(dps + precise.GUARD_DPS):
        moments = _step_log_moments(composition, lam, lambda p, l: log_moment(p, l, dps + precise.GUARD_DPS),
                                    max_of if aux == "max" else min_of)
        return mp.fsum(moments)


def sum_step_log_moments_ball(composition, lam, prec=ball.DEFAULT_PREC, *, aux="max"):
    with ball.precision(prec):
        moments = _step_log_moments(composition, lam, lambda p, l: log_moment_ball(p, l, prec),
                                    max_of if aux == "max" else min_of)
        return sum(moments[1:], moments[0])


def loss_sum_gap(composition):
    """``max_o |P(o)/Q(o) - prod_i P_i(o_i | o_<i) / Q_i(o_i | o_<i)|`` in exact rationals: 0 iff
    the loss of the composite is the sum of the per-step losses at every outcome tuple."""
    joint = composition.joint()
    outcomes = [()]
    for step in composition.steps:
        outcomes = [prefix + (o,) for prefix in outcomes for o in range(len(step[prefix]))]
    worst = Fraction(0)
    for index, outcome in enumerate(outcomes):
        ratio = Fraction(1)
        for i, step in enumerate(composition.steps):
            pair = step[outcome[:i]]
            ratio *= pair.p[outcome[i]] / pair.q[outcome[i]]
        worst = max(worst, abs(joint.p[index] / joint.q[index] - ratio))
    return worst


def _factorised(composition, lam, prefix, i, log, exp, to):
    if i == len(composition.steps):
        return to(0)
    pair = composition.steps[i][prefix]
    terms = [exp((lam + 1) * log(to(pair.p[o])) - lam * log(to(pair.q[o]))
                 + _factorised(composition, lam, prefix + (o,), i + 1, log, exp, to))
             for o in range(len(pair))]
    return log(sum(terms[1:], terms[0]))


def log_moment_factorised(composition, lam, dps=precise.DEFAULT_DPS):
    """``log E_P[(P/Q)^lam]`` of the joint pair by the printed factorisation: conditioning on the
    first outcome, ``sum_{o1} P1(o1)^{lam+1} Q1(o1)^{-lam} E[(P/Q)^lam | o1]``, recursively."""
    with mp.workdps(dps + precise.GUARD_DPS):
        return _factorised(composition, precise.to_mpf(lam), (), 0, mp.log, mp.exp, precise.to_mpf)


def log_moment_factorised_ball(composition, lam, prec=ball.DEFAULT_PREC):
    with ball.precision(prec):
        return _factorised(composition, ball.to_arb(lam), (), 0, lambda x: x.log(), lambda x: x.exp(), ball.to_arb)
