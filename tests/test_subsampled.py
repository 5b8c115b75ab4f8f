"""dpproofs.checker.oracles.subsampled: exact enumeration of subsampled mechanisms and the Gaussian-mixture
divergences agree with what is known in closed form, and the balls enclose the mpmath values."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp

from dpproofs.checker.oracles import finite
from dpproofs.checker.oracles import mixtures
from dpproofs.checker.oracles import subsampled
from dpproofs.checker.decide import mp_ball
from dpproofs.errors import InvalidArgument
from dpproofs.math import ball
from dpproofs.math import precise
from tests.support import sized

SAMPLINGS = st.sampled_from(["poisson", "fixed", "replacement"])


def _kw(sampling, d, draw_value):
    if sampling == "poisson":
        return {"rate": Fraction(draw_value % 11, 10) if draw_value % 11 <= 10 else Fraction(1, 2)}
    top = len(d) if sampling == "fixed" else 3
    return {"batch_size": draw_value % (top + 1)}


@settings(max_examples=sized(20))
@given(subsampled.finite_bases(universe=3), subsampled.datasets(universe=3, max_size=5), SAMPLINGS, st.integers(0, 100))
def test_the_enumerated_batch_and_output_distributions_sum_to_exactly_one(base, d, sampling, value):
    kw = _kw(sampling, d, value)
    if sampling == "replacement" and (not d or kw["batch_size"] == 0):
        kw["batch_size"] = 1 if d else 0
        if not d:
            return
    assert sum(subsampled.batches(d, sampling=sampling, **kw).values()) == 1
    assert sum(subsampled.subsampled_distribution(base, d, sampling=sampling, **kw)) == 1


@settings(max_examples=sized(15))
@given(subsampled.finite_bases(universe=3), subsampled.datasets(universe=3, max_size=5))
def test_poisson_with_rate_one_and_fixed_batches_of_the_whole_dataset_run_the_base_on_the_dataset(base, d):
    whole = base(d)
    assert subsampled.subsampled_distribution(base, d, sampling="poisson", rate=Fraction(1)) == whole
    assert subsampled.subsampled_distribution(base, d, sampling="fixed", batch_size=len(d)) == whole
    assert subsampled.subsampled_distribution(base, d, sampling="poisson", rate=Fraction(0)) == base(())


@settings(max_examples=sized(15))
@given(subsampled.finite_bases(universe=2),
       subsampled.neighbouring_datasets("replace_one", universe=2, max_size=5), st.randoms(use_true_random=False))
def test_the_pair_is_symmetric_in_the_datasets_and_ignores_the_order_of_records(base, pair, rng):
    d, d2 = pair
    kw = {"sampling": "fixed", "batch_size": max(1, len(d) // 2)}
    forward = subsampled.subsampled_pair(base, d, d2, **kw)
    assert subsampled.subsampled_pair(base, d2, d, **kw) == forward.swapped()
    shuffled = list(d)
    rng.shuffle(shuffled)
    assert subsampled.subsampled_pair(base, tuple(shuffled), d2, **kw).p == forward.p


@settings(max_examples=sized(15))
@given(subsampled.datasets(universe=3, max_size=4), st.sampled_from(subsampled.RELATIONS))
def test_every_listed_neighbour_is_a_neighbour_under_its_relation(d, relation):
    found = subsampled.neighbours(d, relation, 3)
    assert len(found) == len(set(found))
    for d2 in found:
        assert subsampled.is_neighbour(d, d2, relation)


@settings(max_examples=sized(10))
@given(subsampled.neighbouring_datasets("add_remove", universe=2, max_size=4))
def test_drawn_add_remove_neighbours_differ_by_one_record(pair):
    assert subsampled.is_neighbour(*pair, "add_remove")


def test_the_k_fold_product_of_a_finite_pair_multiplies_its_outcome_probabilities():
    pair = finite.Pair((Fraction(1, 3), Fraction(2, 3)), (Fraction(1, 2), Fraction(1, 2)))
    product = subsampled.compose(pair, 3)
    assert len(product) == 8 and sum(product.p) == 1 and sum(product.q) == 1
    assert product.p[5] == Fraction(2, 3) * Fraction(1, 3) * Fraction(2, 3)
    assert subsampled.compose(pair, 1) == pair


def test_randomized_response_under_poisson_sampling_is_exactly_log_one_plus_q_times_e_eps_minus_one_dp():
    base = subsampled.randomized_response(Fraction(3, 4))
    pair = subsampled.subsampled_pair(base, (1,), (), sampling="poisson", rate=Fraction(1, 2))
    assert pair == finite.Pair((Fraction(1, 2), Fraction(1, 2)), (Fraction(3, 4), Fraction(1, 4)))
    with mp.workdps(60):
        assert abs(finite.epsilon_dp(pair) - mp.log(2)) < mp.mpf(10) ** -40


def test_the_geometric_count_is_a_full_support_distribution_with_the_truncated_ends():
    base = subsampled.geometric_count(Fraction(1, 2), 3)
    assert base((1,)) == (Fraction(1, 3), Fraction(1, 3), Fraction(1, 6), Fraction(1, 6))
    assert all(sum(base(batch)) == 1 for batch in [(), (1,), (1, 1), (1, 1, 1), (1, 1, 1, 1)])


# --- Gaussian mixtures ----------------------------------------------------------------------------

GAUSS = subsampled.MixturePair((1,), (Fraction(1),), (1,), (Fraction(0),), Fraction(3, 2))


@pytest.mark.parametrize("alpha", [Fraction(3, 2), 2, 7])
def test_the_renyi_divergence_of_a_gaussian_pair_by_quadrature_is_alpha_over_two_sigma_squared(alpha):
    with mp.workdps(40):
        value = mixtures.rdp_mixture(GAUSS, alpha, dps=30)
        assert abs(value - precise.to_mpf(Fraction(alpha) / (2 * Fraction(9, 4)))) < mp.mpf(10) ** -28
    enclosure = mixtures.rdp_mixture_ball(GAUSS, alpha, prec=128)
    with ball.precision(256):
        assert enclosure.contains(ball.to_arb(Fraction(alpha) / (2 * Fraction(9, 4))))
    assert float(enclosure.rad()) < 1e-30


@pytest.mark.parametrize("epsilon", [0, Fraction(1, 2), 3])
def test_the_hockey_stick_of_a_gaussian_pair_is_the_exact_gaussian_profile_and_the_ball_encloses_it(epsilon):
    with mp.workdps(50):
        value = mixtures.delta_mixture(GAUSS, epsilon, dps=40)
        exact = precise.delta_gaussian(epsilon, Fraction(3, 2), dps=40)
        assert abs(value - exact) < mp.mpf(10) ** -38
    enclosure = mixtures.delta_mixture_ball(GAUSS, epsilon, prec=160)
    assert float(enclosure.rad()) < 1e-30
    assert enclosure.overlaps(mp_ball(exact, 38))


def test_the_sum_query_under_poisson_add_remove_is_the_sampled_gaussian_and_other_records_only_blur_it():
    kw = {"sampling": "poisson", "rate": Fraction(1, 4), "sigma": Fraction(1)}
    pair = subsampled.sum_query_pair((Fraction(1), Fraction(0), Fraction(0)), (Fraction(0), Fraction(0)), **kw)
    blurred = subsampled.sum_query_pair((Fraction(1), Fraction(0), Fraction(-1, 2)), (Fraction(0), Fraction(-1, 2)), **kw)
    with mp.workdps(40):
        for direction, mixture, other in (("add", pair, blurred), ("remove", pair.swapped(), blurred.swapped())):
            exact = precise.delta_sampled_gaussian(Fraction(1, 3), Fraction(1, 4), 1, dps=30, direction=direction)
            assert abs(mixtures.delta_mixture(mixture, Fraction(1, 3), dps=30) - exact) < mp.mpf(10) ** -28
            # the other records add an independent shift: post-processing, never more divergence
            assert mixtures.delta_mixture(other, Fraction(1, 3), dps=30) <= exact
        assert abs(mixtures.rdp_mixture(pair, 4, dps=30)
                   - precise.rdp_sampled_gaussian_add(4, Fraction(1, 4), 1, dps=30)) < mp.mpf(10) ** -27


@settings(max_examples=sized(6))
@given(subsampled.gaussian_datasets(max_size=3), st.integers(0, 2), st.sampled_from([Fraction(1, 2), Fraction(1)]),
       st.floats(0, 2))
def test_the_hockey_stick_ball_of_a_random_mixture_pair_encloses_the_mpmath_value(d, k, sigma, epsilon):
    d2 = d[:-1] + (Fraction(-1),) if d else (Fraction(1),)
    d = d if d else (Fraction(0),)
    pair = subsampled.sum_query_pair(d, d2, sampling="fixed", batch_size=1 + k % len(d), sigma=sigma)
    value = mixtures.delta_mixture(pair, epsilon, dps=30)
    enclosure = mixtures.delta_mixture_ball(pair, epsilon, prec=128)
    assert float(enclosure.rad()) < 1e-25
    assert abs(float(enclosure.mid()) - float(value)) <= 1e-25 + 2 * float(enclosure.rad())


def test_the_two_fold_hockey_stick_of_a_gaussian_pair_is_the_profile_at_sigma_over_root_two():
    value = mixtures.delta_mixture_composed(GAUSS, Fraction(1, 2), 2, dps=12)
    exact = precise.delta_gaussian(Fraction(1, 2), mp.mpf(3) / 2 / mp.sqrt(2), dps=20)
    assert abs(value - exact) < 1e-10


def test_bad_sampling_arguments_and_records_outside_the_clipping_range_are_refused():
    base = subsampled.randomized_response(Fraction(3, 4))
    with pytest.raises(InvalidArgument, match="rate"):
        subsampled.batches((0, 1), sampling="poisson", rate=Fraction(3, 2))
    with pytest.raises(InvalidArgument, match="batch_size"):
        subsampled.subsampled_pair(base, (0, 1), (1, 1), sampling="fixed", batch_size=3)
    with pytest.raises(InvalidArgument, match="sampling"):
        subsampled.batches((0,), sampling="shuffle", batch_size=1)
    with pytest.raises(InvalidArgument, match=r"\[-1, 1\]"):
        subsampled.sum_query_pair((Fraction(2),), (Fraction(0),), sampling="fixed", batch_size=1, sigma=1)
    with pytest.raises(InvalidArgument, match="relation"):
        subsampled.neighbours((0,), "swap", 2)


def test_the_two_fold_hockey_stick_ball_encloses_the_exact_gaussian_value():
    enclosure = mixtures.delta_mixture_composed_ball(GAUSS, Fraction(1, 2), 2, prec=64, cells=100, levels=30)
    exact = precise.delta_gaussian(Fraction(1, 2), mp.mpf(3) / 2 / mp.sqrt(2), dps=20)
    assert enclosure.overlaps(mp_ball(exact, 18))
    assert float(enclosure.rad()) < 0.05


# --- the subsampling papers' quantities live in their packages ---------------------------------------

_PAPER_QUANTITIES = {
    "balle2018": ("delta_subsampled", "eps_base", "sampling_fraction", "hs_triple", "hs_decomposed",
                  "delta_sum_query", "delta_pstar_sum_query"),
    "wang2019": ("instance_pair", "base_rdp", "wor_chi_moment", "wor_ternary_chi", "wor_p1_configuration",
                 "wbk19_shipped_log_moment", "wbk19_shipped_log_moment_float"),
    "zhu2022": ("zdw_pair", "rr_dominating_pair", "rr_step_pair", "symmetrised"),
}


def test_the_subsampling_papers_register_their_own_quantities_and_the_library_names_none_of_them():
    import importlib
    import pathlib

    from dpproofs.checker import vocabulary

    root = pathlib.Path(vocabulary.__file__).parents[2]
    library = "".join(p.read_text() for p in (root / "dpproofs" / "checker").rglob("*.py"))
    for paper in _PAPER_QUANTITIES:
        importlib.import_module(f"dpproofs_theorems.{paper}")  # importing the paper registers its quantities
    known = vocabulary.NAMESPACE
    for paper, names in _PAPER_QUANTITIES.items():
        package = (root / "theorems" / paper / "quantities.py").read_text()
        for name in names:
            assert name in known, name
            assert f'"{name}"' not in library and f"def {name}(" not in library, name
            assert f'"{name}"' in package or f"def {name}(" in package, (paper, name)
    for generic in ("hockey_stick_pair", "product_pair", "power_pair"):
        assert f'"{generic}"' in library


def test_a_content_evaluator_refuses_a_non_integer_where_an_integer_is_asked():
    from dpproofs.checker import vocabulary

    precise_fn, ball_fn = vocabulary.exact_evaluators(lambda j: Fraction(j, 2), 0)
    assert precise_fn(3, dps=20) == mp.mpf(1.5)
    with pytest.raises(InvalidArgument, match="argument 1"):
        precise_fn(mp.mpf(2.5), dps=20)
    with pytest.raises(vocabulary.UnsupportedExpression, match="argument 1"):
        ball_fn(ball.to_arb(Fraction(5, 2)), prec=64)
