"""get_noise_multiplier: dpproofs' drop-in against Opacus' calibration loop, in one process.

    python benchmarks/bench_opacus.py [--repeats N] [--opacus-rdp opacus/accountants/analysis/rdp.py]

Opacus is not installed (it needs torch). Its RDP evaluator, ``opacus/accountants/analysis/rdp.py``,
needs only numpy and scipy: give the file of a clone with ``--opacus-rdp`` to time the loop with it
too (loaded at run time, not part of this project). Its calibration loop is reimplemented here from its
public description (``opacus.accountants.utils.get_noise_multiplier``: start with
``sigma_high = 10``; double it until the epsilon at ``sigma_high`` is at most the target; then
bisect between ``sigma_low = 0`` and ``sigma_high``, keeping the upper end whenever its epsilon is
below the target, until ``target - epsilon(sigma_high) <= epsilon_tolerance``; return
``sigma_high``). Each of its epsilon evaluations is run with two evaluators at Opacus' default
orders (``OPACUS_ALPHAS``):

* ``dp_accounting``: dp_accounting 0.6's ``RdpAccountant`` -- like Opacus' own
  ``analysis/rdp.py``, a float port of TF Privacy's RDP code, so the closest stand-in for the time
  Opacus takes;
* ``dpproofs``: ``dpproofs.Accountant`` (the loop's cost with our evaluator, i.e. the cost of the
  algorithm alone).

``dpproofs.integrations.opacus.get_noise_multiplier`` (``dpproofs.calibrate_sigma``: one-sided
bisection in log sigma to 1e-6 relative over this module's ORDERS, dpproofs' and Opacus' orders)
is timed "cold", as is the loop: every call nudges q by a new multiple of 1e-12 relative, so no
per-q table or per-mechanism RDP is reused (the loop's bisection would otherwise hit the same
sigmas in every repeat and scenario).

Printed per scenario: sigma, the epsilon at that sigma (by the dpproofs accountant at the orders
the method calibrated for), number of epsilon evaluations of the loop, median time, and the ratio
(loop time / dpproofs time). Not a unit test.

Observed with dp_accounting 0.6: its RDP at fractional orders is loose for q = 0.04, sigma = 1.356
(alpha = 1.1: 1.4722 per 2000 steps, against 1.2346 from dpproofs' mpmath integral; 2e-4
relative at the optimal alpha = 3.7), so the loop with its evaluator stops at a larger sigma than
Opacus' own test expects (1.3562), which the loop with dpproofs' evaluator reproduces.
"""

import argparse
import logging
import statistics
import time

import dpproofs as dp
from dpproofs.integrations import opacus as dpo

SCENARIOS = [
    # (label, target epsilon, delta, sample rate, steps) -- the first two are Opacus' own tests
    ("Opacus test, epochs=90", 8.0, 1e-5, 0.04, 2250),
    ("Opacus test, steps=2000", 8.0, 1e-5, 0.04, 2000),
    ("CIFAR-like, q=256/50000, 100 epochs", 3.0, 1e-5, 256 / 50000, 19532),
    ("high noise, q=1e-3, 1e5 steps", 1.0, 1e-6, 1e-3, 100000),
]


def opacus_loop(epsilon_at, target_epsilon, epsilon_tolerance=0.01, max_sigma=1e6):
    """Opacus' calibration loop (reimplemented from its description, see the module docstring).

    ``epsilon_at(sigma)`` is the accountant's epsilon at noise multiplier sigma. Returns
    ``(sigma, evaluations)``.
    """
    evaluations = 0
    sigma_low, sigma_high = 0.0, 10.0
    eps_high = float("inf")
    while eps_high > target_epsilon:
        sigma_high *= 2.0
        eps_high = epsilon_at(sigma_high)
        evaluations += 1
        if sigma_high > max_sigma:
            raise ValueError("the privacy budget is too low")
    while target_epsilon - eps_high > epsilon_tolerance:
        sigma = (sigma_low + sigma_high) / 2.0
        eps = epsilon_at(sigma)
        evaluations += 1
        if eps < target_epsilon:
            sigma_high, eps_high = sigma, eps
        else:
            sigma_low = sigma
    return sigma_high, evaluations


