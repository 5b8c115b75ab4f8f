"""The PLD accountant under replace-one and with fixed-size batches: sound brackets, clear errors."""

import json
import math

import numpy as np
import pytest

import dpproofs as dp
from dpproofs.accountant.pld import discretise as pld_eval
from dpproofs.math import precise

from tests.test_pld import gaussian_epsilon  # the one closed-form inversion of the tests


def replace_one(mechanism, steps, **options):
    return dp.PLDAccountant(relation="replace_one", **options).compose(mechanism, steps)


@pytest.mark.parametrize("sigma, steps", [(2.0, 1), (1.0, 10), (4.0, 100)])
def test_the_gaussian_under_replace_one_is_the_gaussian_of_half_the_noise_multiplier(sigma, steps):
    low, high = gaussian_epsilon(sigma / 2 / math.sqrt(steps), 1e-5)
    bounds = replace_one(dp.Gaussian(sigma), steps).epsilon_bounds(1e-5)
    assert bounds.lower <= low and high <= bounds.upper
    assert bounds.source == "pld" and bounds.width <= 2e-3 * bounds.upper


@pytest.mark.parametrize("n, b, sigma, steps", [(100, 10, 1.0, 1), (1000, 10, 2.0, 50), (60000, 256, 1.1, 200)])
def test_fixed_batches_bracket_the_realised_worst_pair_composed(n, b, sigma, steps):
    """P1 = ((1-g) N(0, (s/2)^2) + g N(1, (s/2)^2), N(0, (s/2)^2)) is realised by neighbouring
    datasets (all other records equal x' = -x): its exact composed epsilon (both orders) is a
    lower bound on the truth, so the accountant's upper end must lie above it."""
    gamma = b / n
    mechanism = dp.FixedBatchGaussian(batch_size=b, dataset_size=n, sigma=sigma)
    bounds = replace_one(mechanism, steps).epsilon_bounds(1e-5)
    assert bounds.lower <= bounds.upper
    one = dp.PLDAccountant().compose(dp.SampledGaussian(gamma, sigma / 2), steps).epsilon_bounds(1e-5)
    # the add/remove accountant at (gamma, sigma/2) brackets exactly max(P1^T, P2^T)
    assert one.lower <= bounds.upper
    assert bounds.lower <= one.upper


def test_one_fixed_batch_step_upper_end_is_above_the_closed_form_of_both_orders():
    n, b, sigma = 50, 5, 1.0
    gamma = b / n
    bounds = replace_one(dp.FixedBatchGaussian(b, n, sigma), 1).delta_bounds(1.0)
    exact = max(
        float(precise.delta_sampled_gaussian(1.0, gamma, sigma / 2, dps=30, direction=d)) for d in ("add", "remove")
    )
    assert bounds.lower <= exact * (1 + 1e-9) and exact <= bounds.upper


def test_poisson_replace_one_lies_above_poisson_add_remove():
    for q, sigma, steps in [(0.01, 1.0, 100), (0.004, 1.1, 1000)]:
        add_remove = dp.PLDAccountant().compose(dp.SampledGaussian(q, sigma), steps).epsilon_bounds(1e-5)
        bounds = replace_one(dp.SampledGaussian(q, sigma), steps).epsilon_bounds(1e-5)
        assert bounds.upper >= add_remove.upper
        # the lower end is the best realised pair: at least the add/remove pair (x' = 0 is a valid
        # clipped contribution), and the two-sided mixture (x = -x') composed
        assert bounds.lower >= add_remove.lower
        assert bounds.lower <= bounds.upper


