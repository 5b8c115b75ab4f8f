"""The values in README.md's Python examples are written by the generator
(:mod:`dpproofs.docgen.readme`, ``dpproofs report --only readme``), never typed: the README's blocks
are the rendering of the stored measurement, and the measurement was made on the current code.
Cheap: nothing is measured here."""

from dpproofs.docgen import measure, readme


def test_the_readme_blocks_are_the_stored_values_measured_on_the_current_code():
    reasons = readme.stale(measure.load("readme"))
    assert not reasons, "README.md is stale; run `dpproofs report --only readme`:\n" + "\n".join(reasons)


def test_every_value_comment_in_a_readme_python_example_sits_in_a_generated_block():
    text = readme.README.read_text()
    for block in readme.BLOCKS:
        text = text.replace(readme.render_block(block, measure.load("readme")), "")
    typed = []
    for code in (part.split("```")[0] for part in text.split("```python")[1:]):
        if "PrivacyEngine" in code:  # the Opacus recipe needs torch and is not run; no result in it
            continue
        typed += [line for line in code.splitlines() if any(c.isdigit() for c in line.partition("# ")[2])]
    assert not typed, f"numbers typed into README.md (make them a readme.BLOCKS line): {typed}"


def test_a_value_typed_into_the_readme_is_reported(tmp_path):
    stored = measure.load("readme")
    text = readme.render_readme(readme.README.read_text(), stored)
    edited = tmp_path / "README.md"
    edited.write_text(text.replace("# 1.0", "# 1.1", 1))
    assert edited.read_text() != text
    differs = "README.md: a generated block differs from docs/_measured/readme.json"
    assert differs in readme.stale(stored, edited)
    (tmp_path / "ok.md").write_text(text)
    assert differs not in readme.stale(stored, tmp_path / "ok.md")


def test_a_block_measured_on_other_code_is_reported(tmp_path):
    stored = measure.load("readme")
    stored["blocks"]["accountant"]["fingerprint"] = "0" * 12
    (tmp_path / "README.md").write_text(readme.render_readme(readme.README.read_text(), stored))
    assert any("block 'accountant': its code or the library changed" in r
               for r in readme.stale(stored, tmp_path / "README.md"))


def test_missing_markers_are_reported_not_silently_skipped(tmp_path):
    start, _ = readme.markers("privacy-curve")
    (tmp_path / "README.md").write_text(readme.README.read_text().replace(start, ""))
    assert any("markers of generated block 'privacy-curve' are missing" in r
               for r in readme.stale(measure.load("readme"), tmp_path / "README.md"))


def test_long_decimals_are_cut_not_rounded_and_marked():
    assert readme.cut_digits("[0.06563752340231983, 0.6177542172141989]", 7) == "[0.06563752..., 0.6177542...]"
    assert readme.cut_digits("mpf('8.064409758496033e-6')", 4) == "mpf('8.064...e-6')"
    assert readme.cut_digits("(1.5, 20.0) 12345678.123", 3) == "(1.5, 20.0) 12345678.1..."
    assert readme.cut_digits("0.1999999", 3) == "0.199..."


def test_a_block_renders_its_values_as_aligned_comments():
    block = readme.Block("demo", "", (readme.Line("x = 2"), readme.Line("x / 3", "{_!r}", 4)))
    rendered = readme._run_block(block, {})
    assert rendered == [None, "0.6666..."]
    text = readme.render_block(block, {"blocks": {"demo": {"comments": rendered}}})
    start, end = readme.markers("demo")
    assert text.splitlines() == [start, "```python", "x = 2", "x / 3".ljust(readme.COLUMN - 2) + "  # 0.6666...",
                                 "```", end]
