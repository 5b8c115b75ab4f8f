"""The checker itself: true claims hold, false claims are refuted with certified counterexamples,
near-ties stay undecided, and nothing is called proved without a certificate."""

import sympy as sp
from flint import arb
from mpmath import mp

from dpproofs.checker.claims import Claim, Sides, Variable, check
from dpproofs.checker.vocabulary import NAMESPACE

alpha, eps = sp.symbols("alpha eps", real=True)
RR = NAMESPACE["rdp_randomized_response"]
DOMAIN = (Variable("alpha", 1.0, 50.0, low_open=True), Variable("eps", 1e-3, 5.0))
LEMMA1 = Claim(
    id="test.lemma1", source="Mironov 2017 v3 Lemma 1",
    statement=sp.Le(RR(alpha, eps), 2 * alpha * eps**2), variables=DOMAIN,
)


def test_a_true_claim_holds_with_its_examples_and_closest_approach():
    verdict = check(LEMMA1, examples=30)
    assert verdict.status == "holds" and verdict.examples >= 30
    assert verdict.closest["margin"] > 0


def test_a_strengthened_constant_is_refuted_with_a_certified_counterexample():
    mutant = LEMMA1.mutant("constant_quarter", statement=sp.Le(RR(alpha, eps), alpha * eps**2 / 4),
                           explanation="below the Bun-Steinke constant 1/2")
    verdict = check(mutant, examples=30)
    assert verdict.status == "refuted" and verdict.certified
    assert verdict.matches_expectation
    point = {k: verdict.counterexample[k] for k in ("alpha", "eps")}
    lhs, rhs = mutant.evaluate(point, 50)
    assert lhs > rhs


def test_a_violation_that_ball_arithmetic_cannot_confirm_is_undecided_not_refuted():
    # the mp sides say lhs > rhs, but no ball evaluation exists: never "refuted"
    claim = Claim(
        id="test.no_ball", source="test", statement=sp.Le(sp.Symbol("x"), 0),
        variables=(Variable("x", 1.0, 2.0),),
        sides=Sides(precise=lambda point, dps: (mp.mpf(point["x"]), mp.zero)),
    )
    verdict = check(claim, examples=5)
    assert verdict.status == "undecided" and not verdict.certified


def test_a_tie_that_the_numbers_cannot_separate_is_undecided():
    # lhs and rhs differ by 1e-60 relative: beyond 50 digits and beyond the ball's radius
    claim = Claim(
        id="test.tie", source="test", statement=sp.Lt(sp.Symbol("x"), 0),
        variables=(Variable("x", 1.0, 2.0),),
        sides=Sides(
            precise=lambda point, dps: (mp.mpf(point["x"]) * (1 + mp.mpf(10) ** -60), mp.mpf(point["x"])),
            ball=lambda point, prec: (arb(point["x"]) * (1 + arb(0, 1e-30)), arb(point["x"])),
        ),
    )
    verdict = check(claim, examples=5)
    assert verdict.status in ("holds", "undecided") and verdict.status != "refuted"


def test_an_empty_domain_is_undecided_never_a_vacuous_holds():
    claim = Claim(
        id="test.empty", source="test", statement=sp.Le(alpha, 0), variables=DOMAIN,
        hypotheses=(sp.Gt(eps, 10),),
    )
    verdict = check(claim, examples=10)
    assert verdict.status == "undecided" and verdict.examples == 0


def test_ball_branch_and_bound_proves_a_bounded_claim_on_its_whole_box():
    claim = Claim(
        id="test.box", source="Mironov 2017 v3 Prop. 7", certify=True,
        statement=sp.Le(NAMESPACE["rdp_gaussian"](alpha, sp.Symbol("sigma")), alpha),
        variables=(Variable("alpha", 1.5, 4.0), Variable("sigma", 1.0, 3.0)),
    )
    verdict = check(claim, examples=10)
    assert verdict.status == "proved" and verdict.certified and verdict.boxes >= 1


def test_pinned_points_are_evaluated_first():
    mutant = LEMMA1.mutant("pinned", statement=sp.Le(RR(alpha, eps), alpha * eps**2 / 4),
                           explanation="x", pinned=({"alpha": 2.0, "eps": 1.0},))
    verdict = check(mutant, examples=1)
    assert verdict.status == "refuted" and verdict.counterexample["alpha"] == 2.0


def test_the_same_seed_gives_the_same_verdict():
    first, second = check(LEMMA1, examples=15, seed=7), check(LEMMA1, examples=15, seed=7)
    assert first.closest == second.closest and first.examples == second.examples


def _scaled_sides(factor_exponent):
    """lhs = x (1 + 10^-k) and rhs = x, computed at the digits asked for (mpmath and arb)."""

    def precise(point, dps):
        with mp.workdps(dps):
            x = mp.mpf(point["x"])
            return x * (1 + mp.mpf(10) ** -factor_exponent), x

    def ball(point, prec):
        from dpproofs.math.ball import precision

        with precision(prec):
            x = arb(point["x"])
            return x * (1 + arb(10) ** -factor_exponent), x

    return Sides(precise=precise, ball=ball)


def test_a_near_tie_of_a_theorem_claim_is_escalated_and_refuted_when_more_digits_separate_it():
    # 1e-60 relative is below the resolution of 50 digits: the search sees a tie; the shared
    # pipeline's tie escalation (100 digits) finds the violation, certified and confirmed
    claim = Claim(id="test.near_tie", source="test", statement=sp.Le(sp.Symbol("x"), 0),
                  variables=(Variable("x", 1.0, 2.0),), sides=_scaled_sides(60))
    verdict = check(claim, examples=5)
    assert verdict.status == "refuted" and verdict.certified, verdict.evidence
    assert "near-tie at 50 digits" in verdict.evidence and "mpmath reference" in verdict.evidence
    assert set(verdict.counterexample) == {"x"} and "reference" in verdict.sides


def test_a_violation_the_mpmath_reference_does_not_confirm_is_undecided_for_a_theorem_claim():
    # the search and the balls see lhs > rhs, the reference says lhs == rhs: never "refuted"
    sides = _scaled_sides(10)
    claim = Claim(
        id="test.reference_disagrees", source="test", statement=sp.Le(sp.Symbol("x"), 0),
        variables=(Variable("x", 1.0, 2.0),),
        sides=Sides(precise=sides.precise, ball=sides.ball,
                    reference=lambda point, dps: (mp.mpf(point["x"]), mp.mpf(point["x"]))),
    )
    verdict = check(claim, examples=5)
    assert verdict.status == "undecided" and not verdict.certified
    assert "reference does not" in verdict.evidence


def test_a_theorem_claim_verdict_is_frozen_and_reports_verdict_and_status():
    verdict = check(LEMMA1, examples=5)
    data = verdict.to_dict()
    assert data["verdict"] == data["status"] == "holds" and data["expected"] == "holds"
    assert data["matches_expectation"] is True
    try:
        verdict.status = "refuted"
    except AttributeError:
        pass
    else:
        raise AssertionError("a Verdict must be immutable")
