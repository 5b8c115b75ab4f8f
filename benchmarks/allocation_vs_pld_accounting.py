"""Random allocation (balls-in-bins, k = 1): dpproofs beside pld-accounting 2.0, in one process.

    python benchmarks/allocation_vs_pld_accounting.py [--skip-long]

The three configurations of issue 23 (delta = 1e-6): sigma = 1, t = 100, 1 epoch; sigma = 1,
t = 1000, 1 epoch; sigma = 0.8, t = 1000, 10 epochs (``--skip-long`` leaves the last out: the
issue measured 285 s for it). pld-accounting: ``gaussian_allocation_epsilon_range`` with its
defaults (float64, uncertified; it stops at a 10 % gap). dpproofs: ``Accountant().compose(
RandomAllocationGaussian(t, sigma), epochs).epsilon(delta)`` (RDP, the only accountant that takes
random allocation today) and, beside it, the Poisson epsilon of the same run at rate 1/t (RDP and
the certified PLD bracket's upper end). Ratios: pld-accounting's time over ours. Not a unit test.
"""

import sys
import time

import dpproofs as dp

CONFIGS = ((1.0, 100, 1), (1.0, 1000, 1), (0.8, 1000, 10))
DELTA = 1e-6


def timed(function):
    started = time.perf_counter()
    value = function()
    return value, time.perf_counter() - started


def main(argv):
    configs = CONFIGS[:2] if "--skip-long" in argv else CONFIGS
    try:
        from PLD_accounting import gaussian_allocation_epsilon_range
    except ImportError:
        gaussian_allocation_epsilon_range = None
        print("pld-accounting not installed (pip install pld-accounting): dpproofs only")
    print("sigma t epochs | pld-accounting [lower, upper] s | dpproofs allocation RDP s | ratio | "
          "Poisson(1/t) RDP | Poisson(1/t) PLD upper")
    for sigma, t, epochs in configs:
        ours, ours_s = timed(lambda: dp.Accountant().compose(dp.RandomAllocationGaussian(t, sigma), epochs).epsilon(DELTA))
        poisson_rdp = dp.Accountant().compose(dp.SampledGaussian(1 / t, sigma), t * epochs).epsilon(DELTA)
        poisson_pld = dp.PLDAccountant().compose(dp.SampledGaussian(1 / t, sigma), t * epochs).epsilon_bounds(DELTA).upper
        theirs = "-"
        ratio = "-"
        if gaussian_allocation_epsilon_range is not None:
            (upper, lower), theirs_s = timed(lambda: gaussian_allocation_epsilon_range(
                delta=DELTA, sigma=sigma, num_steps=t, num_epochs=epochs))
            theirs = f"[{lower:.4f}, {upper:.4f}] {theirs_s:.1f} s"
            ratio = f"{theirs_s / ours_s:.2f}x"
        print(f"{sigma:g} {t} {epochs} | {theirs} | {ours:.4f} {ours_s:.1f} s | {ratio} | {poisson_rdp:.4f} | "
              f"{poisson_pld:.4f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
