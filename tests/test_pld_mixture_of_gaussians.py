"""The mixture-of-Gaussians mechanism in the PLD accountant (issue 24): its pair
(:class:`dpproofs.math.pairs.MixtureOfGaussiansPair`), the mechanism
(:class:`dpproofs.MixtureOfGaussians`), and the accountant's bracket against the exact hockey-stick
divergence of the mixture (:mod:`dpproofs.checker.oracles.mixtures`: exact normal CDFs over the
located level set for one step, quadrature of the one-step profile for two)."""

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp

import dpproofs as dp
from dpproofs.accountant.pld import discretise as pld_eval
from dpproofs.checker.oracles import mixtures as oracle
from dpproofs.checker.oracles.subsampled import MixturePair
from dpproofs.math import pairs
from tests.support import sized

#: (sigma, sensitivities, probabilities): dp_accounting's two test mixtures, one without a component
#: at 0 (no loss floor), one with a heavy component at 0 and a wide spread of sensitivities.
CONFIGS = [
    (1.0, (0.0, 1.0, 2.0), (0.2, 0.6, 0.2)),
    (2.0, (0.0, 2.0, 3.0), (0.33, 0.34, 0.33)),
    (0.8, (0.5, 1.0), (0.5, 0.5)),
    (3.0, (0.0, 0.5, 1.0, 4.0), (0.9, 0.05, 0.03, 0.02)),
]


def exact_pair(sigma, sensitivities, probabilities):
    """The add pair of the mixture as the oracle's exact MixturePair: the probabilities divided by
    their exact sum (the mechanism's reading)."""
    total = sum(Fraction(p) for p in probabilities if p > 0)
    kept = [(Fraction(c), Fraction(p) / total) for c, p in zip(sensitivities, probabilities) if p > 0]
    return MixturePair(tuple(w for _, w in kept), tuple(c for c, _ in kept), (Fraction(1),), (Fraction(0),),
                       Fraction(sigma))


def exact_delta(sigma, sensitivities, probabilities, epsilon, steps=1, dps=20, directions=("add", "remove")):
    """max over the directions of the exact T-fold hockey stick (T = 1 or 2)."""
    pair = exact_pair(sigma, sensitivities, probabilities)
    chosen = {"add": pair, "remove": pair.swapped()}
    return max(float(oracle.delta_mixture_composed(chosen[d], epsilon, steps, dps)) for d in directions)


# --- the pair ----------------------------------------------------------------------------------


@pytest.mark.parametrize("direction", ["add", "remove"])
@pytest.mark.parametrize("sigma, sensitivities, probabilities", CONFIGS)
def test_positions_contain_the_true_level_crossings_within_their_certified_radii(sigma, sensitivities, probabilities,
                                                                                  direction):
    pair = pairs.MixtureOfGaussiansPair(sigma, sensitivities, probabilities, direction)
    low, high = pair.loss_range(10.0)
    levels = np.linspace(max(low, -30.0), min(high, 30.0), 41)[1:-1]
    u, radius = pair._certified_positions(levels)
    exact = exact_pair(sigma, sensitivities, probabilities)
    def mpf(x):  # an exact rational as an mpf (mpmath takes no Fraction)
        return mp.mpf(x.numerator) / x.denominator

    with mp.workdps(40):
        s2 = mpf(exact.sigma) ** 2

        def loss(x):  # the exact loss on the pair's line, at an mpf x
            z = x if direction == "add" else -x
            value = mp.log(mp.fsum(mpf(w) * mp.e ** ((mpf(c) * z - mpf(c) ** 2 / 2) / s2)
                                   for w, c in zip(exact.p_weights, exact.p_means)))
            return value if direction == "add" else -value

        for level, x, r in zip(levels, u, radius):
            if not math.isfinite(x):
                # outside the loss range: below log p_0 (add) / above -log p_0 (remove)
                assert (direction == "add" and level <= pair.min_loss) or (direction == "remove" and level >= pair.max_loss)
                continue
            # the true crossing lies in [x - r, x + r]: the loss is increasing
            assert loss(mp.mpf(x) - mp.mpf(r)) < level < loss(mp.mpf(x) + mp.mpf(r))
            assert r <= 1e-9 * (abs(x) + 1)  # and the radius is small (the edge ratio stays tiny)