def test_the_symmetrised_pair_is_symmetric_and_dominates_above_zero():
    pair = pld_eval.GaussianPair(0.1, 0.5, "add")
    upper = pld_eval.discretise(pair, 1e-3, "upper")
    sym = pld_eval.symmetrised(upper)
    losses, w = sym.losses(), sym.masses
    assert w.sum() + sym.infinity >= 1.0
    # P-mass at -l is e^{-l} times the P-mass at l (rounded down)
    middle = len(w) // 2
    right, left = w[middle + 1:], w[:middle][::-1]
    assert np.all(left <= right * np.exp(-losses[middle + 1:]) * (1 + 1e-15))
    assert np.allclose(left, right * np.exp(-losses[middle + 1:]), rtol=1e-12, atol=0)
    for eps in (0.0, 0.1, 1.0, 3.0):
        profile = lambda l, m, inf: inf + float(np.sum(m * np.clip(1 - np.exp(eps - l), 0, None)))
        assert profile(losses, w, sym.infinity) == pytest.approx(profile(upper.losses(), upper.masses, upper.infinity), rel=1e-12)


def test_symmetrising_refuses_a_positive_part_too_heavy_for_a_symmetric_pair():
    heavy = pld_eval.OneStep(0.5, 1, 0.0, np.array([0.9, 0.5]), 0.0, "upper")
    assert pld_eval.symmetrised(heavy) is None


def test_an_atom_just_too_heavy_to_mirror_is_moved_up_a_few_cells_and_stays_an_upper_bound():
    # RandomizedResponse(9.55): its atom at +eps carries 0.99993 of the mass, and U's rounding
    # margins put sum w (1 + e^{-l}) 9e-16 above 1: symmetrised() returned None, and a replace-one
    # ledger with a fixed-size batch beside it fell back to [0, RDP] (pld_fuzz seed 20261213, i = 41)
    from dpproofs.accountant.pld.accountant import _replace_one_plan

    epsilon, step = 9.551305253991067, 0.006154191529633419
    dominating, _ = _replace_one_plan(dp.RandomizedResponse(epsilon))
    upper = pld_eval.discretise(dominating, step, "upper", 8.16647915654664, plain_grid=True)
    sym = pld_eval.symmetrised(upper)
    assert sym is not None
    losses, w = sym.losses(), sym.masses
    assert np.all(w >= 0) and w.sum() + sym.infinity <= 1 + 1e-15
    positive = losses > 0
    # the positive part is U's, moved up by a whole number of cells
    kept, moved = upper.masses[upper.losses() > 0], w[positive]
    assert np.array_equal(kept[kept > 0], moved[moved > 0])
    shift = round((losses[positive][moved > 0][0] - upper.losses()[upper.losses() > 0][kept > 0][0]) / step)
    assert shift >= 1
    # the mirror is at most e^{-l} w, and the profile at eps >= 0 is at least U's
    middle = len(w) // 2
    assert np.all(w[:middle][::-1] <= w[middle + 1:] * np.exp(-losses[middle + 1:]))
    for eps in (0.0, 5.0, epsilon - 2 * step, epsilon - step / 2, epsilon):
        profile = lambda l, m, inf: inf + float(np.sum(m * np.clip(1 - np.exp(eps - l), 0, None)))
        assert profile(losses, w, sym.infinity) >= profile(upper.losses(), upper.masses, upper.infinity)
    acc = dp.PLDAccountant(relation="replace_one").compose(dp.FixedBatchGaussian(3071, 423170, 3.1569689174346385), 3208342)
    acc.compose(dp.RandomizedResponse(epsilon), 50).compose(dp.SampledGaussian(6.683623518528568e-05, 1.4358667134921854), 82010)
    bounds = acc.epsilon_bounds(1.741282010659465e-05)
    rdp = dp.Accountant(relation="replace_one").compose(dp.FixedBatchGaussian(3071, 423170, 3.1569689174346385), 3208342)
    rdp.compose(dp.RandomizedResponse(epsilon), 50).compose(dp.SampledGaussian(6.683623518528568e-05, 1.4358667134921854), 82010)
    assert bounds.source == "pld" and 0 < bounds.lower <= bounds.upper <= rdp.epsilon(1.741282010659465e-05)


