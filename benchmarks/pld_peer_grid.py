"""Tight accounting beside its peers on a broad grid, written before any tuning (issue 22).

    nice python benchmarks/pld_peer_grid.py [--rows 0-9,12] [--timeout 300] [--runners ours,dpa_1e-4] > benchmarks/pld_peer_grid_DATE.txt

48 configurations: q 1e-6..1, sigma 0.3..100, T 1..1e9, delta 1e-15..1e-2; Poisson and fixed-size
batches; add/remove and replace-one; heterogeneous compositions of 2-3 mechanisms. Each call runs in
a FRESH process after two small warm-up calls of the same library (imports and first-call costs
excluded), with a timeout; for each row:

* ours: ``dpproofs.PLDAccountant()`` (default width target 1e-3): bracket, relative width, source
  (``pld`` / ``rdp`` / ``exact``), seconds;
* dp_accounting 0.6 ``PLDAccountant`` at value_discretization_interval 1e-4 and 1e-3 (epsilon,
  seconds; "unsupported" where it refuses the event or the relation);
* the PRV accountant (``prv_accountant.PRVAccountant``, eps_error 0.01; its upper estimate) where
  it has the mechanisms (Poisson or plain, add/remove);
* the exact value where one is known: ``benchmarks/pld_reference.json`` (Bromwich inversion /
  closed forms), or a plain Gaussian composition (sigma / sqrt(T), exact profile of Balle & Wang
  2018, arXiv 1805.06530v2, Thm 8, solved at 30 digits with ``dpproofs.math.precise``).

Last columns: ratio = dp_accounting(1e-4) seconds / ours, and flags: ``WIDE`` (relative width above
1e-3), ``MISS`` (bracket excludes the exact value), ``RDP`` (not from the PLD), ``SLOWER`` (ratio
below 1). A summary follows: median ratio, counts of each flag. Not a unit test.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# kind: "sg" Poisson-subsampled Gaussian (q, sigma, T); "fb" fixed-size batches (n, b, sigma, T);
# "g" Gaussian (sigma, T); "l" Laplace (b, T). A row: (relation, [mechanism, ...], delta).
P, R = "add_remove", "replace_one"
GRID = [
    # Poisson, add/remove: the spread of q, sigma, T, delta
    (P, [("sg", 1e-6, 1.0, 10**7)], 1e-8), (P, [("sg", 1e-5, 1.0, 10**7)], 1e-8),
    (P, [("sg", 1e-5, 0.5, 10**5)], 1e-10), (P, [("sg", 1e-4, 0.5, 1)], 1e-5),
    (P, [("sg", 1e-4, 1.0, 1000)], 1e-12), (P, [("sg", 1e-4, 4.0, 10**6)], 1e-6),
    (P, [("sg", 1e-4, 50.0, 10**6)], 1e-5), (P, [("sg", 1e-4, 2.0, 10**9)], 1e-6),
    (P, [("sg", 5e-4, 2.0, 10**5)], 1e-8), (P, [("sg", 4.9e-4, 0.889, 866)], 1e-12),
    (P, [("sg", 2.4e-4, 0.658, 3078)], 1.6e-11), (P, [("sg", 1e-3, 0.5, 10**4)], 1e-12),
    (P, [("sg", 1e-3, 0.8, 10**4)], 1e-5), (P, [("sg", 1e-3, 10.0, 10**5)], 1e-6),
    (P, [("sg", 1e-3, 10.0, 10**6)], 1e-3), (P, [("sg", 3e-3, 1.1, 10**5)], 1e-10),
    (P, [("sg", 0.01, 0.3, 10)], 1e-5), (P, [("sg", 0.01, 0.5, 100)], 1e-5),
    (P, [("sg", 0.01, 1.0, 10**4)], 1e-5), (P, [("sg", 0.01, 4.0, 10**4)], 1e-5),
    (P, [("sg", 0.01, 4.0, 4 * 10**4)], 1e-5), (P, [("sg", 0.01, 20.0, 10**6)], 1e-12),
    (P, [("sg", 0.01, 1.0, 10**8)], 1e-15), (P, [("sg", 0.02, 1.5, 1000)], 1e-7),
    (P, [("sg", 0.05, 3.0, 5000)], 1e-9), (P, [("sg", 0.1, 1.0, 100)], 1e-6),
    (P, [("sg", 0.1, 8.0, 10**4)], 1e-4), (P, [("sg", 0.3, 5.0, 1000)], 1e-5),
    (P, [("sg", 0.5, 20.0, 10**5)], 1e-12), (P, [("sg", 1.0, 100.0, 10**4)], 1e-2),
    (P, [("sg", 1.0, 1.0, 1)], 1e-5),
    # Poisson, replace-one
    (R, [("sg", 1e-3, 1.0, 10**4)], 1e-5), (R, [("sg", 0.01, 4.0, 10**4)], 1e-5),
    (R, [("sg", 0.05, 2.0, 1000)], 1e-8), (R, [("sg", 1e-4, 0.7, 10**5)], 1e-6),
    # fixed-size batches, both relations
    (P, [("fb", 60000, 256, 1.1, 1000)], 1e-5), (R, [("fb", 60000, 256, 1.1, 1000)], 1e-5),
    (R, [("fb", 10**6, 1000, 0.8, 10**4)], 1e-6), (P, [("fb", 50000, 500, 2.0, 5000)], 1e-8),
    # plain mechanisms (exact references)
    (P, [("g", 1.0, 1)], 1e-5), (P, [("g", 0.3, 1)], 1e-6), (P, [("g", 100.0, 10**4)], 1e-10),
    (P, [("g", 10.0, 10**9)], 1e-5), (P, [("l", 1.0, 10)], 1e-6),
    # heterogeneous compositions of 2-3 mechanisms
    (P, [("sg", 0.01, 1.0, 5000), ("g", 20.0, 10)], 1e-5),
    (P, [("sg", 0.01, 2.0, 1000), ("sg", 0.001, 0.8, 10**4)], 1e-6),
    (P, [("sg", 0.02, 1.2, 500), ("l", 50.0, 5), ("g", 5.0, 3)], 1e-7),
    (P, [("g", 0.025, 1), ("l", 3.0, 1)], 1e-5),
]


def _ours(row):
    import dpproofs as dp

    relation, mechanisms, delta = row
    accountant = dp.PLDAccountant(relation=relation)
    for kind, *args in mechanisms:
        count = args[-1]
        if kind == "sg":
            mechanism = dp.SampledGaussian(args[0], args[1])
        elif kind == "fb":
            mechanism = dp.FixedBatchGaussian(args[1], args[0], args[2])  # (batch_size, dataset_size, sigma)
        elif kind == "g":
            mechanism = dp.Gaussian(args[0])
        else:
            mechanism = dp.Laplace(args[0])
        accountant = accountant.compose(mechanism, count)
    bounds = accountant.epsilon_bounds(delta)
    return {"lower": bounds.lower, "upper": bounds.upper, "source": bounds.source}


def _dp_accounting(row, interval):
    import dp_accounting as dpa
    from dp_accounting.pld import pld_privacy_accountant

    relation, mechanisms, delta = row
    rel = dpa.NeighboringRelation.ADD_OR_REMOVE_ONE if relation == P else dpa.NeighboringRelation.REPLACE_ONE
    events = []
    for kind, *args in mechanisms:
        if kind == "sg":
            event = dpa.PoissonSampledDpEvent(args[0], dpa.GaussianDpEvent(args[1]))
        elif kind == "fb":
            event = dpa.SampledWithoutReplacementDpEvent(args[0], args[1], dpa.GaussianDpEvent(args[2]))
        elif kind == "g":
            event = dpa.GaussianDpEvent(args[0])
        else:
            event = dpa.LaplaceDpEvent(args[0])
        events.append(dpa.SelfComposedDpEvent(event, args[-1]))
    accountant = pld_privacy_accountant.PLDAccountant(rel, value_discretization_interval=interval)
    event = dpa.ComposedDpEvent(events)
    if not accountant.supports(event):
        return {"unsupported": True}
    accountant.compose(event)
    return {"epsilon": accountant.get_epsilon(delta)}


def _prv(row):
    import prv_accountant as prv

    relation, mechanisms, delta = row
    if relation != P or any(kind == "fb" for kind, *_ in mechanisms):
        return {"unsupported": True}
    prvs, counts = [], []
    for kind, *args in mechanisms:
        if kind == "sg":
            prvs.append(prv.PoissonSubsampledGaussianMechanism(sampling_probability=args[0], noise_multiplier=args[1]))
        elif kind == "g":
            prvs.append(prv.GaussianMechanism(noise_multiplier=args[0]))
        else:
            prvs.append(prv.LaplaceMechanism(mu=1.0 / args[0]))
        counts.append(int(args[-1]))
    accountant = prv.PRVAccountant(prvs=prvs, max_self_compositions=counts, eps_error=0.01, delta_error=delta / 1000)
    lower, estimate, upper = accountant.compute_epsilon(delta=delta, num_self_compositions=counts)
    return {"epsilon": upper, "estimate": estimate}


# warm-up calls: a sampled Gaussian (the grid path) and a Gaussian (ours: the closed form, whose
# python-flint import, about 37 ms, was counted in the first closed-form row of each fresh process
# until 2026-12-06; the peers get the same two calls)
WARM = [(P, [("sg", 0.02, 2.0, 10)], 1e-5), (P, [("g", 2.0, 10)], 1e-5)]
RUNNERS = {"ours": _ours, "dpa_1e-4": lambda row: _dp_accounting(row, 1e-4),
           "dpa_1e-3": lambda row: _dp_accounting(row, 1e-3), "prv": _prv}


def _child(runner, index):
    """Run one call in this (fresh) process after the warm-up calls; print JSON."""
    import logging
    import warnings

    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    function = RUNNERS[runner]
    for warm in WARM:
        try:
            function(warm)
        except Exception:  # noqa: BLE001 - a peer's warm-up failure is reported by the timed call
            pass
    start = time.perf_counter()
    try:
        result = function(GRID[index])
    except Exception as error:  # noqa: BLE001 - a benchmark reports every outcome, peers' errors too
        result = {"error": f"{type(error).__name__}: {str(error)[:80]}"}
    result["seconds"] = time.perf_counter() - start
    print(json.dumps(result))


def _call(runner, index, timeout):
    try:
        out = subprocess.run([sys.executable, __file__, "--child", runner, str(index)], capture_output=True,
                             text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout {timeout} s", "seconds": float(timeout)}
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else {"error": (out.stderr.strip().splitlines() or ["?"])[-1][:80]}


def _exact(row):
    relation, mechanisms, delta = row
    reference = json.load(open(os.path.join(HERE, "pld_reference.json")))["values"]
    if relation == P and len(mechanisms) == 1 and mechanisms[0][0] == "sg":
        _, q, sigma, steps = mechanisms[0]
        value = reference.get(f"{q},{sigma},{steps},{delta}")
        if value:
            return value["epsilon"], value["epsilon_uncertainty"]
    if len(mechanisms) == 1 and mechanisms[0][0] == "g":
        from mpmath import mp

        from dpproofs.math import precise

        _, sigma, steps = mechanisms[0]
        with mp.workdps(30):
            s = mp.mpf(sigma) / mp.sqrt(steps) / (2 if relation == R else 1)
            if precise.delta_gaussian(0, s, dps=30) <= delta:
                return 0.0, 0.0
            low, high = mp.mpf(0), 1 / s**2 + 10 / s  # delta_gaussian decreases in eps: bisection
            for _ in range(80):
                middle = (low + high) / 2
                low, high = (middle, high) if precise.delta_gaussian(middle, s, dps=30) > delta else (low, middle)
            return float((low + high) / 2), float(high - low)
    return None, None


def _fmt(result, key="epsilon"):
    if "skipped" in result:
        return "skipped", None
    if "unsupported" in result:
        return "unsupported", None
    if "error" in result:
        return result["error"][:28], None
    return f"{result[key]:.7g}", result["seconds"]


def _rows(spec):
    if not spec:
        return list(range(len(GRID)))
    rows = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        rows += list(range(int(a), int(b or a) + 1))
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--child", nargs=2)
    parser.add_argument("--rows", default="")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--runners", default=",".join(RUNNERS),
                        help="comma-separated subset of ours,dpa_1e-4,dpa_1e-3,prv (the others print 'skipped')")
    args = parser.parse_args()
    if args.child:
        return _child(args.child[0], int(args.child[1]))
    print(f"# {' '.join(['python'] + sys.argv)}  ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"each call in a fresh process after two warm-up calls)")
    print("# row relation mechanisms delta | ours lower upper rel_width source s | dpa(1e-4) s | dpa(1e-3) s | "
          "prv_upper s | exact | ratio flags")
    ratios, flags_count = [], {}
    for index in _rows(args.rows):
        row = GRID[index]
        chosen = set(args.runners.split(",")) | {"ours"}
        results = {name: _call(name, index, args.timeout) if name in chosen else {"skipped": True}
                   for name in RUNNERS}
        ours = results["ours"]
        exact, uncertainty = _exact(row)
        flags = []
        if "error" in ours:
            ours_text, width = ours["error"], math.inf
            flags.append("ERROR")
        else:
            width = (ours["upper"] - ours["lower"]) / ours["upper"] if ours["upper"] > 0 else 0.0
            ours_text = f"{ours['lower']:.7g} {ours['upper']:.7g} {width:.1e} {ours['source']} {ours['seconds']:.2f}"
            if width > 1e-3:
                flags.append("WIDE")
            if ours["source"] == "rdp":
                flags.append("RDP")
            if exact is not None and not ours["lower"] <= exact + uncertainty and exact - uncertainty <= ours["upper"]:
                flags.append("MISS")
        peer_text = []
        for name in ("dpa_1e-4", "dpa_1e-3", "prv"):
            value, seconds = _fmt(results[name])
            peer_text.append(value if seconds is None else f"{value} {seconds:.2f}")
        ratio = None
        if "seconds" in results["dpa_1e-4"] and "epsilon" in results["dpa_1e-4"] and "error" not in ours:
            ratio = results["dpa_1e-4"]["seconds"] / max(ours["seconds"], 1e-6)
            ratios.append(ratio)
            if ratio < 1:
                flags.append("SLOWER")
        for flag in flags:
            flags_count[flag] = flags_count.get(flag, 0) + 1
        mechanisms = "+".join(f"{k}{tuple(a)}" for k, *a in row[1]).replace(" ", "")
        print(f"{index} {row[0]} {mechanisms} {row[2]:g} | {ours_text} | {' | '.join(peer_text)} | "
              f"{'-' if exact is None else f'{exact:.9g}'} | {'-' if ratio is None else f'{ratio:.2f}'} "
              f"{' '.join(flags)}", flush=True)
    if ratios:
        print(f"# median ratio dp_accounting(1e-4)/ours {statistics.median(ratios):.2f} over {len(ratios)} rows; "
              f"min {min(ratios):.3f}; flags {flags_count}")


if __name__ == "__main__":
    main()
