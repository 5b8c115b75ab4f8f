"""Poisson replace-one calibration beside dp_accounting (issue 22: "the calibrated sigma is 30-100 % larger
than theirs" while our upper end was the RDP bound). Three targets, chosen before measuring:

    python benchmarks/calibrate_replace_one_vs_dp_accounting.py

ours: calibrate_sigma(relation="replace_one", accountant="pld", tolerance=1e-6), with the certified epsilon
at the returned sigma; our RDP calibration beside it; dp_accounting 0.6 calibrate_dp_mechanism with its
PLDAccountant(REPLACE_ONE, value_discretization_interval=1e-4), tol 1e-6 (a peer, not the truth).
"""
import time, dpproofs as dp
import dp_accounting as dpa
from dp_accounting.pld import pld_privacy_accountant
from dp_accounting import mechanism_calibration
for eps, delta, q, T in [(1.0,1e-5,0.01,10000),(2.0,1e-5,0.004,20000),(8.0,1e-6,0.1,1000)]:
    t=time.time()
    ours=dp.calibrate_sigma(epsilon=eps, delta=delta, q=q, steps=T, relation="replace_one", accountant="pld", tolerance=1e-6)
    t_ours=time.time()-t
    rdp=dp.calibrate_sigma(epsilon=eps, delta=delta, q=q, steps=T, relation="replace_one", accountant="rdp")
    def make_event(s):
        return dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(s)), T)
    t=time.time()
    theirs=mechanism_calibration.calibrate_dp_mechanism(
        lambda: pld_privacy_accountant.PLDAccountant(dpa.NeighboringRelation.REPLACE_ONE, value_discretization_interval=1e-4),
        make_event, eps, delta, mechanism_calibration.LowerEndpointAndGuess(0.1, 2.0), tol=1e-6)
    t_theirs=time.time()-t
    cert=dp.PLDAccountant(relation="replace_one").compose(dp.SampledGaussian(q, ours), T).epsilon(delta)
    print(f"({eps}, {delta}, {q}, {T}) ours PLD sigma {ours:.7f} ({t_ours:.2f} s, certified eps {cert:.7f}) | ours RDP {rdp:.5f} | dp_accounting REPLACE_ONE {theirs:.7f} ({t_theirs:.2f} s)", flush=True)
