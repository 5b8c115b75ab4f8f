"""The Opacus-compatible accountant and get_noise_multiplier, on Opacus' own test scenarios.

Scenarios from Opacus' ``opacus/tests/accountants_test.py`` (2025 sources), reproduced with our
accountant: where the mathematics says Opacus' number is right we reproduce it; where Opacus pads
(its calibration stops within ``epsilon_tolerance`` of the target) ours is tighter, and the test
shows why. Opacus itself is not installed (it needs torch); nothing here imports it.
"""

import importlib.util
import math
import pathlib
import subprocess
import sys
import types
from collections import OrderedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpproofs as dp
from dpproofs.math import fast
from dpproofs.math import precise
from dpproofs.integrations import opacus as dpo

# Opacus' scenario: noise 1.5, sample rate 0.04, int(90 / 0.04) = 2250 steps, delta 1e-5
SIGMA, Q, STEPS, DELTA = 1.5, 0.04, 2250, 1e-5
OPACUS_RDP_EPSILON = 7.32911117143  # test_rdp_accountant, assertAlmostEqual (7 places)
OPACUS_PRV_EPSILON = 6.777395712150674  # test_prv_accountant
OPACUS_GDP_EPSILON_RANGE = (6.59, 6.6)  # test_gdp_accountant
OPACUS_SIGMA_EPOCHS = 1.416  # test_get_noise_multiplier_rdp_epochs (places=4), eps 8, 90 epochs
OPACUS_SIGMA_STEPS = 1.3562  # test_get_noise_multiplier_rdp_steps (places=4), eps 8, 2000 steps
OPACUS_PRV_SIGMAS = (1.34765625, 1.2915)  # the same two with accountant="prv"
OPACUS_GDP_SIGMA = 1.3232421875  # test_get_noise_multiplier_gdp


def stepped(steps=STEPS, sigma=SIGMA, q=Q, **kwargs):
    accountant = dpo.Accountant(**kwargs)
    for _ in range(steps):
        accountant.step(noise_multiplier=sigma, sample_rate=q)
    return accountant


def epsilon_at(sigma, steps, orders=dpo.ORDERS, q=Q, delta=DELTA):
    accountant = dpo.Accountant(orders=list(orders))
    accountant.history = [(sigma, q, steps)]
    return accountant.get_epsilon(delta)


