"""The PLD accountant on a grid of 20 configurations against the exact reference (issue 11).

For each (q, sigma, T, delta): our bracket ``(lower, upper)`` (default width target 1e-3), its
width, and the exact tight epsilon stored in ``benchmarks/pld_reference.json`` (computed once by
``benchmarks/pld_reference.py``: Bromwich inversion with its own two-contour check; T = 1 by the
closed form), with its uncertainty; the bracket contains it iff ``lower <= exact - unc`` and
``exact + unc <= upper``. dp_accounting's PLD epsilon (default settings) is compared with the same
exact value ("below" = an estimate under the truth). Then the extreme queries (delta = 1e-300,
10^9 steps) that must answer. About two minutes alone:
``nice python benchmarks/pld_grid.py > benchmarks/pld_grid_YYYY-MM-DD.txt``.
"""

import sys
import time

import dpproofs as dp

GRID = (  # q, sigma, T, delta
    (1e-4, 0.5, 1, 1e-5), (1e-4, 1.0, 1000, 1e-12), (1e-4, 4.0, 10**6, 1e-6), (5e-4, 2.0, 10**5, 1e-8),
    (1e-3, 0.8, 10**4, 1e-5), (1e-3, 10.0, 10**6, 1e-3), (3e-3, 1.1, 10**5, 1e-10), (0.01, 0.5, 100, 1e-5),
    (0.01, 1.0, 10**4, 1e-5), (0.01, 4.0, 10**4, 1e-5), (0.01, 20.0, 10**6, 1e-12), (0.02, 1.5, 1000, 1e-7),
    (0.05, 2.0, 1, 1e-3), (0.05, 3.0, 5000, 1e-9), (0.1, 1.0, 100, 1e-6), (0.1, 8.0, 10**4, 1e-4),
    (0.2, 4.0, 1000, 1e-10), (0.3, 5.0, 1000, 1e-5), (0.5, 2.0, 10, 1e-8), (0.5, 20.0, 10**5, 1e-12),
)


#: Beyond the grid: queries that must answer (no exact reference; source and time reported).
EXTREMES = ((0.01, 4.0, 10**4, 1e-300), (1e-4, 4.0, 10**9, 1e-6), (0.01, 4.0, 10**9, 1e-5))


def references():
    """The stored exact epsilons (benchmarks/pld_reference.json, made by pld_reference.py)."""
    import json
    import os

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pld_reference.json")
    with open(path) as handle:
        return json.load(handle)


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
    import datetime
    import logging
    import warnings

    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    stored = references()
    print(f"# benchmarks/pld_grid.py, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; exact values "
          f"from benchmarks/pld_reference.json ({stored['command']}, {stored['date']})")
    print("q sigma T delta | lower upper rel_width source seconds | exact (+-unc) contains | dp_accounting "
          "theirs_below_exact")
    failures = 0
    for q, sigma, steps, delta in GRID:
        started = time.perf_counter()
        bounds = dp.PLDAccountant().compose(dp.SampledGaussian(q, sigma), steps).epsilon_bounds(delta)
        seconds = time.perf_counter() - started
        width = (bounds.upper - bounds.lower) / bounds.upper if bounds.upper > 0 else 0.0
        ref = stored["values"].get(f"{q!r},{sigma!r},{steps!r},{delta!r}", {})
        exact, unc = ref.get("epsilon"), ref.get("epsilon_uncertainty", 0.0)
        contains = None if exact is None else bounds.lower <= exact - unc and exact + unc <= bounds.upper
        theirs = dp_accounting_epsilon(q, sigma, steps, delta)
        below = None if exact is None or theirs is None else theirs < exact - unc
        failures += (contains is not True) + (width > 1e-3) + (bounds.source != "pld")
        print(f"{q:g} {sigma:g} {steps} {delta:g} | {bounds.lower:.7g} {bounds.upper:.7g} {width:.2e} "
              f"{bounds.source} {seconds:.2f} | {exact if exact is None else format(exact, '.9g')} ({unc:.1e}) "
              f"{contains} | {theirs if theirs is None else format(theirs, '.7g')} {below}", flush=True)
    print("# extremes (no exact reference): q sigma T delta | lower upper source seconds")
    for q, sigma, steps, delta in EXTREMES:
        started = time.perf_counter()
        bounds = dp.PLDAccountant().compose(dp.SampledGaussian(q, sigma), steps).epsilon_bounds(delta)
        print(f"{q:g} {sigma:g} {steps} {delta:g} | {bounds.lower:.7g} {bounds.upper:.7g} {bounds.source} "
              f"{time.perf_counter() - started:.2f}", flush=True)
    print(f"# {failures} failures (bracket missing the exact value, width above 1e-3, or not from the PLD)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