def test_levels_outside_the_loss_range_have_infinite_positions():
    add = pairs.MixtureOfGaussiansPair(1.0, (0.0, 1.0, 2.0), (0.2, 0.6, 0.2), "add")
    remove = pairs.MixtureOfGaussiansPair(1.0, (0.0, 1.0, 2.0), (0.2, 0.6, 0.2), "remove")
    assert add.min_loss == pytest.approx(math.log(0.2)) and add.max_loss == math.inf
    assert remove.max_loss == pytest.approx(-math.log(0.2)) and remove.min_loss == -math.inf
    assert np.all(add.positions([-5.0, math.log(0.2) - 1e-3]) == -np.inf)
    assert np.all(remove.positions([5.0, -math.log(0.2) + 1e-3]) == np.inf)
    # without a component at 0 the loss ranges over the whole line
    both = pairs.MixtureOfGaussiansPair(0.8, (0.5, 1.0), (0.5, 0.5), "add")
    assert both.min_loss == -math.inf and np.all(np.isfinite(both.positions([-50.0, 0.0, 50.0])))


def test_a_level_at_the_loss_floor_is_placed_at_minus_infinity_with_a_margin():
    """A level within rounding of log p_0 cannot be told from the floor: it is put at -inf and its
    cell gets the edge ratio that covers a loss error of the band's width (the cell's whole mass)."""
    pair = pairs.MixtureOfGaussiansPair(1.0, (0.0, 1.0, 2.0), (0.2, 0.6, 0.2), "add")
    edges = np.array([pair.min_loss - 0.01, pair.min_loss, pair.min_loss + 0.01, 0.0])
    p, q, ep, eq, below, above = pair.cell_masses(edges)
    assert pair.positions(edges[:2]).tolist() == [-np.inf, -np.inf]
    assert pair.edge_ratio[1] > 0 and pair.edge_ratio[1] < 1e-10
    assert math.fsum(p) + below[0] + above[0] == pytest.approx(1.0, abs=1e-14)


@pytest.mark.parametrize("direction", ["add", "remove"])
def test_cell_masses_add_up_and_carry_small_edge_ratios(direction):
    pair = pairs.MixtureOfGaussiansPair(2.0, (0.0, 2.0, 3.0), (0.33, 0.34, 0.33), direction)
    low, high = pair.loss_range(38.0)
    edges = np.linspace(low - 1e-3, high, 20001)
    p, q, ep, eq, below, above = pair.cell_masses(edges)
    assert math.fsum(p) + below[0] + above[0] == pytest.approx(1.0, abs=1e-12)
    assert math.fsum(q) <= 1 + 1e-12 and np.all(ep >= 0) and np.all(eq >= 0)
    # (the largest: the cell at the loss ceiling -log p_0 (remove), its band margin)
    assert len(pair.edge_ratio) == len(p) and pair.edge_ratio.max() < 1e-10


def test_one_positive_sensitivity_is_the_gaussian_pair_exactly():
    pair = pairs.MixtureOfGaussiansPair(2.0, (0.0, 4.0, 0.0), (0.25, 0.5, 0.25), "add")
    assert isinstance(pair._simple, pairs.GaussianPair)
    assert (pair._simple.q, pair._simple.sigma) == (0.5, 0.5)  # exact: no rounding needed
    reference = pairs.GaussianPair(0.5, 0.5, "add")
    edges = np.linspace(-0.6, 5.0, 101)
    for got, want in zip(pair.cell_masses(edges), reference.cell_masses(edges)):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert pair.positions([1.0])[0] == 4.0 * reference.positions([1.0])[0]
    # q rounded up and sigma / c down when inexact (a dominating pair)
    odd = pairs.MixtureOfGaussiansPair(1.0, (0.0, 3.0), (0.9, 0.1), "remove")
    assert Fraction(odd._simple.q) >= Fraction(0.1) / (Fraction(0.9) + Fraction(0.1))
    assert Fraction(odd._simple.sigma) <= Fraction(1, 3)


