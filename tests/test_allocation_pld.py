"""Random allocation (balls-in-bins) in the PLD accountant: dpproofs.accountant.pld.allocation.

The exact one-epoch values the bracket must contain are tested in tests/test_allocation_exact.py
(and by the claims accountant.pld.allocation.*); here: the lattice laws' own invariants, the t = 1
case (the Gaussian, exactly), the bracket's width and place beside Poisson sampling, and inputs
that overflowed."""

import math

import numpy as np
import pytest

import dpproofs as dp
from dpproofs.accountant.pld import allocation as al
from dpproofs.accountant.pld import discretise as pld_discretise
from dpproofs_theorems.accountant import pld_allocation_error_tails as error_tails

#: The one-epoch tail allowance used below (the accountant's at delta ~ 1e-6, one step).
BUDGET = 1e-12


@pytest.fixture(scope="module")
def laws():
    return {kind: al.sum_law(100, 1.0, kind, BUDGET) for kind in ("upper", "lower-add", "lower-remove")}


def test_the_spread_law_keeps_the_mass_and_the_mean_of_s_up_to_its_error_bounds(laws):
    law = laws["upper"]
    # the plain error bounds and the per-cell values of the windows' L2 bounds (each a valid bound alone)
    error = float(np.sum(law.e)) + sum(float(np.sum(coef)) for coef, _ in law.l2)
    # E_Q[S] = 1 exactly for the true law; the spread keeps means; the restriction to A^c removes
    # at most the set-apart mass (jump_q), the error bounds only add
    assert float(np.sum(law.q)) <= 1.0 + error + 1e-12
    assert float(np.sum(law.q)) >= 1.0 - law.jump_q - 1e-12
    p_error = float(np.sum(law.e * law.s)) + sum(float(np.sum(coef * law.s)) for coef, _ in law.l2)
    assert abs(float(np.sum(law.q * law.s)) - 1.0) <= p_error + law.jump_p + 1e-12


def test_the_contraction_laws_move_s_down_for_add_and_up_for_remove_and_only_a_little(laws):
    mean_add = float(np.sum(laws["lower-add"].q * laws["lower-add"].s))
    mean_remove = float(np.sum(laws["lower-remove"].q * laws["lower-remove"].s))
    assert mean_add <= 1.0 + 1e-12 and mean_add >= 1.0 - 1e-5
    # the remove law drops the jump term (a lower bound may drop mass): its mean is the bulk's
    assert mean_remove >= float(np.sum(laws["upper"].q[laws["upper"].s < 40] * laws["upper"].s[laws["upper"].s < 40])) - 1e-3


def test_one_step_per_epoch_is_the_gaussian_exactly():
    ours = dp.PLDAccountant().compose(dp.RandomAllocationGaussian(1, 1.3), 4).epsilon_bounds(1e-6)
    gaussian = dp.PLDAccountant().compose(dp.Gaussian(1.3), 4).epsilon_bounds(1e-6)
    assert (ours.lower, ours.upper) == (gaussian.lower, gaussian.upper)


def test_the_bracket_of_a_balls_in_bins_epoch_is_narrow_and_below_poisson_at_rate_one_over_t():
    bracket = dp.PLDAccountant().compose(dp.RandomAllocationGaussian(100, 1.0), 1).epsilon_bounds(1e-6)
    poisson = dp.PLDAccountant().compose(dp.SampledGaussian(0.01, 1.0), 100).epsilon_bounds(1e-6)
    assert bracket.source == "pld" and bracket.target_met
    assert bracket.upper - bracket.lower <= 1e-3 * bracket.upper
    # pld-accounting 2.0's interval for this run (issue 23): ours lies inside it
    assert 0.8436 <= bracket.lower and bracket.upper <= 0.8745
    assert bracket.upper <= poisson.lower  # allocation is more private than Poisson here (Feldman & Shenfeld)


def test_delta_bounds_of_several_epochs_bracket_the_epsilon_bounds_answer():
    acc = dp.PLDAccountant().compose(dp.RandomAllocationGaussian(50, 2.0), 5)
    eps = acc.epsilon_bounds(1e-6)
    at_upper = acc.delta_bounds(eps.upper)
    at_lower = acc.delta_bounds(eps.lower)
    assert at_upper.lower <= 1e-6 * (1 + 1e-9)  # delta at the upper epsilon is at most the target
    assert at_lower.upper >= 1e-6 * (1 - 1e-9)  # and at the lower epsilon at least it


@pytest.mark.parametrize("steps, sigma", [(2, 1e-3), (100_000, 1e-8), (2, 0.05)])
def test_noise_too_small_for_a_lattice_answers_from_rdp_without_an_overflow(steps, sigma):
    # pinned: both raised OverflowError (e^{1/sigma^2} in the lattice step and in the RDP remove bound)
    bracket = dp.PLDAccountant().compose(dp.RandomAllocationGaussian(steps, sigma), 3).epsilon_bounds(1e-5)
    assert bracket.source == "rdp" and math.isfinite(bracket.upper) and bracket.upper > 0
    # the fallback is the smaller of two valid RDP bounds (Gaussian(sigma)'s, and the allocation's own)
    assert bracket.upper <= dp.Accountant().compose(dp.RandomAllocationGaussian(steps, sigma), 3).epsilon(1e-5)


