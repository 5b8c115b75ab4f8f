"""Seeded cross-check of the PLD accountant on mechanisms with loss atoms (Laplace, sampled
Laplace, randomized response), for the lower end's grid centred on the atoms.

    python benchmarks/atoms_lower_crosscheck.py SEED N

First Laplace(b) x 1 against its closed-form profile (1 - e^{(eps - 1/b)/2})_+ (docs/math.md,
"Laplace"): lower <= exact <= upper at 6 scales and 4 deltas. Then N ledgers drawn from SEED (one
or two of the three kinds, counts 1..3e6, delta 1e-12..1e-2), each answered by the default
accountant and by a second one three times finer (grid_step = the first one's / 3, max_cells 2^23):
the two brackets must overlap (the exact value lies in both). One line per ledger; BAD lines and
the count at the end. Not a unit test; tests/test_pld.py pins a case.
"""
import math, random, time, sys

import dpproofs as dp

bad=0
for b in [0.05, 0.3, 1.0, 3.0, 30.0, 300.0]:
    for d in [1e-10, 1e-6, 1e-3, 0.05]:
        ex = 1/b + 2*math.log1p(-d)
        if ex <= 0: continue
        br = dp.PLDAccountant().compose(dp.Laplace(b), 1).epsilon_bounds(d)
        ok = br.lower <= ex*(1+1e-12) and ex <= br.upper*(1+1e-12)
        bad += not ok
        if not ok: print("BAD T=1", b, d, br, ex)
print("T=1 checks done, bad", bad)
r = random.Random(int(sys.argv[1]))
n=0
for i in range(int(sys.argv[2])):
    kinds=[]
    acc = dp.PLDAccountant(); fine = None
    mechs=[]
    for _ in range(r.choice([1,1,2])):
        k=r.choice(["l","sl","sl","rr"])
        if k=="l": m=dp.Laplace(10**r.uniform(-1,2.5))
        elif k=="sl": m=dp.SampledLaplace(10**r.uniform(-5,-0.5), 10**r.uniform(-1,1.5))
        else: m=dp.RandomizedResponse(10**r.uniform(-1.5,1))
        mechs.append((m, int(10**r.uniform(0,6.5))))
    d=10**r.uniform(-12,-2)
    for m,c in mechs: acc=acc.compose(m,c)
    t=time.perf_counter()
    try:
        br=acc.epsilon_bounds(d)
    except dp.DPProofsError as e:
        continue
    step = br.grid_step
    if step is None or br.source!="pld": continue
    f = dp.PLDAccountant(grid_step=step/3, max_cells=1<<23)
    for m,c in mechs: f=f.compose(m,c)
    fb=f.epsilon_bounds(d)
    n+=1
    ok = br.lower <= fb.upper*(1+1e-12) and fb.lower <= br.upper*(1+1e-12)
    if not ok: bad+=1; print("BAD", mechs, d, br, fb)
    else: print("ok %s d=%.2g [%.6g, %.6g] w=%.1e  fine [%.6g, %.6g] %.1fs"%([str(m)[:40] for m,_ in mechs], d, br.lower, br.upper, (br.upper-br.lower)/br.upper if br.upper else 0, fb.lower, fb.upper, time.perf_counter()-t), flush=True)
print("checked", n, "bad", bad)
