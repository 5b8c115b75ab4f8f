"""Side-by-side timings of the dpproofs accountant against its peers, in one process.

    python benchmarks/bench_accountant.py [--repeats N]

(a) one epsilon query (sigma = 4, Abadi's configuration, sigma = 1.1, and the high-noise corner
    q = 1e-4, sigma = 50, T = 10^6, where every fractional order needs the quadrature): compose T steps of a Poisson-subsampled Gaussian into a fresh accountant,
    then ask epsilon at delta; dpproofs vs dp_accounting.rdp.RdpAccountant at dp_accounting's
    default orders (and dpproofs at its own default orders). dpproofs memoises the RDP curve per
    (mechanism, orders), as a training loop or a sweep would hit it: "warm" is that case; "cold"
    changes both q and sigma by 1e-12 relative on every repeat, so every query evaluates the curve
    anew and no per-q table (integer orders) or per-(q, sigma) cache is reused. Caches keyed on the
    orders alone (validated grid, series layouts per (orders, lengths), conversion constants) are
    reused, as they would be by any caller with a fixed grid; the series lengths themselves are
    predicted from q and sigma on every cold query.
(b) calibrate_sigma vs dp_accounting.mechanism_calibration.calibrate_dp_mechanism (Brent's method,
    tol 1e-6 absolute in sigma; dpproofs: 1e-6 relative, one-sided). "cold q" changes q by 1e-12
    relative per repeat, defeating the per-(orders, q) tables.
(c) a noise schedule: 1 000 distinct (q, sigma) settings (q log-uniform in [1e-4, 0.1], sigma in
    [0.6, 20]) of 100 steps each, composed into one accountant, then one epsilon query; "cold"
    nudges every setting by 1e-12 relative per repeat.
(d) ``--grid-loss``: the default grid's loss against ``refine=True`` over 144 configurations
    (q in {1e-4, 1e-3, 0.01, 0.1, 0.5, 1}, sigma in {0.5, 1, 2, 4, 10, 50}, steps in {1, 100, 1e4,
    1e6}, delta 1e-5), the worst case and its configuration; and the 1 000-setting cold/warm
    per-setting epsilon time (a fresh accountant per setting) with the RDP cache's bytes.
prv_accountant is timed for information only (a different, PRV-based bound).
Medians over the repeats; ratio = peer median / dpproofs median. Not a unit test.
"""

import argparse
import logging
import statistics
import time
import warnings

import dpproofs as dp
from dpproofs.accountant import rdp as accountant_module

Q, SIGMA, STEPS, DELTA, TARGET_EPSILON = 0.01, 1.1, 10000, 1e-5, 1.0


def median_seconds(function, repeats):
    function(-1)  # warm-up (imports, tables); cold queries use other keys (index >= 0)
    times = []
    for index in range(repeats):
        start = time.perf_counter()
        function(index)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def line(label, seconds, reference=None):
    ratio = f"  ratio {reference / seconds:8.1f}x" if reference else ""
    print(f"  {label:58s} {seconds * 1e3:10.3f} ms{ratio}")


def query_block(sigma_a, repeats, their_orders, event, rdp_privacy_accountant, q=Q, steps=STEPS):
    """(a) at one noise multiplier."""
    print(f"(a) one epsilon query: q={q}, sigma={sigma_a}, T={steps}, delta={DELTA}; {repeats} repeats")

    def theirs_query(index=0):
        accountant = rdp_privacy_accountant.RdpAccountant(their_orders)
        accountant.compose(event(sigma_a, q), steps)
        return accountant.get_epsilon(DELTA)

    def ours_query(index=0, orders=their_orders, cold=False):
        nudge = 1 + 1e-12 * (index + 1) if cold else 1.0
        return dp.Accountant(orders).compose(dp.SampledGaussian(q * nudge, sigma_a * nudge), steps).epsilon(DELTA)

    theirs = median_seconds(theirs_query, repeats)
    line("dp_accounting RdpAccountant (its default orders)", theirs)
    line("dpproofs Accountant, same orders, warm", median_seconds(lambda i=0: ours_query(i), repeats), theirs)
    line("dpproofs Accountant, same orders, cold", median_seconds(lambda i=0: ours_query(i, cold=True), repeats), theirs)
    line("dpproofs Accountant, default orders, warm", median_seconds(lambda i=0: ours_query(i, None), repeats), theirs)
    line("dpproofs Accountant, default orders, cold", median_seconds(lambda i=0: ours_query(i, None, True), repeats), theirs)
    print(f"  epsilon: dp_accounting {theirs_query():.10f}, dpproofs {ours_query():.10f} (same orders), "
          f"{ours_query(0, None):.10f} (default orders)")
    return theirs


