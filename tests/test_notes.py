"""The notes' numeric claims (theorems/notes.py), the PLD bracket behind the tight epsilon, and the
``dpproofs claims`` command. The full table (about 30 s) runs under ``-m campaign``."""

import json
import math

import pytest

from dpproofs.cli import main
from dpproofs.accountant.pld import discretise as pld
from dpproofs.math import precise
from dpproofs_theorems import notes


def by_id(claim_id):
    return next(c for c in notes.NUMERIC_CLAIMS if c.id == claim_id)


def test_numeric_claim_ids_are_unique_and_cover_the_notes_and_headlines():
    ids = [c.id for c in notes.NUMERIC_CLAIMS]
    assert len(ids) == len(set(ids))
    for prefix in ("abadi2016.headline.moments", "abadi2016.headline.strong", "notes.abadi.integer_lambda",
                   "notes.composition", "notes.gaussian100", "notes.theorem1"):
        assert any(i.startswith(prefix) for i in ids), prefix


def test_notes_module_registers_no_checkable_claims():
    assert not hasattr(notes, "CLAIMS")


def test_basic_drv_and_corollary1_figures_are_reproduced():
    for claim_id, value in (("notes.composition.basic", 100.0), ("notes.composition.drv", 5.8035),
                            ("notes.composition.corollary1", 19.1941)):
        row = notes.evaluate(by_id(claim_id))
        assert row["verdict"] == "reproduced"
        assert row["reproduced"] == pytest.approx(value, abs=1e-4)


def test_gaussian_100_fold_proposition3_gives_15_12_at_alpha_2_92_and_gdp_gives_13_21():
    row = notes.evaluate(by_id("notes.gaussian100.proposition3"))
    assert row["verdict"] == "reproduced"
    assert row["reproduced"] == pytest.approx(15.1213, abs=1e-4)
    assert row["order"] == pytest.approx(2.9194, abs=1e-4)
    gdp = notes.evaluate(by_id("notes.gaussian100.gdp_exact"))
    assert gdp["verdict"] == "computed"
    assert gdp["reproduced"] == pytest.approx(13.2067, abs=1e-4)  # Mironov helper's measurement
    assert gdp["reproduced"] < row["reproduced"]


def test_paper_method_gives_1_2586_at_lambda_19_and_2_5759_at_lambda_9():
    assert notes.moments_epsilon(10000) == (pytest.approx(1.2585747, abs=1e-6), 19)
    assert notes.moments_epsilon(40000) == (pytest.approx(2.5758725, abs=1e-6), 9)


def test_strong_composition_with_drv_misses_the_printed_9_34_and_24_22_by_about_0_1_percent():
    e100, _ = notes.strong_composition(10000)
    e400, _ = notes.strong_composition(40000)
    assert e100 == pytest.approx(9.3532, abs=1e-3) and round(e100, 2) != 9.34
    assert e400 == pytest.approx(24.2445, abs=1e-3) and round(e400, 2) != 24.22


def test_a_verdict_of_not_reproduced_is_reached_when_the_value_is_off_by_more_than_the_rounding():
    fake = notes.NumericClaim("x", "s", "t", 2.55, "2 decimals", lambda: {"value": 2.5759, "method": "m"}, decimals=2)
    assert notes.evaluate(fake)["verdict"] == "not reproduced"
    close = notes.NumericClaim("x", "s", "t", 2.58, "2 decimals", lambda: {"value": 2.5759, "method": "m"}, decimals=2)
    assert notes.evaluate(close)["verdict"] == "reproduced"


# --- the PLD bracket --------------------------------------------------------------------------


@pytest.mark.parametrize("direction", ["add", "remove"])
def test_one_step_pld_bracket_contains_the_exact_closed_form_epsilon(direction):
    q, sigma, delta = 0.1, 1.0, 1e-3
    upper = pld.sampled_gaussian_pld(q, sigma, step=1e-3, direction=direction, bound="upper")
    lower = pld.sampled_gaussian_pld(q, sigma, step=1e-3, direction=direction, bound="lower")
    eps_upper, eps_lower = upper.epsilon(delta), lower.epsilon(delta)
    # exact: precise closed-form profile, bisection
    low, high = 0.0, 5.0
    for _ in range(60):
        middle = (low + high) / 2
        if precise.delta_sampled_gaussian(middle, q, sigma, dps=20, direction=direction) <= delta:
            high = middle
        else:
            low = middle
    assert eps_lower <= high + 1e-12 and high <= eps_upper + 1e-12
    assert eps_upper - eps_lower < 2e-3


