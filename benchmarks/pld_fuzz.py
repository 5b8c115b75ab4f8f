"""Seeded fuzz of the public accountant API, on configurations drawn before any tuning.

    python benchmarks/pld_fuzz.py SEED N TIMEOUT PART PARTS > out.txt

Draws N ledgers from SEED (one to three mechanisms among SampledGaussian, Gaussian, Laplace,
RandomizedResponse, SampledLaplace, FixedBatchGaussian and RandomAllocationGaussian with k = 1..3;
parameters log-uniform over wide ranges; counts 1..1e7, allocation epochs 1..100), a relation and
a query (epsilon at delta in 1e-14..0.1, or delta at epsilon in 1e-3..30), and runs configurations
PART, PART + PARTS, ... each in a forked process with TIMEOUT seconds. One JSON line per
configuration, flagged:
  BAD      an exception from outside the library, nan, a lower end above the upper, a timeout;
  UNSOUND? the PLD lower end above the RDP upper bound of the same ledger (both cannot be right);
  wide     an epsilon bracket over 1e-3 relative; SLOW over 10 s.
  CROSS    (with CROSS=1 in the environment) a bracket of the same ledger from a second, coarser
           accountant (relative_width 0.05, max_cells 2^18: other grid steps, other tilts) that
           does not overlap the default one: the exact value lies in both, so one is wrong.
Not a unit test; the counterexamples it finds are pinned in tests/.
"""
import json, math, os, random, sys, time, traceback

from forked import run_forked

def logu(r, lo, hi):
    return 10 ** r.uniform(math.log10(lo), math.log10(hi))

def gen(r):
    kinds = ["sg", "sg", "sg", "g", "l", "rr", "ra", "ra", "fb", "sl"]
    n = r.choice([1, 1, 1, 2, 3])
    mechs = []
    for _ in range(n):
        k = r.choice(kinds)
        if k == "sg": m = ("SampledGaussian", [logu(r, 1e-6, 1), logu(r, 0.2, 200)])
        elif k == "g": m = ("Gaussian", [logu(r, 0.05, 500)])
        elif k == "l": m = ("Laplace", [logu(r, 0.05, 500)])
        elif k == "rr": m = ("RandomizedResponse", [logu(r, 0.01, 20)])
        elif k == "sl": m = ("SampledLaplace", [logu(r, 1e-5, 1), logu(r, 0.1, 100)])
        elif k == "fb":
            N = int(logu(r, 10, 1e6)); b = max(1, int(N * logu(r, 1e-4, 1)))
            m = ("FixedBatchGaussian", [b, N, logu(r, 0.3, 50)])
        else: m = ("RandomAllocationGaussian", [int(logu(r, 1, 2e4)), logu(r, 0.3, 50), r.choice([1, 1, 1, 2, 3])])
        count = int(logu(r, 1, 1e7)) if k not in ("ra",) else int(logu(r, 1, 100))
        mechs.append((m, count))
    relation = r.choice(["add_remove", "add_remove", "replace_one"])
    if r.random() < 0.8:
        query = ("epsilon", logu(r, 1e-14, 0.1))
    else:
        query = ("delta", logu(r, 1e-3, 30))
    return {"mechs": mechs, "relation": relation, "query": query}

def run(cfg):
    import dpproofs as dp
    out = {}
    t = time.perf_counter()
    try:
        pld = dp.PLDAccountant(relation=cfg["relation"])
        rdp = dp.Accountant(relation=cfg["relation"])
        for (name, args), count in cfg["mechs"]:
            m = getattr(dp, name)(*args)
            pld = pld.compose(m, count)
            rdp = rdp.compose(m, count)
        q, v = cfg["query"]
        b = pld.epsilon_bounds(v) if q == "epsilon" else pld.delta_bounds(v)
        out["pld"] = [b.lower, b.upper, b.source]
        out["pld_s"] = time.perf_counter() - t
        if os.environ.get("CROSS"):
            other = dp.PLDAccountant(relation=cfg["relation"], relative_width=0.05, max_cells=1 << 18)
            for (name, args), count in cfg["mechs"]:
                other = other.compose(getattr(dp, name)(*args), count)
            c = other.epsilon_bounds(v) if q == "epsilon" else other.delta_bounds(v)
            out["cross"] = [c.lower, c.upper, c.source]
        try:
            out["rdp"] = rdp.epsilon(v) if q == "epsilon" else rdp.delta(v)
        except dp.DPProofsError as e:
            out["rdp_err"] = type(e).__name__ + ": " + str(e)[:120]
    except Exception as e:
        import dpproofs as dp
        lib = isinstance(e, dp.DPProofsError)
        out["err"] = ("LIB " if lib else "FOREIGN ") + type(e).__name__ + ": " + str(e)[:200]
        if not lib: out["tb"] = traceback.format_exc()[-1500:]
        out["pld_s"] = time.perf_counter() - t
    return out

if __name__ == "__main__":
    seed, n, timeout = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    part, parts = int(sys.argv[4]), int(sys.argv[5])
    r = random.Random(seed)
    cfgs = [gen(r) for _ in range(n)]
    import dpproofs  # preload
    for i, cfg in enumerate(cfgs):
        if i % parts != part: continue
        res = run_forked(run, cfg, timeout)
        flags = []
        if "err" in res and not res["err"].startswith("LIB"): flags.append("BAD")
        if "pld" in res:
            lo, up, src = res["pld"]
            if any(isinstance(x, float) and math.isnan(x) for x in (lo, up)) or lo > up or lo < 0: flags.append("BAD")
            if "rdp" in res and lo > res["rdp"] * (1 + 1e-9): flags.append("UNSOUND?")
            if "cross" in res and (res["cross"][0] > up * (1 + 1e-12) or lo > res["cross"][1] * (1 + 1e-12)):
                flags.append("CROSS")
            if up > 0 and (up - lo) / up > 1e-3 and cfg["query"][0] == "epsilon": flags.append("wide")
        if res["wall"] > 10: flags.append("SLOW")
        print(json.dumps({"i": i, "cfg": cfg, "res": {k: v for k, v in res.items() if k != "tb"}, "flags": flags}), flush=True)
        if "tb" in res: print("TB", i, res["tb"].replace("\n", " | "), flush=True)