def test_k_of_t_is_accounted_as_k_epochs_of_one_of_t_over_k_with_the_sum_of_outputs_as_its_lower_end():
    ours = dp.PLDAccountant().compose(dp.RandomAllocationGaussian(200, 1.0, k=2), 3).epsilon_bounds(1e-6)
    parts = dp.PLDAccountant().compose(dp.RandomAllocationGaussian(100, 1.0), 6).epsilon_bounds(1e-6)
    summed = dp.PLDAccountant().compose(dp.Gaussian(math.sqrt(200) / 2), 3).epsilon_bounds(1e-6)
    assert ours.lower == summed.lower and 0 < ours.lower < ours.upper and not ours.target_met
    assert parts.lower <= ours.upper <= parts.upper * (1 + 1e-3)
    uneven = dp.RandomAllocationGaussian(201, 1.0, k=2).components()
    assert uneven == ((dp.RandomAllocationGaussian(100, 1.0), 1), (dp.RandomAllocationGaussian(101, 1.0), 1))
    rdp = dp.Accountant().compose(dp.RandomAllocationGaussian(200, 1.0, k=2), 3).epsilon(1e-6)
    assert rdp == dp.Accountant().compose(dp.RandomAllocationGaussian(100, 1.0), 6).epsilon(1e-6)


def test_the_lower_envelope_of_the_tilts_picks_each_cells_smallest_bound():
    """The runs of :func:`_lower_envelope` equal a per-cell argmin of the pieces' error-bound lines
    (the running comparison it replaced), first among equals."""
    from types import SimpleNamespace

    import numpy as np

    from dpproofs.accountant.pld import allocation as pld_allocation

    rng = np.random.default_rng(7)
    grid = np.linspace(-3.0, 40.0, 5001)
    for _ in range(20):
        pieces = [SimpleNamespace(error=float(rng.uniform(1e-18, 1e-10)), wrapped=float(rng.uniform(0, 1e-12)),
                                  log_scale=float(rng.uniform(-20, 20)),
                                  theta=float(rng.choice([0.0, *rng.uniform(-5, 20, 5)])))
                  for _ in range(int(rng.integers(1, 9)))]
        lines = np.array([np.log(c.error + c.wrapped) + c.log_scale - c.theta * grid for c in pieces])
        expected = np.argmin(lines, axis=0)
        got = np.empty(len(grid), dtype=int)
        for k, first, last in pld_allocation._lower_envelope(pieces, grid):
            got[first:last] = k
        assert np.array_equal(got, expected)


def test_a_few_epochs_of_allocation_keep_the_fine_first_grid():
    # the short-run floor of the first grid step (runs of <= 1e4 steps) does not apply to allocation
    # epochs: with it, (t, sigma, epochs, delta) = (1000, 20, 10, 1e-3) stopped at 3.5e-3 wide
    import dpproofs as dp

    bounds = dp.PLDAccountant().compose(dp.RandomAllocationGaussian(1000, 20.0), 10).epsilon_bounds(1e-3)
    assert bounds.source == "pld" and bounds.target_met


def test_the_lattice_pairs_loss_range_leaves_at_most_its_tail_above_even_below_float_resolution():
    # the mass above the range was taken as total - cumulative sum, which cannot resolve a tail of
    # 3e-19 next to a total of 1: 6.9e-13 was left above, and 100 epochs at delta = 1e-12 had an
    # infinite upper end (the accountant fell back to RDP, [2.850, 3.197])
    from scipy import special
    tail_z = 8.89
    pair = dp.RandomAllocationGaussian(1000, 1.0).pld_pairs("add_remove")["add"]
    lattice = al.resolve(pair, "upper", tail_z)
    low, high = lattice.loss_range(tail_z)
    cut = float(special.ndtr(-tail_z))
    assert math.fsum(lattice.p[lattice.loss > high]) <= cut / 2
    assert math.fsum(lattice.p[lattice.loss < low]) <= cut / 2


def _fresh_bracket(t, sigma, epochs, delta):
    al.forget()
    return dp.PLDAccountant().compose(dp.RandomAllocationGaussian(t, sigma), epochs).epsilon_bounds(delta)


@pytest.fixture
def early_bands(monkeypatch):
    """Bands from 2^14 fine steps on (sigma = 1: the jump cut at delta 1e-9 is ~5e4 steps, so the
    default lattice has no bands there), and a count of the band terms computed."""
    calls = []
    band_terms = al._band_terms

    def counted(*args, **kwargs):
        calls.append(args[3])  # the number of bands
        return band_terms(*args, **kwargs)

    monkeypatch.setattr(al, "BAND_START", 1 << 14)
    monkeypatch.setattr(al, "BAND_CELLS", 1 << 11)
    monkeypatch.setattr(al, "_band_terms", counted)
    yield calls
    al.forget()


#: (t, sigma, epochs, delta) where the bands carry ~6e-10 of P-mass (E[Y; Y > 2^14 steps]) at delta 1e-9.
BANDED = (100, 1.0, 1, 1e-9)


@pytest.fixture(scope="module")
def one_fine_lattice():
    return _fresh_bracket(*BANDED)


