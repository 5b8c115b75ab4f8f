"""Re-runs the epsilon answers that stored fuzz outputs flagged wide (over 1e-3 relative), with the
code as it is now, and prints old and new brackets side by side.

    python benchmarks/pld_fuzz_rerun.py TIMEOUT FUZZ_OUTPUT [FUZZ_OUTPUT ...]

Each configuration runs in a forked process (benchmarks/forked.py) through pld_fuzz.run. A line per
configuration: its index, its mechanisms, the old and new brackets with their sources, the new
relative width and time, OK when it now meets 1e-3, NO-OVERLAP when the two brackets do not overlap
(the exact value lies in both, so that would be a finding). Not a unit test.
"""
import json
import sys

import pld_fuzz
from forked import run_forked


def main():
    timeout, files = float(sys.argv[1]), sys.argv[2:]
    rows = [json.loads(line) for name in files for line in open(name) if line.startswith("{")]
    total = within = 0
    for row in rows:
        if "wide" not in row["flags"] or "pld" not in row["res"]:
            continue
        res = run_forked(pld_fuzz.run, row["cfg"], timeout)
        old, new = row["res"]["pld"], res.get("pld")
        total += 1
        if not new:
            print("ERR", row["i"], res, flush=True)
            continue
        lower, upper, source = new
        width = (upper - lower) / upper if upper else 0.0
        within += width <= 1e-3
        overlap = lower <= old[1] * (1 + 1e-12) and old[0] <= upper * (1 + 1e-12)
        kinds = [mechanism[0][0] for mechanism in row["cfg"]["mechs"]]
        print("%d %s old [%.6g, %.6g] %s -> new [%.6g, %.6g] %s w=%.2g %.1fs %s %s" % (
            row["i"], kinds, old[0], old[1], old[2], lower, upper, source, width, res["wall"],
            "OK" if width <= 1e-3 else "", "" if overlap else "NO-OVERLAP"), flush=True)
    print("wide before", total, "now within 1e-3", within)


if __name__ == "__main__":
    main()
