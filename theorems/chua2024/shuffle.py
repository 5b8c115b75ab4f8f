"""Chua et al. 2024 (arXiv 2403.17673v2; 2411.04205): the pair behind the shuffled-batch lower bound.

The loader: ``n`` records in a uniformly random order cut into consecutive batches of ``b`` (the
last one shorter, or dropped with ``drop_last``), the Gaussian (noise ``sigma``) on each batch's
sum. The pair: every record -1, the target +1 in ``x`` and ``x_0`` in ``x'`` (0: zero-out, the
reference implementation's ``(MoG(2), MoG(1))``; -1: replace-one, ``(MoG(2), N(0))``). Adding
each batch's size (public) to its output, :mod:`dpproofs.accountant.lower_bounds` evaluates
``P(max_t w_t <= C) = w Phi((C - a)/s) Phi(C/s)^(T-1) + (1 - w) Phi(C/s)^T`` (``a`` = 2 for ``x``,
``1 + x_0`` for ``x'``; ``w`` = 1 - dropped/n).

Ids -> items (see the package docstring for provenance: no result number could be read):

* ``chua2024.shuffle.max_law``: for random loaders (n <= 6, b <= n, drop_last or not, target +1, 0
  or -1) the law of the max of the batch sums over the Gaussian mixture enumerated over all n!
  orders equals the closed form, as the shipped code evaluates it (``_Epoch.cube``, arb; mpmath
  for the reference side); cap in [-1, 4], sigma in [0.3, 3];
* ``chua2024.shuffle.max_law.mutant.target_never_dropped``: the closed form with ``w = 1`` (the
  target always in a batch) is refuted at n = 5, b = 2 with drop_last;
* ``chua2024.shuffle.below_exact``: with two batches (n = 4, b = 2, one epoch, zero-out pair) the
  shipped certified ``delta_lower_bound`` is at most the exact hockey-stick divergence of the pair
  ``(1/2 N(2 e_1) + 1/2 N(2 e_2), 1/2 N(e_1) + 1/2 N(e_2))``: in coordinates ``u = (w1 + w2)/sqrt 2``,
  ``v = (w1 - w2)/sqrt 2`` the likelihood ratio is ``exp(linear in u) cosh(alpha v)/cosh(beta v)``,
  so for each u the set ``{p > e^eps q}`` is ``|v| > v*(u)``; the inner integral is closed-form and
  the outer one an mpmath quadrature (checked against a 2-D quadrature in the tests); eps in
  [0, 3], sigma in [0.4, 2]. No ball evaluation of the exact side: the claim can hold, not be
  proved; the tests pin how close the bound is (0.99..0.99998 of the exact value).
"""

import dataclasses
import itertools
import math
from fractions import Fraction

import mpmath
import sympy
from hypothesis import strategies as st

from dpproofs.checker.claims import Claim, Sides, Variable
from dpproofs.math import ball

__all__ = ["CLAIMS", "Loader", "enumerated_mixture", "mixture_cube", "exact_delta_two_batches"]

SOURCE = ("Chua et al. 2024, arXiv 2403.17673v2 (ICML 2024) and arXiv 2411.04205 (NeurIPS 2024): the "
          "shuffled-batch lower-bound pair (MoG(2), MoG(1)) of their reference implementation")


@dataclasses.dataclass(frozen=True)
class Loader:
    """A tiny shuffled loader and the target's value: ``n`` records, batches of ``b``."""

    n: int
    b: int
    drop_last: bool
    target: int  # +1 (x), 0 (x' under zero-out) or -1 (x' under replace-one)

    def __str__(self):
        return f"Loader(n={self.n}, b={self.b}, drop_last={self.drop_last}, target={self.target})"


@st.composite
def loaders(draw, max_n=6):
    n = draw(st.integers(2, max_n))
    return Loader(n, draw(st.integers(1, n)), draw(st.booleans()), draw(st.sampled_from((1, 0, -1))))


