"""``dpproofs report``: render every page, tell which are stale, regenerate.

Two kinds of content, kept apart so that staleness can be tested cheaply:

* **registry-derived** (fast, deterministic): statements, hypotheses, sources, claim ids, explicit
  constants, the paper-to-module map, docstrings. Re-rendered from :mod:`dpproofs.checker.registry` every
  time.
* **measured** (expensive): verdicts (``dpproofs.checker.claims.check`` at ``EXAMPLES`` examples, seed
  ``SEED``), slack tables, timings, captured command output, figures. Stored with their inputs and
  fingerprints in ``docs/_measured/*.json`` and recomputed only by a full ``dpproofs report``.
* **README blocks**: the values in README.md's Python examples (:mod:`dpproofs.docgen.readme`),
  measured like the rest (part ``readme``) and written between markers in the checkout's README.

The API reference pages (``docs/api/``) are registry-like: rendered from
:data:`dpproofs.cli.api.MODULES` every time (mkdocs fills them from the docstrings).

:func:`stale_pages` lists why the committed docs differ from what the current code would give: a
page that differs from its re-rendering, and any stored measurement whose fingerprint (the data
and the code behind it, :mod:`dpproofs.docgen.fingerprint`) no longer matches; the tour commands
that take milliseconds are re-run and their output compared.
"""

import time
from collections import OrderedDict

from dpproofs.docgen import measure, pages, readme
from dpproofs.docgen.fingerprint import claim_fingerprint, numeric_claim_fingerprint

__all__ = [
    "PARTS", "groups", "fingerprint", "render_pages", "stale_pages", "generate", "check_checkout",
    "check_only", "check_dependencies",
]

fingerprint = claim_fingerprint


def groups():
    """``{result prefix "paper.result": (module, [claims])}`` in registry order."""
    from dpproofs.checker import registry

    found = OrderedDict()
    for module in registry.modules():
        for claim in module.CLAIMS:
            prefix = ".".join(claim.id.split(".")[:2])
            found.setdefault(prefix, (module, []))[1].append(claim)
    return found


def _notes_modules():
    from dpproofs.checker import registry

    return registry.modules("NUMERIC_CLAIMS")


def _shared_figure(stored_figures, page):
    """The first stored figure that a result module also shows on the library page ``page``."""
    for entries in stored_figures.values():
        for entry in entries:
            if page in entry.get("also_on", ()):
                return entry
    return None


def render_pages(found=None):
    """``{path relative to docs/: text}`` from the registry and the stored measurements (cheap)."""
    from dpproofs.checker import registry

    found = groups() if found is None else found
    papers = registry.papers()
    stored_figures = (measure.load("figures") or {}).get("figures", {})
    result = {
        "index.md": pages.index_page(found, measure.load("tour")),
        "papers.md": pages.papers_page(found, papers, _notes_modules()),
        "accountant.md": pages.accountant_page(measure.load("accountant"), _shared_figure(stored_figures, "accountant.md")),
        "verify.md": pages.verify_page(measure.load("verify")),
        "batches.md": pages.batches_page(measure.load("batches"), _shared_figure(stored_figures, "batches.md")),
        "notes.md": pages.notes_page(measure.load("notes"), _shared_figure(stored_figures, "notes.md")),
    }
    for prefix, (module, claims) in found.items():
        result[f"theorems/{prefix}.md"] = pages.theorem_page(
            prefix, module, claims, measure.load(f"theorems/{prefix}"), stored_figures.get(prefix, []), papers)
    from dpproofs.cli.api import reference_pages  # the API reference (mkdocstrings reads the docstrings)

    result.update(reference_pages())
    return result


