"""Random allocation (balls-in-bins, k = 1): dpproofs beside pld-accounting 2.0, in one process.

    python benchmarks/allocation_vs_pld_accounting.py [--skip-long] [--grid [N]] [--fresh SEED N] [--no-peer]

``--fresh SEED N``: N rows drawn with SEED from continuous ranges (t log-uniform in [2, 1e4], sigma
log-uniform in [0.6, 20], epochs in {1, 2, 5, 20, 50}, delta log-uniform in [1e-12, 1e-3]), for
measuring on rows nobody tuned against (the ``--grid`` rows were used to diagnose and tune).

Peer rows: the three configurations of issue 23 (delta = 1e-6): sigma = 1, t = 100, 1 epoch;
sigma = 1, t = 1000, 1 epoch; sigma = 0.8, t = 1000, 10 epochs (``--skip-long`` leaves the last
out: pld-accounting took 285 s for it in the issue). pld-accounting: ``gaussian_allocation_epsilon_range``
with its defaults (float64, uncertified; it stops at a 10 % gap). dpproofs:
``PLDAccountant().compose(RandomAllocationGaussian(t, sigma), epochs).epsilon_bounds(delta)`` (the
certified bracket; each call in a fresh accountant, its caches cleared), whether it lies inside
pld-accounting's interval, and the Poisson epsilon of the same run at rate 1/t (PLD upper end) beside
it. Ratio: pld-accounting's time over ours.

``--grid N``: N configurations drawn with a fixed seed (written before any tuning) from t in
{2, 10, 100, 1000, 10^4}, sigma in {0.6, 0.8, 1, 2, 5, 20}, epochs in {1, 3, 10, 100}, delta in
{1e-12, 1e-9, 1e-6, 1e-3}: our bracket, its relative width, where it came from, our time, and the
Poisson PLD upper end of the same run. Not a unit test.
"""

import math
import random
import sys
import time

import dpproofs as dp
from dpproofs.accountant.pld import allocation as _allocation

CONFIGS = ((1.0, 100, 1), (1.0, 1000, 1), (0.8, 1000, 10))
DELTA = 1e-6
GRID_SEED = 20261206


def timed(function):
    started = time.perf_counter()
    value = function()
    return value, time.perf_counter() - started


def fresh_bracket(t, sigma, epochs, delta):
    """Our bracket with every cache of the allocation laws emptied first (a cold call)."""
    _allocation.forget()
    _allocation._best_edges.cache_clear()
    return dp.PLDAccountant().compose(dp.RandomAllocationGaussian(t, sigma), epochs).epsilon_bounds(delta)


def peers(argv):
    configs = CONFIGS[:2] if "--skip-long" in argv else CONFIGS
    try:
        from PLD_accounting import gaussian_allocation_epsilon_range
    except ImportError:
        gaussian_allocation_epsilon_range = None
        print("pld-accounting not installed (pip install pld-accounting): dpproofs only")
    if "--no-peer" in argv:
        gaussian_allocation_epsilon_range = None
    fresh_bracket(10, 1.0, 1, 1e-3)  # warm-up (imports, FFT plans)
    print("sigma t epochs | pld-accounting [lower, upper] s | dpproofs PLD [lower, upper] width s | inside theirs | "
          "ratio | Poisson(1/t) PLD upper")
    for sigma, t, epochs in configs:
        ours, ours_s = timed(lambda: fresh_bracket(t, sigma, epochs, DELTA))
        poisson = dp.PLDAccountant().compose(dp.SampledGaussian(1 / t, sigma), t * epochs).epsilon_bounds(DELTA).upper
        theirs, ratio, inside = "-", "-", "-"
        if gaussian_allocation_epsilon_range is not None:
            (upper, lower), theirs_s = timed(lambda: gaussian_allocation_epsilon_range(
                delta=DELTA, sigma=sigma, num_steps=t, num_epochs=epochs))
            theirs = f"[{lower:.6f}, {upper:.6f}] {theirs_s:.2f} s"
            ratio = f"{theirs_s / ours_s:.1f}x"
            inside = "yes" if lower <= ours.lower and ours.upper <= upper else "NO"
        width = (ours.upper - ours.lower) / ours.upper
        print(f"{sigma:g} {t} {epochs} | {theirs} | [{ours.lower:.6f}, {ours.upper:.6f}] {width:.1e} "
              f"{ours.source} {ours_s:.2f} s | {inside} | {ratio} | {poisson:.6f}", flush=True)


def fresh_rows(seed, count):
    """Rows from continuous ranges (module docstring, ``--fresh``)."""
    rng = random.Random(seed)

    def logu(low, high):
        return math.exp(rng.uniform(math.log(low), math.log(high)))

    return [(int(round(logu(2, 1e4))), float("%.3g" % logu(0.6, 20)), rng.choice((1, 2, 5, 20, 50)),
             float("%.2g" % logu(1e-12, 1e-3))) for _ in range(count)]


def grid(count, rows=None):
    rng = random.Random(GRID_SEED)
    rows = rows if rows is not None else [
        (rng.choice((2, 10, 100, 1000, 10_000)), rng.choice((0.6, 0.8, 1.0, 2.0, 5.0, 20.0)),
         rng.choice((1, 3, 10, 100)), rng.choice((1e-12, 1e-9, 1e-6, 1e-3))) for _ in range(count)]
    print("t sigma epochs delta | dpproofs [lower, upper] width source s | Poisson(1/t) PLD upper | upper <= Poisson")
    widths, times, over = [], [], 0
    for t, sigma, epochs, delta in rows:
        ours, ours_s = timed(lambda: fresh_bracket(t, sigma, epochs, delta))
        poisson = dp.PLDAccountant().compose(dp.SampledGaussian(1 / t, sigma), t * epochs).epsilon_bounds(delta).upper
        width = (ours.upper - ours.lower) / ours.upper if ours.upper > 0 else 0.0
        widths.append(width)
        times.append(ours_s)
        over += width > 1e-3
        print(f"{t} {sigma:g} {epochs} {delta:g} | [{ours.lower:.6g}, {ours.upper:.6g}] {width:.1e} {ours.source} "
              f"{ours_s:.2f} s | {poisson:.6g} | {'yes' if ours.upper <= poisson else 'no'}", flush=True)
    widths.sort()
    times.sort()
    print(f"# {len(rows)} rows: widths > 1e-3 in {over}; median width {widths[len(widths) // 2]:.1e}; "
          f"median time {times[len(times) // 2]:.2f} s, max {times[-1]:.2f} s")


def main(argv):
    if "--fresh" in argv:
        index = argv.index("--fresh")
        seed, count = int(argv[index + 1]), int(argv[index + 2])
        grid(count, fresh_rows(seed, count))
    elif "--grid" in argv:
        index = argv.index("--grid")
        count = int(argv[index + 1]) if index + 1 < len(argv) and argv[index + 1].isdigit() else 40
        grid(count)
    else:
        peers(argv)


if __name__ == "__main__":
    main(sys.argv[1:])
