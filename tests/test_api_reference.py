"""The API reference builds from the docstrings with one command (``dpproofs api``)."""

import pytest

from dpproofs.cli import main


def test_the_api_reference_builds_a_page_for_every_public_module(tmp_path, capsys):
    pytest.importorskip("pdoc")
    status = main(["api", "--out", str(tmp_path), "--json"])
    assert status == 0
    for page in ("dpproofs.html", "dpproofs/accountant.html", "dpproofs/integrations/opacus.html"):
        assert (tmp_path / page).stat().st_size > 1000, page
    assert "calibrate_sigma" in (tmp_path / "dpproofs.html").read_text()
