"""Seeded fuzz of calibrate_sigma, on targets drawn before any tuning.

    python benchmarks/calibrate_fuzz.py SEED N TIMEOUT > out.txt

Draws N targets from SEED (epsilon log-uniform in 0.05..20, delta in 1e-12..1e-3, q in 1e-5..1,
steps 1..1e6, the relation and the accountant ("pld" with tolerance 1e-6, or "rdp")), and runs
each in a forked process with TIMEOUT seconds. For the sigma returned it computes the certified
epsilon at sigma (a fresh accountant of the same kind: the PLD bracket's upper end, or the RDP
bound) and at sigma (1 - tolerance) (1e-6 for "rdp"). One JSON line per target, flagged:
  BAD        an exception from outside the library, nan, a timeout;
  OVERSHOOT  the certified epsilon at sigma is above the target (the contract: never);
  LOOSE      the certified epsilon at sigma (1 - tolerance) is at most the target too (sigma is not
             the smallest certified one to the tolerance; the PLD upper end moves with its grid, so
             this is a pointwise check, as in bench_calibrate_pld.py);
  SLOW       over 10 s.
Not a unit test; the counterexamples it finds are pinned in tests/.
"""
import json, math, random, sys, time, traceback

from forked import run_forked


def logu(r, lo, hi):
    return 10 ** r.uniform(math.log10(lo), math.log10(hi))


def gen(r):
    return {"epsilon": logu(r, 0.05, 20), "delta": logu(r, 1e-12, 1e-3), "q": min(1.0, logu(r, 1e-5, 1.5)),
            "steps": int(logu(r, 1, 1e6)), "relation": r.choice(["add_remove", "add_remove", "replace_one"]),
            "accountant": r.choice(["pld", "pld", "rdp"])}


def run(cfg):
    import dpproofs as dp
    out = {}
    t = time.perf_counter()
    tolerance = 1e-6
    try:
        extra = {"tolerance": tolerance} if cfg["accountant"] == "pld" else {}
        sigma = dp.calibrate_sigma(epsilon=cfg["epsilon"], delta=cfg["delta"], q=cfg["q"], steps=cfg["steps"],
                                   accountant=cfg["accountant"], relation=cfg["relation"], **extra)
        out["sigma"] = sigma
        out["s"] = time.perf_counter() - t

        def certified(s):
            if cfg["accountant"] == "pld":
                acc = dp.PLDAccountant(relation=cfg["relation"])
            else:
                acc = dp.Accountant(relation=cfg["relation"])
            return acc.compose(dp.SampledGaussian(cfg["q"], s), cfg["steps"]).epsilon(cfg["delta"])

        out["eps_at_sigma"] = certified(sigma)
        out["eps_below"] = certified(sigma * (1 - tolerance))
    except Exception as e:
        import dpproofs as dp
        lib = isinstance(e, dp.DPProofsError)
        out["err"] = ("LIB " if lib else "FOREIGN ") + type(e).__name__ + ": " + str(e)[:200]
        if not lib:
            out["tb"] = traceback.format_exc()[-1500:]
        out["s"] = time.perf_counter() - t
    return out


if __name__ == "__main__":
    seed, n, timeout = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    r = random.Random(seed)
    cfgs = [gen(r) for _ in range(n)]
    import dpproofs  # noqa: F401 (preloaded once, forked)
    for i, cfg in enumerate(cfgs):
        res = run_forked(run, cfg, timeout)
        flags = []
        if "err" in res and not res["err"].startswith("LIB"):
            flags.append("BAD")
        if "sigma" in res:
            values = (res["sigma"], res["eps_at_sigma"], res["eps_below"])
            if any(isinstance(x, float) and math.isnan(x) for x in values) or not res["sigma"] > 0:
                flags.append("BAD")
            if res["eps_at_sigma"] > cfg["epsilon"]:
                flags.append("OVERSHOOT")
            if res["eps_below"] <= cfg["epsilon"]:
                flags.append("LOOSE")
        if res["wall"] > 10:
            flags.append("SLOW")
        print(json.dumps({"i": i, "cfg": cfg, "res": {k: v for k, v in res.items() if k != "tb"}, "flags": flags}),
              flush=True)
        if "tb" in res:
            print("TB", i, res["tb"].replace("\n", " | "), flush=True)
