"""Fuzz campaign: no input breaks the accountant path.

Hypothesis throws floats (nan, +-inf, subnormal, huge), integers (huge, negative), bools, numpy
scalars, strings and None at every public function of the accountant path -- the mechanism
constructors, ``Accountant(...)``, ``compose``, ``epsilon``, ``delta``, ``epsilon_and_order``,
``calibrate_sigma``, ``dp.rdp``, ``dp.log_moment``, ``to_dict`` / ``from_dict`` -- and asserts:

* only the library's exceptions (:class:`dpproofs.DPProofsError` subclasses) are raised;
* never a nan, a negative epsilon, a delta outside ``(0, 1]``, a negative or nan RDP;
* after an error the accountant is exactly as it was (``to_dict`` and ``rdp`` unchanged);
* every call returns within ``HANG_SECONDS`` (a generous wall limit, a hang detector only).

Size: the Hypothesis profile (``default``: modest). ``pytest -m campaign
--hypothesis-profile=campaign tests/test_fuzz.py -s`` runs the campaign copies of the same checks
at the campaign size and prints the number of public calls made.

Known failures of ``dpproofs/accountant.py`` are pinned as ``xfail(strict=True)`` tests at the
end, and kept out of the random search by :func:`known` so that the search reports only new
failures; when one is fixed its xfail mark and its clause in :func:`known` are removed (the four
found by the first campaign are fixed: their tests remain, as regular tests).
"""

import contextlib
import math
import signal
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import dpproofs as dp
from dpproofs.errors import DPProofsError
from dpproofs.mechanisms import Mechanism

#: Wall-clock limit of one public call: only a hang detector (the slowest legitimate call measured,
#: dp.rdp of a sampled Gaussian at order 1e4 and sigma 1e150, takes about 5 s on one core).
HANG_SECONDS = 120

CALLS = {"count": 0}


class Hang(AssertionError):
    pass


@contextlib.contextmanager
def time_limit(seconds=HANG_SECONDS):
    def interrupt(signum, frame):
        raise Hang(f"a public call took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def call(function, *args, **kwargs):
    """``(result, None)`` or ``(None, error)`` for a library error; anything else fails the test."""
    CALLS["count"] += 1
    try:
        with time_limit():
            return function(*args, **kwargs), None
    except DPProofsError as error:
        return None, error


@pytest.fixture(scope="module", autouse=True)
def report_calls():
    start = CALLS["count"]
    yield
    sys.stderr.write(f"\ntests/test_fuzz.py: {CALLS['count'] - start} public calls\n")


# --- strategies --------------------------------------------------------------------------------

special_floats = st.sampled_from(
    [math.nan, math.inf, -math.inf, 0.0, -0.0, 5e-324, 2.2250738585072014e-308, 1e-300, 1e-160,
     1e-153, 1e-50, 1e-10, 1e-6, 0.1, 0.5, 1.0, 1.0 - 2**-53, 1.000001, 2.0, 1e4, 1e150, 1e155,
     1e300, 1.7976931348623157e308, -1.0, -5e-324]
)
#: positive finite floats whose log is uniform over the whole float range (subnormals included)
any_positive = st.floats(-744.0, 709.7).map(math.exp).filter(lambda x: 0 < x < math.inf)
unit = st.floats(0.0, 1.0)
raw_floats = st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True)
huge_integers = st.integers(-(10**400), 10**400)
numpy_scalars = st.one_of(
    raw_floats.map(np.float64),
    st.floats(width=32, allow_nan=True, allow_infinity=True).map(np.float32),
    st.integers(-(2**63), 2**63 - 1).map(np.int64),
    st.booleans().map(np.bool_),
)
garbage = st.one_of(st.none(), st.booleans(), st.text(max_size=4), st.just([1.0]), st.just({}), st.just(1 + 1j),
                    st.just(Fraction(1, 3)), st.just(Fraction(10**400, 3)))
#: any value an argument might receive
anything = st.one_of(special_floats, any_positive, unit, raw_floats, huge_integers, st.integers(-5, 70),
                     numpy_scalars, garbage)
#: mostly valid-looking parameters, sometimes anything
parameter = st.one_of(any_positive, special_floats, unit, anything)
deltas = st.one_of(st.floats(-744.0, 0.0).map(math.exp), special_floats, anything)
steps_values = st.one_of(st.integers(0, 10**6), st.just(10**300), huge_integers, anything)

