"""Ledgers of mechanisms with loss atoms (Laplace, randomized response): the PLD bracket on a grid.

    python benchmarks/pld_atom_ledgers.py

Every combination of five mechanisms, T in {1, 3, 10, 30, 100, 1000} and delta in {1e-2, 1e-3,
1e-6, 1e-10} (120 rows), each in a fresh dpproofs.PLDAccountant. Prints the rows whose bracket is
wider than the default target 1e-3 relative (WIDE), whose answer is the RDP bound (RDP: there the
tight epsilon is within a hair of the pure-DP cap T / b, and the RDP bound at order infinity is the
tighter upper end), or that took over a second; then the counts. Not a unit test.
"""

import itertools
import time

import dpproofs as dp

MECHANISMS = (("Laplace(0.5)", dp.Laplace(0.5)), ("Laplace(1)", dp.Laplace(1.0)), ("Laplace(3)", dp.Laplace(3.0)),
              ("RandomizedResponse(1)", dp.RandomizedResponse(1.0)),
              ("RandomizedResponse(3)", dp.RandomizedResponse(3.0)))
STEPS = (1, 3, 10, 30, 100, 1000)
DELTAS = (1e-2, 1e-3, 1e-6, 1e-10)
TARGET = 1e-3


def main():
    counts = {"WIDE": 0, "RDP": 0, "ERROR": 0}
    slowest = 0.0
    for (name, mechanism), steps, delta in itertools.product(MECHANISMS, STEPS, DELTAS):
        start = time.perf_counter()
        try:
            bracket = dp.PLDAccountant().compose(mechanism, steps).epsilon_bounds(delta)
        except dp.DPProofsError as error:
            counts["ERROR"] += 1
            print(f"{name} x {steps} delta={delta}: ERROR {error}")
            continue
        seconds = time.perf_counter() - start
        slowest = max(slowest, seconds)
        width = (bracket.upper - bracket.lower) / bracket.upper if bracket.upper > 0 else 0.0
        flag = "WIDE" if width > TARGET else ("RDP" if bracket.source == "rdp" else "")
        if flag:
            counts[flag] += 1
        if flag or seconds > 1:
            print(f"{name} x {steps} delta={delta}: [{bracket.lower:.7g}, {bracket.upper:.7g}] "
                  f"width {width:.1e} from {bracket.source} in {seconds:.2f} s {flag}")
    total = len(MECHANISMS) * len(STEPS) * len(DELTAS)
    print(f"# {total} rows: {counts['WIDE']} wider than {TARGET}, {counts['RDP']} from the RDP bound, "
          f"{counts['ERROR']} errors; slowest {slowest:.2f} s")


if __name__ == "__main__":
    main()
