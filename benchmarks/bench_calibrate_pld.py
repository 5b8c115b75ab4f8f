"""calibrate_sigma(accountant="pld", tolerance=1e-6) against dp_accounting's calibrate_dp_mechanism with
its PLD accountant, in one process.

    python benchmarks/bench_calibrate_pld.py

For each target (epsilon, delta, q, T): our sigma and seconds, the certified epsilon of our sigma
(the upper end of a fresh PLDAccountant's bracket: at most the target, never an overshoot) and of
sigma (1 - 1e-6) (above the target: no sigma 1e-6 below ours is certified, which is how "the
smallest certified sigma to 1e-6" is established, point by point: the upper end moves with the
accountant's grid, so it is not exactly monotone), then dp_accounting's sigma and seconds (its
default value_discretization_interval 1e-4 and Brent's method) and the ratio of the times. One run
each (calibration is deterministic; the machine's load moves times by ~30%). Not a unit test.
"""

import logging
import time

import dpproofs as dp

TARGETS = [  # epsilon, delta, q, steps
    (1.0, 1e-5, 0.01, 10000),
    (2.0, 1e-5, 0.01, 40000),
    (8.0, 1e-5, 256 / 60000, 14063),
    (0.5, 1e-6, 0.001, 1000),
    (1.0, 1e-5, 0.1, 100),
    (3.0, 1e-6, 0.02, 5000),
    (4.0, 1e-5, 0.05, 2000),
    (0.2, 1e-5, 0.001, 10000),
    (1.5, 1e-8, 0.004, 50000),
    (10.0, 1e-5, 0.5, 100),
]
TOLERANCE = 1e-6


def dp_accounting_sigma(epsilon, delta, q, steps):
    import dp_accounting as dpa
    from dp_accounting.pld import pld_privacy_accountant

    def event(sigma):
        return dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), steps)

    return dpa.calibrate_dp_mechanism(pld_privacy_accountant.PLDAccountant, event, epsilon, delta)


def main():
    logging.getLogger("absl").setLevel(logging.ERROR)
    print(f"{'target (eps, delta, q, T)':36s} {'ours sigma':>19} {'s':>6} {'cert. eps':>11} {'eps 1e-6 below':>15} | "
          f"{'dp_acc sigma':>12} {'s':>6} | ratio")
    for epsilon, delta, q, steps in TARGETS:
        start = time.perf_counter()
        ours = dp.calibrate_sigma(epsilon=epsilon, delta=delta, q=q, steps=steps, accountant="pld",
                                  tolerance=TOLERANCE)
        t_ours = time.perf_counter() - start
        certified = dp.PLDAccountant().compose(dp.SampledGaussian(q, ours), steps).epsilon(delta)
        below = dp.PLDAccountant().compose(dp.SampledGaussian(q, ours * (1 - TOLERANCE)), steps).epsilon(delta)
        start = time.perf_counter()
        theirs = dp_accounting_sigma(epsilon, delta, q, steps)
        t_theirs = time.perf_counter() - start
        label = f"({epsilon:g}, {delta:g}, {q:.6g}, {steps})"
        print(f"{label:36s} {ours!r:>19} {t_ours:6.2f} {certified:11.7f} {below:15.9f} | {theirs:12.6f} "
              f"{t_theirs:6.2f} | {t_theirs / t_ours:5.1f}x  {'ok' if certified <= epsilon < below else 'NOT SMALLEST'}",
              flush=True)


if __name__ == "__main__":
    main()
