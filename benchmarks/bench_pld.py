"""Side-by-side timings of the tight (PLD) accountants, in one process.

    python benchmarks/bench_pld.py [--repeats N]

For the two Abadi configurations (q = 0.01, sigma = 4, delta = 1e-5, T = 10 000 and 40 000):
compose T Poisson-subsampled Gaussian steps into a FRESH accountant and ask epsilon at delta
(nothing cached between repeats: a new accountant object each time; q changes by 1e-12 relative
per repeat for dpproofs so that no per-mechanism discretisation is reused).

* dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-4) (its default
  pessimistic connect-the-dots PLD; an estimate, no certified bracket);
* prv_accountant.Accountant(eps_error=0.01) (PRV accountant; reports
  lower/estimate/upper);
* dpproofs.PLDAccountant() at its default target relative width 1e-3 (certified bracket).

Prints each value, bracket/width where available, medians and ratio = peer median / dpproofs
median. Not a unit test.
"""

import argparse
import logging
import statistics
import time
import warnings

import dpproofs as dp

Q, SIGMA, DELTA = 0.01, 4.0, 1e-5
CONFIGS = (10000, 40000)
EXACT = {10000: 0.9468668, 40000: 2.0330653}


def median_seconds(function, repeats):
    function(-1)  # warm-up (imports)
    times = []
    for index in range(repeats):
        start = time.perf_counter()
        function(index)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def ours(steps):
    def run(index):
        q = Q * (1 + 1e-12 * (index + 2))
        return dp.PLDAccountant().compose(dp.SampledGaussian(q, SIGMA), steps).epsilon_bounds(DELTA)
    return run


def dp_accounting_pld(steps):
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    def run(index):
        acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
        acc.compose(dp_event.PoissonSampledDpEvent(Q, dp_event.GaussianDpEvent(SIGMA)), steps)
        return acc.get_epsilon(DELTA)
    return run


def prv(steps):
    from prv_accountant import Accountant

    def run(index):
        acc = Accountant(noise_multiplier=SIGMA, sampling_probability=Q, delta=DELTA,
                         eps_error=0.01, max_compositions=steps)
        return acc.compute_epsilon(num_compositions=steps)
    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    print(f"q={Q} sigma={SIGMA} delta={DELTA}; medians over {args.repeats} repeats (fresh accountants)")
    print(f"{'T':>6} {'accountant':<34} {'epsilon':<44} {'median s':>9} {'ratio':>7}")
    for steps in CONFIGS:
        bracket = ours(steps)(0)
        t_ours = median_seconds(ours(steps), args.repeats)
        width = bracket.upper - bracket.lower
        text = f"[{bracket.lower:.7f}, {bracket.upper:.7f}] w={width:.2e} ({width / bracket.upper:.1e} rel)"
        print(f"{steps:>6} {'dpproofs PLDAccountant':<34} {text:<44} {t_ours:9.4f} {1.0:7.2f}")
        value = dp_accounting_pld(steps)(0)
        t = median_seconds(dp_accounting_pld(steps), args.repeats)
        print(f"{steps:>6} {'dp_accounting PLD (1e-4)':<34} {value:<44.7f} {t:9.4f} {t / t_ours:7.2f}")
        low, est, up = prv(steps)(0)
        t = median_seconds(prv(steps), args.repeats)
        print(f"{steps:>6} {'prv_accountant (eps_error 0.01)':<34} {f'{est:.7f} [{low:.5f}, {up:.5f}]':<44} {t:9.4f} {t / t_ours:7.2f}")
        print(f"{steps:>6} {'exact (precise_pld reference)':<34} {EXACT[steps]:<44.7f}")


if __name__ == "__main__":
    main()
