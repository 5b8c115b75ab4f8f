"""``dpproofs epsilon`` and ``dpproofs sigma``: results, JSON output and bad-argument handling."""

import json

import pytest

import dpproofs as dp
from dpproofs.cli import main


def run_cli(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_epsilon_reproduces_the_abadi_number_with_the_classic_conversion(capsys):
    status, out, err = run_cli(capsys, "epsilon", "--q", "0.01", "--sigma", "4", "--steps", "10000",
                               "--delta", "1e-5", "--conversion", "classic", "--json")
    result = json.loads(out)
    assert status == 0 and err == ""
    assert result["epsilon"] == dp.Accountant().compose(dp.SampledGaussian(0.01, 4.0), 10000).epsilon(1e-5, "classic")
    assert result["conversion"] == "classic" and result["steps"] == 10000


def test_epsilon_prints_one_readable_line_without_json(capsys):
    status, out, _ = run_cli(capsys, "epsilon", "--q", "0.01", "--sigma", "4", "--steps", "1e4", "--delta", "1e-5")
    assert status == 0 and out.count("\n") == 1 and out.startswith("epsilon = 1.03549")


def test_steps_of_a_billion_and_more_are_accepted_exactly(capsys):
    status, out, _ = run_cli(capsys, "epsilon", "--q", "1e-7", "--sigma", "3", "--steps", "100000000000000000001",
                             "--delta", "1e-5", "--json")
    assert status == 0 and json.loads(out)["steps"] == 10**20 + 1


def test_sigma_is_one_sided_and_reports_the_epsilon_it_achieves(capsys):
    status, out, err = run_cli(capsys, "sigma", "--epsilon", "1", "--delta", "1e-5", "--q", "0.01", "--steps", "10000", "--json")
    result = json.loads(out)
    assert status == 0 and err == ""
    assert result["achieved_epsilon"] <= 1.0
    assert result["sigma"] == dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=0.01, steps=10000)


def test_sigma_prints_one_readable_line_without_json(capsys):
    status, out, _ = run_cli(capsys, "sigma", "--epsilon", "2", "--delta", "1e-5", "--q", "0.01", "--steps", "1000")
    assert status == 0 and out.startswith("sigma = ") and out.count("\n") == 1


@pytest.mark.parametrize(
    "argv, name",
    [
        (["epsilon", "--q", "nan", "--sigma", "4", "--steps", "10", "--delta", "1e-5"], "q="),
        (["epsilon", "--q", "1.5", "--sigma", "4", "--steps", "10", "--delta", "1e-5"], "q="),
        (["epsilon", "--q", "0.1", "--sigma", "0", "--steps", "10", "--delta", "1e-5"], "sigma="),
        (["epsilon", "--q", "0.1", "--sigma=-inf", "--steps", "10", "--delta", "1e-5"], "sigma="),
        (["epsilon", "--q", "0.1", "--sigma", "1", "--steps", "-3", "--delta", "1e-5"], "steps="),
        (["epsilon", "--q", "0.1", "--sigma", "1", "--steps", "2.5", "--delta", "1e-5"], "steps="),
        (["epsilon", "--q", "0.1", "--sigma", "1", "--steps", "ten", "--delta", "1e-5"], "steps="),
        (["epsilon", "--q", "0.1", "--sigma", "1", "--steps", "10", "--delta", "0"], "delta="),
        (["epsilon", "--q", "0.1", "--sigma", "1", "--steps", "10", "--delta", "1"], "delta="),
        (["epsilon", "--q", "0.1", "--sigma", "1", "--steps", "10", "--delta", "1e-5", "--conversion", "exact"], "conversion="),
        (["sigma", "--epsilon", "-1", "--delta", "1e-5", "--q", "0.01", "--steps", "10"], "epsilon="),
        (["sigma", "--epsilon", "1", "--delta", "1e-5", "--q", "0", "--steps", "10"], "q="),
        (["sigma", "--epsilon", "1", "--delta", "1e-5", "--q", "0.01", "--steps", "0"], "steps="),
        (["sigma", "--epsilon", "1e-9", "--delta", "1e-5", "--q", "0.01", "--steps", "10"], "epsilon="),
        (["sigma", "--epsilon", "1", "--delta", "nan", "--q", "0.01", "--steps", "10"], "delta="),
    ],
)
def test_a_bad_argument_gives_one_line_on_stderr_and_exit_status_2(capsys, argv, name):
    status, out, err = run_cli(capsys, *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and name in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [["epsilon", "--q", "x", "--sigma", "1", "--steps", "1", "--delta", "0.1"],
                                  ["sigma", "--epsilon", "1", "--q", "0.1", "--steps", "1"]])
