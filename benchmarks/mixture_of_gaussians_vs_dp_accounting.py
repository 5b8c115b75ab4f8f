"""dp_accounting's own mixture-of-Gaussians test configuration, ours against theirs, in one process.

    python benchmarks/mixture_of_gaussians_vs_dp_accounting.py [rounds] [--their-bracket]

``test_mixture_of_gaussians_basic`` (dp_accounting/pld/pld_privacy_accountant_test.py): MoG(1, [0, 1,
2], [0.2, 0.6, 0.2]) x3 then MoG(2, [0, 2, 3], [0.33, 0.34, 0.33]) x2, expected epsilon 17.193115 at
delta 1e-6. Times, alternating: dp_accounting's PLDAccountant at its default discretisation 1e-4
(pessimistic: an upper estimate), dpproofs.PLDAccountant with dpproofs.MixtureOfGaussians (a
certified bracket), and the same through the bridge. ``--their-bracket`` also builds dp_accounting's
pessimistic and optimistic PLDs at 1e-4 (``privacy_loss_distribution.from_mixture_gaussian_mechanism``;
the optimistic one uses privacy buckets, minutes). Not a unit test: a measurement (wall clock,
noisy on a loaded machine: read the ratios).
"""

import sys
import time

import dp_accounting
from dp_accounting.pld import pld_privacy_accountant

import dpproofs as dp
from dpproofs.integrations import dp_accounting as bridge

MOG = dp_accounting.dp_event.MixtureOfGaussiansDpEvent
FIRST, SECOND = (1.0, [0.0, 1.0, 2.0], [0.2, 0.6, 0.2]), (2.0, [0.0, 2.0, 3.0], [0.33, 0.34, 0.33])
EVENT = dp_accounting.ComposedDpEvent([dp_accounting.SelfComposedDpEvent(MOG(*FIRST), 3),
                                       dp_accounting.SelfComposedDpEvent(MOG(*SECOND), 2)])
DELTA, EPSILON = 1e-6, 17.193115


def theirs():
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(EVENT)
    return acc.get_epsilon(DELTA), acc.get_delta(EPSILON)


def ours():
    acc = (dp.PLDAccountant().compose(dp.MixtureOfGaussians(FIRST[0], tuple(FIRST[1]), tuple(FIRST[2])), 3)
           .compose(dp.MixtureOfGaussians(SECOND[0], tuple(SECOND[1]), tuple(SECOND[2])), 2))
    return acc.epsilon_bounds(DELTA), acc.delta_bounds(EPSILON)


def bridged():
    acc = bridge.accountant_for(EVENT, accountant="pld")
    return acc.epsilon_bounds(DELTA), acc.delta_bounds(EPSILON)


def their_bracket(interval=1e-4):
    """dp_accounting's pessimistic and optimistic composed PLDs: (epsilon, delta, seconds) each."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    for pessimistic in (True, False):
        start = time.perf_counter()
        parts = [pld.from_mixture_gaussian_mechanism(standard_deviation=s, sensitivities=c, sampling_probs=p,
                                                     value_discretization_interval=interval,
                                                     pessimistic_estimate=pessimistic).self_compose(n)
                 for (s, c, p), n in ((FIRST, 3), (SECOND, 2))]
        composed = parts[0].compose(parts[1])
        print("pessimistic" if pessimistic else "optimistic", composed.get_epsilon_for_delta(DELTA),
              composed.get_delta_for_epsilon(EPSILON), f"{time.perf_counter() - start:.1f} s", flush=True)


def main(rounds):
    for r in range(rounds):
        for name, run in (("dp_accounting 1e-4", theirs), ("dpproofs PLD", ours), ("dpproofs via bridge", bridged)):
            start = time.perf_counter()
            out = run()
            print(f"round {r} {name:20s} {time.perf_counter() - start:8.3f} s  {out}", flush=True)


if __name__ == "__main__":
    numbers = [a for a in sys.argv[1:] if a.isdigit()]
    main(int(numbers[0]) if numbers else 3)
    if "--their-bracket" in sys.argv[1:]:
        their_bracket()
