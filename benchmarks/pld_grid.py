"""The PLD accountant on a grid of 20 configurations against the exact reference (issue 11).

For each (q, sigma, T, delta): our bracket ``(lower, upper)`` (default width target 1e-3), its
width, and the exact composed hockey stick at both ends and at dp_accounting's PLD epsilon
(``dpproofs.evaluator.precise_pld.delta_sampled_gaussian_composed``, Bromwich inversion; T = 1 by
the closed form). The bracket contains the exact epsilon iff ``delta_exact(upper) <= delta <=
delta_exact(lower)``; dp_accounting's value is below the exact epsilon iff
``delta_exact(theirs) > delta``. Minutes per configuration: run it alone, e.g.
``nice python benchmarks/pld_grid.py > grid.txt``.
"""

import math
import sys
import time

import dpproofs as dp
from dpproofs.evaluator import precise, precise_pld

GRID = (  # q, sigma, T, delta
    (1e-4, 0.5, 1, 1e-5), (1e-4, 1.0, 1000, 1e-12), (1e-4, 4.0, 10**6, 1e-6), (5e-4, 2.0, 10**5, 1e-8),
    (1e-3, 0.8, 10**4, 1e-5), (1e-3, 10.0, 10**6, 1e-3), (3e-3, 1.1, 10**5, 1e-10), (0.01, 0.5, 100, 1e-5),
    (0.01, 1.0, 10**4, 1e-5), (0.01, 4.0, 10**4, 1e-5), (0.01, 20.0, 10**6, 1e-12), (0.02, 1.5, 1000, 1e-7),
    (0.05, 2.0, 1, 1e-3), (0.05, 3.0, 5000, 1e-9), (0.1, 1.0, 100, 1e-6), (0.1, 8.0, 10**4, 1e-4),
    (0.2, 4.0, 1000, 1e-10), (0.3, 5.0, 1000, 1e-5), (0.5, 2.0, 10, 1e-8), (0.5, 20.0, 10**5, 1e-12),
)


#: Seconds one exact reference value may take (it runs in a subprocess; None past it).
REFERENCE_SECONDS = 150


def exact_delta(epsilon, q, sigma, steps):
    """The exact composed delta at ``epsilon``, or None when the reference takes too long."""
    if steps == 1:
        return float(precise.delta_sampled_gaussian(epsilon, q, sigma, dps=30))
    import subprocess

    code = ("import sys; from dpproofs.evaluator import precise_pld; "
            "print(float(precise_pld.delta_sampled_gaussian_composed(*map(float, sys.argv[1:4]), int(sys.argv[4]))))")
    try:
        out = subprocess.run([sys.executable, "-c", code, repr(epsilon), repr(q), repr(sigma), str(steps)],
                             capture_output=True, text=True, timeout=REFERENCE_SECONDS, check=True)
    except (subprocess.TimeoutExpired, subprocess.CalledProcessError):
        return None
    return float(out.stdout)


def dp_accounting_epsilon(q, sigma, steps, delta):
    try:
        import dp_accounting as dpa
        from dp_accounting.pld import pld_privacy_accountant
    except ImportError:
        return None
    accountant = pld_privacy_accountant.PLDAccountant()
    accountant.compose(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), steps))
    return float(accountant.get_epsilon(delta))


def main():
    print("q sigma T delta | lower upper width source seconds | delta_exact(upper) delta_exact(lower) contains | "
          "dp_accounting delta_exact(theirs) below_exact")
    for q, sigma, steps, delta in GRID:
        started = time.perf_counter()
        bounds = dp.PLDAccountant().compose(dp.SampledGaussian(q, sigma), steps).epsilon_bounds(delta)
        seconds = time.perf_counter() - started
        width = (bounds.upper - bounds.lower) / bounds.upper if bounds.upper > 0 else 0.0
        at_upper = exact_delta(bounds.upper, q, sigma, steps)
        at_lower = exact_delta(bounds.lower, q, sigma, steps) if bounds.lower > 0 else 1.0
        contains = None if at_upper is None or at_lower is None else at_upper <= delta <= at_lower
        theirs = dp_accounting_epsilon(q, sigma, steps, delta)
        at_theirs = exact_delta(theirs, q, sigma, steps) if theirs is not None and math.isfinite(theirs) else None
        below = None if at_theirs is None else at_theirs > delta
        print(f"{q:g} {sigma:g} {steps} {delta:g} | {bounds.lower:.7g} {bounds.upper:.7g} {width:.2e} "
              f"{bounds.source} {seconds:.2f} | {at_upper} {at_lower} {contains} | {theirs} "
              f"{at_theirs} {below}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
