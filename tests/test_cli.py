"""The dpproofs command: dispatch, JSON output, one-line errors with exit status 2."""

import json
import subprocess
import sys

import pytest

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