def test_fixed_batches_under_add_remove_are_refused_naming_the_pair_and_nothing_changes():
    acc = dp.PLDAccountant().compose(dp.SampledGaussian(0.01, 1.0), 10)
    before = acc.to_dict()
    with pytest.raises(dp.InvalidArgument, match="FixedBatchGaussian.*add_remove.*replace_one"):
        acc.compose(dp.FixedBatchGaussian(batch_size=10, dataset_size=100, sigma=1.0), 5)
    assert acc.to_dict() == before


def test_an_unknown_relation_is_refused_naming_the_argument():
    with pytest.raises(dp.InvalidArgument, match="relation"):
        dp.PLDAccountant(relation="substitute")


def test_the_relation_round_trips_through_json():
    acc = replace_one(dp.FixedBatchGaussian(10, 100, 1.5), 7)
    again = dp.PLDAccountant.from_dict(json.loads(json.dumps(acc.to_dict())))
    assert again.relation == "replace_one" and again.ledger == acc.ledger
    assert "replace_one" in repr(again)


def test_a_batch_of_the_whole_dataset_under_replace_one_is_the_gaussian_of_half_sigma():
    low, high = gaussian_epsilon(0.5 / math.sqrt(4), 1e-6)
    bounds = replace_one(dp.FixedBatchGaussian(100, 100, 1.0), 4).epsilon_bounds(1e-6)
    assert bounds.lower <= low and high <= bounds.upper


def test_poisson_replace_one_lower_end_is_the_two_sided_mixture_dp_accounting_composes():
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant

    q, sigma, steps = 0.01, 1.0, 1000
    theirs = pld_privacy_accountant.PLDAccountant(neighboring_relation=dpa.NeighboringRelation.REPLACE_ONE)
    theirs.compose(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), steps))
    bounds = replace_one(dp.SampledGaussian(q, sigma), steps).epsilon_bounds(1e-5)
    # same pair ((1-q) N(0) + q N(1), (1-q) N(0) + q N(-1)), now for both of our ends; theirs is a
    # pessimistic discretisation (a peer, not the truth: side by side only)
    assert bounds.lower <= theirs.get_epsilon(1e-5) <= bounds.lower * 1.01
    assert abs(theirs.get_epsilon(1e-5) - bounds.upper) <= 0.01 * bounds.upper


@pytest.mark.parametrize("q, sigma, steps, delta", [(0.001, 1.0, 10000, 1e-5), (0.05, 2.0, 1000, 1e-8),
                                                    (0.01, 4.0, 10000, 1e-5), (0.1, 0.5, 100, 1e-10)])
def test_poisson_replace_one_is_tight_the_two_sided_mixture_dominating_every_configuration(q, sigma, steps, delta):
    # docs/math.md, "Poisson sampling under replace-one: the dominating pair": both ends compose the
    # same pair, so the bracket meets the accountant's width target (it was [realised, RDP] before)
    bounds = replace_one(dp.SampledGaussian(q, sigma), steps).epsilon_bounds(delta)
    assert bounds.source == "pld" and bounds.target_met
    assert 0 < bounds.upper - bounds.lower <= 1e-3 * bounds.upper


def test_a_pass_whose_single_tilt_is_over_budget_tilts_its_split_at_the_earlier_bracket():
    # row 34 of benchmarks/pld_peer_grid.py: the third pass's single-tilt windows are over the cell
    # budget, and the bulk/jump split took its tilt from the RDP stand-in's epsilon (4.1e5, the
    # sampling ignored): [0, 1.1e4], and the answer stayed at the second pass's, 3.1e-3 wide. Tilted
    # at the second pass's bracket the split answers within the width. A second accountant at a fixed
    # step 1e-5 (window budget 2^23) gives [0.504586, 0.504766]
    bounds = replace_one(dp.SampledGaussian(1e-4, 0.7), 100_000).epsilon_bounds(1e-6)
    assert bounds.source == "pld" and bounds.target_met
    assert bounds.lower <= 0.504766 and 0.504586 <= bounds.upper


