"""Default RDP epsilon of dpproofs against dp_accounting's and Opacus' at THEIR default orders.

    python benchmarks/rdp_default_vs_peers.py [--out FILE]

The grid was fixed before any tuning (issue 24: "on a grid of at least 200 configurations our
default epsilon is never above dp_accounting's or Opacus' by more than 1e-9 relative"): Poisson
subsampled Gaussian, add/remove, q in {1e-5, 1e-4, 1e-3, 0.01, 0.05, 0.1, 0.3, 1}, sigma in
{0.5, 0.8, 1, 1.5, 3, 10}, steps in {1, 10, 1000, 1e5}, delta in {1e-5, 1e-9}: 384 runs.
For each: dpproofs ``Accountant().epsilon(delta)`` (its defaults), dp_accounting ``RdpAccountant``
(default orders, add/remove) and Opacus ``RDPAccountant`` (its default alphas; its
``get_privacy_spent``). Prints every row whose ratio ours/peer exceeds 1 + 1e-9, the worst ratio
per peer, and the total time per accountant (one process; a peer's errors are listed, not fixed).
Not a unit test: a benchmark, with the figures in its output.
"""

import argparse
import itertools
import sys
import time
import warnings

import dpproofs as dp

QS = (1e-5, 1e-4, 1e-3, 0.01, 0.05, 0.1, 0.3, 1.0)
SIGMAS = (0.5, 0.8, 1.0, 1.5, 3.0, 10.0)
STEPS = (1, 10, 1000, 100000)
DELTAS = (1e-5, 1e-9)
#: Relative excess over a peer that counts as "above" (the issue's threshold).
EXCESS = 1e-9


def ours(q, sigma, steps, delta):
    accountant = dp.Accountant()
    accountant.compose(dp.SampledGaussian(q, sigma), steps)
    return float(accountant.epsilon(delta))


def dp_accounting_epsilon(q, sigma, steps, delta):
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant

    accountant = rdp_privacy_accountant.RdpAccountant()
    event = dp_accounting.GaussianDpEvent(sigma)
    if q < 1:
        event = dp_accounting.PoissonSampledDpEvent(q, event)
    accountant.compose(event, steps)
    return float(accountant.get_epsilon(delta))


def opacus_epsilon(q, sigma, steps, delta):
    from opacus.accountants import RDPAccountant

    accountant = RDPAccountant()
    accountant.history = [(sigma, q, steps)]
    return float(accountant.get_epsilon(delta))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="also write the report to this file")
    args = parser.parse_args(argv)
    peers = {"dp_accounting": dp_accounting_epsilon}
    try:
        import opacus  # noqa: F401

        peers["opacus"] = opacus_epsilon
    except ImportError:
        print("opacus not installed: compared with dp_accounting only")
    lines, worst, seconds = [], {name: (0.0, None) for name in peers}, {name: 0.0 for name in ("dpproofs", *peers)}
    above = {name: 0 for name in peers}
    grid = list(itertools.product(QS, SIGMAS, STEPS, DELTAS))
    warnings.simplefilter("ignore")
    for q, sigma, steps, delta in grid:
        start = time.perf_counter()
        mine = ours(q, sigma, steps, delta)
        seconds["dpproofs"] += time.perf_counter() - start
        for name, peer in peers.items():
            start = time.perf_counter()
            try:
                theirs = peer(q, sigma, steps, delta)
            except Exception as error:  # a peer's failure is reported, not fatal
                lines.append(f"  {name} failed at q={q} sigma={sigma} T={steps} delta={delta}: {error!r}")
                continue
            finally:
                seconds[name] += time.perf_counter() - start
            ratio = mine / theirs if theirs > 0 else (1.0 if mine == 0 else float("inf"))
            if ratio > worst[name][0]:
                worst[name] = (ratio, (q, sigma, steps, delta, mine, theirs))
            if ratio > 1 + EXCESS:
                above[name] += 1
                lines.append(f"  above {name}: q={q} sigma={sigma} T={steps} delta={delta}: "
                             f"ours {mine!r} theirs {theirs!r} ratio {ratio:.12f}")
    lines.append(f"{len(grid)} configurations")
    for name in peers:
        ratio, where = worst[name]
        lines.append(f"{name}: {above[name]} of {len(grid)} above by more than {EXCESS:g} relative; "
                     f"worst ratio ours/theirs {ratio:.12f} at {where}")
    lines.append("total seconds: " + ", ".join(f"{k} {v:.2f}" for k, v in seconds.items()))
    report = "\n".join(lines)
    print(report)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(" ".join(sys.argv) + "\n" + report + "\n")


if __name__ == "__main__":
    main()