@pytest.mark.parametrize("direction", ["add", "remove"])
def test_one_step_discretisations_bound_the_exact_hockey_stick_at_several_levels(direction):
    q, sigma = 0.05, 2.0
    upper = pld.sampled_gaussian_pld(q, sigma, step=5e-4, direction=direction, bound="upper")
    lower = pld.sampled_gaussian_pld(q, sigma, step=5e-4, direction=direction, bound="lower")
    for eps in (0.0, 0.005, 0.01, 0.03, 0.1):
        exact = float(precise.delta_sampled_gaussian(eps, q, sigma, dps=20, direction=direction))
        assert lower.delta(eps) <= exact * (1 + 1e-9) + 1e-15
        assert exact <= upper.delta(eps) * (1 + 1e-9) + 1e-15


def test_pld_bracket_at_1000_steps_is_narrow_and_contains_dp_accounting():
    dp_accounting = pytest.importorskip("dp_accounting")
    bracket = pld.epsilon_bracket(0.01, 4.0, 1000, 1e-5)
    assert bracket["lower"] <= bracket["upper"] and bracket["width"] < 1e-4
    accountant = dp_accounting.pld.PLDAccountant()
    accountant.compose(dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(4.0)), 1000)
    assert bracket["lower"] <= accountant.get_epsilon(1e-5) <= bracket["upper"] + 1e-6


def test_halving_the_grid_step_narrows_the_bracket_and_keeps_it_nested():
    coarse = pld.epsilon_bracket(0.01, 4.0, 500, 1e-5, step=2e-4)
    fine = pld.epsilon_bracket(0.01, 4.0, 500, 1e-5, step=1e-4)
    assert fine["width"] < coarse["width"] / 2
    assert coarse["lower"] <= fine["lower"] + 1e-9 and fine["upper"] <= coarse["upper"] + 1e-9


def test_fft_composition_agrees_with_exact_convolution_to_1e_15():
    assert pld.fft_roundoff(count=8) < 1e-15


def test_composed_pld_epsilon_is_monotone_in_delta():
    composed = pld.sampled_gaussian_pld(0.01, 4.0, direction="add", bound="upper").self_compose(200)
    values = [composed.epsilon(d) for d in (1e-3, 1e-5, 1e-7)]
    assert values == sorted(values) and all(math.isfinite(v) for v in values)


# --- the command ------------------------------------------------------------------------------


def test_claims_command_prints_json_rows_with_verdicts(capsys):
    status = main(["claims", "notes.composition.basic", "notes.gaussian100.*", "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert status == 0
    ids = [row["id"] for row in payload["claims"]]
    assert "notes.composition.basic" in ids and "notes.gaussian100.gdp_exact" in ids
    for row in payload["claims"]:
        assert {"id", "stated", "reproduced", "verdict", "method"} <= set(row)
        assert row["verdict"] in notes.VERDICTS


def test_claims_command_rejects_an_unknown_id_with_status_2(capsys):
    assert main(["claims", "no.such.claim"]) == 2
    assert "match no numeric claim" in capsys.readouterr().err


@pytest.mark.campaign
def test_full_claims_table_has_the_expected_verdicts():
    rows = {row["id"]: row for row in notes.evaluate_all()}
    expected_not = {"abadi2016.headline.moments.E400", "abadi2016.headline.strong.E100",
                    "abadi2016.headline.strong.E400"}
    for claim_id, row in rows.items():
        if claim_id in expected_not:
            assert row["verdict"] == "not reproduced", claim_id
        elif row["stated"] is None:
            assert row["verdict"] == "computed", claim_id
        else:
            assert row["verdict"] == "reproduced", claim_id
    table = notes.abadi_table()
    for row in table:
        assert row["pld_lower"] <= row["dp_accounting_pld"]["epsilon"] <= row["pld_upper"] + 1e-6
        assert row["pld_upper"] < row["improved"] < row["continuous_lambda"] <= row["moments_paper"]
    assert rows["notes.composition.exact"]["reproduced"] == pytest.approx(4.3764, abs=1e-4)