def test_components_of_probability_zero_are_dropped_and_equal_sensitivities_merged():
    pair = pairs.MixtureOfGaussiansPair(1.0, (2.0, 0.0, 1.0, 2.0, 7.0), (0.1, 0.2, 0.6, 0.1, 0.0), "add")
    assert pair.components == ((0.0, 0.2), (1.0, 0.6), (2.0, 0.2))


@pytest.mark.parametrize("args, words", [
    ((0.0, (1.0,), (1.0,), "add"), "sigma=0.0"),
    ((1.0, (1.0,), (1.0,), "up"), "direction='up'"),
    ((1.0, (-1.0, 1.0), (0.5, 0.5), "add"), r"sensitivities\[0\]=-1.0"),
    ((1.0, (1.0,), (1.5,), "add"), r"probabilities\[0\]=1.5"),
    ((1.0, (1.0, 2.0), (1.0,), "add"), "same length"),
    ((1.0, (0.0, 5.0), (1.0, 0.0), "add"), "some sensitivity of positive probability must be > 0"),
])
def test_the_pair_refuses_bad_arguments_naming_them(args, words):
    with pytest.raises(dp.InvalidArgument, match=words):
        pairs.MixtureOfGaussiansPair(*args)


# --- the mechanism -----------------------------------------------------------------------------


def test_the_mechanism_is_validated_hashable_and_round_trips_through_json():
    m = dp.MixtureOfGaussians(1.0, [0, 1, 2], [0.2, 0.6, 0.2])
    assert m.sensitivities == (0.0, 1.0, 2.0) and m.probabilities == (0.2, 0.6, 0.2)
    assert hash(m) == hash(dp.MixtureOfGaussians(1.0, (0.0, 1.0, 2.0), (0.2, 0.6, 0.2)))
    assert dp.Mechanism.from_dict(json.loads(json.dumps(m.to_dict()))) == m
    assert "MixtureOfGaussians" in dp.__all__


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(sigma=-1.0, sensitivities=(1.0,), probabilities=(1.0,)), dp.InvalidArgument, "sigma=-1.0"),
    (dict(sigma=1.0, sensitivities=(1.0, -2.0), probabilities=(0.5, 0.5)), dp.InvalidArgument, r"sensitivities\[1\]=-2.0"),
    (dict(sigma=1.0, sensitivities=(1.0,), probabilities=(0.5,)), dp.InvalidArgument, "must sum to 1"),
    (dict(sigma=1.0, sensitivities=(1.0, 2.0), probabilities=(1.0,)), dp.InvalidArgument, "same length"),
    (dict(sigma=1.0, sensitivities=(), probabilities=()), dp.InvalidArgument, "non-empty"),
    (dict(sigma=1.0, sensitivities=1.0, probabilities=(1.0,)), dp.InvalidArgumentType, "sensitivities=1.0"),
    (dict(sigma=1.0, sensitivities=(math.nan,), probabilities=(1.0,)), dp.InvalidArgument, r"sensitivities\[0\]=nan"),
])
def test_the_mechanism_refuses_bad_arguments_naming_them(kwargs, error, words):
    with pytest.raises(error, match=words):
        dp.MixtureOfGaussians(**kwargs)


def test_replace_one_is_refused_by_both_accountants_naming_the_pair():
    m = dp.MixtureOfGaussians(1.0, (0.0, 1.0), (0.5, 0.5))
    for accountant in (dp.Accountant(relation="replace_one"), dp.PLDAccountant(relation="replace_one")):
        with pytest.raises(dp.InvalidArgument, match="relation='replace_one' is not supported"):
            accountant.compose(m, 1).epsilon(1e-5)


def test_all_sensitivities_zero_is_silent():
    m = dp.MixtureOfGaussians(1.0, (0.0, 3.0), (1.0, 0.0))
    assert m.silent and m.pld_pairs("add_remove") is None and m.total_variation("add_remove") == 0.0
    assert dp.PLDAccountant().compose(m, 10).epsilon(1e-6) == 0.0


