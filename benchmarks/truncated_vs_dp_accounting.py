"""Truncated Poisson sampling (TruncatedSampledGaussian) beside dp_accounting's PLD accountant on
its TruncatedSubsampledGaussianDpEvent (value_discretization_interval 1e-4), one process.

Grid written before any tuning: dataset size n, expected batch m = q n, the limit B at 0.8 m,
m + 2 sd and m + 4 sd (sd = sqrt(m (1 - q))), sigma, steps; delta = 1e-5. Per row: our certified
bracket (dpproofs.PLDAccountant, default relative width 1e-3) and its time, dp_accounting's epsilon
and time, and our untruncated Poisson epsilon (what the truncation costs).

    python benchmarks/truncated_vs_dp_accounting.py
"""

import itertools
import math
import time

import dp_accounting
from dp_accounting.pld import pld_privacy_accountant

import dpproofs as dp

DELTA = 1e-5
GRID = [  # (n, expected batch, sigma, steps)
    (60000, 256, 1.1, 10000), (60000, 256, 0.8, 1000), (10**6, 1024, 1.0, 10000), (10**4, 64, 2.0, 1000),
]


def main():
    print(f"python benchmarks/truncated_vs_dp_accounting.py  (dp-accounting {dp_accounting.__version__ if hasattr(dp_accounting, '__version__') else '0.6'}, delta {DELTA})")
    print(f"{'n':>8} {'m':>5} {'B':>5} {'sigma':>5} {'T':>6} | {'ours lower':>10} {'ours upper':>10} {'t(s)':>6} | "
          f"{'dp_acc':>10} {'t(s)':>6} | {'ratio t':>7} | {'untrunc.':>8}")
    ratios, ok = [], 0
    for (n, m, sigma, steps), where in itertools.product(GRID, ("0.8m", "m+2sd", "m+4sd")):
        q = m / n
        sd = math.sqrt(m * (1 - q))
        batch = {"0.8m": round(0.8 * m), "m+2sd": round(m + 2 * sd), "m+4sd": round(m + 4 * sd)}[where]
        start = time.perf_counter()
        ours = dp.PLDAccountant().compose(dp.TruncatedSampledGaussian(q, sigma, batch, n), steps).epsilon_bounds(DELTA)
        ours_time = time.perf_counter() - start
        start = time.perf_counter()
        theirs = pld_privacy_accountant.PLDAccountant()
        theirs.compose(dp_accounting.dp_event.TruncatedSubsampledGaussianDpEvent(n, q, batch, sigma), steps)
        theirs_eps = theirs.get_epsilon(DELTA)
        theirs_time = time.perf_counter() - start
        plain = dp.PLDAccountant().compose(dp.SampledGaussian(q, sigma), steps).epsilon_bounds(DELTA).upper
        ratios.append(theirs_time / ours_time)
        ok += ours.upper <= theirs_eps
        print(f"{n:>8} {m:>5} {batch:>5} {sigma:>5} {steps:>6} | {ours.lower:>10.5f} {ours.upper:>10.5f} {ours_time:>6.2f} | "
              f"{theirs_eps:>10.5f} {theirs_time:>6.2f} | {theirs_time / ours_time:>6.2f}x | {plain:>8.5f}")
    ratios.sort()
    print(f"ours at or below dp_accounting's epsilon: {ok} of {len(ratios)}; time ratio (theirs / ours) "
          f"median {ratios[len(ratios) // 2]:.2f}x, min {ratios[0]:.2f}x, max {ratios[-1]:.2f}x")


if __name__ == "__main__":
    main()