def test_the_jumps_in_bands_give_the_bracket_of_one_fine_lattice(early_bands, one_fine_lattice):
    banded = _fresh_bracket(*BANDED)
    assert early_bands and max(early_bands) >= 2  # the band terms were used, more than one band
    assert banded.source == "pld" and banded.upper - banded.lower <= 1e-3 * banded.upper
    # both are certified brackets of one value: they overlap (measured [1.758364, 1.758447] against
    # [1.758398, 1.758447])
    assert banded.lower <= one_fine_lattice.upper and one_fine_lattice.lower <= banded.upper


def test_an_upper_law_without_its_bands_is_refuted_by_the_fine_lattice(early_bands, one_fine_lattice, monkeypatch):
    band_jump = al._band_jump

    def dropped(sigma, step, upper, lower_start):
        first, masses = band_jump(sigma, step, upper, lower_start)
        return first, masses * 0.0 if upper else masses

    monkeypatch.setattr(al, "_band_jump", dropped)
    mutant = _fresh_bracket(*BANDED)
    assert mutant.upper < one_fine_lattice.lower


def test_a_lower_law_with_its_bands_counted_three_times_is_refuted_by_the_fine_lattice(
        early_bands, one_fine_lattice, monkeypatch):
    band_jump = al._band_jump

    def tripled(sigma, step, upper, lower_start):
        first, masses = band_jump(sigma, step, upper, lower_start)
        return first, masses if upper else masses * 3.0

    monkeypatch.setattr(al, "_band_jump", tripled)
    mutant = _fresh_bracket(*BANDED)
    assert mutant.lower > one_fine_lattice.upper


def test_a_heavy_tailed_epoch_at_sigma_0_6_is_tight_from_the_pld_and_below_poisson():
    # before the bands its jump range (2.8e6 fine steps at tail 7.5e-12) was over budget: [0, 5.17]
    # from RDP
    bracket = _fresh_bracket(100, 0.6, 1, 1e-6)
    assert bracket.source == "pld" and bracket.upper - bracket.lower <= 1e-3 * bracket.upper
    poisson = dp.PLDAccountant().compose(dp.SampledGaussian(0.01, 0.6), 100).epsilon_bounds(1e-6)
    assert bracket.upper <= poisson.lower


def _far_too_wide_bracket(monkeypatch, share):
    """A run whose every pass gives [0.01, share of the way from the exact RDP bound to the cheap
    Gaussian one]: the PLD missed its width by far."""
    mechanism = dp.RandomAllocationGaussian(10, 2.0)
    exact = dp.Accountant().compose(mechanism, 3).epsilon(1e-6)        # 1.629 (measured)
    cheap = dp.Accountant().compose(mechanism.rdp_dominating(), 3).epsilon(1e-6)  # 4.441
    upper = exact + share * (cheap - exact)
    monkeypatch.setattr(dp.PLDAccountant, "_attempt", lambda self, *args, **kwargs: (0.01, upper))
    return dp.PLDAccountant().compose(mechanism, 3).epsilon_bounds(1e-6), exact


def test_a_bracket_far_wider_than_asked_takes_the_allocations_own_rdp_bound_where_it_is_lower(monkeypatch):
    bracket, exact = _far_too_wide_bracket(monkeypatch, 0.5)
    assert bracket.source == "rdp" and bracket.upper == exact and bracket.lower == 0.01


def test_the_mutant_that_keeps_the_cheap_rdp_bound_for_wide_brackets_reports_a_worse_upper_end(monkeypatch):
    from dpproofs.accountant.pld import accountant as pld_accountant

    monkeypatch.setattr(pld_accountant, "RDP_CHECK_WIDTH", math.inf)
    bracket, exact = _far_too_wide_bracket(monkeypatch, 0.5)
    assert bracket.source == "pld" and bracket.upper > exact


def _remove_delta_ends(sigma, eps, budget=1e-16):
    """The remove direction's delta at ``eps`` from one epoch's upper law (every error bound added,
    the set-apart mass at +inf) and lower law, at t = 2."""
    upper = al.sum_law.__wrapped__(2, sigma, "upper", budget)
    lower = al.sum_law.__wrapped__(2, sigma, "lower-remove", budget)
    q = upper.q + upper.e + sum(coef for coef, _ in upper.l2)
    up = float(np.sum(q * np.maximum(1 - math.exp(eps) * upper.s, 0.0))) + upper.jump_q + upper.below
    low = float(np.sum(lower.q * np.maximum(1 - math.exp(eps) * lower.s, 0.0)))
    return low, up


def test_the_bottom_refinement_bounds_the_remove_direction_at_two_steps_tightly():
    # at (t, sigma) = (2, 0.6) the spread onto {0, G} put 0.038 of mass at S = 0 (loss +inf): the upper
    # end answered from RDP at every delta below it. Exact values: allocation_exact (a quadrature)
    from dpproofs.math import allocation_exact

    for eps in (3.0, 6.0):
        exact = float(allocation_exact.delta_remove_exact(eps, 2, 0.6, dps=20))
        low, up = _remove_delta_ends(0.6, eps)
        assert low <= exact <= up <= exact * (1 + 1e-5)  # measured 1.725317e-2 and 4.100908e-6 (exact 4.100906e-6)


def test_the_mutant_without_the_fine_bottom_misses_the_remove_directions_mass(monkeypatch):
    from dpproofs.math import allocation_exact

    monkeypatch.setattr(al, "_bottom_fine", lambda bottom, t, max_cells: (
        np.zeros(1), np.zeros(1), np.zeros(1), [], 0.0, 0.0, 0.0))
    exact = float(allocation_exact.delta_remove_exact(6.0, 2, 0.6, dps=20))
    _, up = _remove_delta_ends(0.6, 6.0)
    assert up < exact