def exact_rdp(sigma, sensitivities, probabilities, alpha):
    """max over both orders of D_alpha(mixture, N(0, s^2)), by mpmath quadrature (30 digits)."""
    total = sum(probabilities)
    with mp.workdps(30):
        def pdf(x, c):
            return mp.npdf(x, c, sigma)

        def mixture(x):
            return mp.fsum(p / total * pdf(x, c) for c, p in zip(sensitivities, probabilities))

        values = []
        for p, q in ((mixture, lambda x: pdf(x, 0)), (lambda x: pdf(x, 0), mixture)):
            integral = mp.quad(lambda x: p(x) ** alpha * q(x) ** (1 - alpha), [-mp.inf, -2 * sigma, 0, 2 * sigma, mp.inf])
            values.append(mp.log(integral) / (alpha - 1))
        return float(max(values))


@pytest.mark.parametrize("sigma, sensitivities, probabilities", CONFIGS)
def test_the_rdp_curve_is_between_the_exact_divergence_and_the_gaussian_of_the_largest_sensitivity(
        sigma, sensitivities, probabilities):
    m = dp.MixtureOfGaussians(sigma, sensitivities, probabilities)
    orders = np.array([1.5, 2.0, 3.0, 8.0])
    curve = m.rdp_curve(orders, "add_remove")
    c_max = max(c for c, p in zip(sensitivities, probabilities) if p > 0)
    assert np.all(curve <= dp.Gaussian(sigma / c_max).rdp_curve(orders, "add_remove") * (1 + 1e-15))
    for alpha, value in zip(orders, curve):
        assert exact_rdp(sigma, sensitivities, probabilities, float(alpha)) <= value * (1 + 1e-12)
    # the arb twin encloses an upper bound at integer orders, and agrees with the float curve
    for alpha in (2, 3, 8):
        ball = m.rdp_ball(alpha, "add_remove", 128)
        assert float(ball.upper()) >= exact_rdp(sigma, sensitivities, probabilities, float(alpha))
        assert float(ball.mid()) == pytest.approx(float(m.rdp_curve(np.array([float(alpha)]), "add_remove")[0]), rel=1e-12)


def test_the_rdp_accountant_is_tighter_than_the_gaussian_of_the_largest_sensitivity():
    """dp_accounting's test configuration: epsilon at 1e-6 from the weighted bound (22.93; certified
    mode 23.02) against Gaussian(s / c_max) alone (28.38)."""
    m1 = dp.MixtureOfGaussians(1.0, (0.0, 1.0, 2.0), (0.2, 0.6, 0.2))
    m2 = dp.MixtureOfGaussians(2.0, (0.0, 2.0, 3.0), (0.33, 0.34, 0.33))
    ours = dp.Accountant().compose(m1, 3).compose(m2, 2).epsilon(1e-6)
    gaussian = dp.Accountant().compose(dp.Gaussian(0.5), 3).compose(dp.Gaussian(2.0 / 3), 2).epsilon(1e-6)
    certified = dp.Accountant(certified=True).compose(m1, 3).compose(m2, 2).epsilon(1e-6)
    # certified mode uses integer orders only (arb balls): a little above the float answer
    assert ours < 0.85 * gaussian and ours <= certified < 0.85 * gaussian


@pytest.mark.parametrize("sigma, sensitivities, probabilities", CONFIGS)
def test_total_variation_bounds_the_exact_profile_at_zero(sigma, sensitivities, probabilities):
    m = dp.MixtureOfGaussians(sigma, sensitivities, probabilities)
    tv = m.total_variation("add_remove")
    assert exact_delta(sigma, sensitivities, probabilities, 0.0) <= tv <= 1.0


