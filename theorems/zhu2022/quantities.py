"""The quantities of the Zhu, Dong & Wang 2022 modules (arXiv 2106.08567v3), registered in the
vocabulary when the package is imported.

* ``zdw_pair`` - the dominating pair of a subsampled instance
  (:class:`dpproofs.checker.oracles.subsampled.Subsampled`) built on the base's randomized-response
  pair at its pure-DP level, ``RR(e^{eps(inf)})``: Poisson sampling (Theorem 11) and sampling
  without replacement (the per-step pair ``((1-g) Q + g P, Q)``);
* ``rr_dominating_pair``, ``rr_step_pair`` - eps-RR at a finite pair's pure-DP level, and at the
  largest level step i of an adaptive composition may run (the base pairs of the definition and of
  the composition theorem);
* ``symmetrised`` - ``Sym(P, Q)``: the positive-loss outcomes, their mirrors, the rest at loss 0.

The instance quantities (``instance_pair``, ``sampling_fraction``, the Gaussian sum query's) are
the Wang-Balle-Kasiviswanathan 2019 and Balle-Barthe-Gaboardi 2018 packages', imported below.
"""

from fractions import Fraction

from dpproofs.checker import vocabulary
from dpproofs.checker.oracles import finite, subsampled
from dpproofs.errors import InvalidArgument

from dpproofs_theorems.wang2019 import quantities as _instance_quantities  # noqa: F401  (instance_pair, ...)

__all__ = ["randomized_response_pair", "mixture", "dominating_pair", "symmetrised"]


def _check_pair(value, name):
    if not isinstance(value, finite.Pair):
        raise InvalidArgument(f"{name}: argument {value!r} must be a finite.Pair")
    return value


def randomized_response_pair(ratio):
    """(P, Q) = ((r, 1)/(1+r), (1, r)/(1+r)): eps-RR at eps = log r, the dominating pair of every
    eps-DP mechanism in both orders (Kairouz, Oh & Viswanath 2015)."""
    r = Fraction(ratio)
    return finite.Pair((r / (1 + r), 1 / (1 + r)), (1 / (1 + r), r / (1 + r)))


def mixture(gamma, dominating):
    """((1 - g) Q + g P, Q) of a pair (P, Q)."""
    g = Fraction(gamma)
    return finite.Pair(tuple((1 - g) * b + g * a for a, b in zip(dominating.p, dominating.q)), dominating.q)


def _largest_ratio(pairs):
    """max over the pairs, both orders, of max_i p_i/q_i (exact): e^{eps(inf)} (1 for no pair)."""
    return max([Fraction(1)] + [Fraction(a) / Fraction(b) for pr in pairs for a, b in zip(pr.p + pr.q, pr.q + pr.p)])


def dominating_pair(inst):
    """The pair for the instance's sampling, from the base's dominating pair RR(e^{eps(inf)}):
    fixed (WOR, replace-one): ((1-g)Q + gP, Q); Poisson (add/remove, Theorem 11): the same when d is
    the larger dataset (remove), (Q, (1-g)Q + gP) when d2 is (add)."""
    if not isinstance(inst, subsampled.Subsampled):
        raise InvalidArgument(f"zdw_pair: argument {inst!r} must be a dpproofs.checker.oracles.subsampled.Subsampled instance")
    pair = mixture(inst.gamma, randomized_response_pair(_largest_ratio(inst.base_pairs())))
    if inst.sampling == "poisson" and len(inst.d2) > len(inst.d):
        return pair.swapped()
    return pair


def symmetrised(pair):
    """Sym(P, Q): every outcome of positive loss l (p > q) kept, its mirror (q, p) added, the
    rest of the mass on one outcome of loss 0 (valid when P(L > 0) + Q(L > 0) <= 1)."""
    _check_pair(pair, "symmetrised")
    up = [(a, b) for a, b in zip(pair.p, pair.q) if a > b]
    rest = 1 - sum(a + b for a, b in up)
    if rest < 0:
        raise InvalidArgument(f"symmetrised: P(L>0) + Q(L>0) = {1 - rest} > 1 for {pair!r}")
    p = [a for a, _ in up] + [b for _, b in up]
    q = [b for _, b in up] + [a for a, _ in up]
    if rest > 0:
        p.append(rest)
        q.append(rest)
    return finite.Pair(tuple(p), tuple(q))


# --- registrations ----------------------------------------------------------------------------------

_PAIR = ("pair", ((vocabulary.TYPE, finite.Pair),))

vocabulary.register(
    "zdw_pair", *vocabulary.structured_evaluators(dominating_pair),
    domain=(("inst", ((vocabulary.TYPE, subsampled.Subsampled),)),),
    doc="the dominating pair of the subsampled instance, built on RR(e^{eps(inf)}) (a finite.Pair)")
vocabulary.register(
    "rr_dominating_pair",
    *vocabulary.structured_evaluators(lambda pair: randomized_response_pair(_largest_ratio([_check_pair(pair, "rr_dominating_pair")]))),
    domain=(_PAIR,), doc="eps-RR at the pair's pure-DP level eps = max_i |log p_i/q_i| (a finite.Pair)")
vocabulary.register(
    "rr_step_pair", *vocabulary.structured_evaluators(lambda c, i: randomized_response_pair(_largest_ratio(c.step_pairs(i))), 1),
    domain=(("C", ((vocabulary.TYPE, finite.AdaptiveComposition),)), ("i", ((">=", 0), (vocabulary.INTEGER, None)))),
    doc="eps_i-RR at the max pure-DP level of step i over its prefixes: one pair dominating every pair step i may run")
vocabulary.register(
    "symmetrised", *vocabulary.structured_evaluators(symmetrised), domain=(_PAIR,),
    doc="Sym(P, Q): positive-loss outcomes, their mirrors, the rest at loss 0 (a finite.Pair)")