def test_two_steps_at_sigma_0_6_and_delta_1e_12_answer_from_the_pld():
    bracket = _fresh_bracket(2, 0.6, 3, 1e-12)  # [0, 23.05] from RDP before the bottom refinement
    assert bracket.source == "pld" and bracket.upper - bracket.lower <= 1e-3 * bracket.upper


def test_a_bracket_stuck_at_the_lattices_gap_refines_the_lattice_and_meets_its_width():
    # ten epochs of t = 10^4 at sigma 5: every grid step left [0.004128119, 0.004132816] (1.1e-3 wide,
    # the lattice law's own gap added up over the epochs); a twice or four times finer lattice meets 1e-3
    bracket = _fresh_bracket(10_000, 5.0, 10, 1e-3)
    assert bracket.source == "pld" and bracket.target_met
    assert 0.004128119 <= bracket.lower and bracket.upper <= 0.004132816  # inside the coarse lattice's bracket


def test_the_mutant_that_never_refines_the_lattice_stays_wide(monkeypatch):
    from dpproofs.accountant.pld import accountant as pld_accountant

    # (5767, 8.13, 1, 5.6e-4): 1.9e-3 wide on the first lattice (the ten epochs of t = 10^4 at sigma 5
    # above meet the width there since the lower one-step PLD's lifted merge, 3.7e-4)
    assert _fresh_bracket(5767, 8.13, 1, 5.6e-4).target_met
    monkeypatch.setattr(pld_accountant, "MAX_LATTICE_REFINEMENT", 1)
    bracket = _fresh_bracket(5767, 8.13, 1, 5.6e-4)
    assert bracket.upper - bracket.lower > 1e-3 * bracket.upper


def test_an_upper_end_alone_does_not_compute_the_allocations_own_rdp_bound(rdp_calls):
    # calibration asks for upper ends alone (lower end 0 by design): the wide-bracket check must not
    # read that as a 100 % wide bracket and run the allocation's RDP quadrature at every sigma (it
    # did: a balls-in-bins PLD calibration went from 7 s to 41 s)
    accountant = dp.PLDAccountant().compose(dp.RandomAllocationGaussian(20, 0.85), 2)
    upper = accountant._epsilon_search(1e-5, upper_only=True)
    assert upper.source == "pld" and not rdp_calls


# --- errors bounded in L2: one bound for every tail of the upper one-step PLD -------------------


def _exact_delta(law, direction, q_true, epsilon):
    """The one-step delta of the atoms ``law.s`` with true Q-masses ``q_true``."""
    loss = np.log(law.s) if direction == "add" else -np.log(law.s)
    p_true = law.s * q_true if direction == "add" else q_true
    return float(np.sum(p_true * -np.expm1(np.minimum(epsilon - loss, 0.0))))


def _l2_pair(direction, coef_share):
    """A LatticePair of 4 001 atoms (S from 0.2 to 5) in one FFT window whose Q-mass errors are bounded in L2
    by ``coef_share`` of each mass (coefficients c_j = share q_j, sum u_j^2 <= 1)."""
    law = error_tails._law(False, coef_share)  # the claim's atoms (accountant.pld.allocation_error_tails)
    return law, al.LatticePair(law, direction)


def _one_step_delta(one, epsilon):
    losses = one.losses()
    return one.infinity + float(np.sum(one.masses * -np.expm1(np.minimum(epsilon - losses, 0.0))))


def _adversarial_delta(law, direction, epsilon, above):
    """The exact delta of the law whose Q-masses carry the error c_j u_j, u the unit vector along c
    on the atoms with loss above ``above`` (the error that most raises that tail), both orders."""
    c = law.l2[0][0]
    loss = np.log(law.s) if direction == "add" else -np.log(law.s)
    u = np.where(loss > above, c, 0.0)
    return _exact_delta(law, direction, law.q + c * u / np.linalg.norm(u), epsilon)


@pytest.mark.parametrize("direction", ["add", "remove"])
def test_the_upper_one_step_pld_covers_an_error_at_its_l2_bound_on_any_tail(direction):
    law, pair = _l2_pair(direction, 1e-2)
    one = pld_discretise.discretise(pair, 1e-3, "upper")
    for epsilon in (0.05, 0.3, 0.8, 1.2):
        for above in (epsilon - 0.2, epsilon, epsilon + 0.3):
            assert _one_step_delta(one, epsilon) >= _adversarial_delta(law, direction, epsilon, above)


def test_the_mutant_without_the_tail_masses_misses_an_error_at_its_l2_bound(monkeypatch):
    monkeypatch.setattr(pld_discretise, "_l2_tail_masses", lambda tails, ratio, step: np.zeros(len(tails) - 1))
    law, pair = _l2_pair("add", 1e-2)
    one = pld_discretise.discretise(pair, 1e-3, "upper")
    assert _one_step_delta(one, 0.8) < _adversarial_delta(law, "add", 0.8, 0.8)