def test_unparsable_or_missing_arguments_exit_2_through_argparse(capsys, argv):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_epsilon_accepts_dataset_size_batch_size_and_epochs_for_poisson_sampling(capsys):
    status, out, _ = run_cli(capsys, "epsilon", "--dataset-size", "60000", "--batch-size", "256", "--epochs", "60",
                             "--sigma", "1.1", "--delta", "1e-5", "--json")
    result = json.loads(out)
    assert status == 0 and result["steps"] == 14063 and result["q"] == 256 / 60000
    expected = dp.Accountant().compose(dp.SampledGaussian(256 / 60000, 1.1), 14063).epsilon(1e-5)
    assert result["epsilon"] == expected


def test_epsilon_gives_one_value_per_delta(capsys):
    status, out, _ = run_cli(capsys, "epsilon", "--q", "0.01", "--sigma", "4", "--steps", "10000",
                             "--delta", "1e-5", "--delta", "1e-6", "--json")
    rows = json.loads(out)["results"]
    assert status == 0 and [r["delta"] for r in rows] == [1e-5, 1e-6]
    assert rows[0]["epsilon"] < rows[1]["epsilon"]


def test_delta_is_the_accountants_delta_at_each_epsilon(capsys):
    status, out, _ = run_cli(capsys, "delta", "--q", "0.01", "--sigma", "4", "--steps", "10000",
                             "--epsilon", "1", "--epsilon", "2", "--json")
    rows = json.loads(out)["results"]
    accountant = dp.Accountant().compose(dp.SampledGaussian(0.01, 4.0), 10000)
    assert status == 0 and [r["delta"] for r in rows] == [accountant.delta(1.0), accountant.delta(2.0)]


@pytest.mark.parametrize(
    "extra, name",
    [
        (["--q", "0.01", "--steps", "10", "--dataset-size", "100", "--batch-size", "10", "--epochs", "1"], "not both"),
        (["--dataset-size", "100", "--batch-size", "10"], "all three"),
        (["--dataset-size", "100", "--batch-size", "1000", "--epochs", "1"], "batch_size="),
        (["--q", "0.01", "--steps", "10", "--relation", "replace_once"], "relation="),
        (["--dataset-size", "100", "--batch-size", "10", "--epochs", "1", "--sampling", "fixed"], "replace_one"),
        (["--q", "0.01", "--steps", "10", "--sampling", "fixed", "--relation", "replace_one"], "--dataset-size"),
        (["--q", "0.01", "--steps", "10", "--sampling", "balls-in-bins"], "--dataset-size"),
        (["--q", "0.01", "--steps", "10", "--sampling", "shuffled"], "sampling="),
        (["--q", "0.01"], "--steps"),
    ],
)
def test_a_run_given_inconsistently_is_one_line_naming_the_problem(capsys, extra, name):
    status, out, err = run_cli(capsys, "epsilon", "--sigma", "1", "--delta", "1e-5", *extra)
    assert status == 2 and out == "" and err.count("\n") == 1 and name in err