def bench():
    """benchmarks/bench_opacus.py, where Opacus' calibration loop is reimplemented."""
    path = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "bench_opacus.py"
    spec = importlib.util.spec_from_file_location("bench_opacus", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- test_rdp_accountant -----------------------------------------------------------------------


def test_opacus_rdp_scenario_reproduces_opacus_epsilon_at_its_optimal_order():
    accountant = stepped()
    epsilon, alpha = accountant.get_privacy_spent(delta=DELTA)
    assert alpha == 3.9  # one of Opacus' orders: our default grid contains all of them
    assert epsilon == pytest.approx(OPACUS_RDP_EPSILON, abs=5e-8)
    assert accountant.get_epsilon(DELTA, alphas=dpo.OPACUS_ALPHAS) == epsilon
    # right: the improved conversion at alpha = 3.9 with the exact RDP (mpmath integral)
    rdp = STEPS * float(precise.rdp_sampled_gaussian(3.9, Q, SIGMA, dps=30, direction="add"))
    exact = rdp + math.log1p(-1 / 3.9) - (math.log(DELTA) + math.log(3.9)) / 2.9
    assert exact <= epsilon <= exact * (1 + 10 * fast.RTOL)


def test_with_continuous_orders_our_epsilon_is_below_opacus():
    refined = stepped().get_epsilon(DELTA, refine=True)
    assert refined < OPACUS_RDP_EPSILON - 5e-4  # 7.32835: the optimum lies between 3.8 and 3.9


def test_history_is_opacus_format_and_len_counts_steps():
    accountant = stepped()
    assert accountant.history == [(SIGMA, Q, STEPS)]
    assert len(accountant) == STEPS  # Opacus' RDPAccountant returns len(history) = 1 here
    accountant.step(noise_multiplier=2.0, sample_rate=Q)
    accountant.step(noise_multiplier=SIGMA, sample_rate=Q)
    assert accountant.history == [(SIGMA, Q, STEPS), (2.0, Q, 1), (SIGMA, Q, 1)]
    assert len(accountant) == STEPS + 2


def test_a_heterogeneous_history_gives_the_native_composition():
    accountant = dpo.Accountant()
    accountant.history = [(1.0, 0.01, 100), (2.0, 0.02, 50), (1.0, 0.01, 30)]
    native = dp.Accountant(list(dpo.ORDERS))
    native.compose(dp.SampledGaussian(0.01, 1.0), 130).compose(dp.SampledGaussian(0.02, 2.0), 50)
    assert accountant.get_epsilon(DELTA) == native.epsilon(DELTA)
    assert accountant.dpproofs_accountant().epsilon(DELTA) == native.epsilon(DELTA)


def test_epsilon_before_any_step_is_zero_as_in_opacus():
    assert dpo.Accountant().get_epsilon(DELTA) == 0.0
    with pytest.raises(dp.InvalidArgument, match="delta"):
        dpo.Accountant().get_epsilon(0.0)


def test_no_noise_is_infinite_epsilon_and_a_zero_rate_costs_nothing():
    accountant = dpo.Accountant()
    accountant.step(noise_multiplier=1.0, sample_rate=0.0)
    assert accountant.get_epsilon(DELTA) == dp.Accountant(list(dpo.ORDERS)).epsilon(DELTA)
    accountant.step(noise_multiplier=0.0, sample_rate=0.01)
    assert accountant.get_epsilon(DELTA) == math.inf
    with pytest.raises(dp.InvalidArgument, match="noise_multiplier=0"):
        accountant.dpproofs_accountant()


# --- tight accountants: Opacus' PRV and GDP numbers are below any RDP bound ------------------------


def test_our_rdp_bound_lies_above_opacus_prv_and_gdp_estimates_of_the_same_run():
    """PRV (numerical composition) and GDP (a CLT approximation) estimate the tight epsilon; an RDP
    conversion is an upper bound on it, so it is larger: these are not disagreements."""
    epsilon = stepped().get_epsilon(DELTA, refine=True)
    assert epsilon > OPACUS_PRV_EPSILON > OPACUS_GDP_EPSILON_RANGE[1]
    for sigma, kw in zip(OPACUS_PRV_SIGMAS, (dict(epochs=90), dict(steps=2000))):
        assert dpo.get_noise_multiplier(target_epsilon=8, target_delta=DELTA, sample_rate=Q, **kw) > sigma
    assert dpo.get_noise_multiplier(target_epsilon=8, target_delta=DELTA, sample_rate=Q, epochs=90) > OPACUS_GDP_SIGMA


# --- get_noise_multiplier ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, steps, opacus_sigma",
    [(dict(epochs=90), 2250, OPACUS_SIGMA_EPOCHS), (dict(steps=2000), 2000, OPACUS_SIGMA_STEPS)],
)
def test_get_noise_multiplier_is_tighter_than_opacus_which_pads_by_its_tolerance(kw, steps, opacus_sigma):
    sigma = dpo.get_noise_multiplier(target_epsilon=8, target_delta=DELTA, sample_rate=Q, **kw)
    # ours: admissible, and (to 1e-6) the smallest admissible sigma
    assert epsilon_at(sigma, steps) <= 8
    assert epsilon_at(sigma * (1 - 2e-6), steps) > 8
    assert 8 - epsilon_at(sigma, steps) < 1e-4  # far within any epsilon_tolerance >= 1e-4
    # Opacus' value is admissible too, but its bisection stopped within 0.01 of the target
    assert sigma < opacus_sigma
    slack = 8 - epsilon_at(opacus_sigma, steps, dpo.OPACUS_ALPHAS)
    assert 0 < slack <= 0.01