def test_one_bound_for_the_tail_is_tighter_than_one_bound_per_cell(monkeypatch):
    law, pair = _l2_pair("add", 1e-2)
    tail = _one_step_delta(pld_discretise.discretise(pair, 1e-3, "upper"), 0.3)
    monkeypatch.setattr(al.LatticePair, "upper_cell_masses", None)  # the per-cell bound (cell_masses)
    per_cell = _one_step_delta(pld_discretise.discretise(pair, 1e-3, "upper"), 0.3)
    exact = float(np.sum(law.q * np.maximum(law.s - math.exp(0.3), 0.0)))
    assert tail - exact < (per_cell - exact) / 5


def test_a_high_noise_epoch_at_delta_1e_12_is_tight_and_below_poisson():
    # the per-cell L2 bound kept it [0.0027931, 0.0028129] (7.0e-3 wide, above the Poisson lower end)
    bracket = _fresh_bracket(10**4, 20.0, 1, 1e-12)
    assert bracket.source == "pld" and bracket.upper - bracket.lower <= 1e-3 * bracket.upper
    poisson = dp.PLDAccountant().compose(dp.SampledGaussian(1e-4, 20.0), 10**4).epsilon_bounds(1e-12)
    assert bracket.upper <= poisson.lower


def _tied_pair(direction, share):
    """The atoms of :func:`_l2_pair` with plain (L1) Q-mass errors of ``share`` of each mass."""
    law = error_tails._law(True, share)
    return law, al.LatticePair(law, direction)


def _tied_adversarial_delta(law, direction, epsilon, above):
    loss = np.log(law.s) if direction == "add" else -np.log(law.s)
    return _exact_delta(law, direction, law.q + np.where(loss > above, law.e, 0.0), epsilon)


@pytest.mark.parametrize("direction", ["add", "remove"])
def test_the_upper_one_step_pld_covers_plain_atom_errors_at_their_bound_on_any_tail(direction):
    law, pair = _tied_pair(direction, 1e-2)
    one = pld_discretise.discretise(pair, 1e-3, "upper")
    # the plain errors add at most share = 1 % to the mass (the split no longer multiplies them by 2/h,
    # 2000 here); 2 % leaves room for the split's own rounding up
    assert one.masses.sum() + one.infinity <= 1.02 * (law.s * law.q if direction == "add" else law.q).sum()
    for epsilon in (0.05, 0.3, 0.8):
        for above in (epsilon - 0.2, epsilon, epsilon + 0.3):
            assert _one_step_delta(one, epsilon) >= _tied_adversarial_delta(law, direction, epsilon, above)


def test_the_mutant_that_drops_the_tied_errors_misses_plain_atom_errors():
    law, pair = _tied_pair("add", 1e-2)
    pair.ep_tied = np.zeros_like(pair.ep_tied)
    one = pld_discretise.discretise(pair, 1e-3, "upper")
    assert _one_step_delta(one, 0.8) < _tied_adversarial_delta(law, "add", 0.8, 0.8)


def test_the_sum_of_an_epochs_outputs_bounds_k_of_t_from_below_close_to_its_upper_end_at_large_sigma():
    # sigma = 2: the Gaussian-limit ratio of the two is sigma sqrt(e^{1/sigma^2} - 1) = 1.066
    mixed = [(dp.RandomAllocationGaussian(1000, 2.0, k=10), 5), (dp.Gaussian(20.0), 2)]
    accountant = dp.PLDAccountant()
    for mechanism, count in mixed:
        accountant = accountant.compose(mechanism, count)
    bracket = accountant.epsilon_bounds(1e-6)
    assert bracket.lower > 0 and bracket.upper < 1.1 * bracket.lower
    curve = accountant.delta_bounds(bracket.upper)
    assert 0 < curve.lower <= curve.upper


def test_the_mutant_whose_sum_has_a_larger_sensitivity_is_refuted_by_the_upper_end(monkeypatch):
    monkeypatch.setattr(dp.RandomAllocationGaussian, "pld_lower_post_processing",
                        lambda self: dp.Gaussian(self.sigma * math.sqrt(self.steps) / (1.2 * self.k)))
    bracket = dp.PLDAccountant().compose(dp.RandomAllocationGaussian(1000, 2.0, k=10), 5).epsilon_bounds(1e-6)
    assert bracket.lower > bracket.upper


def test_a_tilt_below_the_first_coarse_bin_is_found_on_the_fine_head_of_the_law():
    # a heavy-tailed lattice law of 325 000 cells whose first 2048-bin coarsening puts 99 % of the mass in
    # one bin (sigma = 0.6): a tilt centring the 1000-fold sum at 0.4 of its mean was refused before
    from types import SimpleNamespace

    pos = np.arange(325_000) * 0.13
    w = np.exp(-0.5 * ((np.log(np.maximum(pos, 0.06)) + 1.39) / 1.67) ** 2) / np.maximum(pos, 0.06)
    w /= w.sum()
    one = SimpleNamespace(losses=lambda: pos, masses=w)
    mean = float(np.sum(w * pos))
    target = 0.4 * 1000 * mean
    assert al._coarsened(pos, w)[0][0] * 1000 > target  # the coarse search alone cannot reach it
    theta = al._tilt_for(one, 1000, target)
    assert theta is not None and theta < 0
    tilted = w * np.exp(theta * pos)
    # the search ran on the law's first 2048 cells kept fine and the rest in bins, which weigh
    # e^{theta pos} < 1e-39 here: the fine law's tilted mean meets its target (measured 9e-13 relative;
    # 1e-6 is the bisection's 2^-40 of its bracket with room)
    assert abs(1000 * float(np.sum(tilted * pos) / np.sum(tilted)) / target - 1) < 1e-6


