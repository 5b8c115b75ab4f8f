"""``dpproofs claims [ID ...]``: the notes' and papers' printed numbers, reproduced or not.

Evaluates the ``NUMERIC_CLAIMS`` of every content module that has them (the notes) (each recomputed by the method it names) and
prints id, stated value, reproduced value, verdict and method; ``--json`` prints one object
``{"claims": [...], "summary": {...}}`` whose rows carry at least ``id``, ``stated``,
``reproduced``, ``verdict``, ``method`` (plus ``explanation`` and ``details``). Exit status 0 when
every entry has a verdict ("not reproduced" is a finding, not a failure); 1 otherwise.
Takes about 30 s (the tight PLD bracket and the exact optimal composition of 10 000 steps).
"""

import time

HELP = "reproduce (or refute) the numeric claims of the notes and the papers' headline numbers"

__all__ = ["HELP", "add_arguments", "run", "render", "side_by_side_rows"]


def side_by_side_rows(rows):
    """The rows whose details carry a ``side_by_side`` table (epsilon by method), one per number of
    epochs (the first such row, in the content's order): the content says which rows have one, so
    no claim id is named here."""
    found = {}
    for row in rows:
        details = row.get("details") or {}
        if details.get("side_by_side"):
            found.setdefault(details["table_row"]["epochs"], row)
    return list(found.values())


def add_arguments(parser):
    parser.add_argument("ids", nargs="*", metavar="ID",
                        help="numeric claim ids (notes.composition.basic), or glob patterns ('notes.composition.*')")
    parser.add_argument("--prefix", action="store_true",
                        help="an ID also selects the ids under it (notes.composition selects notes.composition.*)")
    parser.add_argument("--details", action="store_true", help="also print each claim's explanation")


def run(args):
    from dpproofs.checker import registry
    from dpproofs.errors import InvalidArgument

    found = registry.modules("NUMERIC_CLAIMS")
    if len(found) != 1:
        raise InvalidArgument(f"expected one content module with NUMERIC_CLAIMS, found {[m.__name__ for m in found]}")
    notes = found[0]
    chosen_ids = set(registry.match_ids(args.ids, [c.id for c in notes.NUMERIC_CLAIMS],
                                        prefix=getattr(args, "prefix", False), what="numeric claim",
                                        listing="`dpproofs claims` lists them all"))
    import sys

    started = time.perf_counter()
    chosen = [c for c in notes.NUMERIC_CLAIMS if c.id in chosen_ids]
    rows = []
    for index, claim in enumerate(chosen, 1):  # progress on stderr: the whole run takes ~30 s
        sys.stderr.write(f"[{index}/{len(chosen)}] {claim.id} ...")
        sys.stderr.flush()
        begun = time.perf_counter()
        rows.append(notes.evaluate(claim))
        sys.stderr.write(f" {rows[-1]['verdict']} ({time.perf_counter() - begun:.1f}s)\n")
    counts = {verdict: sum(r["verdict"] == verdict for r in rows) for verdict in notes.VERDICTS}
    missing = [r["id"] for r in rows if r["verdict"] not in notes.VERDICTS]
    result = {
        "claims": rows,
        "summary": {"claims": len(rows), **counts, "without_verdict": missing,
                    "seconds": round(time.perf_counter() - started, 1)},
        "show_details": bool(getattr(args, "details", False)),
    }
    return (1 if missing else 0), result


def _number(value, digits=4):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}" if abs(value) < 1e5 else f"{value:.4g}"
    return str(value)


def render(result):
    lines = []
    header = f"{'id':<34} {'stated':>18} {'reproduced':>22}  {'verdict':<15} method"
    lines.append(header)
    lines.append("-" * 120)
    for row in result["claims"]:
        stated = _number(row["stated"], 2) if row["stated"] is not None else "(not stated)"
        if row.get("stated_order") is not None:
            stated += f" ({row['order_name']} {row['stated_order']:g})"
        reproduced = _number(row["reproduced"])
        if row.get("order") is not None:
            reproduced += f" ({row['order_name']} {row['order']:.4g})"
        method = row["method"] if len(row["method"]) <= 80 else row["method"][:77] + "..."
        lines.append(f"{row['id']:<34} {stated:>18} {reproduced:>22}  {row['verdict']:<15} {method}")
        if result.get("show_details") or row["verdict"] == "not reproduced":
            if row["explanation"]:
                lines.append(f"{'':<34}   -> {row['explanation']}")
    tables = side_by_side_rows(result["claims"])
    if tables:
        lines.append("")
        lines.append("Abadi configuration (q = 0.01, sigma = 4, delta = 1e-5), epsilon by method:")
        epochs = [r["details"]["table_row"]["epochs"] for r in tables]
        lines.append(f"  {'method':<72}" + "".join(f"{'E = ' + str(e):>10}" for e in epochs))
        for name in tables[0]["details"]["side_by_side"]:
            values = [r["details"]["side_by_side"][name] for r in tables]
            lines.append(f"  {name:<72}" + "".join(f"{_number(v):>10}" for v in values))
    s = result["summary"]
    lines.append("")
    lines.append(
        f"{s['claims']} claims: {s['reproduced']} reproduced, {s['not reproduced']} not reproduced, "
        f"{s['computed']} computed (no stated value), in {s['seconds']} s"
    )
    return "\n".join(lines)
