"""Shuffled batches bounded from below, beside the Poisson epsilon of the same run (issue 23).

    nice python benchmarks/shuffle_lower_bounds.py > benchmarks/shuffle_lower_bounds_DATE.txt

CIFAR-10-shaped runs: N = 50000 records, batch B in {256, 1024, 4096}, noise multiplier sigma in
{0.6, 0.8, 1.0, 2.0}, E epochs in {1, 10, 100}, delta = 1e-5. For each row:

* ``persistent``: ``dpproofs.epsilon_lower_bound(ShuffledGaussian(B, N, sigma, "persistent"), E,
  delta)``, certified (Chua et al.'s zero-out pair and max test, arXiv 2403.17673v2; persistent
  shuffling as one epoch at sigma / sqrt(E), as in their reference implementation);
* ``per-epoch``: the same with a new order every epoch (the max statistic composed over epochs);
* ``poisson``: ``dpproofs.PLDAccountant().compose(SampledGaussian(B/N, sigma), ceil(E N / B))
  .epsilon_bounds(delta)`` (certified bracket; the number people report for a shuffled run);
* ``gap``: per-epoch lower bound / Poisson upper end (> 1: the Poisson number is provably wrong for
  a shuffled loader that reshuffles every epoch), and the same for persistent shuffling.

Both lower bounds use the zero-out pair (the target's contribution 1 against 0), the relation under
which Poisson's add/remove epsilon is the usual one, so the columns compare like with like. Seconds
are wall-clock on a shared 2-core machine. Not a unit test.
"""

import math
import sys
import time

import dpproofs as dp

N = 50000
DELTA = 1e-5
ROWS = [
    # (B, sigma, epochs)
    (256, 0.6, 1), (256, 0.8, 1), (256, 1.0, 1), (256, 2.0, 1),
    (256, 0.8, 10), (256, 1.0, 10), (256, 2.0, 10),
    (256, 0.8, 100), (256, 1.0, 100), (256, 2.0, 100),
    (1024, 0.8, 1), (1024, 1.0, 1), (1024, 1.0, 10), (1024, 2.0, 10), (1024, 1.0, 100), (1024, 2.0, 100),
    (4096, 1.0, 1), (4096, 2.0, 1), (4096, 1.0, 10), (4096, 2.0, 100),
]


def timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def main():
    print(f"# shuffled batches: certified lower bounds beside the Poisson epsilon; N = {N}, delta = {DELTA}")
    print(f"# dpproofs {dp.__version__}; python {sys.version.split()[0]}")
    header = ("B", "sigma", "E", "steps", "persistent_lb", "s", "per_epoch_lb", "s", "poisson_lower",
              "poisson_upper", "s", "gap_per_epoch", "gap_persistent")
    print("\t".join(header))
    above = 0
    for batch, sigma, epochs in ROWS:
        persistent, t_persistent = timed(lambda: dp.epsilon_lower_bound(
            dp.ShuffledGaussian(batch, N, sigma, "persistent"), epochs, DELTA))
        per_epoch, t_per_epoch = timed(lambda: dp.epsilon_lower_bound(
            dp.ShuffledGaussian(batch, N, sigma, "per-epoch"), epochs, DELTA))
        steps = math.ceil(epochs * N / batch)
        poisson, t_poisson = timed(lambda: dp.PLDAccountant().compose(
            dp.SampledGaussian(batch / N, sigma), steps).epsilon_bounds(DELTA))
        gap_per_epoch = per_epoch / poisson.upper
        gap_persistent = persistent / poisson.upper
        above += gap_per_epoch > 1
        print("\t".join((
            str(batch), f"{sigma:g}", str(epochs), str(steps), f"{persistent:.4f}", f"{t_persistent:.2f}",
            f"{per_epoch:.4f}", f"{t_per_epoch:.2f}", f"{poisson.lower:.4f}", f"{poisson.upper:.4f}",
            f"{t_poisson:.2f}", f"{gap_per_epoch:.2f}", f"{gap_persistent:.2f}",
        )), flush=True)
    print(f"# rows where the per-epoch (reshuffled) lower bound exceeds the Poisson upper end: {above} of {len(ROWS)}")


if __name__ == "__main__":
    main()