SCHEDULE_SIZE, SCHEDULE_STEPS = 1000, 100


def schedule_block(repeats, their_orders, event, rdp_privacy_accountant):
    """(c) a noise schedule of SCHEDULE_SIZE distinct settings."""
    import numpy as np

    rng = np.random.default_rng(0)
    qs = np.exp(rng.uniform(np.log(1e-4), np.log(0.1), SCHEDULE_SIZE)).tolist()
    sigmas = np.exp(rng.uniform(np.log(0.6), np.log(20.0), SCHEDULE_SIZE)).tolist()
    print(f"(c) noise schedule: {SCHEDULE_SIZE} distinct (q, sigma), {SCHEDULE_STEPS} steps each, "
          f"delta={DELTA}; {repeats} repeats")

    def theirs_schedule(index=0):
        accountant = rdp_privacy_accountant.RdpAccountant(their_orders)
        for q, sigma in zip(qs, sigmas):
            accountant.compose(event(sigma, q), SCHEDULE_STEPS)
        return accountant.get_epsilon(DELTA)

    def ours_schedule(index=0, orders=their_orders, cold=False):
        nudge = 1 + 1e-12 * (index + 1) if cold else 1.0
        accountant = dp.Accountant(orders)
        for q, sigma in zip(qs, sigmas):
            accountant.compose(dp.SampledGaussian(q * nudge, sigma * nudge), SCHEDULE_STEPS)
        return accountant.epsilon(DELTA)

    theirs = median_seconds(theirs_schedule, repeats)
    line("dp_accounting RdpAccountant (its default orders)", theirs)
    line("dpproofs Accountant, same orders, warm", median_seconds(lambda i=0: ours_schedule(i), repeats), theirs)
    line("dpproofs Accountant, same orders, cold", median_seconds(lambda i=0: ours_schedule(i, cold=True), repeats), theirs)
    line("dpproofs Accountant, default orders, warm", median_seconds(lambda i=0: ours_schedule(i, None), repeats), theirs)
    line("dpproofs Accountant, default orders, cold", median_seconds(lambda i=0: ours_schedule(i, None, True), repeats), theirs)
    print(f"  epsilon: dp_accounting {theirs_schedule():.10f}, dpproofs {ours_schedule():.10f} (same orders), "
          f"{ours_schedule(0, None):.10f} (default orders)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21)
    repeats = parser.parse_args().repeats
    logging.getLogger("absl").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")

    import dp_accounting
    from dp_accounting import mechanism_calibration
    from dp_accounting.rdp import rdp_privacy_accountant

    their_orders = list(rdp_privacy_accountant.DEFAULT_RDP_ORDERS)

    def event(sigma, q=Q):
        return dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))

    theirs = query_block(4.0, repeats, their_orders, event, rdp_privacy_accountant)
    print()
    theirs = query_block(SIGMA, repeats, their_orders, event, rdp_privacy_accountant)
    print()
    query_block(50.0, repeats, their_orders, event, rdp_privacy_accountant, q=1e-4, steps=10**6)
    print()
    schedule_block(max(3, repeats // 4), their_orders, event, rdp_privacy_accountant)
    print()
    try:
        from prv_accountant import Accountant as PrvAccountant

        def prv_query(index=0):
            accountant = PrvAccountant(noise_multiplier=SIGMA, sampling_probability=Q, delta=DELTA,
                                       max_compositions=STEPS, eps_error=0.01)
            return accountant.compute_epsilon(STEPS)

        line("prv_accountant (info: PRV bound, eps_error 0.01)", median_seconds(prv_query, 2), theirs)
        print(f"  prv_accountant (lower, estimate, upper) = {tuple(round(x, 6) for x in prv_query())}")
    except ImportError:
        print("  prv_accountant not installed")

    print(f"\n(b) calibrate sigma: epsilon={TARGET_EPSILON}, delta={DELTA}, q={Q}, T={STEPS}")

    def theirs_calibrate(index=0):
        return mechanism_calibration.calibrate_dp_mechanism(
            rdp_privacy_accountant.RdpAccountant,
            lambda sigma: dp_accounting.SelfComposedDpEvent(event(sigma), STEPS),
            TARGET_EPSILON, DELTA,
            bracket_interval=mechanism_calibration.ExplicitBracketInterval(0.1, 100.0),
        )

    def ours_calibrate(index=0, orders=None, cold=False):
        q = Q * (1 + 1e-12 * (index + 1)) if cold else Q
        return dp.calibrate_sigma(epsilon=TARGET_EPSILON, delta=DELTA, q=q, steps=STEPS, orders=orders)

    calibration_repeats = max(3, repeats // 3)
    theirs = median_seconds(theirs_calibrate, calibration_repeats)
    line("dp_accounting calibrate_dp_mechanism (its default orders)", theirs)
    line("dpproofs calibrate_sigma, default orders", median_seconds(ours_calibrate, repeats), theirs)
    line("dpproofs calibrate_sigma, default orders, cold q", median_seconds(lambda i=0: ours_calibrate(i, None, True), repeats), theirs)
    line("dpproofs calibrate_sigma, dp_accounting's orders", median_seconds(lambda i=0: ours_calibrate(i, their_orders), repeats), theirs)
    print(f"  sigma: dp_accounting {theirs_calibrate():.8f}, dpproofs {ours_calibrate():.8f} (default orders), "
          f"{ours_calibrate(0, their_orders):.8f} (dp_accounting's orders)")
    accountant_module._RDP_CACHE.clear()


def grid_loss():
    import dpproofs as dp
    from dpproofs.accountant import rdp as module

    rows = []
    for q in (1e-4, 1e-3, 0.01, 0.1, 0.5, 1.0):
        for sigma in (0.5, 1.0, 2.0, 4.0, 10.0, 50.0):
            for steps in (1, 100, 10**4, 10**6):
                acc = dp.Accountant().compose(dp.SampledGaussian(q, sigma), steps)
                grid, alpha = acc.epsilon_and_order(1e-5)
                refined, refined_alpha = acc.epsilon_and_order(1e-5, refine=True)
                if refined > 1e-9:  # a relative loss of an epsilon at the float floor is meaningless
                    rows.append((grid / refined - 1, q, sigma, steps, grid, refined, alpha, refined_alpha))
    rows.sort(reverse=True)
    losses = sorted(r[0] for r in rows)
    print(f"grid loss over {len(rows)} configurations: worst {rows[0][0]:.4%} at {rows[0][1:]}, "
          f"median {statistics.median(losses):.4%}, 90th percentile {losses[int(0.9 * len(losses))]:.4%}")
    for row in rows[:8]:
        print("   ", row)
    settings = [dp.SampledGaussian(0.001 + i * 1e-5, 0.8 + i * 1e-3) for i in range(1000)]
    for label in ("cold", "warm"):
        start = time.perf_counter()
        for mechanism in settings:
            dp.Accountant().compose(mechanism, 100).epsilon(1e-5)
        print(f"1000 settings, {label}: {(time.perf_counter() - start) / 1000 * 1e6:.1f} us per setting")
    print(f"RDP cache: {module._RDP_CACHE.nbytes} bytes in {len(module._RDP_CACHE._data)} entries "
          f"(bound {module.RDP_CACHE_BYTES} bytes)")


if __name__ == "__main__":
    import sys

    if "--grid-loss" in sys.argv:
        grid_loss()
        sys.exit(0)
    main()
