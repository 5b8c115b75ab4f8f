"""The dpproofs command: dispatch, JSON output, one-line errors with exit status 2."""

import json
import subprocess
import sys

import pytest

import dpproofs as dp
from dpproofs import cli


def run(*argv):
    return subprocess.run(
        [sys.executable, "-m", "dpproofs", *argv], capture_output=True, text=True, timeout=300
    )


def test_list_prints_every_registered_claim_as_json():
    result = run("list", "--json")
    assert result.returncode == 0
    ids = [row["id"] for row in json.loads(result.stdout)["claims"]]
    assert any(i.startswith("mironov2017.lemma1") for i in ids)
    assert len(ids) == len(set(ids))


def test_check_of_one_claim_prints_its_verdict_and_exits_0(capsys):
    status = cli.main(["check", "mironov2017.lemma1.bun_steinke", "--examples", "5", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0
    assert data["claims"][0]["id"] == "mironov2017.lemma1.bun_steinke"
    assert {"id", "expected", "status", "evidence"} <= set(data["claims"][0])


def test_an_unknown_claim_id_is_one_line_on_stderr_and_exit_2():
    result = run("check", "no.such.claim")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "no.such.claim" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("argv", [["check", "--examples", "0"], ["nonsense"], ["check", "--seed", "x"]])
def test_bad_arguments_exit_2_without_a_traceback(argv):
    result = run(*argv)
    assert result.returncode == 2 and "Traceback" not in result.stderr


# --- selecting claims: exact ids, glob patterns, --prefix -------------------------------------


def _ids(*argv):
    from dpproofs.checker import registry

    args = cli.build_parser().parse_args(["list", *argv])
    return [c.id for c in registry.select(args.ids, prefix=args.prefix)]


def test_an_id_selects_exactly_that_claim_and_a_glob_or_prefix_the_claims_under_it():
    from dpproofs.checker import registry

    every = [c.id for c in registry.all_claims()]
    under = [i for i in every if i.startswith("abadi2016.lemma3.")]
    assert len(under) > 1
    assert _ids("abadi2016.lemma3") == ["abadi2016.lemma3"]
    assert _ids("abadi2016.lemma3.*") == under
    assert _ids("abadi2016.lemma3", "--prefix") == ["abadi2016.lemma3"] + under
    assert _ids("mironov2017*") == [i for i in every if i.startswith("mironov2017")]
    assert _ids() == every
    # registry order, each claim once, whatever the order and overlap of the ids given
    assert _ids("abadi2016.lemma3.*", "abadi2016.lemma3") == ["abadi2016.lemma3"] + under


def test_an_id_that_matches_nothing_names_the_closest_ids_and_how_to_select_by_prefix():
    from dpproofs.checker import registry

    with pytest.raises(dp.InvalidArgument, match=r"closest to 'abadi2016.lemma_3': abadi2016\.lemma3"):
        registry.select(["abadi2016.lemma_3"])
    with pytest.raises(dp.InvalidArgument, match=r"'mironov2017' is a prefix of \d+ ids: select them with 'mironov2017\.\*'"):
        registry.select(["mironov2017"])
    assert registry.select(["mironov2017"], prefix=True)


def test_check_of_a_prefix_without_the_flag_is_one_line_on_stderr_and_exit_2():
    result = run("check", "abadi2016.lemma", "--workers", "1")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "abadi2016.lemma3" in result.stderr


def test_list_and_claims_take_the_same_selection(capsys):
    assert cli.main(["list", "abadi2016.lemma3", "--json"]) == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)["claims"]] == ["abadi2016.lemma3"]
    assert cli.main(["list", "notes*", "--json"]) == 2  # the theorem claims have no notes.* id
    assert "match no claim" in capsys.readouterr().err
    assert cli.main(["claims", "notes.gaussian100", "--json"]) == 2
    assert "notes.gaussian100.*" in capsys.readouterr().err


# --- the parallel runner --------------------------------------------------------------------


def test_the_default_run_is_the_quick_one_and_full_is_the_campaign():
    from dpproofs.cli import check as command

    args = cli.build_parser().parse_args(["check"])
    assert command._examples_of(args) == command.DEFAULT_EXAMPLES < command.FULL_EXAMPLES
    assert command._examples_of(cli.build_parser().parse_args(["check", "--full"])) == command.FULL_EXAMPLES
    assert command._examples_of(cli.build_parser().parse_args(["check", "--examples", "7"])) == 7
    result = run("check", "--full", "--examples", "7")
    assert result.returncode == 2 and result.stderr.count("\n") == 1


def test_the_output_is_the_same_whatever_the_number_of_workers():
    """Each claim is a pure function of its id, examples and seed, and rows come in registry
    order: one process and two give the same verdicts, examples and closest approaches; the
    progress goes to stderr only."""
    argv = ("check", "mironov2017.lemma1.*", "--examples", "3", "--json")

    def answer(result):
        assert result.returncode == 0, result.stderr[-2000:]
        data = json.loads(result.stdout)  # stdout is the result and nothing else
        return [{k: row[k] for k in ("id", "verdict", "examples", "closest", "counterexample")}
                for row in data["claims"]], data["summary"]

    one, summary_one = answer(run(*argv, "--workers", "1"))
    two_run = run(*argv, "--workers", "2")
    two, summary_two = answer(two_run)
    assert one == two and len(one) > 10
    assert (summary_one["workers"], summary_two["workers"]) == (1, 2)
    progress = two_run.stderr.splitlines()
    assert len(progress) == len(one) and progress[-1].startswith(f"[{len(one)}/{len(one)}]")
    assert "left" in progress[0]


def test_the_progress_line_counts_done_claims_and_estimates_the_time_left():
    import io

    from dpproofs.cli.check import _Progress

    now = [100.0]
    stream = io.StringIO()
    progress = _Progress(4, stream=stream, clock=lambda: now[0])
    for _ in range(2):
        now[0] += 10
        progress.step({"id": "a.b", "verdict": "holds", "matches_expectation": True, "seconds": 10.0})
    assert stream.getvalue().splitlines()[-1].startswith("[2/4] 20 s elapsed, about 20 s left: a.b holds")
    now[0] += 100
    progress.step({"id": "a.c", "verdict": "holds", "matches_expectation": False, "seconds": 100.0})
    assert "about 40 s left" in stream.getvalue().splitlines()[-1]
    assert stream.getvalue().rstrip().endswith("NOT AS EXPECTED")