def test_cells_outside_a_window_carry_its_chernoff_bound_not_its_round_off():
    # the exact tilted mass outside a window is at most ``wrapped``: a cell there has no round-off
    # (it carried error + wrapped: at (10^4, 0.6), beyond the untilted bulk window, 7.4e-5 of P-mass)
    from dpproofs.accountant.pld.compose import Convolved

    piece = Convolved(np.full(16, 1 / 16), 10.0, 1.0, 0.0, 0.0, 1e-12, 1e-20)
    accumulator = al._Accumulator()
    accumulator.term([piece], 40.0)
    wide = Convolved(np.zeros(64), 0.0, 1.0, 0.0, -800.0, 1e-300, 1e-300)  # widens the grid to [0, 63]
    accumulator.term([wide], 63.0)
    grid, value, error, l2, *_ = accumulator.collect(1.0, 1 << 10)
    outside = (grid < 10) | (grid > 25)
    assert np.all(value[outside] == 0) and np.all(error[outside] <= 1.01e-20)
    inside = ~outside
    coef = l2[0][0]
    assert np.all(coef[inside] >= 1e-12)  # the window's round-off, kept in L2


def _refinements_after(monkeypatch, second_pass, epochs=3):
    """The lattice refinements of the passes of a search over ``epochs`` epochs whose first pass gives
    [0.5, 1] and every later one ``second_pass`` (the bracket then stops narrowing)."""
    refinements = []

    def attempt(self, *args, **kwargs):
        refinements.append(self._lattice_refinement)
        return (0.5, 1.0) if len(refinements) == 1 else second_pass

    monkeypatch.setattr(dp.PLDAccountant, "_attempt", attempt)
    bracket = dp.PLDAccountant().compose(dp.RandomAllocationGaussian(10, 2.0), epochs).epsilon_bounds(1e-6)
    return refinements, bracket


def test_a_pass_without_a_lower_end_is_not_followed_by_a_finer_lattice(monkeypatch):
    # its compositions failed, not the lattice: at (10^4, 0.6, 10, 1e-9) a refined pass took 21 s for the same
    # bracket. The second pass here gives [0, 10]: the bracket [0.5, 1] stops narrowing and the search ends
    refinements, bracket = _refinements_after(monkeypatch, (0.0, 10.0))
    assert refinements == [1, 1] and (bracket.lower, bracket.upper) == (0.5, 1.0)


def test_a_pass_that_only_stops_narrowing_is_followed_by_a_finer_lattice(monkeypatch):
    refinements, _ = _refinements_after(monkeypatch, (0.45, 1.0))
    assert refinements[:3] == [1, 1, 2]


def test_a_bracket_narrowing_far_slower_than_any_grid_error_gets_a_finer_lattice(monkeypatch):
    # [0.5, 1] then [0.56, 1] at a grid ten times finer: more than a tenth narrower, but at order 0.06 in h
    refinements, _ = _refinements_after(monkeypatch, (0.56, 1.0))
    assert refinements[:3] == [1, 1, 2]


def test_the_mutant_that_ignores_the_fitted_order_refines_only_once_the_bracket_stops(monkeypatch):
    from dpproofs.accountant.pld import accountant as pld_accountant

    monkeypatch.setattr(pld_accountant, "LATTICE_ORDER", -math.inf)
    refinements, _ = _refinements_after(monkeypatch, (0.56, 1.0))
    assert refinements[:4] == [1, 1, 1, 2]


def test_a_bracket_whose_finer_grids_are_over_budget_gets_finer_lattices_at_the_last_grid_step(monkeypatch):
    # every pass narrows the bracket by more than a tenth (so none reads as stuck) and every grid finer
    # than the second pass's is over the cell budget: the lattice is refined at that step, up to 4x
    calls = []

    def attempt(self, active, step, tail_z, **kwargs):
        calls.append((step, self._lattice_refinement))
        return 0.4 + 0.1 * len(calls), 1.0

    def cells(self, active, step, tail_z):
        return 2.0**40 if len(calls) >= 2 and step < calls[1][0] else 1.0  # finite: the grid, not the law

    monkeypatch.setattr(dp.PLDAccountant, "_attempt", attempt)
    monkeypatch.setattr(dp.PLDAccountant, "_cells", cells)
    dp.PLDAccountant().compose(dp.RandomAllocationGaussian(10, 2.0), 3).epsilon_bounds(1e-6)
    second = calls[1][0]
    assert calls[1:] == [(second, 1), (second, 2), (second, 4)]