def enumerated_mixture(n, b, target_value, drop_last):
    """{batch-sum vector + batch sizes: probability} over all n! orders (exact): every record -1,
    the last one ``target_value``."""
    records = [-1] * (n - 1) + [target_value]
    counts = {}
    for order in itertools.permutations(range(n)):
        batches = [order[i:i + b] for i in range(0, n, b)]
        if drop_last and len(batches[-1]) < b:
            batches = batches[:-1]
        vector = tuple(sum(records[j] for j in batch) + len(batch) for batch in batches)
        counts[vector] = counts.get(vector, 0) + 1
    total = math.factorial(n)
    return {vector: Fraction(count, total) for vector, count in counts.items()}


def mixture_cube(mixture, cap, sigma):
    """mpmath ``P(max_t w_t <= cap)`` under ``sum_k p_k N(mu_k, sigma^2 I)``."""
    cap, sigma = mpmath.mpf(cap), mpmath.mpf(sigma)
    return mpmath.fsum(
        mpmath.mpf(weight.numerator) / weight.denominator
        * mpmath.fprod(mpmath.ncdf((cap - mu) / sigma) for mu in vector)
        for vector, weight in mixture.items()
    )


def _mixture_cube_ball(mixture, cap, sigma):
    from flint import arb

    cap, sigma, root2 = ball.to_arb(cap), ball.to_arb(sigma), arb(2).sqrt()
    total = arb(0)
    for vector, weight in mixture.items():
        term = arb(weight.numerator) / weight.denominator
        for mu in vector:
            term *= (-(cap - mu) / sigma / root2).erfc() / 2
        total += term
    return total


def _mean(loader):
    return {1: 2, 0: 1, -1: 0}[loader.target]


def _closed_form(loader, cap, sigma, dps, ignore_dropped=False):
    """mpmath closed form: w Phi((C - a)/s) Phi(C/s)^(T-1) + (1 - w) Phi(C/s)^T."""
    n, b = loader.n, loader.b
    full, rest = divmod(n, b)
    steps = full if (loader.drop_last or rest == 0) else full + 1
    dropped = rest if loader.drop_last else 0
    with mpmath.workdps(dps):
        cap, sigma = mpmath.mpf(cap), mpmath.mpf(sigma)
        w = mpmath.mpf(1) if ignore_dropped else mpmath.mpf(n - dropped) / n
        others = mpmath.ncdf(cap / sigma)
        return w * mpmath.ncdf((cap - _mean(loader)) / sigma) * others ** (steps - 1) + (1 - w) * others**steps


def _shipped_ball(loader, cap, sigma, prec):
    import dpproofs as dp
    from dpproofs.accountant import lower_bounds

    pair = "replace_one" if loader.target == -1 else "zero_out"
    epoch = lower_bounds._Epoch(dp.ShuffledGaussian(loader.b, loader.n, float(sigma), drop_last=loader.drop_last), pair, 1)
    with ball.precision(prec):
        return epoch.cube(float(cap), _mean(loader))


def _max_law_precise(point, dps, ignore_dropped=False):
    loader = point["loader"]
    mixture = enumerated_mixture(loader.n, loader.b, loader.target, loader.drop_last)
    with mpmath.workdps(dps):
        return (mixture_cube(mixture, point["cap"], point["sigma"]),
                _closed_form(loader, point["cap"], point["sigma"], dps, ignore_dropped))


def _max_law_ball(point, prec):
    loader = point["loader"]
    mixture = enumerated_mixture(loader.n, loader.b, loader.target, loader.drop_last)
    with ball.precision(prec):
        return _mixture_cube_ball(mixture, point["cap"], point["sigma"]), _shipped_ball(
            loader, point["cap"], point["sigma"], prec)


def _mutant_ball(point, prec):
    loader = point["loader"]
    mixture = enumerated_mixture(loader.n, loader.b, loader.target, loader.drop_last)
    with ball.precision(prec):
        closed = _closed_form(loader, point["cap"], point["sigma"], 60, ignore_dropped=True)
        return _mixture_cube_ball(mixture, point["cap"], point["sigma"]), ball.to_arb(closed) + ball.to_arb("0 +/- 1e-55")


