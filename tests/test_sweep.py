"""``dpproofs sweep`` and ``dpproofs.sweep``: grids, the table, determinism whatever runs it
(dpproofs/cli/sweep.py, dpproofs/parallel.py). The separate-process cluster (``dask scheduler`` and
``dask worker``, a worker killed mid-run) is tests/test_dask_cluster.py (marker ``dask_cluster``)."""

import json
import os

import pytest

import dpproofs
from dpproofs import parallel
from dpproofs.cli import main
from dpproofs.cli import sweep as sweep_module
from dpproofs.errors import InvalidArgument

#: 12 cheap settings (RDP and a short PLD run), one of them failing (a shuffled loader has no upper bound).
GRID = [
    {"sigma": [0.8, 1.2], "epochs": [1, 2], "dataset_size": 10_000, "batch_size": 100, "delta": 1e-5,
     "accountant": ["rdp", "pld"]},
    {"sigma": 1.0, "q": 0.01, "steps": 50, "delta": [1e-5, 1e-6]},
    {"target_epsilon": 2.0, "q": 0.01, "steps": 100, "delta": 1e-5},
    {"sigma": 1.0, "epochs": 1, "dataset_size": 1000, "batch_size": 10, "delta": 1e-5, "sampling": "shuffle"},
]


@pytest.fixture(scope="module")
def in_process_rows():
    return dpproofs.sweep(GRID, workers=1)


def test_a_grid_gives_one_row_per_setting_in_grid_order(in_process_rows):
    rows = in_process_rows
    assert len(rows) == 8 + 2 + 1 + 1
    assert [r["sigma"] for r in rows[:4]] == [0.8, 1.2, 0.8, 1.2]  # the last axis given varies fastest
    assert [r["accountant"] for r in rows[:8]] == ["rdp"] * 4 + ["pld"] * 4
    pld = rows[4]
    assert pld["error"] is None and 0 < pld["epsilon_lower"] <= pld["epsilon_upper"] == pld["epsilon"]
    assert rows[0]["order"] is not None and rows[0]["steps"] == 100 and rows[0]["q"] == 0.01


def test_a_setting_gives_what_the_epsilon_and_sigma_commands_give(in_process_rows):
    rows = in_process_rows
    expected = dpproofs.Accountant().compose(dpproofs.SampledGaussian(0.01, 1.0), 50).epsilon(1e-6)
    assert rows[9]["epsilon"] == expected
    calibrated = rows[10]
    assert calibrated["sigma"] == dpproofs.calibrate_sigma(epsilon=2.0, delta=1e-5, q=0.01, steps=100)
    assert calibrated["epsilon"] <= 2.0


def test_a_failing_setting_is_reported_in_its_row_and_the_others_finish(in_process_rows):
    failed = [r for r in in_process_rows if r["error"]]
    assert len(failed) == 1 and failed[0]["sampling"] == "shuffle"
    assert "no upper bound" in failed[0]["error"] and failed[0]["epsilon"] is None
    assert all(r["epsilon"] is not None for r in in_process_rows if r is not failed[0])


def test_one_two_and_four_local_workers_write_the_same_bytes(in_process_rows):
    reference = sweep_module.to_csv(in_process_rows)
    for workers in (2, 4):
        assert sweep_module.to_csv(dpproofs.sweep(GRID, workers=workers)) == reference, workers


def test_without_dask_local_workers_run_and_only_a_scheduler_is_refused(monkeypatch, in_process_rows):
    monkeypatch.setattr(parallel, "dask_available", lambda: False)
    runner = parallel.Runner(workers=4)
    assert runner.mode == "local"  # a pool of local processes: the standard library's
    calls = []
    rows = dpproofs.sweep(GRID, workers=4, progress=lambda done, total: calls.append((done, total)))
    assert sweep_module.to_csv(rows) == sweep_module.to_csv(in_process_rows)
    assert calls == [(i, 12) for i in range(1, 13)]
    with pytest.raises(InvalidArgument, match="scheduler='tcp://nowhere:1' needs Dask"):
        parallel.Runner(scheduler="tcp://nowhere:1")


def test_the_runner_keeps_input_order_and_turns_an_exception_into_a_failure():
    with parallel.Runner(workers=1) as runner:
        outcomes = runner.map(_inverse, [1, 0, 4])
    assert outcomes[0] == 1.0 and outcomes[2] == 0.25
    assert outcomes[1] == parallel.Failure("ZeroDivisionError", "division by zero")
    with pytest.raises(InvalidArgument, match=r"workers=0 is outside"):
        parallel.Runner(workers=0)


def _inverse(x):
    return 1 / x


def _dies_once(item):
    """Kills its worker the first time it sees ``item = (marker, value)`` with a marker file
    missing (a worker lost to the out-of-memory killer), then returns ``2 value``."""
    marker, value = item
    if marker is not None and not os.path.exists(marker):
        with open(marker, "w"):
            pass
        os._exit(9)
    return 2 * value


def test_a_local_worker_that_dies_mid_task_loses_nothing(tmp_path):
    items = [(None, i) for i in range(6)]
    items[3] = (str(tmp_path / "died"), 3)
    with parallel.Runner(workers=2) as runner:
        outcomes = runner.map(_dies_once, items)
    assert outcomes == [0, 2, 4, 6, 8, 10]
    assert runner.restarts == 1


