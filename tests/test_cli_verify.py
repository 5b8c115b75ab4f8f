"""``dpproofs verify``: exit statuses (0 proved/holds, 1 refuted, 2 bad input, 3 undecided),
``--json`` output, and one-line errors for malformed claims and domains."""

import json
import subprocess
import sys

import pytest

from dpproofs.cli import main


def _run(capsys, *argv):
    status = main(["verify", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_a_proved_claim_exits_zero_with_json(capsys):
    status, out, _ = _run(capsys, "delta_gaussian(eps, sigma) <= 1", "--where", "0 <= eps <= 5",
                          "--where", "0.5 <= sigma <= 4", "--json")
    result = json.loads(out)
    assert status == 0 and result["status"] == "proved" and result["certified"]
    assert result["claim"] == "delta_gaussian(eps, sigma) <= 1"
    assert result["where"] == ["0 <= eps <= 5", "0.5 <= sigma <= 4"]


def test_a_false_claim_exits_one_with_a_certified_counterexample(capsys):
    status, out, _ = _run(capsys, "rdp_laplace(alpha, b) <= alpha/(4*b**2)", "--where", "1 < alpha <= 64",
                          "--where", "0.2 <= b <= 20", "--json")
    result = json.loads(out)
    assert status == 1 and result["verdict"] == result["status"] == "refuted" and result["certified"]
    assert set(result["counterexample"]) == {"alpha", "b"}
    assert {"lhs", "rhs", "lhs_ball", "rhs_ball", "reference"} <= set(result["sides"])
    # a user's claim has no expected result
    assert "expected" not in result and "matches_expectation" not in result


def test_an_integer_variable_is_declared_with_integer(capsys):
    status, out, _ = _run(capsys, "delta_composed_pure(eps_prime, eps, n) <= n*eps", "--where", "0 <= eps_prime <= 2",
                          "--where", "0 <= eps <= 1", "--where", "1 <= n <= 5", "--integer", "n",
                          "--samples", "80", "--json")
    result = json.loads(out)
    assert result["integers"] == ["n"]
    # the n-fold composition is (n eps)-DP, so its delta at eps' is at most the total variation,
    # at most tanh(n eps/2) <= n eps: the claim holds
    assert status == 0 and result["status"] in ("holds", "proved")


def test_a_strict_relation_that_is_an_identity_is_refuted_by_an_exact_tie_and_exits_one(capsys):
    status, out, _ = _run(capsys, "rdp_gaussian(alpha, sigma) < alpha/(2*sigma**2)", "--where", "1 < alpha <= 8",
                          "--where", "1 <= sigma <= 4", "--samples", "50")
    assert status == 1
    assert out.startswith("REFUTED:") and "equal exactly" in out


@pytest.mark.parametrize(
    "argv, words",
    [
        (["q <= 1", "--where", "0 < q"], ["no upper bound", "q"]),
        (["foo(q) <= 1", "--where", "0 < q < 1"], ["unknown function", "foo"]),
        (["rdp_gaussian(alpha, 2) <= 1", "--where", "1 <= alpha <= 2"], ["rdp_gaussian", "alpha"]),
        (["q <= 1", "--where", "1 < q < 0"], ["empty"]),
        (["q <= 1 <= 2", "--where", "0 < q < 1"], ["exactly one relation"]),
        (["q <= 1", "--where", "0 < q < 1", "--samples", "0"], ["--samples"]),
    ],
)
def test_malformed_input_exits_two_with_one_line_on_stderr(capsys, argv, words):
    status, out, err = _run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("dpproofs verify: error:")
    for word in words:
        assert word in err


def test_the_console_script_returns_the_exit_status():
    completed = subprocess.run(
        [sys.executable, "-m", "dpproofs", "verify", "rdp_randomized_response(alpha, eps) <= alpha*eps**2/4",
         "--where", "1 < alpha <= 64", "--where", "0 < eps <= 5"],
        capture_output=True, text=True, timeout=120,
    )
    assert completed.returncode == 1, completed.stderr
    assert completed.stdout.startswith("REFUTED:")
    assert "Traceback" not in completed.stderr
