"""Every ball enclosure contains the reference value."""

import pytest
from mpmath import mp

from dpproofs.checker.decide import mp_ball
from dpproofs.math import ball
from dpproofs.math import precise

CASES = [
    ("rdp_gaussian", (3.5, 0.7)),
    ("rdp_laplace", (2.5, 0.8)),
    ("rdp_randomized_response", (1.7, 0.3)),
    ("rdp_kary_randomized_response", (2.5, 0.3, 7)),
    ("rdp_kary_randomized_response", (3, 0.1, 10**400)),  # k beyond floats
    ("rdp_kary_randomized_response", (1, 0.3, 7)),  # the KL limit
    ("rdp_kary_randomized_response_special", (2.5, 0.3, 7)),
    ("rdp_kary_randomized_response_special", (1.0001, 0.999, 3)),  # the sum cancels: more digits
    ("rdp_kary_randomized_response_special", (3, 0.1, 10**400)),
    ("rdp_composed_pure", (4, 0.1, 30)),
    ("delta_gaussian", (2.0, 0.9)),
    ("delta_laplace", (0.3, 1.5)),
    ("delta_randomized_response", (0.2, 1.0)),
    ("delta_composed_pure", (1.0, 0.1, 60)),
    ("log_a_integer", (17, 0.02, 3.0)),
    ("log_a_integral", (5.5, 0.02, 3.0)),
    ("log_b", (5.5, 0.02, 3.0)),
    ("log_b", (12, 0.3, 1.2)),
    ("delta_sampled_gaussian", (0.5, 0.1, 1.1)),
    ("log_moment_sampled_gaussian", (8, 0.01, 2.0)),
    ("rdp_sampled_gaussian", (4.5, 0.05, 1.5)),
    ("rdp_sampled_gaussian_add", (6, 0.05, 1.5)),
    ("delta_sampled_gaussian_add", (0.7, 0.2, 1.3)),
    ("delta_sampled_gaussian", (0.05, 0.9, 0.6)),  # the remove direction's set is non-empty here
    ("rdp_laplace", (1, 0.8)),  # the KL limit, in both contexts
]


def test_every_closed_form_is_one_formula_run_in_both_contexts():
    """precise.f and ball.f of each closed form are formulas.f, in the mpmath and arb contexts."""
    from dpproofs.math import formulas

    for name in formulas.CLOSED_FORMS:
        for module in (precise, ball):
            assert getattr(module, name).__wrapped__ is getattr(formulas, name), (module.__name__, name)
    assert {name for name, _ in CASES} >= set(formulas.CLOSED_FORMS)


@pytest.mark.parametrize("name, args", CASES)
def test_every_ball_contains_the_50_digit_reference(name, args):
    reference = getattr(precise, name)(*args, dps=50)
    enclosure = getattr(ball, name)(*args, prec=200)
    # the reference is good to ~50 digits: a ball of that radius around it must meet the enclosure
    assert enclosure.overlaps(mp_ball(reference, 50))
    assert enclosure.rad() < abs(enclosure.mid()) * 1e-30 + 1e-40


def test_floats_become_exact_balls():
    assert ball.to_arb(0.1).is_exact()
    assert ball.to_arb(mp.mpf(1) / 3).is_exact()


def test_positive_part_of_an_interval_straddling_zero_is_zero_to_its_upper_end():
    from flint import arb

    result = ball.positive_part(arb(0, 1))
    assert result.contains(0) and result.contains(1) and result.upper() < 1.01