MECHANISMS = {
    "Gaussian": (dp.Gaussian, 1),
    "SampledGaussian": (dp.SampledGaussian, 2),
    "Laplace": (dp.Laplace, 1),
    "RandomizedResponse": (dp.RandomizedResponse, 1),
    "BoundedRange": (dp.BoundedRange, 1),
    "TruncatedSampledGaussian": (dp.TruncatedSampledGaussian, 4),
    "MixtureOfGaussians": (dp.MixtureOfGaussians, 3),
}
#: sizes as users type them, and beyond
sizes = st.one_of(st.integers(0, 2000), st.integers(0, 10**15), anything)
#: sensitivity and probability vectors of a mixture, mostly well-formed
vectors = st.one_of(st.lists(st.one_of(st.floats(0.0, 5.0), parameter), min_size=1, max_size=4).map(tuple), anything)


@st.composite
def mechanism_calls(draw):
    name = draw(st.sampled_from(sorted(MECHANISMS)))
    constructor, arity = MECHANISMS[name]
    if name == "SampledGaussian":
        args = (draw(st.one_of(unit, parameter)), draw(parameter))
    elif name == "TruncatedSampledGaussian":
        args = (draw(st.one_of(unit, parameter)), draw(parameter), draw(sizes), draw(sizes))
    elif name == "MixtureOfGaussians":
        sensitivities = draw(vectors)
        size = len(sensitivities) if isinstance(sensitivities, tuple) else 1
        weights = draw(st.lists(st.floats(0.0, 1.0), min_size=size, max_size=size))
        total = math.fsum(weights)
        probabilities = draw(st.one_of(st.just(tuple(w / total for w in weights) if total > 0 else (1.0,) * size),
                                       vectors))
        args = (draw(parameter), sensitivities, probabilities)
    else:
        args = (draw(parameter),)
    return constructor, args


@st.composite
def mechanisms(draw):
    """A valid mechanism (the constructor's verdict decides; invalid draws are retried)."""
    constructor, args = draw(mechanism_calls())
    mechanism, error = call(constructor, *args)
    assume(error is None)
    return mechanism


order_values = st.one_of(st.floats(1.000001, 1e4), st.integers(2, 10000), st.floats(1.0, 70.0), anything)
orders_arguments = st.one_of(
    st.none(),
    st.lists(order_values, min_size=0, max_size=6),
    st.lists(st.floats(1.000001, 1e4), min_size=1, max_size=6, unique=True).map(np.array),
    st.lists(st.integers(2, 300), min_size=1, max_size=5, unique=True),
    anything,
)


# --- what every answer must satisfy --------------------------------------------------------------


def check_mechanism(mechanism):
    for value in vars(mechanism).values():
        if isinstance(value, tuple):  # a mixture's sensitivities or probabilities
            assert value and all(type(v) is float and math.isfinite(v) and v >= 0 for v in value)
        elif type(value) is int:  # sizes: batch limit, dataset size
            assert value >= 0
        else:
            assert type(value) is float and math.isfinite(value)
    if isinstance(mechanism, (dp.SampledGaussian, dp.TruncatedSampledGaussian)):
        assert 0.0 <= mechanism.q <= 1.0 and mechanism.sigma > 0
    else:
        assert next(iter(vars(mechanism).values())) > 0


def check_epsilon(value):
    assert isinstance(value, float) and not math.isnan(value) and value >= 0, value


def check_delta(value):
    # 0.0 exactly for zero privacy loss (an empty ledger or sampling rate 0), else in (0, 1]
    assert isinstance(value, float) and 0 <= value <= 1, value


def check_rdp_curve(accountant):
    values = accountant.rdp
    assert values.shape == accountant.orders.shape
    assert not np.any(np.isnan(values)) and np.all(values >= 0), values


def state(accountant):
    return accountant.to_dict(), accountant.rdp.tobytes()


def known(mechanism=None, steps=None, orders=None, epsilon=None, delta=None, q=None, calibrate=False):
    """Inputs that hit a known failure of accountant.py (pinned below as strict xfails); none today."""
    return False


# --- the checks, once each (run by a default test and by a campaign test) ---------------------------


def fuzz_mechanism(constructor_and_args):
    constructor, args = constructor_and_args
    mechanism, error = call(constructor, *args)
    if error is None:
        check_mechanism(mechanism)
        data, error = call(mechanism.to_dict)
        assert error is None
        again, error = call(Mechanism.from_dict, data)
        assert error is None and again == mechanism