@pytest.mark.parametrize("sigma", [1e-160, 1e-8])
def test_the_pld_accountant_uses_the_gaussian_pair_where_positions_cannot_be_certified(sigma):
    """c_max^2 / (2 s^2) above pairs.MOG_MAX_EXPONENT (slopes that overflow, or losses so large that
    the float loss near a crossing has no accuracy left): the dominating Gaussian(s / c_max)."""
    m = dp.MixtureOfGaussians(sigma, (0.0, 1.0, 2.0), (0.2, 0.6, 0.2))
    directions = m.pld_pairs("add_remove")
    assert isinstance(directions["add"], pairs.GaussianPair) and directions["add"].sigma <= sigma / 2
    with pytest.raises(dp.InvalidArgument, match="must be at most"):
        pairs.MixtureOfGaussiansPair(sigma, (0.0, 1.0, 2.0), (0.2, 0.6, 0.2), "add")
    assert dp.PLDAccountant().compose(m, 3).epsilon_bounds(1e-6).upper > 0


def test_just_inside_the_exponent_limit_the_pair_certifies_its_positions():
    inside = dp.MixtureOfGaussians(1e-6, (0.0, 1.0, 2.0), (0.2, 0.6, 0.2))  # c_max^2 / (2 s^2) = 2e12
    pair = inside.pld_pairs("add_remove")["add"]
    assert isinstance(pair, pairs.MixtureOfGaussiansPair)
    low, high = pair.loss_range(10.0)
    p, q, ep, eq, below, above = pair.cell_masses(np.linspace(low - 1.0, high, 2001))
    assert math.fsum(p) + below[0] + above[0] == pytest.approx(1.0, abs=1e-9) and pair.edge_ratio.max() < 1e-6


# --- the bracket contains the exact value --------------------------------------------------------


@pytest.mark.parametrize("sigma, sensitivities, probabilities", CONFIGS)
@pytest.mark.parametrize("epsilon", [0.25, 1.0, 3.0])
def test_one_step_delta_bracket_contains_the_exact_delta(sigma, sensitivities, probabilities, epsilon):
    m = dp.MixtureOfGaussians(sigma, sensitivities, probabilities)
    bounds = dp.PLDAccountant().compose(m, 1).delta_bounds(epsilon)
    exact = exact_delta(sigma, sensitivities, probabilities, epsilon)
    # the oracle is exact to ~20 digits: compared at 1e-15 relative (its float conversion)
    assert bounds.lower <= exact * (1 + 1e-15) and exact <= bounds.upper * (1 + 1e-15)


@pytest.mark.parametrize("sigma, sensitivities, probabilities", CONFIGS)
def test_one_step_epsilon_bracket_contains_the_exact_epsilon(sigma, sensitivities, probabilities):
    m = dp.MixtureOfGaussians(sigma, sensitivities, probabilities)
    target = 1e-5
    bounds = dp.PLDAccountant().compose(m, 1).epsilon_bounds(target)
    assert exact_delta(sigma, sensitivities, probabilities, bounds.upper) <= target
    assert bounds.lower == 0 or exact_delta(sigma, sensitivities, probabilities, bounds.lower) >= target


def test_two_step_upper_end_is_above_the_exact_delta():
    """T = 2 by quadrature of the one-step profile (seconds; the add order dominates here)."""
    sigma, sensitivities, probabilities = CONFIGS[0]
    bounds = dp.PLDAccountant().compose(dp.MixtureOfGaussians(sigma, sensitivities, probabilities), 2).delta_bounds(1.0)
    exact = exact_delta(sigma, sensitivities, probabilities, 1.0, steps=2, dps=12, directions=("add",))
    assert exact <= bounds.upper * (1 + 1e-10)  # the quadrature at 12 digits
    assert bounds.lower <= exact * (1 + 1e-10) and bounds.upper - bounds.lower <= 1e-3 * exact


@pytest.mark.campaign
@pytest.mark.parametrize("sigma, sensitivities, probabilities", CONFIGS)
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_two_step_delta_bracket_contains_the_exact_delta(sigma, sensitivities, probabilities, epsilon):
    m = dp.MixtureOfGaussians(sigma, sensitivities, probabilities)
    bounds = dp.PLDAccountant().compose(m, 2).delta_bounds(epsilon)
    exact = exact_delta(sigma, sensitivities, probabilities, epsilon, steps=2, dps=15)
    assert bounds.lower <= exact * (1 + 1e-12) and exact <= bounds.upper * (1 + 1e-12)