def dpproofs_epsilon(q, steps, delta, orders=dpo.OPACUS_ALPHAS):
    orders = list(orders)
    return lambda sigma: dp.Accountant(orders).compose(dp.SampledGaussian(q, sigma), steps).epsilon(delta)


#: Opacus' own ``opacus/accountants/analysis/rdp.py`` (numpy and scipy only), loaded from the file
#: given with ``--opacus-rdp`` (a clone of github.com/pytorch/opacus); None when not given.
OPACUS_RDP = None


def load_opacus_rdp(path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("opacus_analysis_rdp", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def opacus_epsilon(q, steps, delta, orders=dpo.OPACUS_ALPHAS):
    orders = list(orders)

    def epsilon_at(sigma):
        rdp = OPACUS_RDP.compute_rdp(q=q, noise_multiplier=sigma, steps=steps, orders=orders)
        return float(OPACUS_RDP.get_privacy_spent(orders=orders, rdp=rdp, delta=delta)[0])

    return epsilon_at


def dp_accounting_epsilon(q, steps, delta, orders=dpo.OPACUS_ALPHAS):
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant

    def epsilon_at(sigma):
        accountant = rdp_privacy_accountant.RdpAccountant(list(orders))
        accountant.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps)
        return accountant.get_epsilon(delta)

    return epsilon_at


_CALLS = iter(range(1, 10**9))


def fresh(q):
    """q nudged by a new multiple of 1e-12 relative on every call: no cache keyed on q (or on a
    mechanism) is ever reused, across repeats, methods and scenarios."""
    return q * (1 + 1e-12 * next(_CALLS))


def median_seconds(function, repeats):
    function(-1)  # warm-up: imports, order-only caches
    times = []
    for index in range(repeats):
        start = time.perf_counter()
        function(index)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--opacus-rdp", metavar="PATH", default=None,
                        help="Opacus' opacus/accountants/analysis/rdp.py: also time the loop with Opacus' own evaluator")
    args = parser.parse_args(argv)
    global OPACUS_RDP
    if args.opacus_rdp:
        OPACUS_RDP = load_opacus_rdp(args.opacus_rdp)
    logging.getLogger("absl").setLevel(logging.ERROR)  # dp_accounting's warnings on dropped orders
    print(f"get_noise_multiplier, median of {args.repeats} repeats (the dp_accounting loop: {max(1, args.repeats // 5)}); cold: q nudged on every call")
    print("eps: dpproofs at the orders each method calibrated for (ours: ORDERS; the loops: OPACUS_ALPHAS)")
    for label, target, delta, q, steps in SCENARIOS:
        print(f"\n{label}: target epsilon {target}, delta {delta:g}, q {q:.6g}, steps {steps}")

        def ours(index, q=q):
            return dpo.get_noise_multiplier(
                target_epsilon=target, target_delta=delta, sample_rate=fresh(q), steps=steps
            )

        t_ours = median_seconds(ours, args.repeats)
        sigma_ours = ours(-2)
        eps_ours = dpo.Accountant()
        eps_ours.history = [(sigma_ours, q, steps)]
        print(
            f"  {'dpproofs get_noise_multiplier':40s} sigma {sigma_ours:.7f}  eps {eps_ours.get_epsilon(delta):.7f}"
            f"  {t_ours * 1e3:9.2f} ms"
        )
        evaluators = [("dp_accounting", dp_accounting_epsilon), ("dpproofs", dpproofs_epsilon)]
        if OPACUS_RDP is not None:
            evaluators.insert(0, ("Opacus rdp.py", opacus_epsilon))
        for name, make in evaluators:
            def loop(index, make=make, q=q):
                return opacus_loop(make(fresh(q), steps, delta), target)

            t_loop = median_seconds(loop, max(1, args.repeats // (1 if name == "dpproofs" else 5)))
            sigma, evaluations = loop(-2)
            eps = dpproofs_epsilon(q, steps, delta)(sigma)
            print(
                f"  {'Opacus loop, ' + name + ' evaluator':40s} sigma {sigma:.7f}  eps {eps:.7f}"
                f"  {t_loop * 1e3:9.2f} ms  ({evaluations} evaluations)  ratio {t_loop / t_ours:7.1f}x"
            )


if __name__ == "__main__":
    main()