@pytest.mark.parametrize(
    "steps, opacus_sigma", [(2250, OPACUS_SIGMA_EPOCHS), (2000, OPACUS_SIGMA_STEPS)]
)
def test_opacus_loop_reimplemented_reproduces_opacus_sigmas_with_our_evaluator(steps, opacus_sigma):
    module = bench()
    sigma, _ = module.opacus_loop(module.dpproofs_epsilon(Q, steps, DELTA), 8.0)
    assert sigma == pytest.approx(opacus_sigma, abs=5e-5)  # Opacus' places=4


def test_our_accountant_plugs_into_opacus_calibration_protocol():
    """Opacus' get_noise_multiplier assigns accountant.history and calls get_epsilon(delta=...)."""
    accountant = dpo.Accountant(orders=list(dpo.OPACUS_ALPHAS))

    def epsilon(sigma):
        accountant.history = [(sigma, Q, 2000)]
        return accountant.get_epsilon(delta=DELTA)

    sigma, _ = bench().opacus_loop(epsilon, 8.0)
    assert sigma == pytest.approx(OPACUS_SIGMA_STEPS, abs=5e-5)


def test_alphas_calibrates_for_those_orders():
    sigma = dpo.get_noise_multiplier(
        target_epsilon=8, target_delta=DELTA, sample_rate=Q, steps=2000, alphas=dpo.OPACUS_ALPHAS
    )
    assert epsilon_at(sigma, 2000, dpo.OPACUS_ALPHAS) <= 8
    assert epsilon_at(sigma * (1 - 2e-6), 2000, dpo.OPACUS_ALPHAS) > 8


@given(
    epsilon=st.floats(1.0, 10.0),
    epochs=st.integers(10, 100),
    sample_rate=st.sampled_from([1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 1e-1]),
    delta=st.sampled_from([1e-4, 1e-5, 1e-6]),
)
def test_get_noise_multiplier_never_overshoots(epsilon, epochs, sample_rate, delta):
    """Opacus' test_get_noise_multiplier_overshoot, with our accountant (<= : one-sided)."""
    sigma = dpo.get_noise_multiplier(target_epsilon=epsilon, target_delta=delta, sample_rate=sample_rate, epochs=epochs)
    accountant = dpo.Accountant()
    accountant.history = [(sigma, sample_rate, dpo.steps_for_epochs(epochs, sample_rate))]
    assert accountant.get_epsilon(delta=delta) <= epsilon


def test_epochs_become_steps_without_dropping_one():
    assert dpo.steps_for_epochs(90, 0.04) == 2250
    assert int(3 / (1 / 75)) == 224  # Opacus' int() drops a step here
    assert dpo.steps_for_epochs(3, 1 / 75) == 225
    assert dpo.steps_for_epochs(1, 1 / 3) == 3
    assert dpo.steps_for_epochs(1, 0.3) == 4  # 3.33 passes: the partial one is a step
    assert all(dpo.steps_for_epochs(e, 1 / n) == e * n for n in range(1, 400) for e in (1, 3, 7, 90))


def test_get_noise_multiplier_takes_exactly_one_of_steps_and_epochs():
    for kw in ({}, dict(steps=10, epochs=1)):
        with pytest.raises(dp.InvalidArgument, match="exactly one"):
            dpo.get_noise_multiplier(target_epsilon=1, target_delta=1e-5, sample_rate=0.01, **kw)


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(target_epsilon=-1.0), "epsilon"),
        (dict(target_delta=1.5), "delta"),
        (dict(sample_rate=0.0), "sample_rate"),
        (dict(epsilon_tolerance=0.0), "epsilon_tolerance"),
        (dict(accountant="gdp"), "accountant"),
        (dict(target_epsilon=1e-4), "epsilon"),
    ],
)
def test_get_noise_multiplier_bad_input_is_named(kw, match):
    arguments = dict(target_epsilon=1.0, target_delta=1e-5, sample_rate=0.01, steps=1000) | kw
    with pytest.raises(dp.InvalidArgument, match=match):
        dpo.get_noise_multiplier(**arguments)


# --- state_dict / load_state_dict (test_accountant_state_dict, test_accountant_load_state_dict) ----