def test_grid_files_csv_toml_and_settings_lists(tmp_path):
    (tmp_path / "g.csv").write_text("sigma,q,steps,delta\n1.0,0.01,50,1e-5\n2.0,0.02,,1e-6\n")
    csv_settings = sweep_module.settings_of(str(tmp_path / "g.csv"), defaults={"steps": 7})
    assert [(s["sigma"], s["q"], s["steps"], s["delta"]) for s in csv_settings] == [(1.0, 0.01, 50, 1e-5),
                                                                                   (2.0, 0.02, 7, 1e-6)]
    (tmp_path / "g.toml").write_text('delta = 1e-5\naccountant = "pld"\n[[settings]]\nsigma = [1, 2]\nq = 0.01\n'
                                     'steps = 10\n[[settings]]\ntarget_epsilon = 1.0\nq = 0.02\nsteps = 5\n')
    toml_settings = sweep_module.settings_of(str(tmp_path / "g.toml"))
    assert [(s["sigma"], s["target_epsilon"], s["accountant"]) for s in toml_settings] == [
        (1.0, None, "pld"), (2.0, None, "pld"), (None, 1.0, "pld")]
    with pytest.raises(InvalidArgument, match=r"grid axes \['sgima'\] are unknown"):
        sweep_module.settings_of({"sgima": 1})
    with pytest.raises(InvalidArgument, match=r"steps='ten' must be an integer"):
        sweep_module.settings_of({"steps": "ten"})
    with pytest.raises(InvalidArgument, match=r"must end in .csv, .toml, .yaml or .yml"):
        sweep_module.settings_of(str(tmp_path / "g.txt"))


def test_the_command_writes_csv_and_json_and_reports_a_failed_setting(tmp_path, capsys):
    out = tmp_path / "table"
    status = main(["sweep", "--sigma", "1", "2", "--q", "0.01", "--steps", "50", "--delta", "1e-5",
                   "--sampling", "poisson", "fixed", "--workers", "1", "--out", str(out), "--json"])
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert status == 1 and result["summary"]["settings"] == 4 and result["summary"]["failed"] == 2
    assert "needs --dataset-size" in result["rows"][2]["error"]
    text = (tmp_path / "table.csv").read_text()
    assert text.splitlines()[0] == ",".join(sweep_module.COLUMNS) and len(text.splitlines()) == 5
    assert json.loads((tmp_path / "table.json").read_text()) == result["rows"]
    assert "4/4 settings" in captured.err  # the progress bar, on stderr


def test_the_command_refuses_a_missing_grid_in_one_line(capsys):
    assert main(["sweep", "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dpproofs sweep: error: the sweep needs a grid") and err.count("\n") == 1


def test_the_figure_draws_epsilon_against_epochs(tmp_path, in_process_rows):
    pytest.importorskip("matplotlib")
    path = tmp_path / "f.png"
    sweep_module.figure(in_process_rows[:8], str(path))
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_check_groups_claims_by_result_module():
    from dpproofs.cli.check import group_of

    assert group_of("abadi2016.lemma3.bound") == "abadi2016.lemma3"
    assert group_of("accountant.pld.x.y") == "accountant.pld"


def test_tasks_run_on_one_blas_thread_and_the_count_is_restored():
    """Dask's workers run BLAS on one thread (OMP_NUM_THREADS=1), a local pool's inherit this
    process's threads, and a product split over threads rounds differently: every task runs on one thread, so that the table is the same bytes."""
    import threadpoolctl

    def counts():
        return [pool["num_threads"] for pool in threadpoolctl.threadpool_info() if pool["user_api"] == "blas"]

    before = counts()
    if not before:
        pytest.skip("no BLAS loaded that threadpoolctl can see")
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):  # a multi-threaded start, whatever the machine
        started = counts()
        with parallel.one_blas_thread():
            assert counts() == [1] * len(before)
        assert counts() == started
    assert counts() == before


@pytest.mark.parametrize("value", ["nan", "inf", "1e999", "x"])
def test_a_non_finite_or_non_numeric_value_is_refused_naming_the_axis(value, capsys):
    # nan or inf would reach the table and make its JSON invalid (json writes NaN, Infinity)
    code = main(["sweep", "--sigma", value, "--epochs", "1", "--dataset-size", "100", "--batch-size", "10",
                 "--delta", "1e-5", "--workers", "1"])
    assert code == 2
    assert f"sigma={value!r}" in capsys.readouterr().err
    with pytest.raises(InvalidArgument, match="epochs"):
        sweep_module.settings_of({"epochs": [1, value], "sigma": 1.0, "dataset_size": 100, "batch_size": 10,
                                  "delta": 1e-5})


_WITHOUT_DASK = """
import sys
sys.modules["dask"] = sys.modules["distributed"] = None  # as if the extra were not installed
from dpproofs.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("arguments", [
    ["sweep", "--sigma", "1.0", "2.0", "--q", "0.01", "--steps", "10", "--delta", "1e-5", "--workers", "2"],
    ["check", "mironov2017.proposition3*", "--workers", "2"],
])
def test_without_the_dask_extra_sweep_and_check_run_on_local_workers(arguments):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _WITHOUT_DASK, *arguments], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    refused = subprocess.run([sys.executable, "-c", _WITHOUT_DASK, *arguments, "--scheduler", "tcp://127.0.0.1:1"],
                             capture_output=True, text=True)
    assert refused.returncode == 2 and "needs Dask: pip install 'dpproofs[dask]'" in refused.stderr, refused.stderr


def test_check_on_a_scheduler_without_dask_is_one_line_and_exit_2(monkeypatch, capsys):
    monkeypatch.setattr(parallel, "dask_available", lambda: False)
    assert main(["check", "abadi2016.lemma_c1.statement", "--scheduler", "tcp://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dpproofs check: error: scheduler='tcp://127.0.0.1:1' needs Dask") and err.count("\n") == 1