def _widening_search(monkeypatch):
    """The passes (step, lattice refinement, windows) and the bracket of a search whose first pass gives
    [0.5, 1], whose finer grids give an upper end of 10, whose refined lattice is over budget, and
    whose widened windows give [0.9, 0.9005]."""
    from dpproofs.math.pairs import AllocationPair

    calls = []

    def attempt(self, active, step, tail_z, **kwargs):
        calls.append((step, self._lattice_refinement, self._law_windows))
        if self._law_windows > 1:
            return 0.9, 0.9005
        return (0.5, 1.0) if len(calls) == 1 else (0.5, 10.0)

    def cells(self, active, step, tail_z):
        return math.inf if self._lattice_refinement > 1 and self._law_windows == 1 else 1.0

    monkeypatch.setattr(dp.PLDAccountant, "_attempt", attempt)
    monkeypatch.setattr(dp.PLDAccountant, "_cells", cells)
    monkeypatch.setattr(AllocationPair, "forget", staticmethod(lambda: calls.append("forget")))
    bracket = dp.PLDAccountant().compose(dp.RandomAllocationGaussian(10, 2.0), 3).epsilon_bounds(1e-6)
    return calls, bracket


def test_a_refined_law_over_budget_is_widened_at_the_grid_step_of_the_best_upper_end(monkeypatch):
    calls, bracket = _widening_search(monkeypatch)
    first, second = calls[0][0], calls[1][0]
    # the memoised laws on the default windows are dropped before the wider ones are built
    assert second < first and calls == [(first, 1, 1), (second, 1, 1), "forget", (first, 1, 2)]
    assert (bracket.lower, bracket.upper) == (0.9, 0.9005)


def test_the_mutant_without_wider_windows_keeps_the_first_bracket(monkeypatch):
    from dpproofs.accountant.pld import accountant as pld_accountant

    monkeypatch.setattr(pld_accountant, "MAX_LAW_WINDOWS", 1)
    calls, bracket = _widening_search(monkeypatch)
    assert len(calls) == 2 and (bracket.lower, bracket.upper) == (0.5, 1.0)


def test_a_widened_law_is_one_more_pair_for_the_caches():
    from dpproofs.math.pairs import AllocationPair

    pair = AllocationPair(100, 1.0, "add")
    assert pair.refined(1, 2) != pair and pair.refined(1, 1) == pair and hash(pair.refined(1, 1)) == hash(pair)
    assert pair.refined(2, 2).windows == 2 and pair.refined(2, 2).refinement == 2


def test_one_epoch_starts_on_a_twice_coarser_lattice_and_refines_it_like_any_other(monkeypatch):
    refinements, _ = _refinements_after(monkeypatch, (0.45, 1.0), epochs=1)
    assert refinements[:3] == [0.5, 0.5, 1.0]


@pytest.mark.parametrize("count, sigma, width, first", [
    (1, 1.0, 1e-3, 0.5), (2, 0.75, 1e-3, 0.5), (1, 3.9, 0.1, 0.5),
    (3, 1.0, 1e-3, 1.0),   # more epochs: the lattice's gap adds up over them
    (1, 0.7, 1e-3, 1.0),   # heavy-tailed Y: at sigma 0.6 the coarse lattice took up to 3.5x as long
    (1, 4.0, 1e-3, 1.0),   # high noise: the lattice's gap is a larger share of a small epsilon
    (1, 1.0, 1e-4, 1.0),   # a narrower bracket asked
])
def test_the_first_lattice_is_coarser_only_for_few_epochs_at_moderate_noise_and_the_usual_width(
        count, sigma, width, first):
    from dpproofs.math.pairs import AllocationPair

    assert AllocationPair(100, sigma, "add").first_refinement(count, width) == first


def test_an_epoch_on_the_coarse_first_lattice_meets_the_width_and_meets_the_fine_lattices_bracket():
    # the fine (default) lattice's bracket at (100, 1, 1 epoch, 1e-6): [0.8579357, 0.8579895]; both
    # brackets hold the tight epsilon, so they overlap (measured: the coarse one, [0.857929, 0.857998],
    # holds the fine one)
    bracket = _fresh_bracket(100, 1.0, 1, 1e-6)
    assert bracket.source == "pld" and bracket.target_met
    assert max(bracket.lower, 0.8579357) <= min(bracket.upper, 0.8579895)
    assert bracket.upper - bracket.lower <= 1e-3 * bracket.upper


# --- the L2 bounds by runs of atoms --------------------------------------------------------------


def _dense_l2(cell, piece, coef, n, pieces):
    """The per-(cell, piece) table the run-wise bounds replace: per cell, the sum over pieces of the
    Euclidean norm of the coefficients there; and per k, that of the cells k, k+1, ... together."""
    squares = np.zeros((n, pieces))
    np.add.at(squares, (cell, piece), coef ** 2)
    return np.sqrt(squares).sum(axis=1), np.sqrt(np.cumsum(squares[::-1], axis=0)[::-1]).sum(axis=1)


def _runs_pair(cell, piece, coef, n):
    pair = object.__new__(al.LatticePair)
    pair.pieces = int(piece.max()) + 1
    return pair, pair._l2_cell_errors([(coef, piece)], cell, n)[0], pair._l2_tail_norms([(coef, piece)], cell, n)[:-1]