def test_version_is_printed(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0 and capsys.readouterr().out.startswith("dpproofs ")


def test_epsilon_with_the_pld_accountant_reports_the_bracket_and_its_upper_end(capsys):
    status, out, _ = run_cli(capsys, "epsilon", "--q", "0.01", "--sigma", "4", "--steps", "10000",
                             "--delta", "1e-5", "--accountant", "pld", "--json")
    result = json.loads(out)
    assert status == 0 and result["epsilon"] == result["epsilon_upper"]
    assert result["epsilon_lower"] <= 0.9468668 <= result["epsilon_upper"]  # the exact tight value


def test_fixed_batches_under_replace_one_are_the_fixed_batch_mechanism_of_the_library(capsys):
    args = ("--sigma", "1.1", "--dataset-size", "60000", "--batch-size", "256", "--epochs", "1",
            "--sampling", "fixed", "--relation", "replace_one", "--delta", "1e-5", "--json")
    status, out, _ = run_cli(capsys, "epsilon", *args)
    result = json.loads(out)
    mechanism = dp.FixedBatchGaussian(batch_size=256, dataset_size=60000, sigma=1.1)
    expected = dp.Accountant(relation="replace_one").compose(mechanism, 235).epsilon(1e-5)
    assert status == 0 and result["epsilon"] == expected and result["steps"] == 235
    assert result["sampling"] == "fixed" and result["relation"] == "replace_one"
    status, out, _ = run_cli(capsys, "epsilon", *args, "--accountant", "pld")
    bounds = dp.PLDAccountant(relation="replace_one").compose(mechanism, 235).epsilon_bounds(1e-5)
    assert status == 0 and json.loads(out)["epsilon_upper"] == bounds.upper


def test_poisson_replace_one_is_answered_above_add_remove(capsys):
    base = ("--sigma", "1.1", "--q", "0.01", "--steps", "100", "--delta", "1e-5", "--json")
    _, add_remove, _ = run_cli(capsys, "epsilon", *base)
    status, replace, _ = run_cli(capsys, "epsilon", *base, "--relation", "replace_one")
    assert status == 0 and json.loads(replace)["epsilon"] > json.loads(add_remove)["epsilon"]


def test_the_help_states_the_sigma_convention_and_the_shuffling_warning(capsys):
    from dpproofs.cli import main

    with pytest.raises(SystemExit):
        main(["epsilon", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "clipping norm" in text and "2C under replace_one" in text and "Chua et al. 2024" in text


def test_a_slow_step_prints_progress_on_stderr_and_a_quick_one_prints_nothing(monkeypatch):
    import io
    import time

    from dpproofs.cli import _progress

    slow, quick = io.StringIO(), io.StringIO()
    with _progress.slow_notice("tight epsilon", stream=quick):  # the default 3 s: no race with a busy machine
        pass
    monkeypatch.setattr(_progress, "FIRST_NOTICE_SECONDS", 0.05)
    monkeypatch.setattr(_progress, "NOTICE_EVERY_SECONDS", 0.05)
    with _progress.slow_notice("tight epsilon", stream=slow):
        time.sleep(0.3)  # a busy machine only makes the step slower: still at least one notice
    assert slow.getvalue().startswith("tight epsilon: still working (") and quick.getvalue() == ""


@pytest.mark.parametrize("command, extra, option", [
    (["epsilon", "--delta", "1e-5"], ["--conversion", "classic"], "--conversion classic"),
    (["epsilon", "--delta", "1e-5"], ["--refine"], "--refine"),
    (["delta", "--epsilon", "1"], ["--conversion", "classic"], "--conversion classic"),
])
def test_an_rdp_option_given_with_the_pld_accountant_is_refused_not_ignored(capsys, command, extra, option):
    argv = [*command, "--q", "0.01", "--sigma", "4", "--steps", "1000", "--accountant", "pld", *extra]
    status, out, err = run_cli(capsys, *argv)
    assert status == 2 and out == ""
    assert option in err and "--accountant rdp" in err and err.count("\n") == 1


def test_the_default_conversion_is_accepted_with_the_pld_accountant(capsys):
    argv = ["epsilon", "--delta", "1e-5", "--q", "0.01", "--sigma", "4", "--steps", "1000", "--accountant", "pld",
            "--conversion", "improved"]
    status, out, _ = run_cli(capsys, *argv)
    assert status == 0 and "tight epsilon in" in out


def test_balls_in_bins_is_one_random_allocation_per_epoch_with_a_partial_epoch_counted_whole(capsys):
    args = ("--sigma", "1.0", "--dataset-size", "1000", "--batch-size", "100", "--epochs", "2.5",
            "--sampling", "balls-in-bins", "--delta", "1e-5", "--json")
    status, out, _ = run_cli(capsys, "epsilon", *args)
    result = json.loads(out)
    expected = dp.Accountant().compose(dp.RandomAllocationGaussian(10, 1.0), 3).epsilon(1e-5)
    assert status == 0 and result["epsilon"] == expected
    assert result["steps"] == 25 and result["steps_per_epoch"] == 10 and result["sampling"] == "balls-in-bins"


def test_balls_in_bins_with_the_pld_accountant_prints_the_certified_bracket_of_the_allocation_epochs(capsys):
    args = ("--sigma", "1.0", "--dataset-size", "1000", "--batch-size", "100", "--epochs", "2.5",
            "--sampling", "balls-in-bins", "--accountant", "pld", "--delta", "1e-5", "--json")
    status, out, _ = run_cli(capsys, "epsilon", *args)
    result = json.loads(out)
    expected = dp.PLDAccountant().compose(dp.RandomAllocationGaussian(10, 1.0), 3).epsilon_bounds(1e-5)
    assert status == 0 and result["epsilon"] == expected.upper and expected.source == "pld"


@pytest.mark.parametrize("extra, name", [
    (["--relation", "replace_one"], "replace_one"),
    (["--accountant", "pld", "--relation", "replace_one"], "replace_one"),
])
def test_balls_in_bins_outside_its_analysis_is_refused_in_one_line(capsys, extra, name):
    status, out, err = run_cli(capsys, "epsilon", "--sigma", "1", "--delta", "1e-5", "--dataset-size", "100",
                               "--batch-size", "10", "--epochs", "1", "--sampling", "balls-in-bins", *extra)
    assert status == 2 and out == "" and err.count("\n") == 1 and name in err


def test_calibrate_sigma_for_balls_in_bins_meets_the_target_one_sided():
    sigma = dp.calibrate_sigma(epsilon=3.0, delta=1e-5, q=1 / 20, steps=30, sampling="balls-in-bins")
    assert dp.Accountant().compose(dp.RandomAllocationGaussian(20, sigma), 2).epsilon(1e-5) <= 3.0
    assert dp.Accountant().compose(dp.RandomAllocationGaussian(20, sigma * (1 - 1e-5)), 2).epsilon(1e-5) > 3.0
    with pytest.raises(dp.InvalidArgument, match="q=0.3"):
        dp.calibrate_sigma(epsilon=3.0, delta=1e-5, q=0.3, steps=30, sampling="balls-in-bins")


def test_calibrate_sigma_for_balls_in_bins_with_the_pld_accountant_meets_the_target_within_its_tolerance():
    sigma = dp.calibrate_sigma(epsilon=3.0, delta=1e-5, q=1 / 20, steps=30, sampling="balls-in-bins",
                               accountant="pld", tolerance=1e-3)
    assert dp.PLDAccountant().compose(dp.RandomAllocationGaussian(20, sigma), 2).epsilon(1e-5) <= 3.0
    assert dp.PLDAccountant().compose(dp.RandomAllocationGaussian(20, sigma * (1 - 2e-3)), 2).epsilon(1e-5) > 3.0
    rdp_sigma = dp.calibrate_sigma(epsilon=3.0, delta=1e-5, q=1 / 20, steps=30, sampling="balls-in-bins")
    assert sigma < rdp_sigma  # the tight accountant needs less noise than the RDP bound


def test_shuffled_batches_print_a_certified_lower_bound_beside_poisson_and_balls_in_bins(capsys):
    args = ("--sigma", "1.0", "--dataset-size", "50000", "--batch-size", "256", "--epochs", "1.5",
            "--sampling", "shuffle", "--delta", "1e-5")
    status, out, _ = run_cli(capsys, "epsilon", *args, "--json")
    result = json.loads(out)
    shuffled = dp.ShuffledGaussian(batch_size=256, dataset_size=50000, sigma=1.0, shuffle="per-epoch")
    assert status == 0 and result["epsilon_lower_bound"] == dp.epsilon_lower_bound(shuffled, 1, 1e-5)
    assert result["epochs_bounded"] == 1  # the partial epoch is left out: still a lower bound
    row = result["results"][0]
    assert row["epsilon_lower_bound"] > row["poisson_epsilon"]  # the gap the issue asks to show
    status, out, _ = run_cli(capsys, "epsilon", *args)
    assert status == 0 and "epsilon >=" in out and "Poisson" in out and "balls-in-bins" in out


@pytest.mark.parametrize("command, extra", [("delta", ["--epsilon", "1"]), ("sigma", ["--epsilon", "1"])])
def test_an_upper_bound_for_shuffled_batches_is_refused_in_one_line(capsys, command, extra):
    argv = [command, "--dataset-size", "1000", "--batch-size", "10", "--epochs", "1", "--sampling", "shuffle", *extra]
    if command == "delta":
        argv += ["--sigma", "1"]
    else:
        argv += ["--delta", "1e-5"]
    status, out, err = run_cli(capsys, *argv)
    assert status == 2 and out == "" and err.count("\n") == 1 and "lower bound" in err
