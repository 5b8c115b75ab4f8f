"""Exact tight epsilons of the PLD grid (benchmarks/pld_grid.py), computed once and stored.

    nice python benchmarks/pld_reference.py [--only INDEX ...]   # writes benchmarks/pld_reference.json

For each configuration (q, sigma, T, delta) of ``pld_grid.GRID``: the exact tight epsilon of T
Poisson-subsampled Gaussian steps at delta (max over the two neighbouring directions), found by
regula falsi on the exact delta(eps):

* T >= 2: :func:`dpproofs.math.pld_exact.bromwich_delta` (vectorised Bromwich inversion of
  the privacy-loss moment generating function along the saddle-point contour; every value is
  accepted only if a second contour, Re s = 0.85 c, with refined quadrature steps, agrees to
  ``RTOL``; the largest disagreement met is stored as ``agreement``);
* T = 1: the closed form :func:`dpproofs.math.precise.delta_sampled_gaussian` (mpmath, 30
  digits), by bisection.

The starting bracket is the PLD accountant's bracket widened by 2% (then 20%, then to
[0, the RDP bound]): nothing of the accountant enters the value, only where the search starts.
Stored per configuration: ``epsilon`` (midpoint), ``low``/``high`` (delta_exact(low) > delta >=
delta_exact(high)), ``epsilon_uncertainty`` (the reference's own error translated to epsilon:
agreement / |d log delta / d eps|), the method, seconds, and the command and date of the run.
"""

import argparse
import datetime
import json
import math
import os
import sys
import time

import dpproofs as dp
from dpproofs.math import precise
from dpproofs.math import pld_exact as precise_pld

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pld_grid import GRID  # noqa: E402

#: Agreement required of the two contours (relative, on delta).
RTOL = 1e-4
PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pld_reference.json")


def key(q, sigma, steps, delta):
    return f"{q!r},{sigma!r},{steps!r},{delta!r}"


def closed_form_epsilon(q, sigma, delta, low, high):
    def d(eps):
        return float(precise.delta_sampled_gaussian(eps, q, sigma, dps=30))
    if not d(low) > delta >= d(high):
        raise ValueError("bracket does not contain epsilon")
    while high - low > 1e-10 * high:
        mid = (low + high) / 2
        if d(mid) > delta:
            low = mid
        else:
            high = mid
    return (low + high) / 2, low, high, 0.0


def reference(q, sigma, steps, delta):
    bounds = dp.PLDAccountant().compose(dp.SampledGaussian(q, sigma), steps).epsilon_bounds(delta)
    rdp = dp.Accountant().compose(dp.SampledGaussian(q, sigma), steps).epsilon(delta)
    started = time.perf_counter()
    for widen in (0.02, 0.2, None):
        if widen is None:
            low, high = 1e-9, rdp
        else:
            low, high = bounds.lower * (1 - widen), bounds.upper * (1 + widen)
        try:
            if steps == 1:
                eps, lo, hi, agreement = closed_form_epsilon(q, sigma, delta, low, high)
                method = "closed form (precise.delta_sampled_gaussian, 30 digits), bisection"
            else:
                eps, lo, hi, agreement = precise_pld.bromwich_epsilon(delta, q, sigma, steps, bracket=(low, high), rtol=RTOL)
                method = f"precise_pld.bromwich_epsilon (two contours agree to rtol {RTOL:g})"
            break
        except ValueError as error:  # the closed form: bracket does not contain epsilon
            last = error
        except ArithmeticError as error:
            last = error
    else:
        raise last
    # the reference's error on delta, as an error on epsilon: |d log delta / d eps| ~ theta
    slope = None
    if steps > 1:
        e1, e2 = eps * (1 - 1e-4), eps * (1 + 1e-4)
        d1 = precise_pld.bromwich_delta(e1, q, sigma, steps, rtol=RTOL)
        d2 = precise_pld.bromwich_delta(e2, q, sigma, steps, rtol=RTOL)
        slope = abs(math.log(d1) - math.log(d2)) / (e2 - e1)
    uncertainty = (agreement / slope if slope else 0.0) + (hi - lo) / 2
    return {"q": q, "sigma": sigma, "steps": steps, "delta": delta, "epsilon": eps, "low": lo, "high": hi,
            "agreement": agreement, "epsilon_uncertainty": uncertainty, "method": method,
            "seconds": round(time.perf_counter() - started, 2)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", type=int, nargs="*", help="indices into GRID")
    args = parser.parse_args()
    stored = json.load(open(PATH)) if os.path.exists(PATH) else {"values": {}}
    indices = args.only if args.only else range(len(GRID))
    for index in indices:
        q, sigma, steps, delta = GRID[index]
        try:
            row = reference(q, sigma, steps, delta)
        except Exception as error:  # recorded, not hidden
            row = {"q": q, "sigma": sigma, "steps": steps, "delta": delta, "error": repr(error)}
        stored["values"][key(q, sigma, steps, delta)] = row
        stored["command"] = "nice python benchmarks/pld_reference.py" + (f" --only {' '.join(map(str, args.only))}" if args.only else "")
        stored["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        with open(PATH, "w") as handle:
            json.dump(stored, handle, indent=1, sort_keys=True)
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
