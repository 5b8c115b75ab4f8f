"""``dpproofs report [--render-only] [--only PART ...] [--out DIR]``: regenerate docs/ (pages and figures).

Full run: re-measures every verdict (``dpproofs.checker.claims.check``, 30 examples, seed 0), the slack
tables, the captured tour and verify output, the accountant comparison, the notes table and the
figures, stores them with their inputs in ``docs/_measured/``, and re-renders every page.
``--render-only`` re-renders from the registry and the stored measurements (seconds).
``--only`` limits the measuring to some parts (theorems, a result prefix, tour, accountant,
verify, notes, figures, readme: the values in README.md's Python examples). ``--out DIR``
writes everything into DIR instead (from any install; without it the report refuses to run
outside a source checkout). Exit status 0 when the written docs are current, 1 otherwise.

The generator is the package :mod:`dpproofs.docgen` (imported here only, never by the library).
"""

HELP = "regenerate the documentation pages and figures under docs/"

__all__ = ["HELP", "add_arguments", "run", "render"]


def add_arguments(parser):
    parser.add_argument("--render-only", action="store_true",
                        help="re-render pages from the registry and docs/_measured/ without measuring")
    parser.add_argument("--only", nargs="+", default=(), metavar="PART",
                        help="measure only these parts: theorems, <paper.result>, tour, accountant, batches, "
                             "verify, notes, figures, readme")
    parser.add_argument("--out", metavar="DIR", default=None,
                        help="write pages, figures and measurements into DIR instead of the checkout's docs/ "
                             "(works from any install, e.g. a wheel)")


def run(args):
    import sys

    from dpproofs.docgen import site

    def log(message):
        sys.stderr.write(message + "\n")
        sys.stderr.flush()

    from pathlib import Path

    out = None if args.out is None else Path(args.out).resolve()
    summary = site.generate(measure_parts=not args.render_only, only=tuple(args.only), log=log, out=out)
    summary["docs"] = str(out) if out is not None else "docs/"
    return (1 if summary["stale"] else 0), summary


def render(result):
    lines = [f"wrote {len(result['pages'])} pages under {result.get('docs', 'docs/')} in {result['seconds']} s"]
    for part, seconds in result["timings"].items():
        lines.append(f"  measured {part}: {seconds} s")
    if result["stale"]:
        lines.append("still stale:")
        lines.extend(f"  {reason}" for reason in result["stale"])
    return "\n".join(lines)