def _stale_measurements(found):
    reasons = []
    for prefix, (module, claims) in found.items():
        measured = measure.load(f"theorems/{prefix}")
        if measured is None:
            reasons.append(f"_measured/theorems/{prefix}.json: missing")
            continue
        inputs = measured.get("inputs", {})
        if (inputs.get("examples"), inputs.get("seed"), inputs.get("dps")) != (measure.EXAMPLES, measure.SEED, measure.DPS):
            reasons.append(f"_measured/theorems/{prefix}.json: measured with other examples/seed/digits")
        stored = measured["verdicts"]
        for claim in claims:
            if claim.id not in stored:
                reasons.append(f"{claim.id}: no measured verdict")
            elif stored[claim.id].get("fingerprint") != claim_fingerprint(claim):
                reasons.append(f"{claim.id}: its data or the code computing it changed since its verdict was measured")
        for claim_id in sorted(set(stored) - {c.id for c in claims}):
            reasons.append(f"{claim_id}: measured but no longer registered")
        tables = measured.get("tables") or {}
        functions = measure.table_functions(module)
        for name, function in functions.items():
            if name not in tables:
                reasons.append(f"{module.__name__}.{name}: table not measured")
            elif tables[name].get("fingerprint") != measure.table_fingerprint(function):
                reasons.append(f"{module.__name__}.{name}: the code computing this table changed since it was measured")
        for name in sorted(set(tables) - set(functions)):
            reasons.append(f"{module.__name__}.{name}: table measured but no longer registered")
    stored_figures = (measure.load("figures") or {}).get("figures", {})
    for prefix, (module, claims) in found.items():
        stored = {entry["file"]: entry for entry in stored_figures.get(prefix, [])}
        registered = {figure.file: figure for figure in measure.figures_of(module)}
        for file, figure in registered.items():
            if file not in stored:
                reasons.append(f"figures/{file}: registered by {module.__name__} but not drawn")
            elif stored[file].get("fingerprint") != measure.figure_fingerprint(figure, claims):
                reasons.append(f"figures/{file}: its caption, the code drawing it or a claim of its module "
                               "changed since it was drawn")
            elif not (measure._paths()[2] / file).exists():
                reasons.append(f"figures/{file}: missing")
        for file in sorted(set(stored) - set(registered)):
            reasons.append(f"figures/{file}: drawn but no longer registered")
    for prefix in sorted(set(stored_figures) - set(found)):
        reasons.append(f"figures of {prefix}: drawn for a result that is no longer registered")
    reasons += _stale_notes()
    reasons += _stale_commands()
    accountant = measure.load("accountant")
    if accountant is None or accountant.get("fingerprint") != measure.accountant_fingerprint():
        reasons.append("_measured/accountant.json: the accountant comparison's code changed since it was measured")
    if measure._paths()[0] == readme.README.parent / "docs":  # the checkout's docs/: its README too
        reasons += readme.stale(measure.load("readme"))
    batches = measure.load("batches")
    if batches is None or batches.get("fingerprint") != measure.batches_fingerprint():
        reasons.append("_measured/batches.json: the batches comparison's code changed since it was measured")
    return reasons


def _stale_notes():
    reasons = []
    stored = {row["id"]: row for row in (measure.load("notes") or {}).get("rows", [])}
    current = {}
    for module in _notes_modules():
        current.update({entry.id: entry for entry in module.NUMERIC_CLAIMS})
    for entry_id, entry in current.items():
        if entry_id not in stored:
            reasons.append(f"{entry_id}: notes entry not measured")
        elif stored[entry_id].get("fingerprint") != numeric_claim_fingerprint(entry):
            reasons.append(f"{entry_id}: its data or the code computing it changed since it was measured")
    for entry_id in sorted(set(stored) - set(current)):
        reasons.append(f"{entry_id}: measured but no longer in NUMERIC_CLAIMS")
    return reasons


def _stale_commands():
    reasons = []
    tour = measure.load("tour")
    verify = measure.load("verify")
    if tour is None:
        reasons.append("_measured/tour.json: missing")
    else:
        stored = [(s["title"], s["argv"]) for s in tour["commands"]]
        if stored != [(title, list(argv)) for title, argv in measure.tour()]:
            reasons.append("_measured/tour.json: the tour's commands changed")
        for step in tour["commands"]:
            if step.get("fingerprint") != measure.command_fingerprint(step["argv"]):
                reasons.append(f"tour `dpproofs {step['argv'][0]}`: the code it runs changed since it was captured")
            elif step["argv"][0] in measure.RERUN_COMMANDS:
                status, output, _ = measure.capture(step["argv"])
                if (status, output) != (step["status"], step["output"]):
                    reasons.append(f"tour `dpproofs {' '.join(step['argv'])}`: prints something else now:\n"
                                   f"    stored: {step['output']}\n    now:    {output}")
        python = tour["python"]
        if python.get("fingerprint") != measure.python_tour_fingerprint():
            reasons.append("tour (Python): its code or the code it runs changed since it was captured")
        else:
            output, _ = measure.capture_python(python["code"])
            if output != python["output"]:
                reasons.append(f"tour (Python): prints something else now:\n    stored: {python['output']}\n"
                               f"    now:    {output}")
    if verify is None:
        reasons.append("_measured/verify.json: missing")
    else:
        expected = [measure.verify_argv(c, w, i) for _, c, w, i in measure.VERIFY_EXAMPLES]
        if [e["argv"] for e in verify["examples"]] != expected:
            reasons.append("_measured/verify.json: the worked examples changed")
        for example in verify["examples"]:
            if example.get("fingerprint") != measure.command_fingerprint(example["argv"]):
                reasons.append(f"verify example {example['argv'][1]!r}: the code it runs changed since it was captured")
        suite = verify.get("suite") or []
        if [row["argv"] for row in suite] != measure.verify_suite_argv():
            reasons.append("_measured/verify.json: the verify suite changed")
        for row in suite:
            if row.get("fingerprint") != measure.command_fingerprint(row["argv"]):
                reasons.append(f"verify suite {row['claim']!r}: the code it runs changed since it was measured")
    return reasons


def stale_pages():
    """Reasons the committed docs are out of date (empty when they are current)."""
    docs = measure._paths()[0]
    found = groups()
    reasons = []
    for relative, text in render_pages(found).items():
        path = docs / relative
        if not path.exists():
            reasons.append(f"{relative}: missing")
        elif path.read_text() != text:
            reasons.append(f"{relative}: differs from what the registry and docs/_measured/ give")
    return reasons + _stale_measurements(found)


