"""Two checkouts of dpproofs side by side on rows of benchmarks/pld_peer_grid.py (issue 22).

    git archive 0b7edf1 | tar -x -C /tmp/orig        # the code before the change
    python benchmarks/pld_side_by_side.py /tmp/orig . 4,6,9,12 > benchmarks/pld_side_by_side_DATE.txt

Each checkout runs the rows in a fresh process (after one warm-up call), in the order A, B, A, B, so
that both see the same machine load; printed per row: the seconds of each run, the bracket of each
checkout, and min(A) / min(B). Not a unit test; a shared machine makes single runs noisy.
"""

import json
import os
import subprocess
import sys

CHILD = """
import json, sys, time
sys.path.insert(0, {bench!r})
import pld_peer_grid as g
g._ours(g.WARM)
out = {{}}
for i in {rows!r}:
    t = time.perf_counter()
    r = g._ours(g.GRID[i])
    out[i] = (time.perf_counter() - t, r["lower"], r["upper"])
print(json.dumps(out))
"""


def main(a, b, spec):
    rows = [int(x) for x in spec.split(",")]
    bench = os.path.dirname(os.path.abspath(__file__))
    code = CHILD.format(bench=bench, rows=rows)
    runs = []
    for label, path in (("A", a), ("B", b), ("A", a), ("B", b)):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=path,
                             env=dict(os.environ, PYTHONPATH=os.path.abspath(path)))
        runs.append((label, json.loads(out.stdout.strip().splitlines()[-1])))
    print(f"# python benchmarks/pld_side_by_side.py {a} {b} {spec}")
    print("# row | A s, B s, A s, B s | A bracket | B bracket | min(A)/min(B)")
    for i in rows:
        k = str(i)
        times = [r[k][0] for _, r in runs]
        a_run, b_run = runs[0][1][k], runs[1][1][k]
        ratio = min(times[0], times[2]) / min(times[1], times[3])
        print(f"{i} | {' '.join(f'{t:.3f}' for t in times)} | {a_run[1]:.7g} {a_run[2]:.7g} | "
              f"{b_run[1]:.7g} {b_run[2]:.7g} | {ratio:.2f}x", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
