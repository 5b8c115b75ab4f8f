"""dp_accounting main-branch events: the bridge's analysis beside dp_accounting main's, in one process.

    PYTHONPATH=. python3 benchmarks/main_events_vs_dp_accounting_main.py

dp_accounting main (google/differential-privacy b5b0286, not on PyPI) is not installed: its
analyses are evaluated here from their formulas, as its accountants state them:

* ExponentialMechanismDpEvent(eps), RDP: per step min(xi + eps^2/8 alpha, eps), xi = r - 1 - log r
  - eps^2/8, r = eps / expm1(eps) (bounded range, Cesar & Rogers 2021, arXiv 2004.07223, Sec. 3),
  times the count (main at b5b0286 adds it once whatever the count: shown as "main as written"),
  converted by dp_accounting 0.6's ``rdp_privacy_accountant.compute_epsilon``. PLD: the worst
  eps-DP pair, the bridge's own (equal by construction: not measured).
* PermuteAndFlipDpEvent(eps): main's PLD and RDP are the Laplace mechanism's of parameter 1/eps;
  evaluated with dpproofs.PLDAccountant on Laplace(1/eps) (the certified upper end).
* DiscreteGaussianDpEvent: main's RDP rho alpha, rho = sens^2 / (2 sigma^2), equals the bridge's
  ZCDP(rho) (checked in tests/test_integrations_dp_accounting_main_events.py; not repeated here).

The bridge: ``accountant_for(SelfComposedDpEvent(event, T), "rdp" | "pld").epsilon(delta)``.
The bridge maps the exponential mechanism to ``dpproofs.BoundedRange`` (RDP: min(alpha eps^2 / 8,
randomized response's); PLD: randomized response's pair) and permute-and-flip to
``RandomizedResponse``. Ratios: ours over main's (above 1: ours is looser). Not a unit test.
"""

import dp_accounting as dpa
import numpy as np
from dp_accounting.rdp import rdp_privacy_accountant as dpa_rdp

import dpproofs as dp
from dpproofs.integrations import dp_accounting as bridge
from tests.dp_accounting_main_stand_in import ExponentialMechanismDpEvent, PermuteAndFlipDpEvent

DELTA = 1e-5
CASES = ((0.1, 100), (0.1, 1000), (0.5, 100), (1.0, 10), (1.0, 100))


def main_exponential_rdp(eps, orders):
    r = eps / np.expm1(eps)
    xi = r - 1 - np.log(r) - eps**2 / 8
    return np.minimum(xi + eps**2 / 8 * orders, eps)


def main():
    orders = np.array(dpa_rdp.DEFAULT_RDP_ORDERS, dtype=float)
    print(f"delta = {DELTA}")
    print("Exponential mechanism: eps, T | ours RDP, ours PLD | main RDP (count applied), main as written | "
          "ours RDP / main RDP")
    for eps, steps in CASES:
        event = dpa.SelfComposedDpEvent(ExponentialMechanismDpEvent(eps), steps)
        ours_rdp = bridge.accountant_for(event, "rdp").epsilon(DELTA)
        ours_pld = bridge.accountant_for(event, "pld").epsilon(DELTA)
        main_rdp = dpa_rdp.compute_epsilon(orders, steps * main_exponential_rdp(eps, orders), DELTA)[0]
        main_once = dpa_rdp.compute_epsilon(orders, main_exponential_rdp(eps, orders), DELTA)[0]
        print(f"  {eps:4} {steps:5} | {ours_rdp:.6g} {ours_pld:.6g} | {main_rdp:.6g} {main_once:.6g} | "
              f"{ours_rdp / main_rdp:.4f}")
    print("Permute-and-flip: eps, T | ours RDP, ours PLD | main (Laplace(1/eps) PLD, dpproofs) | ours PLD / main")
    for eps, steps in CASES:
        event = dpa.SelfComposedDpEvent(PermuteAndFlipDpEvent(eps), steps)
        ours_rdp = bridge.accountant_for(event, "rdp").epsilon(DELTA)
        ours_pld = bridge.accountant_for(event, "pld").epsilon(DELTA)
        laplace = dp.PLDAccountant().compose(dp.Laplace(1 / eps), steps).epsilon(DELTA)
        print(f"  {eps:4} {steps:5} | {ours_rdp:.6g} {ours_pld:.6g} | {laplace:.6g} | {ours_pld / laplace:.3f}")


if __name__ == "__main__":
    main()