@pytest.mark.parametrize("rdp_half, answers, tried, expected", [
    (0.8, {0.8: (0.0, 100.0), 0.5: (0.4, 0.6)}, [0.8, 0.5], (0.4, 0.6)),
    (0.8, {0.8: (0.0, 100.0), 0.5: None}, [0.8, 0.5], (0.0, 100.0)),
    (0.8, {0.8: (0.3, 0.5)}, [0.8], (0.3, 0.5)),
    (0.8, {0.8: None, 0.5: (0.45, 0.55)}, [0.8, 0.5], (0.45, 0.55)),
    (10.0, {0.5: (0.45, 0.55)}, [0.5], (0.45, 0.55)),
    (10.0, {0.5: None, 10.0: (0.3, 0.5)}, [0.5, 10.0], (0.3, 0.5)),
    # a bracket more than SPLIT_REHINT (2) times its lower end, from a guess above it: once more there
    (0.8, {0.8: (0.1, 0.6), 0.1: (0.15, 0.2)}, [0.8, 0.1], (0.15, 0.2)),
    (0.8, {0.8: (0.1, 0.6), 0.1: None}, [0.8, 0.1], (0.1, 0.6))])
def test_a_split_without_a_single_tilt_bracket_tries_the_rdp_hint_and_the_earlier_bracket(
        monkeypatch, rdp_half, answers, tried, expected):
    # the RDP bound's half first (at (1e-4, 0.6, 1e6, 1e-12) the earlier bracket's tilt is over budget
    # there and the RDP one gives [4.99958, 4.99984]), the earlier bracket where it gives no lower end;
    # the earlier bracket first where the RDP half is more than SPLIT_HINT_FAR (2) times it
    from dpproofs.accountant.pld import accountant as pld_accountant

    accountant = dp.PLDAccountant()
    accountant._hint, accountant._tilt_epsilon = rdp_half, 0.5
    seen = []

    def split_at(self, mechanism, count, direction, step, tail_z, delta, hint):
        seen.append(hint)
        return answers[hint]

    monkeypatch.setattr(pld_accountant.PLDAccountant, "_split_at", split_at)
    entry = (dp.SampledGaussian(1e-4, 0.7), 100)
    assert accountant._attempt_split(entry, "add", 1e-4, 8.0, 1e-6, None, None) == expected
    assert seen == tried


@pytest.mark.parametrize("q, sigma", [(0.01, 1.0), (0.3, 2.0), (0.001, 0.6)])
def test_one_poisson_replace_one_step_brackets_the_exact_two_sided_profile(q, sigma):
    from dpproofs_theorems.accountant.pld_replace_one import two_sided_delta_precise

    bounds = replace_one(dp.SampledGaussian(q, sigma), 1).epsilon_bounds(1e-6)
    assert two_sided_delta_precise(bounds.upper, q, sigma, dps=30) <= 1e-6
    assert two_sided_delta_precise(bounds.lower, q, sigma, dps=30) >= 1e-6


def test_the_two_sided_mixture_positions_invert_its_loss():
    pair = pld_eval.TwoSidedGaussianPair(0.01, 1.1)
    for level in (-30.0, -1.0, -1e-3, 0.0, 1e-3, 1.0, 30.0):
        assert pair._loss(float(pair.positions([level])[0])) == pytest.approx(level, rel=1e-9, abs=1e-12)


