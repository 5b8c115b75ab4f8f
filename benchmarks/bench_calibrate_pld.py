"""calibrate_sigma(accountant="pld") against dp_accounting's calibrate_dp_mechanism with its PLD
accountant, in one process.

    python benchmarks/bench_calibrate_pld.py

For each target (epsilon, delta, q, T): our sigma, seconds and the certified epsilon of our sigma
(the upper end of a fresh PLDAccountant's bracket: at most the target, never an overshoot), then
dp_accounting's sigma and seconds (its default value_discretization_interval 1e-4 and Brent's
method). One run each (calibration is deterministic; the machine's load moves times by ~30%).
Not a unit test.
"""

import logging
import time

import dpproofs as dp

TARGETS = [  # epsilon, delta, q, steps
    (1.0, 1e-5, 0.01, 10000),
    (2.0, 1e-5, 0.01, 40000),
    (8.0, 1e-5, 256 / 60000, 14063),
]


def dp_accounting_sigma(epsilon, delta, q, steps):
    import dp_accounting as dpa
    from dp_accounting.pld import pld_privacy_accountant

    def event(sigma):
        return dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), steps)

    return dpa.calibrate_dp_mechanism(pld_privacy_accountant.PLDAccountant, event, epsilon, delta)


def main():
    logging.getLogger("absl").setLevel(logging.ERROR)
    print(f"{'target (eps, delta, q, T)':40s} {'ours sigma':>11} {'s':>6} {'certified eps':>14} | "
          f"{'dp_acc sigma':>12} {'s':>6} | ratio")
    for epsilon, delta, q, steps in TARGETS:
        start = time.perf_counter()
        ours = dp.calibrate_sigma(epsilon=epsilon, delta=delta, q=q, steps=steps, accountant="pld")
        t_ours = time.perf_counter() - start
        certified = dp.PLDAccountant().compose(dp.SampledGaussian(q, ours), steps).epsilon(delta)
        start = time.perf_counter()
        theirs = dp_accounting_sigma(epsilon, delta, q, steps)
        t_theirs = time.perf_counter() - start
        label = f"({epsilon:g}, {delta:g}, {q:.6g}, {steps})"
        print(f"{label:40s} {ours:11.6f} {t_ours:6.2f} {certified:14.7f} | {theirs:12.6f} {t_theirs:6.2f} | "
              f"{t_theirs / t_ours:5.1f}x")


if __name__ == "__main__":
    main()
