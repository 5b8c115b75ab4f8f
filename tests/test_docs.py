"""The generated documentation is current: re-rendering docs/ from the claims registry and the
stored measurements (docs/_measured/) gives the committed pages, every stored verdict was measured
on the claim as it is now, and every figure exists. Cheap: nothing is measured here (a full
``dpproofs report`` re-measures; ``dpproofs report --render-only`` only re-renders)."""

import json


from dpproofs import report


def test_generated_pages_and_measurements_are_current():
    reasons = report.stale_pages()
    assert not reasons, "docs are stale; run `dpproofs report` (or --render-only):\n" + "\n".join(reasons)


def test_every_result_has_a_page_with_a_figure():
    figures = json.loads((report.DOCS / "_measured" / "figures.json").read_text())["figures"]
    for prefix in report.groups():
        page = report.DOCS / "theorems" / f"{prefix}.md"
        assert page.exists(), prefix
        assert prefix in figures and figures[prefix], f"no figure for {prefix}"
        for entry in figures[prefix]:
            assert (report.DOCS / "figures" / entry["file"]).stat().st_size > 10_000


def test_papers_map_lists_every_registered_claim():
    text = (report.DOCS / "papers.md").read_text()
    for _, claims in report.groups().values():
        for claim in claims:
            assert f"`{claim.id}`" in text


def test_fingerprint_changes_when_a_claim_statement_changes():
    _, claims = next(iter(report.groups().values()))
    claim = claims[0]
    mutant = claim.mutant("docs_test", explanation="changed")
    assert report.fingerprint(mutant) != report.fingerprint(claim)


def test_stale_pages_reports_an_edited_page(tmp_path, monkeypatch):
    pages = report.render_pages()
    for relative, text in pages.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (tmp_path / "_measured").symlink_to(report.DOCS / "_measured")
    (tmp_path / "figures").symlink_to(report.DOCS / "figures")
    monkeypatch.setattr(report, "DOCS", tmp_path)
    monkeypatch.setattr(report, "MEASURED", tmp_path / "_measured")
    monkeypatch.setattr(report, "FIGURES", tmp_path / "figures")
    assert not [r for r in report.stale_pages() if not r.endswith("changed since its verdict was measured")]
    (tmp_path / "papers.md").write_text("edited by hand\n")
    assert any(r.startswith("papers.md") for r in report.stale_pages())