def fuzz_from_dict(kind, values):
    data = {"type": kind, **values}
    mechanism, error = call(Mechanism.from_dict, data)
    if error is None:
        check_mechanism(mechanism)
    accountant, error = call(dp.Accountant.from_dict, {"type": "Accountant", "orders": None,
                                                      "ledger": [{"mechanism": data, "steps": 3}]})
    if error is None:
        check_rdp_curve(accountant)


def fuzz_accountant(orders, certified):
    assume(not known(orders=orders))
    accountant, error = call(dp.Accountant, orders, certified=certified)
    if error is None:
        assert len(accountant.orders) >= 1 and np.all(accountant.orders > 1)
        assert np.all(accountant.rdp == 0)


def fuzz_compose_and_query(orders, first, second, steps, bad_steps, delta, epsilon, conversion):
    assume(not known(orders=orders, steps=steps) and not known(steps=bad_steps))
    accountant, error = call(dp.Accountant, orders)
    if error is not None:
        accountant = dp.Accountant([1.5, 2.0, 8.0, 64.0])
    _, error = call(accountant.compose, first, steps)
    if error is not None:
        assert accountant.ledger == []
    before = state(accountant)
    # a compose that may fail: if it does, nothing changed
    _, error = call(accountant.compose, second, bad_steps)
    if error is not None:
        assert state(accountant) == before
    check_rdp_curve(accountant)
    for query, argument, check in (
        (accountant.epsilon, delta, check_epsilon),
        (accountant.delta, epsilon, check_delta),
    ):
        snapshot = state(accountant)
        value, error = call(query, argument, conversion=conversion)
        if error is None:
            check(value)
        assert state(accountant) == snapshot
    value, error = call(accountant.epsilon_and_order, delta, conversion=conversion)
    if error is None:
        eps, alpha = value
        check_epsilon(eps)
        assert alpha in accountant.orders
    data = accountant.to_dict()
    again, error = call(dp.Accountant.from_dict, data)
    assert error is None and again.to_dict() == data


def fuzz_calibrate(epsilon, delta, q, steps, conversion):
    assume(not known(steps=steps, epsilon=epsilon, calibrate=True))
    sigma, error = call(dp.calibrate_sigma, epsilon=epsilon, delta=delta, q=q, steps=steps, conversion=conversion)
    if error is None:
        assert isinstance(sigma, float) and 0.1 <= sigma <= 1e4 * (1 + 1e-6)
        eps, error = call(
            lambda: dp.Accountant().compose(dp.SampledGaussian(q, sigma), steps).epsilon(delta, conversion)
        )
        assert error is None and eps <= epsilon  # one-sided: the sigma returned meets the target


def fuzz_exact(mechanism, order, use_log_moment):
    function = dp.log_moment if use_log_moment else dp.rdp
    value, error = call(function, mechanism, order, dps=15)
    if error is None:
        assert not value != value and value >= 0, value  # an mpf: not nan, not negative


# --- default-size tests (the active Hypothesis profile) ------------------------------------------