#: The measuring parts ``--only`` accepts besides result prefixes ("paper.result").
PARTS = ("theorems", "tour", "accountant", "batches", "verify", "notes", "figures", "readme")


def check_checkout():
    """Raise InvalidArgument unless ``docs/`` belongs to a source checkout (``pyproject.toml`` and
    ``theorems/`` beside it): from a wheel install the report would write into site-packages."""
    from dpproofs.errors import InvalidArgument

    docs = measure._paths()[0]
    root = docs.parent
    if not ((root / "pyproject.toml").is_file() and (root / "theorems").is_dir()):
        raise InvalidArgument(
            f"dpproofs report writes docs/ of a source checkout, and {root} is not one (no "
            "pyproject.toml and theorems/ there); run it from a clone installed with "
            "'pip install -e .[test]'"
        )


def check_only(only, found):
    """Raise InvalidArgument for a part of ``only`` that is neither a part nor a result prefix."""
    from dpproofs.errors import InvalidArgument

    allowed = set(PARTS) | set(found)
    unknown = [part for part in only if part not in allowed]
    if unknown:
        raise InvalidArgument(
            f"only={unknown[0]!r} is not a part of the report; allowed: {', '.join(PARTS)}, or a result "
            f"prefix such as {next(iter(found), '<paper>.<result>')!r}"
        )


def check_dependencies(needs_figures):
    """Raise InvalidArgument naming the missing package before anything is measured."""
    import importlib.util

    from dpproofs.errors import InvalidArgument

    needed = {"rst_to_myst": "rst-to-myst"}
    if needs_figures:
        needed["matplotlib"] = "matplotlib"
    for module, package in needed.items():
        if importlib.util.find_spec(module) is None:
            raise InvalidArgument(
                f"dpproofs report needs the package {package!r}, which is not installed: "
                "pip install -e '.[test]' (nothing was measured or written)"
            )


def generate(*, measure_parts=True, only=(), log=print, out=None):
    """Re-measure (unless ``measure_parts=False``) and rewrite every page; returns a summary dict.

    ``only``: restrict measuring to some of :data:`PARTS` (and result prefixes
    ``<paper>.<result>``); pages are always all re-rendered. ``out``: a directory (a
    :class:`pathlib.Path`) to write pages, figures and measurements into instead of the
    checkout's ``docs/``; it works from any install (parts not measured there render as not
    measured). Everything is checked first (a source checkout unless ``out`` is given, known
    parts, the optional packages), every part is measured before anything is written, and each
    file is replaced atomically: a failed or interrupted run leaves the stored measurements and
    pages as they were. Raises InvalidArgument for a bad request.
    """
    if out is not None:
        from dpproofs.errors import InvalidArgument

        if out.exists() and not out.is_dir():
            raise InvalidArgument(f"out={str(out)!r} exists and is not a directory")
        with measure.directory(out):
            return _generate(measure_parts, only, log, checkout=False)
    return _generate(measure_parts, only, log, checkout=True)


def _generate(measure_parts, only, log, checkout):
    started = time.perf_counter()
    timings = {}
    found = groups()
    if checkout:
        check_checkout()
    check_only(only, found)

    def wanted(name):
        return measure_parts and (not only or name in only)

    check_dependencies(wanted("figures"))
    results = {}
    for prefix, (module, claims) in found.items():
        if wanted("theorems") or wanted(prefix):
            t = time.perf_counter()
            log(f"measuring {prefix} ({len(claims)} claims)")
            results[f"theorems/{prefix}"] = measure.measure_theorem(prefix, module, claims, log=log)
            timings[prefix] = round(time.perf_counter() - t, 1)
    for name, function in (("tour", measure.measure_tour), ("accountant", measure.measure_accountant),
                           ("batches", measure.measure_batches), ("verify", measure.measure_verify),
                           ("notes", measure.measure_notes), ("readme", readme.measure_readme)):
        if wanted(name):
            t = time.perf_counter()
            log(f"measuring {name}")
            results[name] = function()
            timings[name] = round(time.perf_counter() - t, 1)
    if wanted("figures"):
        t = time.perf_counter()
        log("drawing figures")
        results["figures"] = {"inputs": measure.environment(), "figures": measure.make_figures(found, log=log)}
        timings["figures"] = round(time.perf_counter() - t, 1)
    for name, data in results.items():
        measure.store(name, data)
    docs = measure._paths()[0]
    rendered = render_pages(found)
    for relative, text in rendered.items():
        measure.write_atomically(docs / relative, text)
    if checkout and readme.README.exists():  # the README's blocks: a checkout's only, never into --out
        text = readme.README.read_text()
        measure.write_atomically(readme.README, readme.render_readme(text, measure.load("readme")))
    return {"pages": sorted(rendered), "timings": timings, "seconds": round(time.perf_counter() - started, 1),
            "stale": stale_pages()}