CAP, SIGMA = Variable("cap", -1, 4), Variable("sigma", 0.3, 3)
_F_ENUMERATED = sympy.Function("enumerated_max_cdf")
_F_CLOSED = sympy.Function("shipped_max_cdf")
_c, _s, _l = sympy.Symbol("cap", real=True), sympy.Symbol("sigma", positive=True), sympy.Symbol("loader")

max_law = Claim(
    id="chua2024.shuffle.max_law",
    source=SOURCE,
    statement=sympy.Eq(_F_ENUMERATED(_l, _c, _s), _F_CLOSED(_l, _c, _s)),
    variables=(CAP, SIGMA),
    extra={"loader": loaders()},
    sides=Sides(precise=_max_law_precise, ball=_max_law_ball),
    kind="support",
    title="The loader enumerated over every order gives the law of the max that the lower bound evaluates",
    cost=0.5,
)

mutant_target_never_dropped = max_law.mutant(
    "target_never_dropped",
    statement=sympy.Eq(_F_ENUMERATED(_l, _c, _s), sympy.Function("max_cdf_target_always_in")(_l, _c, _s)),
    sides=Sides(precise=lambda point, dps: _max_law_precise(point, dps, ignore_dropped=True), ball=_mutant_ball),
    explanation="with drop_last the target is left out of the epoch with probability (n mod b)/n: "
    "the closed form without that weight is wrong (n = 5, b = 2: 1/5)",
    pinned=({"cap": 1.0, "sigma": 0.7, "loader": Loader(5, 2, True, 1)},),
)


# --- the exact delta with two batches -------------------------------------------------------------


def exact_delta_two_batches(epsilon, sigma, lower_mean, dps=20):
    """Exact delta of ``(1/2 N(2 e_1) + 1/2 N(2 e_2), 1/2 N(m e_1) + 1/2 N(m e_2))``, ``m`` =
    ``lower_mean`` in {1, 0}, noise ``sigma^2 I_2`` (the module docstring's reduction to 1-D)."""
    with mpmath.workdps(dps):
        s, eps = mpmath.mpf(sigma), mpmath.mpf(epsilon)
        root2 = mpmath.sqrt(2)
        a, m = 2 / root2, mpmath.mpf(lower_mean) / root2  # the means' coordinates along u and +-v
        alpha, beta = a / s**2, m / s**2

        def h(v):  # log cosh(alpha v) - log cosh(beta v): increasing in |v|, h(0) = 0
            return mpmath.log(mpmath.cosh(alpha * v)) - mpmath.log(mpmath.cosh(beta * v))

        def tails(v_star, mean):  # P(|v| > v*) under 1/2 N(mean, s^2) + 1/2 N(-mean, s^2)
            return mpmath.ncdf(-(v_star - mean) / s) + mpmath.ncdf(-(v_star + mean) / s)

        def threshold(u):  # log(p/q) = (a - m) u / s^2 - (a^2 - m^2) / s^2 + h(v) > eps  <=>  h(v) > threshold
            return eps - (a - m) * u / s**2 + (a**2 - m**2) / s**2

        def inner(u):
            tau = threshold(u)
            v_star = mpmath.mpf(0)
            if tau > 0:
                v_star = mpmath.findroot(lambda v: h(v) - tau, (mpmath.mpf(0), tau / (alpha - beta) + 10 * s),
                                         solver="illinois", verify=False)
            p = mpmath.npdf(u, a, s) * tails(v_star, a)
            q = mpmath.npdf(u, m, s) * tails(v_star, m)
            return p - mpmath.exp(eps) * q

        kink = (eps + (a**2 - m**2) / s**2) * s**2 / (a - m)  # threshold(kink) = 0
        return mpmath.quad(inner, [-mpmath.inf, kink - 4 * s, kink, kink + 4 * s, mpmath.inf])


def _below_exact_precise(point, dps):
    import dpproofs as dp

    eps, sigma = point["eps"], point["sigma"]
    low = dp.delta_lower_bound(dp.ShuffledGaussian(2, 4, float(sigma)), 1, float(eps))
    # the exact side to min(dps, 25) digits: the bound sits below it by >= 1e-6 relative on this box
    return mpmath.mpf(low), exact_delta_two_batches(eps, sigma, 1, dps=min(dps, 25))


