"""`dpproofs report` refuses bad requests before it measures or writes anything."""

import pathlib

import pytest

import dpproofs
from dpproofs.docgen import measure, site


def test_an_unknown_part_is_refused_naming_it_and_the_allowed_parts(capsys):
    from dpproofs.cli import main

    assert main(["report", "--only", "bogus"]) == 2
    err = capsys.readouterr().err
    assert "only='bogus'" in err and "theorems" in err and "figures" in err


def test_a_docs_directory_outside_a_source_checkout_is_refused(monkeypatch, tmp_path):
    monkeypatch.setattr(measure, "DOCS", tmp_path / "site-packages" / "docs")
    with pytest.raises(dpproofs.InvalidArgument, match="source checkout"):
        site.generate(measure_parts=False)
    assert not (tmp_path / "site-packages").exists()


def test_a_missing_optional_package_is_named_before_anything_is_measured(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    measured = []
    monkeypatch.setattr(measure, "measure_tour", lambda: measured.append("tour"))
    with pytest.raises(dpproofs.InvalidArgument, match="matplotlib"):
        site.generate(only=("tour", "figures"))
    assert measured == []


def test_a_failing_part_leaves_every_stored_measurement_as_it_was(monkeypatch, tmp_path):
    before = {p.name: p.read_text() for p in pathlib.Path(measure.MEASURED).glob("*.json")}
    monkeypatch.setattr(measure, "measure_tour", lambda: {"replaced": True})

    def broken():
        raise RuntimeError("interrupted")

    monkeypatch.setattr(measure, "measure_accountant", broken)
    with pytest.raises(RuntimeError):
        site.generate(only=("tour", "accountant"))
    after = {p.name: p.read_text() for p in pathlib.Path(measure.MEASURED).glob("*.json")}
    assert after == before


def test_measurements_are_replaced_atomically(tmp_path):
    path = tmp_path / "m.json"
    measure.write_atomically(path, "one")
    measure.write_atomically(path, "two")
    assert path.read_text() == "two" and [p.name for p in tmp_path.iterdir()] == ["m.json"]


def test_out_writes_pages_and_measurements_into_the_folder_given_even_outside_a_checkout(monkeypatch, tmp_path):
    # as from a wheel install: the package's own docs/ is not a checkout's, so without --out it refuses
    stored_tour = measure.load("tour")  # stands in for measuring it again
    monkeypatch.setattr(measure, "DOCS", tmp_path / "site-packages" / "docs")
    monkeypatch.setattr(measure, "measure_tour", lambda: stored_tour)
    out = tmp_path / "my-docs"
    site.generate(only=("tour",), out=out)
    assert (out / "index.md").is_file() and (out / "_measured" / "tour.json").is_file()
    assert not (tmp_path / "site-packages").exists()
    assert measure.DOCS == tmp_path / "site-packages" / "docs"  # the paths are restored afterwards


def test_out_naming_a_file_is_refused(tmp_path, capsys):
    from dpproofs.cli import main

    target = tmp_path / "a-file"
    target.write_text("")
    assert main(["report", "--render-only", "--out", str(target)]) == 2
    assert "out=" in capsys.readouterr().err
