"""Shared pieces of the Balle, Barthe & Gaboardi 2018 modules: source, symbols, instance strategies.

Nothing here is a claim. The quantities (divergences of an enumerated subsampled mechanism, the
base mechanism's profile over the instance's neighbouring batches, hockey-stick divergences of
mixtures of a triple, the Gaussian sum query's profile) are vocabulary functions registered by
:mod:`.quantities`; the structured values they take are drawn by the strategies below.

On the base's profile: a theorem "if M is (eps, delta)-DP then M o S is (eps', delta')-DP" applies
to M restricted to the batches the two datasets can produce (a mechanism on a smaller domain,
whose neighbouring pairs are those batches' neighbouring pairs), so ``delta_base(eps, instance)``,
the largest profile over those pairs in both orders, is a valid delta for the hypothesis. This is
at least as demanding as the global profile of M.
"""

from fractions import Fraction

import sympy
from hypothesis import strategies as st

from dpproofs.checker.oracles import subsampled

__all__ = [
    "PAPER",
    "source",
    "sym",
    "structured",
    "poisson_instances",
    "wor_instances",
    "wr_instances",
    "sum_query_configs",
]

PAPER = "Balle, Barthe & Gaboardi 2018 (arXiv 1807.01647v2)"


def source(item):
    """``"Balle, Barthe & Gaboardi 2018 (arXiv 1807.01647v2), <item>"``."""
    return f"{PAPER}, {item}"


def sym(name):
    return sympy.Symbol(name, real=True)


def structured(name):
    return sympy.Symbol(name)


_RATES = st.integers(1, 9).map(lambda k: Fraction(k, 10))


def _bases(universe):
    return subsampled.finite_bases(universe=universe, outcomes=(2, 3))


def poisson_instances(universe=2, max_size=4):
    """Poisson-subsampled finite bases on add/remove neighbours (either order), rate in {0.1 .. 0.9}."""
    return st.builds(
        lambda base, pair, rate: subsampled.Subsampled(base, pair[0], pair[1], "poisson", rate=rate),
        _bases(universe), subsampled.neighbouring_datasets("add_remove", universe, max_size=max_size), _RATES)


def _fixed(sampling, universe, max_size, max_batch):
    @st.composite
    def draw(draw_):
        base = draw_(_bases(universe))
        d, d2 = draw_(subsampled.neighbouring_datasets("replace_one", universe, max_size=max_size))
        top = len(d) if sampling == "fixed" else max_batch
        b = draw_(st.integers(1, min(top, max_batch)))
        return subsampled.Subsampled(base, d, d2, sampling, batch_size=b)

    return draw()


def wor_instances(universe=2, max_size=5, max_batch=3):
    """Fixed-size batches (uniform b-subsets, b <= n) of replace-one neighbours."""
    return _fixed("fixed", universe, max_size, max_batch)


def wr_instances(batch_size, universe=2, max_size=4):
    """Sampling with replacement of exactly ``batch_size`` indices, replace-one neighbours."""

    @st.composite
    def draw(draw_):
        base = draw_(_bases(universe))
        d, d2 = draw_(subsampled.neighbouring_datasets("replace_one", universe, max_size=max_size))
        return subsampled.Subsampled(base, d, d2, "replacement", batch_size=batch_size)

    return draw()


_SIGMAS = st.sampled_from([Fraction(1, 2), Fraction(3, 4), Fraction(1), Fraction(3, 2), Fraction(2)])


def sum_query_configs(sampling, max_size=4, max_batch=3):
    """Gaussian sum-query configurations under replace-one (records k/4 in [-1, 1]), either order
    of the neighbours (the neighbouring strategy draws which dataset holds which record)."""
    records = st.integers(-4, 4).map(lambda k: Fraction(k, 4))

    @st.composite
    def draw(draw_):
        d, d2 = draw_(subsampled.neighbouring_datasets("replace_one", max_size=max_size, records=records))
        if draw_(st.booleans()):
            d, d2 = d2, d
        sigma = draw_(_SIGMAS)
        if sampling == "poisson":
            return subsampled.GaussianSubsampled(d, d2, "poisson", sigma, rate=draw_(_RATES))
        b = draw_(st.integers(1, min(len(d), max_batch)))
        return subsampled.GaussianSubsampled(d, d2, "fixed", sigma, batch_size=b)

    return draw()


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen): the two sides of a claim as the checker evaluates
# them (Claim.evaluate), along eps, at fixed structured values.


def sides_figure(path, claim, points, labels, title, x="eps", xs=None):
    """Plot both sides of ``claim`` along ``x`` for each fixed point of ``points`` (dicts)."""
    from dpproofs.docgen import pyplot, save

    plt = pyplot()
    xs = xs or [3 * i / 40 for i in range(41)]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for point, label in zip(points, labels):
        lhs, rhs = [], []
        for value in xs:
            left, right = claim.evaluate({**point, x: value}, 20)
            lhs.append(float(left))
            rhs.append(float(right))
        line, = ax.plot(xs, lhs, label=f"{label}: left side")
        ax.plot(xs, rhs, "--", color=line.get_color(), label=f"{label}: right side")
    ax.set_xlabel(x)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    save(fig, path)


def figures(name, caption, draw):
    from dpproofs.docgen import Figure

    return (Figure(name, caption, draw),)