def test_a_replace_one_one_step_grid_stays_within_its_cell_budget(monkeypatch):
    # (rate, sigma, delta) = (1e-3, 0.5, 1e-10): the realised pairs once reached 771 621 cells (1.7 GB)
    # in a refinement pass that could not move the upper end; the budget is max_cells // 8
    from dpproofs.accountant.pld import discretise

    sizes, real = [], discretise.discretise

    def recording(pair, step, bound, tail_z=38.0, max_cells=None, **options):
        one = real(pair, step, bound, tail_z, max_cells, **options)
        if one is not None:
            sizes.append(len(one.masses))
        return one

    monkeypatch.setattr(discretise, "discretise", recording)
    # fixed-size batches: their replace-one bracket still composes realised pairs beside the
    # symmetrised dominating one (Poisson's is now one pair, accounted as under add/remove)
    accountant = dp.PLDAccountant(relation="replace_one", max_cells=1 << 18)
    bounds = accountant.compose(dp.FixedBatchGaussian(1, 1000, 0.5)).epsilon_bounds(1e-10)
    assert sizes and max(sizes) <= (1 << 18) // 8 + 2
    assert 0 < bounds.lower <= bounds.upper


def test_discretise_refuses_a_grid_over_its_cell_budget_before_allocating():
    from dpproofs.accountant.pld import discretise
    from dpproofs.math.pairs import GaussianPair

    assert discretise.discretise(GaussianPair(0.01, 4.0, "add"), 1e-6, "upper", 9.0, 1000) is None
    assert discretise.discretise(GaussianPair(0.01, 4.0, "add"), 1e-2, "upper", 9.0, 10_000) is not None


def test_a_tight_poisson_replace_one_bracket_does_not_compute_the_sampled_gaussians_own_rdp_bound(rdp_calls):
    # its own curve needs the add/remove RDP at 2a and 2a - 1 up to 10 000 (49 ms of a 59 ms call in a
    # fresh process); the PLD bracket is tight and the RDP bound is at least its lower end
    bracket = dp.PLDAccountant(relation="replace_one").compose(dp.SampledGaussian(0.01, 4.0), 10_000).epsilon_bounds(1e-5)
    assert bracket.source == "pld" and bracket.upper - bracket.lower <= 1e-3 * bracket.upper
    assert not rdp_calls


def test_the_mutant_without_a_replace_one_stand_in_computes_the_own_rdp_bound(monkeypatch, rdp_calls):
    monkeypatch.setattr(dp.SampledGaussian, "rdp_dominating", lambda self, relation="add_remove": None)
    dp.PLDAccountant(relation="replace_one").compose(dp.SampledGaussian(0.01, 4.0), 10_000).epsilon_bounds(1e-5)
    assert rdp_calls


@pytest.mark.parametrize("q, sigma", [(1e-4, 0.5), (0.01, 1.0), (0.3, 4.0), (1.0, 2.0)])
def test_the_replace_one_stand_in_bounds_the_sampled_gaussians_own_rdp_at_every_default_order(q, sigma):
    from dpproofs.accountant.rdp import DEFAULT_ORDERS

    mechanism = dp.SampledGaussian(q, sigma)
    stand_in = mechanism.rdp_dominating("replace_one")
    own = mechanism.rdp_curve(DEFAULT_ORDERS, "replace_one")
    # where the own curve is the coupling bound itself, it carries a 4-ulp rounding-up that the
    # Gaussian's float curve does not: equal within 8 ulp there
    assert np.all(stand_in.rdp_curve(DEFAULT_ORDERS, "replace_one") >= own * (1 - 8 * 2.0**-52))
    assert mechanism.rdp_dominating("add_remove") is None


def test_a_wide_replace_one_bracket_takes_the_own_rdp_bound_where_it_is_lower(monkeypatch):
    # every pass gives [1e-3, the stand-in's bound / 2]: far wider than asked, and above the own RDP bound
    mechanism = dp.SampledGaussian(0.01, 4.0)
    own = dp.Accountant(relation="replace_one").compose(mechanism, 100).epsilon(1e-5)
    monkeypatch.setattr(dp.PLDAccountant, "_attempt", lambda self, *args, **kwargs: (1e-3, 50 * own))
    bracket = dp.PLDAccountant(relation="replace_one").compose(mechanism, 100).epsilon_bounds(1e-5)
    assert bracket.source == "rdp" and bracket.upper == own
