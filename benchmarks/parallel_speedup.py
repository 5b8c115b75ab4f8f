"""Wall-clock time of ``dpproofs sweep`` (200 settings) and ``dpproofs check`` on 1 and 2 workers
(the sweep's table also once on 4 workers, to compare its bytes).

Each run is a fresh ``python -m dpproofs ...`` process (what a user types: the interpreter, the
imports and the cluster's start are counted), the configurations alternate within one invocation of
this script so that the load of the machine falls on all of them alike, and ``uptime`` is printed
with every number (the machine is shared). The issue's targets: sweep on 2 workers at least 1.7x
faster than on 1 (and the CSV byte-identical); check of the full registry on 2 workers in at most
0.6x of the one-process time.

    PYTHONPATH=. python3 benchmarks/parallel_speedup.py sweep --repeats 2
    PYTHONPATH=. python3 benchmarks/parallel_speedup.py check --repeats 1 --dask
    PYTHONPATH=. python3 benchmarks/parallel_speedup.py check --ids 'abadi2016.*'   # a subset
"""

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: 5 sigmas x 5 epoch counts x 4 batch sizes x 2 deltas = 200 tight (PLD) settings on 60 000 records.
SWEEP = ["--sigma", "0.8", "1.0", "1.2", "1.5", "2.0", "--epochs", "1", "2", "3", "5", "10",
         "--batch-size", "128", "256", "512", "1024", "--delta", "1e-5", "1e-6", "--dataset-size", "60000",
         "--accountant", "pld"]


def _uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def _cpu():
    """CPU seconds (user + system) of the finished child processes and their waited-for children."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(arguments):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    started, cpu = time.perf_counter(), _cpu()
    done = subprocess.run([sys.executable, "-m", "dpproofs", *arguments], capture_output=True, text=True, env=env,
                          cwd=ROOT)
    seconds = time.perf_counter() - started
    done.cpu_seconds = _cpu() - cpu
    if done.returncode not in (0, 1):
        raise SystemExit(f"dpproofs {' '.join(arguments)} failed:\n{done.stderr[-2000:]}")
    return seconds, done


def sweep(repeats, keep):
    times = {1: [], 2: [], 4: []}
    digests = set()
    with tempfile.TemporaryDirectory() as folder:
        for repeat in range(repeats):
            # 4 workers (on 2 cores: not for speed) once, for the bytes of the table
            for workers in ((1, 2) if repeat % 2 == 0 else (2, 1)) + ((4,) if repeat == 0 else ()):
                out = Path(keep or folder) / f"w{workers}-r{repeat}"
                seconds, done = _timed(["sweep", *SWEEP, "--workers", str(workers), "--out", str(out)])
                digest = hashlib.sha256(out.with_suffix(".csv").read_bytes()).hexdigest()[:16]
                digests.add(digest)
                times[workers].append(seconds)
                print(f"sweep, 200 settings, {workers} worker(s): {seconds:.1f} s (CPU {done.cpu_seconds:.1f} s)  csv sha256 {digest}  [{_uptime()}]",
                      flush=True)
    best1, best2 = min(times[1]), min(times[2])
    print(f"sweep: best of {repeats}: 1 worker {best1:.1f} s, 2 workers {best2:.1f} s: speed-up {best1 / best2:.2f}x "
          f"(target >= 1.7x); CSV identical across runs: {len(digests) == 1}")


def _on_local_dask(arguments):
    """``_timed(arguments + --scheduler)`` on a 2-worker LocalCluster started (and counted) here."""
    from distributed import LocalCluster

    started = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        _, done = _timed([*arguments, "--scheduler", cluster.scheduler_address])
    return time.perf_counter() - started, done


def check(repeats, ids, dask):
    configurations = [("one process", ["--workers", "1"]), ("2 local workers", ["--workers", "2"])]
    if dask:
        configurations.append(("2 Dask workers, a task per result module", None))
    times = {name: [] for name, _ in configurations}
    for repeat in range(repeats):
        order = configurations if repeat % 2 == 0 else configurations[::-1]
        for name, flags in order:
            if flags is None:
                seconds, done = _on_local_dask(["check", *ids])
            else:
                seconds, done = _timed(["check", *ids, *flags])
            times[name].append(seconds)
            tail = done.stdout.strip().splitlines()[-2:]
            print(f"check {' '.join(ids) or '(full registry)'}, {name}: {seconds:.1f} s (CPU {done.cpu_seconds:.1f} s)  {tail[0] if tail else ''}  "
                  f"[{_uptime()}]", flush=True)
    one, two = min(times["one process"]), min(times["2 local workers"])
    print(f"check: best of {repeats}: one process {one:.1f} s, 2 workers {two:.1f} s: ratio {two / one:.2f} "
          f"(target <= 0.6)")
    if dask:
        on_dask = min(times["2 Dask workers, a task per result module"])
        print(f"check: best of {repeats}: 2 Dask workers {on_dask:.1f} s: ratio {on_dask / one:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("sweep", "check"))
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--keep", metavar="FOLDER", help="sweep: keep the tables in FOLDER (to compare them)")
    parser.add_argument("--dask", action="store_true", help="check: also on a 2-worker Dask LocalCluster")
    parser.add_argument("--ids", nargs="*", default=[], help="claim ids or patterns for check (default: all)")
    args = parser.parse_args()
    print(f"{sys.version.split()[0]}, {os.cpu_count()} cores [{_uptime()}]", flush=True)
    if args.part == "sweep":
        sweep(args.repeats, args.keep)
    else:
        check(args.repeats, args.ids, args.dask)


if __name__ == "__main__":
    main()