def test_state_dict_is_opacus_format():
    accountant = stepped()
    state = accountant.state_dict()
    assert isinstance(state, OrderedDict) and set(state) == {"history", "mechanism"}
    assert state["history"] == accountant.history and state["history"] is not accountant.history
    assert state["mechanism"] == accountant.mechanism() == "rdp"
    destination = {"dummy_k": "dummy_v"}
    assert accountant.state_dict(destination)["mechanism"] == "rdp"
    assert destination["dummy_k"] == "dummy_v"


def test_load_state_dict_refuses_what_opacus_refuses_and_resumes_a_run():
    accountant = stepped(STEPS - 1000)
    fresh = dpo.Accountant()
    for bad in ({}, {"1": 2}, {"history": []}, {"history": [], "mechanism": "gdp"}, None):
        with pytest.raises(ValueError):
            fresh.load_state_dict(bad)
    assert fresh.state_dict() != accountant.state_dict()
    fresh.load_state_dict(accountant.state_dict())
    assert fresh.state_dict() == accountant.state_dict()
    for _ in range(1000):
        fresh.step(noise_multiplier=SIGMA, sample_rate=Q)
    assert fresh.get_epsilon(DELTA) == pytest.approx(OPACUS_RDP_EPSILON, abs=5e-8)


def test_a_bad_history_changes_nothing():
    accountant = stepped(10)
    before = accountant.state_dict()
    for bad in ([(1.0, 0.01)], [(1.0, 1.5, 10)], [(-1.0, 0.01, 10)], [(1.0, 0.01, 2.5)], "history"):
        with pytest.raises((dp.InvalidArgument, dp.InvalidArgumentType)):
            accountant.history = bad
        with pytest.raises((dp.InvalidArgument, dp.InvalidArgumentType)):
            accountant.load_state_dict({"history": bad, "mechanism": "rdp"})
    assert accountant.state_dict() == before


def test_bad_steps_are_refused_and_leave_the_history_as_it_was():
    accountant = stepped(10)
    for kw in (dict(noise_multiplier=-1.0, sample_rate=Q), dict(noise_multiplier=1.0, sample_rate=1.5),
               dict(noise_multiplier=float("nan"), sample_rate=Q)):
        with pytest.raises(dp.InvalidArgument):
            accountant.step(**kw)
    with pytest.raises(TypeError):
        accountant.step(1.0, Q)  # keyword-only, as in Opacus
    assert accountant.history == [(SIGMA, Q, 10)]


def test_the_optimizer_hook_steps_at_the_accumulated_rate():
    accountant = dpo.Accountant()
    hook = accountant.get_optimizer_hook_fn(sample_rate=0.01)
    optimizer = types.SimpleNamespace(noise_multiplier=1.2, accumulated_iterations=2)
    hook(optimizer)
    hook(optimizer)
    assert accountant.history == [(1.2, 0.02, 2)]


def test_orders_and_accountant_names_are_validated():
    with pytest.raises(dp.InvalidArgument, match="accountant"):
        dpo.Accountant("gdp")
    with pytest.raises(dp.InvalidArgument, match="orders"):
        dpo.Accountant(orders=[0.5])
    assert list(dpo.Accountant(orders=[2, 3]).dpproofs_accountant().orders) == [2, 3]


def test_the_default_orders_contain_dpproofs_and_opacus_orders():
    assert set(map(float, dp.DEFAULT_ORDERS)) <= set(dpo.ORDERS)
    assert set(dpo.OPACUS_ALPHAS) <= set(dpo.ORDERS)
    assert list(dpo.ORDERS) == sorted(set(dpo.ORDERS))


def test_importing_the_bridge_imports_neither_torch_nor_opacus():
    code = (
        "import sys; from dpproofs.integrations import opacus as o; a = o.Accountant(); "
        "a.step(noise_multiplier=1.0, sample_rate=0.01); a.get_epsilon(1e-5); "
        "print(sorted(m for m in ('torch', 'opacus', 'sympy', 'hypothesis', 'flint') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