def test_the_run_wise_l2_bounds_equal_the_dense_tables_when_each_cell_and_piece_is_one_run():
    rng = np.random.default_rng(20261207)
    n = 50
    cell = np.sort(rng.integers(0, n, 2000))
    piece = np.minimum(np.arange(2000) // 400, 4)  # windows: contiguous runs of atoms
    coef = rng.random(2000)
    pair, per_cell, tails = _runs_pair(cell, piece, coef, n)
    dense_cell, dense_tails = _dense_l2(cell, piece, coef, n, pair.pieces)
    # equal up to the methods' rounding margins (1 + 1e-9 per cell, 1 + 1e-8 on the tails), never below
    assert np.allclose(per_cell, dense_cell, rtol=2e-8, atol=0) and np.all(per_cell >= dense_cell)
    assert np.allclose(tails, dense_tails, rtol=2e-8, atol=0) and np.all(tails >= dense_tails)


def test_a_cell_and_piece_split_into_two_runs_gets_at_least_its_norm():
    cell = np.array([0, 0, 0, 1])
    piece = np.array([0, 1, 0, 0])  # cell 0, piece 0: atoms 0 and 2, apart
    coef = np.array([3.0, 1.0, 4.0, 2.0])
    pair, per_cell, tails = _runs_pair(cell, piece, coef, 2)
    dense_cell, dense_tails = _dense_l2(cell, piece, coef, 2, pair.pieces)
    assert per_cell[0] >= dense_cell[0] and per_cell[0] == pytest.approx(3 + 1 + 4, rel=1e-8)  # norms of runs
    assert np.all(tails >= dense_tails * (1 - 1e-15))


@pytest.mark.parametrize("sigma", [0.6, 0.8, 1.0, 2.0, 20.0])
def test_the_contractions_edges_put_the_conditional_means_within_1e_6_step_of_the_lattice(sigma):
    # measured 3e-8 (0.6), 5e-9 (0.8), 5.6e-7 (1.0), 6e-10 (2), 2e-10 (20) of a step, the same before
    # the Newton solves stopped at a stall and the correction passes went to float moments
    step = al.lattice_step(sigma)
    a, r = 1 / sigma**2, 1 / sigma
    edges, rho = al._best_edges.__wrapped__(sigma, step, 20_000)
    assert al._edge_score(edges, rho, a, r, step) <= 1e-6 * step


@pytest.mark.parametrize("sigma, factor", [(0.8, al.UNION_FACTOR), (2.0, 1)])
def test_a_heavy_tailed_law_keeps_a_union_of_windows_twice_the_largest_window(monkeypatch, sigma, factor):
    # (10^4, 0.6, 10, 1e-9) needs its tilted bulk windows together: [2.4948, 2.8059] without, [2.49510,
    # 2.49552] with (16 s, 4.3 GB: measured, not run here); at sigma >= 1 they cost time for nothing
    budgets = []
    original = al._Accumulator.collect

    def collect(self, step, max_cells):
        budgets.append(max_cells)
        return original(self, step, max_cells)

    monkeypatch.setattr(al._Accumulator, "collect", collect)
    al.sum_law.__wrapped__(20, sigma, "upper", 1e-12)
    assert budgets[0] == factor * al.MAX_LATTICE


@pytest.mark.parametrize("ledger, delta", [
    ([(dp.SampledGaussian(0.01, 4.0), 10_000)], 1e-5),
    ([(dp.SampledGaussian(1e-4, 50.0), 1000)], 1e-5),  # best order beyond 64
    ([(dp.Laplace(2.0), 10), (dp.SampledGaussian(0.1, 1.0), 100)], 1e-6),
    ([(dp.RandomizedResponse(0.5), 3)], 1e-3),  # pure DP
    ([(dp.RandomAllocationGaussian(100, 8.0), 1)], 1e-8),
])
def test_the_own_rdp_bounds_by_chunks_are_the_whole_grids(ledger, delta):
    accountant = dp.PLDAccountant()
    whole = dp.Accountant()
    for mechanism, count in ledger:
        accountant, whole = accountant.compose(mechanism, count), whole.compose(mechanism, count)
    assert accountant._own_rdp_epsilon(delta) == whole.epsilon(delta)
    epsilon = whole.epsilon(delta) / 2
    assert accountant._own_rdp_delta(epsilon) == whole.delta(epsilon)


def _chunks_visited(rdp_calls, ledger, delta):
    accountant = dp.PLDAccountant()
    for mechanism, count in ledger:
        accountant = accountant.compose(mechanism, count)
    accountant._active()
    rdp_calls.clear()
    value = accountant._own_rdp_epsilon(delta)
    return value, len(rdp_calls)


def test_the_own_rdp_bound_stops_where_no_larger_order_can_win(rdp_calls, monkeypatch):
    # random allocation's own curve is a quadrature per order: at (t, sigma, k, E) = (100, 0.33, 3, 16)
    # the whole grid took 80 s; epsilon is 285 at a small order and two chunks settle it
    from dpproofs.accountant.pld import accountant as pld_accountant

    value, chunks = _chunks_visited(rdp_calls, [(dp.RandomAllocationGaussian(100, 0.33, 3), 16)], 2e-6)
    assert chunks <= 2 and 250 < value < 300
    # on a cheap curve the mutant that never stops visits every chunk, and the same minimum
    ledger = [(dp.SampledGaussian(0.01, 4.0), 10_000)]
    value, chunks = _chunks_visited(rdp_calls, ledger, 1e-5)
    all_chunks = -(-len(dp.DEFAULT_ORDERS) // pld_accountant.OWN_RDP_CHUNK)
    assert chunks < all_chunks
    monkeypatch.setattr(pld_accountant, "OWN_RDP_STOP_MARGIN", math.inf)
    assert _chunks_visited(rdp_calls, ledger, 1e-5) == (value, all_chunks)