conversions = st.one_of(st.sampled_from(["improved", "classic"]), anything)
#: dp.rdp of a sampled Gaussian costs up to seconds (mpmath quadrature): fewer examples, from the profile
_EXACT = settings(max_examples=max(4, settings.default.max_examples // 4))


@given(mechanism_calls())
def test_any_mechanism_construction_either_validates_or_raises_a_library_error(constructor_and_args):
    fuzz_mechanism(constructor_and_args)


@given(st.sampled_from(sorted(MECHANISMS) + ["Exponential", 3, None]),
       st.dictionaries(st.sampled_from(["q", "sigma", "scale", "epsilon", "other"]), parameter, max_size=3))
def test_any_mechanism_or_accountant_dict_either_loads_or_raises_a_library_error(kind, values):
    fuzz_from_dict(kind, values)


@given(orders_arguments, st.one_of(st.just(False), anything))
def test_any_order_grid_either_makes_an_accountant_or_raises_a_library_error(orders, certified):
    fuzz_accountant(orders, certified)


@given(orders_arguments, mechanisms(), st.one_of(mechanisms(), anything), steps_values, steps_values, deltas,
       st.one_of(any_positive, anything), conversions)
def test_compose_and_every_query_answer_soundly_or_raise_and_change_nothing(
    orders, first, second, steps, bad_steps, delta, epsilon, conversion
):
    fuzz_compose_and_query(orders, first, second, steps, bad_steps, delta, epsilon, conversion)


@given(st.one_of(any_positive, anything), deltas, st.one_of(unit, anything), steps_values, conversions)
def test_calibrate_sigma_meets_its_target_or_raises_a_library_error(epsilon, delta, q, steps, conversion):
    fuzz_calibrate(epsilon, delta, q, steps, conversion)


@_EXACT
@given(st.one_of(mechanisms(), anything), st.one_of(st.floats(1.0, 50.0), any_positive, anything), st.booleans())
def test_the_exact_evaluator_answers_soundly_or_raises_a_library_error(mechanism, order, use_log_moment):
    fuzz_exact(mechanism, order, use_log_moment)


# --- the campaign: the same checks, several per example, at the campaign profile's size -------------

#: calls of each check per campaign example (lists of argument tuples)
_BATCH = dict(min_size=10, max_size=40)


@pytest.mark.campaign
@given(st.lists(mechanism_calls(), **_BATCH))
def test_campaign_mechanism_construction(batch):
    for constructor_and_args in batch:
        fuzz_mechanism(constructor_and_args)


@pytest.mark.campaign
@given(st.lists(st.tuples(st.sampled_from(sorted(MECHANISMS) + ["Exponential", 3, None]),
                          st.dictionaries(st.sampled_from(["q", "sigma", "scale", "epsilon", "other"]), parameter,
                                          max_size=3)), **_BATCH))
def test_campaign_dicts(batch):
    for kind, values in batch:
        fuzz_from_dict(kind, values)


@pytest.mark.campaign
@given(st.lists(st.tuples(orders_arguments, st.one_of(st.just(False), anything)), **_BATCH))
def test_campaign_order_grids(batch):
    for orders, certified in batch:
        fuzz_accountant(orders, certified)


@pytest.mark.campaign
@given(st.lists(st.tuples(orders_arguments, mechanisms(), st.one_of(mechanisms(), anything), steps_values,
                          steps_values, deltas, st.one_of(any_positive, anything), conversions), **_BATCH))
@settings(suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])  # most draws are invalid on purpose
def test_campaign_compose_and_queries(batch):
    for arguments in batch:
        orders, _, _, steps, bad_steps, *_ = arguments
        if not (known(orders=orders, steps=steps) or known(steps=bad_steps)):
            fuzz_compose_and_query(*arguments)


@pytest.mark.campaign
@given(st.lists(st.tuples(st.one_of(any_positive, anything), deltas, st.one_of(unit, anything), steps_values,
                          conversions), **_BATCH))
def test_campaign_calibrate_sigma(batch):
    for epsilon, delta, q, steps, conversion in batch:
        if not known(steps=steps, epsilon=epsilon, calibrate=True):
            fuzz_calibrate(epsilon, delta, q, steps, conversion)


@pytest.mark.campaign
@given(st.one_of(mechanisms(), anything), st.one_of(st.floats(1.0, 50.0), any_positive, anything), st.booleans())
def test_campaign_exact_evaluator(mechanism, order, use_log_moment):
    fuzz_exact(mechanism, order, use_log_moment)


# --- once known failures of accountant.py, fixed (kept as regular tests) -----------------------------


def test_known_compose_with_steps_beyond_the_float_range_is_rejected_up_front():
    accountant = dp.Accountant()
    with pytest.raises(dp.InvalidArgument, match="steps"):
        accountant.compose(dp.Gaussian(1.0), 10**400)
    assert accountant.ledger == []


def test_known_calibrate_sigma_with_a_tiny_epsilon_answers_or_raises_a_library_error():
    try:
        dp.calibrate_sigma(epsilon=1e-17, delta=0.1, q=0.01, steps=10)
    except DPProofsError:
        pass
    try:  # the smallest epsilon with the smallest delta: the guess's x underflows to 0
        dp.calibrate_sigma(epsilon=5e-324, delta=5e-324, q=0.01, steps=10)
    except DPProofsError:
        pass


def test_known_an_order_beyond_the_float_range_is_rejected_by_name():
    with pytest.raises(dp.InvalidArgument, match="orders"):
        dp.Accountant(orders=[2, 10**400])


def test_known_calibrate_sigma_with_steps_beyond_the_float_range_raises_a_library_error():
    with pytest.raises(dp.InvalidArgument, match="steps"):
        dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=0.01, steps=10**400)