below_exact = Claim(
    id="chua2024.shuffle.below_exact",
    source=SOURCE,
    statement=sympy.Le(sympy.Function("shipped_delta_lower_bound")(sympy.Symbol("eps"), _s),
                       sympy.Function("exact_delta_two_batches")(sympy.Symbol("eps"), _s)),
    variables=(Variable("eps", 0, 3), Variable("sigma", 0.4, 2)),
    sides=Sides(precise=_below_exact_precise),
    title="The shipped certified lower bound is at most the exact delta of the pair (two batches)",
    cost=0.5,
)

CLAIMS = [max_law, mutant_target_never_dropped, below_exact]


# --- figures (docs) ---------------------------------------------------------------------------------


def _figure_epochs(path):
    """epsilon against epochs for one CIFAR-shaped run, one line per loader: Poisson (certified
    upper end, and RDP), balls-in-bins (certified upper end, and RDP), independent fixed-size batches (replace-one, certified
    upper end) and the two shuffled loaders' certified lower bounds."""
    import dpproofs as dp
    from dpproofs.docgen import pyplot, save

    n, b, sigma, delta = 50000, 1024, 1.0, 1e-5
    epochs = (1, 2, 5, 10, 20, 50, 100)
    poisson = [dp.PLDAccountant().compose(dp.SampledGaussian(b / n, sigma), math.ceil(e * n / b))
               .epsilon_bounds(delta).upper for e in epochs]
    persistent = [dp.epsilon_lower_bound(dp.ShuffledGaussian(b, n, sigma, "persistent"), e, delta) for e in epochs]
    per_epoch = [dp.epsilon_lower_bound(dp.ShuffledGaussian(b, n, sigma, "per-epoch"), e, delta) for e in epochs]
    steps_per_epoch = -(-n // b)
    poisson_rdp = [dp.Accountant().compose(dp.SampledGaussian(b / n, sigma), math.ceil(e * n / b)).epsilon(delta)
                   for e in epochs]
    balls = [dp.Accountant().compose(dp.RandomAllocationGaussian(steps_per_epoch, sigma), e).epsilon(delta)
             for e in epochs]
    balls_pld = [dp.PLDAccountant().compose(dp.RandomAllocationGaussian(steps_per_epoch, sigma), e)
                 .epsilon_bounds(delta).upper for e in epochs]
    fixed = [dp.PLDAccountant(relation="replace_one").compose(
        dp.FixedBatchGaussian(batch_size=b, dataset_size=n, sigma=sigma), math.ceil(e * n / b)).epsilon_bounds(delta).upper
        for e in epochs]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ax.loglog(epochs, poisson, "o-", label="Poisson sampling (upper end of the certified bracket)")
    ax.loglog(epochs, poisson_rdp, "o:", label="Poisson sampling (RDP upper bound)")
    ax.loglog(epochs, balls_pld, "d-", label="balls-in-bins (upper end of the certified bracket)")
    ax.loglog(epochs, balls, "d:", label="balls-in-bins (RDP upper bound)")
    ax.loglog(epochs, fixed, "x-", label="independent fixed-size batches, replace-one (certified upper end)")
    ax.loglog(epochs, per_epoch, "s--", label="shuffled, new order each epoch (certified LOWER bound)")
    ax.loglog(epochs, persistent, "^--", label="shuffled, one order for the run (certified LOWER bound)")
    ax.set_xlabel(f"epochs (N = {n}, B = {b}, sigma = {sigma:g}, delta = {delta:g})")
    ax.set_ylabel("epsilon")
    ax.legend(fontsize=7)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("chua2024_shuffle_epochs.png",
                   "The loaders of one run over epochs: Poisson, balls-in-bins and fixed-size upper bounds against "
                   "the certified lower bounds of shuffled batches (a shuffled loader is provably less private than "
                   "the Poisson number of the same run)", _figure_epochs, also_on=("batches.md",)),)


FIGURES = _figures()
