"""The generated documentation is current: re-rendering docs/ from the registry and the stored
measurements (docs/_measured/) gives the committed pages, and every stored measurement carries the
fingerprint of the data and the code that the current tree would compute it from. Cheap: nothing
is measured here except the millisecond tour commands, which are re-run and compared (a full
``dpproofs report`` re-measures; ``dpproofs report --render-only`` only re-renders)."""

import ast
import importlib
import json
import sys
from pathlib import Path

import pytest
import sympy

from dpproofs.checker.claims import Claim, Sides, Variable
from dpproofs.docgen import measure, site
from dpproofs.docgen.markdown import rst_to_markdown

LIBRARY = Path(__file__).resolve().parents[1] / "dpproofs"


def test_generated_pages_and_measurements_are_current():
    reasons = site.stale_pages()
    assert not reasons, "docs are stale; run `dpproofs report` (or --render-only):\n" + "\n".join(reasons)


def test_every_result_has_a_page_with_a_figure():
    figures = json.loads((measure.DOCS / "_measured" / "figures.json").read_text())["figures"]
    for prefix, (module, _) in site.groups().items():
        assert (measure.DOCS / "theorems" / f"{prefix}.md").exists(), prefix
        assert measure.figures_of(module), f"{module.__name__} registers no FIGURES"
        assert prefix in figures and figures[prefix], f"no figure drawn for {prefix}"
        for entry in figures[prefix]:
            assert (measure.DOCS / "figures" / entry["file"]).stat().st_size > 10_000


def test_papers_map_lists_every_registered_claim_under_its_papers_citation():
    from dpproofs.checker import registry

    text = (measure.DOCS / "papers.md").read_text()
    for citation in registry.papers().values():
        assert f"## {citation}" in text
    for _, claims in site.groups().values():
        for claim in claims:
            assert f"`{claim.id}`" in text


def test_fingerprint_changes_when_a_claim_statement_changes():
    _, claims = next(iter(site.groups().values()))
    claim = claims[0]
    mutant = claim.mutant("docs_test", explanation="changed")
    assert site.fingerprint(mutant) != site.fingerprint(claim)


CLOSURE = """
def helper(x):
    return x {op}


def make_sides():
    def precise(point, dps):
        return helper(point["x"]), 2
    return precise
"""


def test_fingerprint_sees_the_code_of_a_custom_closure_and_of_the_functions_it_calls(tmp_path, monkeypatch):
    # one project module (its name starts with "dpproofs") in two versions that differ only in a
    # helper the claim's evaluation closure calls; the claim's data is the same
    import linecache

    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    name = "dpproofs_docs_test_closure"
    fingerprints = []
    for op in ("+ 1", "* 3 - 1"):
        (tmp_path / f"{name}.py").write_text(CLOSURE.format(op=op))
        sys.modules.pop(name, None)
        linecache.clearcache()
        importlib.invalidate_caches()
        module = importlib.import_module(name)
        claim = Claim(id="docs.test", source="test", statement=sympy.Le(sympy.Symbol("lhs"), sympy.Symbol("rhs")),
                      variables=(Variable("x", 0, 1),), sides=Sides(module.make_sides()))
        fingerprints.append(site.fingerprint(claim))
    sys.modules.pop(name, None)
    assert fingerprints[0] != fingerprints[1]


def test_fingerprint_sees_the_evaluator_functions_behind_the_vocabulary(monkeypatch):
    from dpproofs.checker import vocabulary

    x = Variable("alpha", 1.5, 2)
    claim = Claim(id="docs.test", source="test", variables=(x, Variable("sigma", 1, 2)),
                  statement=sympy.Le(vocabulary.NAMESPACE["rdp_gaussian"](x.symbol, sympy.Symbol("sigma", real=True)), 1))
    before = site.fingerprint(claim)
    binding = vocabulary._BY_SYMBOL_NAME["rdp_gaussian"]
    monkeypatch.setattr(binding, "precise", vocabulary.FUNCTIONS["rdp_laplace"].precise)
    assert site.fingerprint(claim) != before


def test_stale_pages_reports_an_edited_page(tmp_path, monkeypatch):
    pages = site.render_pages()
    for relative, text in pages.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (tmp_path / "_measured").symlink_to(measure.DOCS / "_measured")
    (tmp_path / "figures").symlink_to(measure.DOCS / "figures")
    monkeypatch.setattr(measure, "DOCS", tmp_path)
    monkeypatch.setattr(measure, "MEASURED", tmp_path / "_measured")
    monkeypatch.setattr(measure, "FIGURES", tmp_path / "figures")
    assert not [r for r in site.stale_pages() if r.endswith(": differs from what the registry and docs/_measured/ give")]
    (tmp_path / "papers.md").write_text("edited by hand\n")
    assert any(r.startswith("papers.md") for r in site.stale_pages())


def test_stale_pages_reports_a_verdict_measured_on_other_code(tmp_path, monkeypatch):
    stored = measure.load
    prefix, (_, claims) = next(iter(site.groups().items()))

    def load(name):
        data = stored(name)
        if name == f"theorems/{prefix}":
            data["verdicts"][claims[0].id]["fingerprint"] = "0" * 12
        return data

    monkeypatch.setattr(measure, "load", load)
    assert any(r.startswith(f"{claims[0].id}: its data or the code computing it changed") for r in site.stale_pages())


def test_docstrings_become_plain_markdown():
    text = rst_to_markdown("Intro with ``code`` and :func:`~dpproofs.verify`.\n\n"
                           "==========  ==========\n``f(x)``    a function\n==========  ==========\n")
    assert "`code`" in text and "`dpproofs.verify`" in text
    assert "{func}" not in text and "eval-rst" not in text and "a function" in text
    verify_page = (measure.DOCS / "verify.md").read_text()
    assert "{eval-rst}" not in verify_page and "{func}" not in verify_page and "{mod}" not in verify_page


def _imports(path):
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("path", sorted(LIBRARY.rglob("*.py")), ids=lambda p: str(p.relative_to(LIBRARY)))
def test_the_library_imports_neither_its_content_nor_the_generator(path):
    names = _imports(path)
    assert not [n for n in names if n.split(".")[0] == "dpproofs_theorems"], path
    relative = path.relative_to(LIBRARY).as_posix()
    if not relative.startswith("docgen/") and relative != "cli/report.py":
        assert not [n for n in names if n.startswith("dpproofs.docgen")], path