def test_the_general_path_agrees_with_the_sampled_gaussian():
    """A third component of weight 1e-300 forces the Newton path on what is SampledGaussian(0.2, 0.5):
    the two brackets overlap."""
    general = dp.PLDAccountant().compose(dp.MixtureOfGaussians(0.5, (0.0, 1.0, 2.0), (0.8, 0.2, 1e-300)), 5)
    closed = dp.PLDAccountant().compose(dp.SampledGaussian(0.2, 0.5), 5)
    a, b = general.epsilon_bounds(1e-6), closed.epsilon_bounds(1e-6)
    assert max(a.lower, b.lower) <= min(a.upper, b.upper)


def test_dp_accountings_own_configuration_is_inside_the_bracket():
    """dp_accounting's test_mixture_of_gaussians_basic: MoG(1, [0,1,2], [.2,.6,.2]) x3 then
    MoG(2, [0,2,3], [.33,.34,.33]) x2 expects epsilon 17.193115 at delta 1e-6 (its pessimistic
    discretisation at 1e-4 gave 17.1931145 there); the former Gaussian(s / c_max) reading gave
    delta 0.00834 at that epsilon."""
    acc = (dp.PLDAccountant().compose(dp.MixtureOfGaussians(1.0, (0.0, 1.0, 2.0), (0.2, 0.6, 0.2)), 3)
           .compose(dp.MixtureOfGaussians(2.0, (0.0, 2.0, 3.0), (0.33, 0.34, 0.33)), 2))
    bounds = acc.epsilon_bounds(1e-6)
    assert bounds.lower <= 17.193115 <= bounds.upper and bounds.upper - bounds.lower < 2e-5
    delta = acc.delta_bounds(17.193115)
    assert delta.lower <= 1e-6 + 1e-12 and delta.upper < 1.01e-6


def test_the_discretised_one_step_is_an_upper_bound_at_every_level():
    """The upper one-step PLD's hockey stick is >= the exact one at several levels (both orders)."""
    sigma, sensitivities, probabilities = CONFIGS[1]
    exact = exact_pair(sigma, sensitivities, probabilities)
    for direction, reference in (("add", exact), ("remove", exact.swapped())):
        one = pld_eval.discretise(pairs.MixtureOfGaussiansPair(sigma, sensitivities, probabilities, direction),
                                  2e-3, "upper")
        low = pld_eval.discretise(pairs.MixtureOfGaussiansPair(sigma, sensitivities, probabilities, direction),
                                  2e-3, "lower")
        for eps in (-0.5, 0.0, 0.7, 2.5):
            def stick(o):
                return o.infinity + math.fsum(o.masses * np.maximum(0.0, 1 - np.exp(eps - o.losses())))
            truth = float(oracle.delta_mixture(reference, eps, 20))
            assert stick(low) <= truth * (1 + 1e-12) <= stick(one) * (1 + 2e-12)


@st.composite
def mixtures(draw):
    n = draw(st.integers(2, 5))
    sigma = draw(st.floats(0.1, 100.0))
    sensitivities = draw(st.lists(st.one_of(st.just(0.0), st.floats(0.01, 20.0)), min_size=n, max_size=n))
    if max(sensitivities) == 0:
        sensitivities[0] = 1.0
    weights = draw(st.lists(st.floats(1e-9, 1.0), min_size=n, max_size=n))
    total = math.fsum(weights)
    return dp.MixtureOfGaussians(sigma, tuple(sensitivities), tuple(w / total for w in weights))


@settings(max_examples=sized(10), deadline=None)
@given(mixtures(), st.integers(1, 50), st.floats(1e-10, 1e-2))
def test_any_mixture_gets_a_bracket_without_error(m, steps, delta):
    bounds = dp.PLDAccountant().compose(m, steps).epsilon_bounds(delta)
    assert 0 <= bounds.lower <= bounds.upper < math.inf
    # the lower end is below the RDP accountant's epsilon (an upper bound of the same tight value)
    assert bounds.lower <= dp.Accountant().compose(m, steps).epsilon(delta)
