"""The notes' numeric claims (theorems/notes.py), the PLD bracket behind the tight epsilon, and the
``dpproofs claims`` command. The full table (about 30 s) runs under ``-m campaign``."""

import json

import pytest

from dpproofs.cli import main
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


# --- the range of T where the paper's method prints 2.55 --------------------------------------


def test_the_range_where_epsilon_rounds_to_2_55_is_39060_to_39356_inclusive():
    first, last = notes.steps_rounding_to(2.55, 2)
    assert (first, last) == (39060, 39356)
    assert round(notes.moments_epsilon(first)[0], 2) == 2.55
    assert round(notes.moments_epsilon(first - 1)[0], 2) == 2.54
    assert round(notes.moments_epsilon(last)[0], 2) == 2.55  # 2.554996
    assert round(notes.moments_epsilon(last + 1)[0], 2) == 2.56  # 2.555029: no longer 2.55


# --- the tight bracket of the side-by-side table -----------------------------------------------


def test_the_tight_bracket_at_1000_steps_is_narrow_and_contains_dp_accounting():
    dp_accounting = pytest.importorskip("dp_accounting")
    bracket = notes.tight_bracket(1000, 0.01, 4.0, 1e-5)
    assert bracket["source"] == "pld"
    assert bracket["lower"] <= bracket["upper"] and bracket["width"] <= 1e-4 * bracket["upper"]
    accountant = dp_accounting.pld.PLDAccountant()
    accountant.compose(dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(4.0)), 1000)
    # dp_accounting's pessimistic PLD (connect-the-dots at its 1e-4 grid) is an upper bound of the
    # tight epsilon, close to it but not inside a bracket of relative width 1e-4
    assert bracket["lower"] <= accountant.get_epsilon(1e-5) <= bracket["upper"] * (1 + 1e-3)


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
        assert row["pld_lower"] <= row["dp_accounting_pld"]["epsilon"] <= row["pld_upper"] * (1 + 1e-3)
        assert row["pld_upper"] < row["improved"] < row["continuous_lambda"] <= row["moments_paper"]
    assert rows["notes.composition.exact"]["reproduced"] == pytest.approx(4.3764, abs=1e-4)
