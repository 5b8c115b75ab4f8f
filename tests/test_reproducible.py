"""The same claim and seed draw the same points however dpproofs is installed, and nothing is
written into the folder a command runs from."""

import json
import subprocess
import sys

ID = "mironov2017.proposition10.gaussian"


def _check_in(folder):
    out = subprocess.run([sys.executable, "-m", "dpproofs", "check", ID, "--examples", "8", "--json"],
                         capture_output=True, text=True, cwd=folder, check=True)
    row = json.loads(out.stdout)["claims"][0]
    return {k: row[k] for k in ("verdict", "examples", "closest", "counterexample")}


def test_a_check_writes_no_hypothesis_folder_into_the_current_folder(tmp_path):
    _check_in(tmp_path)
    assert not (tmp_path / ".hypothesis").exists()


def test_the_search_draws_no_constants_from_the_source_of_local_modules():
    """Hypothesis mixes constants from the source of local (non site-packages) modules into its
    draws, so an editable install of dpproofs would draw other points than a wheel; the search
    switches that source off while it runs, and restores it afterwards."""
    from hypothesis.internal.conjecture import providers

    from dpproofs.checker import search

    before = providers._get_local_constants
    with search._installation_independent_draws():
        constants = providers._get_local_constants()
        assert not any(constants.set_for_type(kind) for kind in ("integer", "float", "string", "bytes"))
    assert providers._get_local_constants is before
