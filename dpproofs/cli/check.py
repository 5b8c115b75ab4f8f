"""``dpproofs check [ID ...]``: check registered claims and compare with what is expected."""

import sys
import time

from dpproofs import _validate

HELP = "check the registered theorem claims (all, or those under the ids given)"

__all__ = ["HELP", "add_arguments", "run", "render"]


def add_arguments(parser):
    parser.add_argument("ids", nargs="*", metavar="ID", help="claim ids or prefixes (abadi2016.lemma3)")
    parser.add_argument("--examples", type=int, default=60,
                        help="examples drawn per claim besides its pinned points (default 60; claims marked "
                             "slow draw their documented fraction, at least 1)")
    parser.add_argument("--seed", type=int, default=0, help="search seed (default 0)")
    parser.add_argument("--dps", type=int, default=50, help="decimal digits of the checks (default 50)")


def run(args):
    from dpproofs.checker import registry
    from dpproofs.checker.claims import check  # the checker loads sympy, Hypothesis and flint: only here

    examples = _validate.integer("--examples", args.examples, 1, 10**6)
    seed = _validate.integer("--seed", args.seed, 0, 2**32 - 1)
    dps = _validate.integer("--dps", args.dps, 20, 2000)
    claims = registry.select(args.ids)
    started = time.perf_counter()
    rows = []
    for index, claim in enumerate(claims, 1):
        sys.stderr.write(f"[{index}/{len(claims)}] {claim.id} ...")
        sys.stderr.flush()
        verdict = check(claim, examples=examples, seed=seed, dps=dps)
        sys.stderr.write(f" {verdict.verdict} ({verdict.seconds:.1f}s)\n")
        row = verdict.to_dict()  # the result under "verdict" (and "status", the same value)
        row.update(source=claim.source, kind=claim.kind, statement=claim.describe())
        if claim.explanation:
            row["explanation"] = claim.explanation
        rows.append(row)
    mismatches = [r["id"] for r in rows if not r["matches_expectation"]]
    result = {
        "claims": rows,
        "summary": {
            "claims": len(rows),
            "as_expected": len(rows) - len(mismatches),
            "mismatches": mismatches,
            "seconds": round(time.perf_counter() - started, 1),
            "examples": examples,
            "seed": seed,
            "dps": dps,
        },
    }
    return (1 if mismatches else 0), result


def _width():
    """The terminal's width (COLUMNS, else the terminal, else 120), at least 100."""
    import shutil

    return max(100, shutil.get_terminal_size((120, 24)).columns)


def render(result):
    width = _width()
    lines = []
    header = f"{'claim':<58} {'expected':<8} {'verdict':<9}  evidence"
    lines.append(header)
    lines.append("-" * min(width, 120))
    cut = False
    for row in result["claims"]:
        flag = "" if row["matches_expectation"] else "  <-- NOT AS EXPECTED"
        evidence = row["evidence"]
        if row.get("counterexample"):
            evidence += f"; counterexample {row['counterexample']}"
        start = f"{row['id']:<58} {row['expected']:<8} {row['verdict']:<9}  "
        room = max(20, width - len(start) - len(flag))
        if len(evidence) > room:
            evidence, cut = evidence[: room - 3] + "...", True
        lines.append(f"{start}{evidence}{flag}")
    s = result["summary"]
    lines.append("")
    if cut:
        lines.append("(evidence cut to the terminal's width; --json gives all of it)")
    lines.append(
        f"{s['as_expected']}/{s['claims']} claims as expected in {s['seconds']} s "
        f"({s['examples']} examples per claim, seed {s['seed']}, {s['dps']} digits)"
    )
    if s["mismatches"]:
        lines.append("not as expected: " + ", ".join(s["mismatches"]))
    return "\n".join(lines)
