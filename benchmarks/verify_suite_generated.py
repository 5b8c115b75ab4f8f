"""A generated suite for ``dpproofs verify``, written before any tuning (issue 21).

    python benchmarks/verify_suite_generated.py generate [--seed 21] > benchmarks/verify_suite_generated.json
    nice python benchmarks/verify_suite_generated.py run [--time-budget S] [--jobs J] [--timeout T] \
        > benchmarks/verify_suite_generated_DATE_LABEL.txt

Why here and not in ``dpproofs/verification/``: this is a measurement of the library against
truth established WITHOUT the library (it imports nothing of ``dpproofs``; its 50-digit evaluators
below are written again from the papers' formulas), like the other peer benchmarks. The
hand-written suite (``dpproofs/verification/suite.py``) stays the library's regression set.

**Procedure** (fixed before tuning): templates over the vocabulary of ``dpproofs verify``; a seed
(``random.Random(seed)``) draws each template's box bounds and constants from stated ranges. Every
claim carries its truth and how it was established (``source``):

* ``theorem: <citation>`` -- true by a published result; confirmed by a 50-digit evaluation on a
  dense grid of the domain (``grid_margin``: the least relative margin found, 0 at a tie);
* ``witness`` -- false: a point of the domain (satisfying every condition, evaluated at 50 digits
  with mpmath) where the claim is violated; the point comes from the construction (slivers, ties)
  or from the grid plus a local pattern search (``search``);
* a generated false variant whose grid and search find no violation is DROPPED (listed in the
  output's ``dropped``), never labelled true without a theorem.

Templates: the classic and the improved RDP -> (eps, delta) conversion applied to each mechanism
(true) and two weakened forms (false where a witness is found); monotonicity of every vocabulary
function in each argument (true) and the reverse (false); the seed theorems (Abadi et al. 2016
Lemma 3 with its explicit constant, Lemma C.1, and Bun & Steinke's bound) with and without their
hypotheses; integer orders; coupled conditions; slivers (violations of relative size 1e-6 on the
edge of a coupled condition); exact ties under < and <=; open and closed bounds.

The runner calls ``python -m dpproofs verify --json`` in a fresh process per claim (default
settings unless ``--time-budget`` is given), with a per-call timeout, and prints per claim: the
verdict, the expected truth, whether the verdict is right (``ok``: PROVED/HOLDS for a true claim,
REFUTED for a false one; ``WRONG``: PROVED/HOLDS of a false claim or REFUTED of a true one; ``-``
otherwise), CPU seconds and peak RSS of the child (``os.wait4``), then a summary.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time

import mpmath
import sympy

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE_FILE = os.path.join(HERE, "verify_suite_generated.json")
DPS = 50
#: relative differences below this are rounding at 50 digits: a tie (e.g. delta_composed_pure at
#: eps_prime = 0 is the same for n = 2k - 1 and n = 2k)
TIE = mpmath.mpf(10) ** -40

# ------------------------------------------------------------------------------------------------
# 50-digit reference evaluators, written from the papers (independent of dpproofs)
# ------------------------------------------------------------------------------------------------
mp = mpmath.mp


def _is_int(x):
    return mpmath.isint(x)


def rdp_gaussian(a, s):  # Mironov 2017, Prop. 7
    return a / (2 * s**2)


def rdp_laplace(a, b):  # Mironov 2017, Prop. 6
    return mpmath.log(a / (2 * a - 1) * mpmath.exp((a - 1) / b) + (a - 1) / (2 * a - 1) * mpmath.exp(-a / b)) / (a - 1)


def rdp_randomized_response(a, e):  # Mironov 2017, Prop. 5
    p = mpmath.exp(e) / (1 + mpmath.exp(e))
    return mpmath.log(p**a * (1 - p) ** (1 - a) + (1 - p) ** a * p ** (1 - a)) / (a - 1)


def _sg_A(a, q, s):
    """A_a = E_mu0[(mu/mu0)^a], mu0 = N(0, s^2), mu = (1-q) mu0 + q N(1, s^2)."""
    if _is_int(a):
        n = int(a)
        return mpmath.fsum(mpmath.binomial(n, k) * (1 - q) ** (n - k) * q**k * mpmath.exp((k * k - k) / (2 * s**2))
                           for k in range(n + 1))
    f = lambda x: mpmath.npdf(x, 0, s) * ((1 - q) + q * mpmath.exp((2 * x - 1) / (2 * s**2))) ** a
    return mpmath.quad(f, [-mpmath.inf, -20 * s, 0, 0.5, 1, 20 * s + 1, mpmath.inf])


def _sg_B(a, q, s):
    """B_a = E_mu[(mu0/mu)^a] (fractional orders only; for integer orders A >= B)."""
    f = lambda x: mpmath.npdf(x, 0, s) * ((1 - q) + q * mpmath.exp((2 * x - 1) / (2 * s**2))) ** (1 - a)
    return mpmath.quad(f, [-mpmath.inf, -20 * s, 0, 0.5, 1, 20 * s + 1, mpmath.inf])


def rdp_sampled_gaussian(a, q, s):
    """log max(A_a, B_a)/(a-1) (Mironov, Talwar & Zhang 2019, arXiv 1908.10530, Sec. 3; their
    Thm 5: A_a >= B_a, used at integer orders where A is the exact binomial sum)."""
    if q == 0:
        return mpmath.mpf(0)
    A = _sg_A(a, q, s)
    if not _is_int(a):
        A = max(A, _sg_B(a, q, s))
    return mpmath.log(A) / (a - 1)


def log_moment(lam, q, s):  # Abadi et al. 2016 Eqs. 3-4: lam D_(lam+1)
    return lam * rdp_sampled_gaussian(lam + 1, q, s)


def delta_gaussian(e, s):  # Balle & Wang 2018, Thm 8
    return mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s)


def delta_laplace(e, b):
    return max(mpmath.mpf(0), 1 - mpmath.exp((e - 1 / b) / 2))


def delta_randomized_response(ep, e):
    return max(mpmath.mpf(0), mpmath.exp(e) - mpmath.exp(ep)) / (1 + mpmath.exp(e))


def delta_sampled_gaussian(e, q, s):
    """Hockey stick of mu = (1-q) N(0,s^2) + q N(1,s^2) vs mu0 = N(0, s^2), both orders: the
    likelihood ratio is monotone in x, so the optimal set is a half-line (Neyman-Pearson)."""
    if q == 0:
        return mpmath.mpf(0)
    E = mpmath.exp(e)
    t = s**2 * mpmath.log((E - 1 + q) / q) + mpmath.mpf(1) / 2  # mu/mu0 > e^eps iff x > t
    add = q * mpmath.ncdf(-(t - 1) / s) - (E - 1 + q) * mpmath.ncdf(-t / s)
    rem = mpmath.mpf(0)
    if 1 / E > 1 - q:  # mu0/mu > e^eps iff x < t'
        t2 = s**2 * mpmath.log((1 / E - 1 + q) / q) + mpmath.mpf(1) / 2
        rem = mpmath.ncdf(t2 / s) - E * ((1 - q) * mpmath.ncdf(t2 / s) + q * mpmath.ncdf((t2 - 1) / s))
    return max(mpmath.mpf(0), add, rem)


def delta_composed_pure(ep, e, n):  # Kairouz, Oh & Viswanath 2015, Thm 3.3
    n = int(n)
    return mpmath.fsum(mpmath.binomial(n, l) * max(mpmath.mpf(0), mpmath.exp((n - l) * e) - mpmath.exp(ep + l * e))
                       for l in range(n + 1)) / (1 + mpmath.exp(e)) ** n


def Phi(x):
    return mpmath.ncdf(x)


FUNCS = {f.__name__: f for f in (rdp_gaussian, rdp_laplace, rdp_randomized_response, rdp_sampled_gaussian, log_moment,
                                 delta_gaussian, delta_laplace, delta_randomized_response, delta_sampled_gaussian,
                                 delta_composed_pure, Phi)}
SYMS = {name: sympy.Function(name) for name in FUNCS}


def _expr(text):
    return sympy.sympify(text.replace("^", "**"), locals=dict(SYMS), rational=True)


def _relation(text):
    for op in ("<=", ">=", "<", ">"):
        if op in text:
            lhs, rhs = text.split(op, 1)
            return _expr(lhs), op, _expr(rhs)
    raise ValueError(text)


def _compile(text, names):
    lhs, op, rhs = _relation(text)
    syms = sympy.symbols(names)
    mods = [dict(FUNCS), "mpmath"]
    return sympy.lambdify(syms, lhs, modules=mods), op, sympy.lambdify(syms, rhs, modules=mods)


# ------------------------------------------------------------------------------------------------
# a claim: text, box, hypotheses, integers; its truth at 50 digits
# ------------------------------------------------------------------------------------------------
class Spec:
    def __init__(self, template, claim, box, hyps=(), integers=(), truth="holds", source="", witness=None):
        self.template, self.claim, self.box, self.hyps = template, claim, box, tuple(hyps)
        self.integers, self.truth, self.source, self.witness = tuple(integers), truth, source, witness

    def names(self):
        return [b[0] for b in self.box]

    def where(self):
        out = []
        for name, lo, hi, lo_open, hi_open in self.box:
            out.append(f"{lo} {'<' if lo_open else '<='} {name} {'<' if hi_open else '<='} {hi}")
        return out + list(self.hyps)


def _num(text):
    return mpmath.mpf(sympy.Rational(sympy.sympify(str(text), rational=True)).p) / \
        sympy.Rational(sympy.sympify(str(text), rational=True)).q


def _holds(op, lhs, rhs):
    return {"<=": lhs <= rhs, "<": lhs < rhs, ">=": lhs >= rhs, ">": lhs > rhs}[op]


def _margin(op, lhs, rhs):
    """Relative margin of the relation (negative: violated; 0: a tie)."""
    diff = (rhs - lhs) if op in ("<=", "<") else (lhs - rhs)
    scale = max(abs(lhs), abs(rhs))
    m = diff / scale if scale else mpmath.mpf(0)
    return mpmath.mpf(0) if abs(m) < TIE else m  # below the 50-digit rounding: a tie


class Checker:
    def __init__(self, spec):
        self.spec = spec
        self.names = spec.names()
        self.f_l, self.op, self.f_r = _compile(spec.claim, self.names)
        self.hyps = [_compile(h, self.names) for h in spec.hyps]
        self.bounds = [(_num(lo), _num(hi), lo_open, hi_open) for _, lo, hi, lo_open, hi_open in spec.box]

    def inside(self, point):
        for x, (lo, hi, lo_open, hi_open), name in zip(point, self.bounds, self.names):
            if x < lo or x > hi or (lo_open and x == lo) or (hi_open and x == hi):
                return False
            if name in self.spec.integers and not _is_int(x):
                return False
        for f_l, op, f_r in self.hyps:
            if not _holds(op, f_l(*point), f_r(*point)):
                return False
        return True

    def margin(self, point):
        lhs, rhs = self.f_l(*point), self.f_r(*point)
        return _margin(self.op, lhs, rhs), lhs, rhs

    def grid(self, per_dim):
        axes = []
        for name, (lo, hi, lo_open, hi_open) in zip(self.names, self.bounds):
            if name in self.spec.integers:
                lo_i, hi_i = int(mpmath.ceil(lo)), int(mpmath.floor(hi))
                vals = list(range(lo_i, hi_i + 1))
                if len(vals) > per_dim:
                    vals = sorted({lo_i + round(i * (hi_i - lo_i) / (per_dim - 1)) for i in range(per_dim)})
                axes.append([mpmath.mpf(v) for v in vals])
            else:
                eps = (hi - lo) * mpmath.mpf(10) ** -30
                axes.append([(lo + eps if lo_open else lo) + ((hi - eps if hi_open else hi) - (lo + eps if lo_open else lo))
                             * mpmath.mpf(i) / (per_dim - 1) for i in range(per_dim)])
        points = [[]]
        for axis in axes:
            points = [p + [v] for p in points for v in axis]
        return [p for p in points if self.inside(p)]

    def search(self, starts, rounds=40):
        """Pattern search for the least margin from the given points (a local refinement)."""
        best = None
        for start in starts:
            p = list(start)
            m = self.margin(p)[0]
            steps = [(hi - lo) / 8 for lo, hi, _, _ in self.bounds]
            for _ in range(rounds):
                moved = False
                for i, name in enumerate(self.names):
                    step = max(steps[i], 1) if name in self.spec.integers else steps[i]
                    if name in self.spec.integers:
                        step = mpmath.mpf(int(step))
                    for sgn in (1, -1):
                        cand = list(p)
                        cand[i] = p[i] + sgn * step
                        if not self.inside(cand):
                            continue
                        try:
                            mc = self.margin(cand)[0]
                        except (ValueError, ZeroDivisionError):
                            continue
                        if mc < m:
                            p, m, moved = cand, mc, True
                if not moved:
                    steps = [s / 2 for s in steps]
            if best is None or m < best[0]:
                best = (m, p)
        return best


def _fmt(x):
    return mpmath.nstr(x, 20)


def establish(spec, per_dim):
    """Fill in the truth of a spec at 50 digits; returns the record, or None to drop it."""
    mp.dps = DPS
    chk = Checker(spec)
    rec = {"template": spec.template, "claim": spec.claim, "where": spec.where(), "integers": list(spec.integers)}
    if spec.witness is not None:  # a constructed violation
        point = [_num(spec.witness[n]) if isinstance(spec.witness[n], str) else mpmath.mpf(spec.witness[n])
                 for n in chk.names]
        assert chk.inside(point), (spec.claim, spec.witness)
        m, lhs, rhs = chk.margin(point)
        assert m < 0 or (m == 0 and chk.op in ("<", ">")), (spec.claim, spec.witness, m)
        rec.update(truth="fails", source=spec.source or "witness (constructed)", witness={n: _fmt(v) for n, v in zip(chk.names, point)},
                   witness_lhs=_fmt(lhs), witness_rhs=_fmt(rhs), witness_margin=mpmath.nstr(m, 5))
        return rec
    pts = chk.grid(per_dim)
    assert pts, spec.claim
    scored = sorted(((chk.margin(p)[0], p) for p in pts), key=lambda t: t[0])
    m0, p0 = scored[0]
    violated = m0 < 0 or (m0 == 0 and chk.op in ("<", ">"))
    if not violated and spec.truth == "fails":
        ref = chk.search([p for _, p in scored[:3]])
        if ref is not None and (ref[0] < 0 or (ref[0] == 0 and chk.op in ("<", ">"))):
            m0, p0, violated = ref[0], ref[1], True
    if spec.truth == "holds":
        assert not violated, (spec.claim, m0, p0)
        rec.update(truth="holds", source=spec.source, grid_points=len(pts), grid_margin=mpmath.nstr(m0, 5),
                   grid_argmin={n: _fmt(v) for n, v in zip(chk.names, p0)})
        return rec
    if not violated:
        return None
    m, lhs, rhs = chk.margin(p0)
    rec.update(truth="fails", source="witness (grid + search, 50 digits)", witness={n: _fmt(v) for n, v in zip(chk.names, p0)},
               witness_lhs=_fmt(lhs), witness_rhs=_fmt(rhs), witness_margin=mpmath.nstr(m, 5))
    return rec


# ------------------------------------------------------------------------------------------------
# templates
# ------------------------------------------------------------------------------------------------
def B(name, lo, hi, lo_open=False, hi_open=False):
    return (name, lo, hi, lo_open, hi_open)


def _pick(rng, options):
    return options[rng.randrange(len(options))]


MIRONOV_P3 = "theorem: Mironov 2017 (arXiv 1702.07476v3) Prop. 3 (RDP -> (eps, delta)-DP)"
IMPROVED = ("theorem: Canonne, Kamath & Steinke 2020 (arXiv 2004.00010v5) Prop. 12 / Balle et al. 2020 "
            "(arXiv 1905.09982) Thm 21 (improved conversion)")


def conversions(rng):
    out = []
    mechs = [
        ("gaussian", "rdp_gaussian(alpha, sigma)", "delta_gaussian({e}, sigma)",
         [B("sigma", *_pick(rng, [("0.5", "4"), ("1", "8"), ("0.8", "3")]))], ()),
        ("laplace", "rdp_laplace(alpha, b)", "delta_laplace({e}, b)",
         [B("b", *_pick(rng, [("0.5", "4"), ("1", "10"), ("0.25", "2")]))], ()),
        ("randomized_response", "rdp_randomized_response(alpha, eps)", "delta_randomized_response({e}, eps)",
         [B("eps", *_pick(rng, [("0.1", "2"), ("0.5", "4"), ("0.05", "1")]))], ()),
        ("sampled_gaussian", "rdp_sampled_gaussian(alpha, q, sigma)", "delta_sampled_gaussian({e}, q, sigma)",
         [B("q", *_pick(rng, [("0.01", "0.1"), ("0.001", "0.05"), ("0.05", "0.5")])),
          B("sigma", *_pick(rng, [("1", "4"), ("0.8", "2"), ("2", "8")]))], ("alpha",)),
    ]
    for name, r, d, box, ints in mechs:
        a_hi = _pick(rng, ["6", "8"]) if ints else _pick(rng, ["6", "8", "12"])
        base = [B("alpha", "2", a_hi)] + box + [B("delta", *_pick(rng, [("1e-6", "1e-3"), ("1e-8", "1e-4"), ("1e-5", "1e-2")]))]
        forms = [
            ("classic", f"{r} + log(1/delta)/(alpha - 1)", "holds", MIRONOV_P3, "delta"),
            ("improved", f"{r} + log((alpha - 1)/alpha) - (log(delta) + log(alpha))/(alpha - 1)", "holds", IMPROVED, "delta"),
            ("classic.log_term_halved", f"{r} + log(1/delta)/(2*(alpha - 1))", "fails", "", "delta"),
            ("classic.delta_over_10", f"{r} + log(1/delta)/(alpha - 1)", "fails", "", "delta/10"),
        ]
        for form, e, truth, src, rhs in forms:
            out.append(Spec(f"conversion.{form}.{name}", f"{d.format(e=e)} <= {rhs}", base, integers=ints,
                            truth=truth, source=src))
    return out


MONO = [
    # function, args (name, lo, hi, integer), argument varied, direction (+1 nondecreasing), source
    ("rdp_gaussian", [("alpha", "1.5", "16"), ("sigma", "0.5", "4")], "alpha", 1, "closed form a/(2 s^2)"),
    ("rdp_gaussian", [("alpha", "1.5", "16"), ("sigma", "0.5", "4")], "sigma", -1, "closed form a/(2 s^2)"),
    ("rdp_laplace", [("alpha", "1.5", "16"), ("b", "0.5", "4")], "alpha", 1,
     "van Erven & Harremoes 2014 Thm 3 (Renyi divergence nondecreasing in the order)"),
    ("rdp_laplace", [("alpha", "1.5", "16"), ("b", "0.5", "4")], "b", -1,
     "closed form of Mironov 2017 Prop. 6 (nonincreasing in b: grid)"),
    ("rdp_randomized_response", [("alpha", "1.5", "16"), ("eps", "0.1", "3")], "alpha", 1,
     "van Erven & Harremoes 2014 Thm 3"),
    ("rdp_randomized_response", [("alpha", "1.5", "16"), ("eps", "0.1", "3")], "eps", 1,
     "post-processing: RR_eps is a randomisation of RR_eps' for eps < eps'"),
    ("rdp_sampled_gaussian", [("alpha", "2", "10", True), ("q", "0.01", "0.2"), ("sigma", "1", "4")], "alpha", 1,
     "van Erven & Harremoes 2014 Thm 3"),
    ("rdp_sampled_gaussian", [("alpha", "2", "10", True), ("q", "0.01", "0.2"), ("sigma", "1", "4")], "q", 1,
     "joint convexity of the f-divergence E[(P/Q)^a] along the mixture path (Mironov, Talwar & Zhang 2019)"),
    ("rdp_sampled_gaussian", [("alpha", "2", "10", True), ("q", "0.01", "0.2"), ("sigma", "1", "4")], "sigma", -1,
     "post-processing: adding Gaussian noise"),
    ("log_moment", [("lam", "1", "8", True), ("q", "0.01", "0.2"), ("sigma", "1", "4")], "lam", 1,
     "lam D_(lam+1): both factors nonnegative and nondecreasing"),
    ("log_moment", [("lam", "1", "8", True), ("q", "0.01", "0.2"), ("sigma", "1", "4")], "q", 1, "as rdp_sampled_gaussian in q"),
    ("log_moment", [("lam", "1", "8", True), ("q", "0.01", "0.2"), ("sigma", "1", "4")], "sigma", -1,
     "post-processing: adding Gaussian noise"),
    ("delta_gaussian", [("eps", "0", "4"), ("sigma", "0.5", "4")], "eps", -1, "hockey-stick divergence nonincreasing in eps"),
    ("delta_gaussian", [("eps", "0", "4"), ("sigma", "0.5", "4")], "sigma", -1, "post-processing: adding Gaussian noise"),
    ("delta_laplace", [("eps", "0", "2"), ("b", "0.5", "4")], "eps", -1, "hockey-stick divergence nonincreasing in eps"),
    ("delta_laplace", [("eps", "0", "2"), ("b", "0.5", "4")], "b", -1, "closed form (1 - e^((eps - 1/b)/2))_+"),
    ("delta_randomized_response", [("eps_prime", "0", "2"), ("eps", "0", "3")], "eps_prime", -1,
     "hockey-stick divergence nonincreasing in eps"),
    ("delta_randomized_response", [("eps_prime", "0", "2"), ("eps", "0", "3")], "eps", 1, "post-processing of RR"),
    ("delta_sampled_gaussian", [("eps", "0", "2"), ("q", "0.01", "0.5"), ("sigma", "0.5", "4")], "eps", -1,
     "hockey-stick divergence nonincreasing in eps"),
    ("delta_sampled_gaussian", [("eps", "0", "2"), ("q", "0.01", "0.5"), ("sigma", "0.5", "4")], "q", 1,
     "joint convexity of the hockey-stick divergence, 0 at q = 0"),
    ("delta_sampled_gaussian", [("eps", "0", "2"), ("q", "0.01", "0.5"), ("sigma", "0.5", "4")], "sigma", -1,
     "post-processing: adding Gaussian noise"),
    ("delta_composed_pure", [("eps_prime", "0", "3"), ("eps", "0.1", "1"), ("n", "1", "6", True)], "eps_prime", -1,
     "hockey-stick divergence nonincreasing in eps"),
    ("delta_composed_pure", [("eps_prime", "0", "3"), ("eps", "0.1", "1"), ("n", "1", "6", True)], "eps", 1,
     "Kairouz, Oh & Viswanath 2015 Thm 3.3 (post-processing of RR)"),
    ("delta_composed_pure", [("eps_prime", "0", "3"), ("eps", "0.1", "1"), ("n", "1", "6", True)], "n", 1,
     "composition with one more mechanism cannot decrease delta (drop its output)"),
]


def monotonicity(rng):
    out = []
    for fn, args, var, direction, src in MONO:
        box, ints = [], []
        for a in args:
            box.append(B(a[0], a[1], a[2]))
            if len(a) > 3:
                ints.append(a[0])
        integer = var in ints
        dlo, dhi = ("1", "2") if integer else _pick(rng, [("0.1", "0.5"), ("0.25", "1"), ("0.05", "0.2")])
        box.append(B("d", dlo, dhi))
        if integer:
            ints.append("d")
        names = [a[0] for a in args]
        moved = ", ".join(f"{n} + d" if n == var else n for n in names)
        here = ", ".join(names)
        if direction > 0:
            true_c, false_c = f"{fn}({here}) <= {fn}({moved})", f"{fn}({moved}) <= {fn}({here})"
        else:
            true_c, false_c = f"{fn}({moved}) <= {fn}({here})", f"{fn}({here}) <= {fn}({moved})"
        out.append(Spec(f"monotone.{fn}.{var}", true_c, box, integers=ints, truth="holds", source="theorem: " + src))
        out.append(Spec(f"monotone.{fn}.{var}.reversed", false_c, box, integers=ints, truth="fails"))
    return out


ABADI_L3 = "theorem: Abadi et al. 2016 (arXiv 1607.00133v2) Lemma 3 with the constant C = 0.7844 >= C* (theorems/abadi2016/lemma3.py)"
ABADI_C1 = "theorem: Abadi et al. 2016 (arXiv 1607.00133v2) Lemma C.1 (eps-DP, worst case randomized response)"


def seed_theorems(rng):
    s_hi = _pick(rng, ["2", "3"])
    lam_hi = _pick(rng, ["6", "8"])
    # the q bound is coupled: written as a hypothesis, the box for q is (0, 1/16)
    l3_box = [B("lam", "1", lam_hi), B("q", "0", "1/16", True, True), B("sigma", "1", s_hi)]
    lead = "q**2*lam*(lam + 1)/((1 - q)*sigma**2)"
    third = "0.7844*q**3*lam**3/sigma**3"
    hq, hl = "q < 1/(16*sigma)", "lam <= sigma**2*log(1/(q*sigma))"
    out = [
        Spec("seed.abadi_lemma3", f"log_moment(lam, q, sigma) <= {lead} + {third}", l3_box, (hq, hl), ("lam",), "holds", ABADI_L3),
        Spec("seed.abadi_lemma3.without_lambda_bound", f"log_moment(lam, q, sigma) <= {lead} + {third}", l3_box, (hq,),
             ("lam",), "fails"),
        Spec("seed.abadi_lemma3.leading_term_alone", f"log_moment(lam, q, sigma) <= {lead}", [B("lam", "1", lam_hi),
             B("q", "0", "1/16", True, True), B("sigma", "1", s_hi)], (hq, hl), ("lam",), "fails",
             witness={"lam": 3, "q": "0.04978", "sigma": 1},
             source="witness: C* = 0.78435 > 0 at sigma = 1, lam = 3, q = e^-3 (theorems/abadi2016/lemma3.py)"),
        Spec("seed.abadi_lemma3.add_term_2", f"log_moment(lam, q, sigma) <= 2*{lead}", l3_box, (hq, hl), ("lam",), "holds",
             ABADI_L3 + "; the third-order term is below the leading term on the domain (grid)"),
    ]
    e_hi = _pick(rng, ["1", "2", "3"])
    l_hi = _pick(rng, ["8", "16"])
    c1_box = [B("lam", "0.5", l_hi), B("eps", "0.01", e_hi)]
    rr = "lam*rdp_randomized_response(lam + 1, eps)"
    out += [
        Spec("seed.abadi_lemma_c1", f"{rr} <= lam*eps*(exp(eps) - 1) + lam**2*eps**2*exp(2*eps)/2", c1_box, (), (), "holds", ABADI_C1),
        Spec("seed.abadi_lemma_c1.range_2eps", f"{rr} <= lam*eps*(exp(eps) - 1) + lam**2*eps**2/2", c1_box, (), (), "holds",
             "theorem: Hoeffding with the range 2 eps (theorems/abadi2016/lemma_c1.py variant.range_2eps)"),
        Spec("seed.abadi_lemma_c1.second_term_halved", f"{rr} <= lam*eps*(exp(eps) - 1) + lam**2*eps**2/4", c1_box, (), (), "fails"),
        Spec("seed.abadi_lemma_c1.first_term_dropped", f"{rr} <= lam**2*eps**2*exp(2*eps)/2", c1_box, (), (), "fails"),
        Spec("seed.bun_steinke", "rdp_randomized_response(alpha, eps) <= alpha*eps**2/2", [B("alpha", "1", "32", True),
             B("eps", "0.01", e_hi)], (), (), "holds", "theorem: Bun & Steinke 2016 (arXiv 1605.02065) Prop. 3.3 (eps-DP is eps^2/2-zCDP)"),
        Spec("seed.bun_steinke.quarter", "rdp_randomized_response(alpha, eps) <= alpha*eps**2/4", [B("alpha", "1", "32", True),
             B("eps", "0.01", e_hi)], (), (), "fails"),
        Spec("seed.rdp_inf", "rdp_randomized_response(alpha, eps) <= eps", [B("alpha", "1", "64", True), B("eps", "0.01", e_hi)],
             (), (), "holds", "theorem: D_alpha <= D_inf = eps (van Erven & Harremoes 2014)"),
        Spec("seed.subsampling_profile", "delta_sampled_gaussian(log(1 + q*(exp(eps) - 1)), q, sigma) <= q*delta_gaussian(eps, sigma)",
             [B("eps", "0", "2"), B("q", "0.01", "0.5"), B("sigma", "0.5", "3")], (), (), "holds",
             "theorem: Balle, Barthe & Gaboardi 2018 (arXiv 1807.01647) Thm 8 (Poisson subsampling, add/remove)"),
        Spec("seed.subsampling_profile.q_squared", "delta_sampled_gaussian(log(1 + q*(exp(eps) - 1)), q, sigma) <= q**2*delta_gaussian(eps, sigma)",
             [B("eps", "0", "2"), B("q", "0.01", "0.5"), B("sigma", "0.5", "3")], (), (), "fails"),
        Spec("seed.subsampling_rdp", "rdp_sampled_gaussian(alpha, q, sigma) <= rdp_gaussian(alpha, sigma)",
             [B("alpha", "2", "12"), B("q", "0.01", "0.5"), B("sigma", "0.8", "4")], (), ("alpha",), "holds",
             "theorem: data processing (the mixture is a post-processing of the Gaussian pair)"),
        Spec("seed.subsampling_rdp.q_times", "rdp_sampled_gaussian(alpha, q, sigma) <= q*rdp_gaussian(alpha, sigma)",
             [B("alpha", "2", "12"), B("q", "0.01", "0.5"), B("sigma", "0.8", "4")], (), ("alpha",), "fails"),
    ]
    return out


def integer_orders(rng):
    hi = _pick(rng, ["8", "12"])
    sg = [B("q", "0.01", "0.2"), B("sigma", "1", "4")]
    return [
        Spec("integer.log_moment_identity", "log_moment(lam, q, sigma) <= lam*rdp_sampled_gaussian(lam + 1, q, sigma)",
             [B("lam", "1", hi)] + sg, (), ("lam",), "holds", "theorem: identity (Abadi et al. 2016 Eqs. 3-4; a tie everywhere)"),
        Spec("integer.log_moment_identity.strict", "log_moment(lam, q, sigma) < lam*rdp_sampled_gaussian(lam + 1, q, sigma)",
             [B("lam", "1", hi)] + sg, (), ("lam",), "fails", witness={"lam": 1, "q": "0.01", "sigma": 1},
             source="witness: an identity under < (exact tie)"),
        Spec("integer.order2_closed_form", "rdp_sampled_gaussian(2, q, sigma) <= log(1 + q**2*(exp(1/sigma**2) - 1))*1.001",
             sg, (), (), "holds", "theorem: D_2 = log(1 + q^2 (e^(1/sigma^2) - 1)) (Mironov, Talwar & Zhang 2019)"),
        Spec("integer.order2_bound", "rdp_sampled_gaussian(2, q, sigma) <= 2*q**2*(exp(1/sigma**2) - 1)", sg, (), (), "holds",
             "theorem: D_2 = log(1 + x) <= x with x = q^2 (e^(1/sigma^2) - 1) <= 2x"),
        Spec("integer.binomial_sum_q2", "rdp_sampled_gaussian(alpha, q, sigma) <= 2*alpha*q**2/sigma**2",
             [B("alpha", "2", "6"), B("q", "0.001", "0.05"), B("sigma", "2", "8")], (), ("alpha",), "holds",
             "theorem: Mironov, Talwar & Zhang 2019 Sec. 3.3 (2 q^2 alpha / sigma^2 for small q, large sigma); grid"),
        Spec("integer.order_monotone_step", "rdp_sampled_gaussian(alpha, q, sigma) <= rdp_sampled_gaussian(alpha + 1, q, sigma)",
             [B("alpha", "2", hi)] + sg, (), ("alpha",), "holds", "theorem: van Erven & Harremoes 2014 Thm 3"),
        Spec("integer.composed_pure_n1", "delta_composed_pure(eps_prime, eps, n) <= delta_randomized_response(eps_prime, eps)",
             [B("eps_prime", "0", "2"), B("eps", "0", "2"), B("n", "1", "1")], (), ("n",), "holds",
             "theorem: identity at n = 1 (Kairouz, Oh & Viswanath 2015 Thm 3.3; a tie everywhere)"),
        Spec("integer.composed_pure_basic", "delta_composed_pure(n*eps, eps, n) <= 0",
             [B("eps", "0", "1"), B("n", "1", "8")], (), ("n",), "holds",
             "theorem: basic composition, n eps-DP mechanisms are (n eps, 0)-DP (a tie: 0 <= 0)"),
        Spec("integer.composed_pure_basic.strict", "delta_composed_pure(n*eps, eps, n) < 0",
             [B("eps", "0", "1"), B("n", "1", "8")], (), ("n",), "fails", witness={"eps": "0.5", "n": 2},
             source="witness: delta = 0 exactly (exact tie under <)"),
    ]


def coupled(rng):
    r = _pick(rng, ["1", "2", "1/2"])
    c = _pick(rng, ["1/16", "1/10", "1/4"])
    return [
        Spec("coupled.gaussian_order", f"rdp_gaussian(alpha, sigma) <= 1.1*{r}", [B("alpha", "1", "16", True), B("sigma", "0.5", "4")],
             (f"alpha <= 2*{r}*sigma**2",), (), "holds", "theorem: closed form a/(2 s^2) <= r on the condition"),
        Spec("coupled.gaussian_order.tight", f"rdp_gaussian(alpha, sigma) <= {r}", [B("alpha", "1", "16", True), B("sigma", "0.5", "4")],
             (f"alpha <= 2*{r}*sigma**2",), (), "holds", "theorem: closed form; tight along the condition"),
        Spec("coupled.gaussian_order.over", f"rdp_gaussian(alpha, sigma) <= 0.9*{r}", [B("alpha", "1", "16", True), B("sigma", "0.5", "4")],
             (f"alpha <= 2*{r}*sigma**2",), (), "fails"),
        Spec("coupled.q_sigma", f"q*sigma <= 1.01*{c}", [B("sigma", "1", "4"), B("q", "0", "1", True, True)], (f"q < {c}/sigma",), (),
             "holds", "theorem: the hypothesis itself"),
        Spec("coupled.sampled_gaussian_small_q", "rdp_sampled_gaussian(alpha, q, sigma) <= 2*alpha*q**2/sigma**2*1.5",
             [B("alpha", "2", "6"), B("sigma", "2", "6"), B("q", "0.001", "0.2")], ("q <= 1/(16*sigma)",), ("alpha",), "holds",
             "theorem: Mironov, Talwar & Zhang 2019 Sec. 3.3; grid"),
        Spec("coupled.eps_above_lower", "delta_gaussian(eps, sigma) <= delta_gaussian(1/sigma, sigma)",
             [B("eps", "0", "4"), B("sigma", "0.5", "4")], ("eps >= 1/sigma",), (), "holds",
             "theorem: delta nonincreasing in eps; tight along eps = 1/sigma"),
        Spec("coupled.laplace_zero", "delta_laplace(eps, b) <= 0", [B("eps", "0", "2"), B("b", "0.5", "4")], ("eps >= 1/b",), (),
             "holds", "theorem: (1 - e^((eps - 1/b)/2))_+ = 0 for eps >= 1/b (a tie on the whole domain)"),
        Spec("coupled.laplace_zero.outside", "delta_laplace(eps, b) <= 0", [B("eps", "0", "2"), B("b", "0.5", "4")],
             ("eps >= 1/b - 0.01",), (), "fails"),
        Spec("coupled.rr_conversion", "delta_randomized_response(eps_prime, eps) <= 1 - exp(eps_prime - eps)",
             [B("eps_prime", "0", "2"), B("eps", "0", "2")], ("eps_prime <= eps",), (), "holds",
             "theorem: (e^e - e^e')/(1 + e^e) <= (e^e - e^e')/e^e"),
    ]


def slivers(rng):
    out = []
    for k in range(3):
        c = _pick(rng, ["0.001", "0.002", "0.0005"])
        e_hi = _pick(rng, ["0.5", "1", "0.25"])
        n_hi = _pick(rng, ["3", "4", "6"])
        sup = f"(1 - exp(-{c}))*exp({e_hi})/(1 + exp({e_hi}))"
        box = [B("eps", "0.01", e_hi), B("n", "1", n_hi), B("eps_prime", "0", "3")]
        hyp = (f"n*eps - {c} <= eps_prime",)
        # sup over the domain: at n = 1, eps = e_hi, eps_prime = e_hi - c (the edge of the coupled condition):
        # delta = (1 - e^-c) (e^eps/(1 + e^eps))^n there, and delta is nonincreasing in eps_prime
        wit = {"eps": e_hi, "n": 1, "eps_prime": f"{e_hi} - {c}"}
        out.append(Spec(f"sliver.composed_pure.{k}", f"delta_composed_pure(eps_prime, eps, n) <= (1 - 1e-6)*{sup}", box, hyp,
                        ("n",), "fails", witness=wit,
                        source="witness: the sup (1 - e^-c) e^eps/(1 + e^eps), attained on the edge n eps - c = eps_prime"))
        if k == 0:
            out.append(Spec("sliver.composed_pure.margin_5pct", f"delta_composed_pure(eps_prime, eps, n) <= 1.05*{sup}", box, hyp,
                            ("n",), "holds", "theorem: the sup is attained on the edge (Kairouz, Oh & Viswanath 2015 Thm 3.3 "
                            "at eps_prime >= n eps - c: only the l = 0 term, nonincreasing in eps_prime)"))
    for k in range(2):
        r = _pick(rng, ["1", "2", "1/2", "3/2"])
        s0 = _pick(rng, ["1", "3/2", "2"])
        out.append(Spec(f"sliver.gaussian_curve.{k}", f"rdp_gaussian(alpha, sigma) <= {r}*(1 - 1e-6)",
                        [B("alpha", "1", "16", True), B("sigma", "0.5", "4")], (f"alpha <= 2*{r}*sigma**2",), (), "fails",
                        witness={"alpha": f"2*{r}*({s0})**2", "sigma": s0},
                        source="witness: alpha = 2 r sigma^2 on the edge of the condition"))
    out.append(Spec("sliver.q_sigma", "q*sigma <= (1 - 1e-6)/16", [B("sigma", "1", "4"), B("q", "0", "1", True, True)],
                    ("q <= 1/(16*sigma)",), (), "fails", witness={"sigma": "2", "q": "1/32"},
                    source="witness: on the edge q = 1/(16 sigma)"))
    return out


def ties(rng):
    return [
        Spec("tie.gaussian_identity", "rdp_gaussian(alpha, sigma) < alpha/(2*sigma**2)", [B("alpha", "2", "8"), B("sigma", "0.5", "2")],
             (), (), "fails", witness={"alpha": 2, "sigma": 1}, source="witness: an identity under < (exact tie)"),
        Spec("tie.rr_zero", "delta_randomized_response(eps_prime, eps) > 0", [B("eps_prime", "0.5", "1"), B("eps", "0.1", "0.5")],
             (), (), "fails", witness={"eps_prime": "0.5", "eps": "0.5"}, source="witness: delta = 0 exactly at a corner"),
        Spec("tie.laplace_zero", "delta_laplace(eps, b) > 0", [B("eps", "0", "1"), B("b", "1", "2")], (), (), "fails",
             witness={"eps": 1, "b": 1}, source="witness: delta = 0 exactly at eps = 1/b"),
        Spec("tie.sampled_gaussian_q0", "rdp_sampled_gaussian(alpha, q, sigma) > 0", [B("alpha", "2", "6"), B("q", "0", "0.1"),
             B("sigma", "1", "4")], (), ("alpha",), "fails", witness={"alpha": 2, "q": 0, "sigma": 1},
             source="witness: D = 0 exactly at q = 0"),
        Spec("tie.sampled_gaussian_q1", "rdp_sampled_gaussian(alpha, q, sigma) < rdp_gaussian(alpha, sigma)",
             [B("alpha", "2", "6"), B("q", "0.5", "1"), B("sigma", "1", "4")], (), ("alpha",), "fails",
             witness={"alpha": 2, "q": 1, "sigma": 1}, source="witness: equal at q = 1 (exact tie under <)"),
        Spec("tie.delta_gaussian_eps0", "delta_gaussian(eps, sigma) < 2*Phi(1/(2*sigma)) - 1", [B("eps", "0", "1"), B("sigma", "1", "2")],
             (), (), "fails", witness={"eps": 0, "sigma": 1}, source="witness: equal at eps = 0 (exact tie under <)"),
        Spec("tie.composed_pure_rr", "delta_composed_pure(eps_prime, eps, n) < delta_randomized_response(eps_prime, eps)",
             [B("eps_prime", "0", "1"), B("eps", "0.5", "2"), B("n", "1", "1")], (), ("n",), "fails",
             witness={"eps_prime": 0, "eps": "1/2", "n": 1}, source="witness: identity at n = 1 (exact tie under <)"),
        Spec("tie.log_moment_order2", "log_moment(1, q, sigma) <= log(1 + q**2*(exp(1/sigma**2) - 1))",
             [B("q", "0.01", "0.5"), B("sigma", "1", "4")], (), (), "holds",
             "theorem: identity D_2 = log(1 + q^2 (e^(1/sigma^2) - 1)) (a tie everywhere)"),
    ]


def bounds(rng):
    return [
        Spec("bound.open_alpha", "rdp_gaussian(alpha, 1) < 2", [B("alpha", "1", "4", True, True)], (), (), "holds",
             "theorem: alpha/2 < 2 for alpha < 4 (tight at the open bound)"),
        Spec("bound.closed_alpha", "rdp_gaussian(alpha, 1) < 2", [B("alpha", "1", "4", True, False)], (), (), "fails",
             witness={"alpha": 4}, source="witness: a tie at the closed bound alpha = 4"),
        Spec("bound.open_eps", "delta_gaussian(eps, 1) < 2*Phi(0.5) - 1", [B("eps", "0", "1", True, False)], (), (), "holds",
             "theorem: strictly decreasing in eps; equal at the open bound eps = 0"),
        Spec("bound.closed_eps", "delta_gaussian(eps, 1) < 2*Phi(0.5) - 1", [B("eps", "0", "1")], (), (), "fails",
             witness={"eps": 0}, source="witness: a tie at the closed bound eps = 0"),
        Spec("bound.open_q", "rdp_sampled_gaussian(alpha, q, 2) < rdp_gaussian(alpha, 2)", [B("alpha", "2", "6"),
             B("q", "0", "1", True, True)], (), ("alpha",), "holds", "theorem: strict data processing for q < 1 (grid)"),
        Spec("bound.closed_q", "rdp_sampled_gaussian(alpha, q, 2) < rdp_gaussian(alpha, 2)", [B("alpha", "2", "6"),
             B("q", "0", "1", True, False)], (), ("alpha",), "fails", witness={"alpha": 3, "q": 1},
             source="witness: equal at the closed bound q = 1"),
        Spec("bound.open_rr", "delta_randomized_response(eps_prime, eps) > 0", [B("eps_prime", "0", "1"), B("eps", "0", "2")],
             ("eps_prime < eps",), (), "holds", "theorem: e^eps > e^eps' on the open condition"),
        Spec("bound.closed_rr", "delta_randomized_response(eps_prime, eps) > 0", [B("eps_prime", "0", "1"), B("eps", "0", "2")],
             ("eps_prime <= eps",), (), "fails", witness={"eps_prime": "1/2", "eps": "1/2"},
             source="witness: a tie on the closed condition eps_prime = eps"),
        Spec("bound.open_laplace", "delta_laplace(eps, b) < 1 - exp(-1/(2*b))", [B("eps", "0", "1", True), B("b", "0.5", "2")], (), (),
             "holds", "theorem: strictly decreasing for eps < 1/b; equal at eps = 0 (open)"),
        Spec("bound.closed_laplace", "delta_laplace(eps, b) < 1 - exp(-1/(2*b))", [B("eps", "0", "1"), B("b", "0.5", "2")], (), (),
             "fails", witness={"eps": 0, "b": 1}, source="witness: a tie at eps = 0 (closed)"),
    ]


def generate(seed):
    rng = random.Random(seed)
    specs = conversions(rng) + monotonicity(rng) + seed_theorems(rng) + integer_orders(rng) + coupled(rng) + slivers(rng) \
        + ties(rng) + bounds(rng)
    claims, dropped = [], []
    for spec in specs:
        per_dim = {1: 41, 2: 13, 3: 7}.get(len(spec.box), 5)
        if "rdp_sampled_gaussian" in spec.claim or "log_moment" in spec.claim:
            per_dim = min(per_dim, 6)
        rec = establish(spec, per_dim)
        if rec is None:
            dropped.append({"template": spec.template, "claim": spec.claim, "where": spec.where(),
                            "why": "no violation found at 50 digits on the grid and by the search"})
        else:
            rec["id"] = f"g{len(claims) + 1:03d}"
            claims.append(rec)
        print(f"{spec.template}: {rec and rec['truth']}", file=sys.stderr, flush=True)
    return {"seed": seed, "procedure": __doc__.split("**Procedure**")[1].split("The runner")[0].strip(), "claims": claims,
            "dropped": dropped}


# ------------------------------------------------------------------------------------------------
# runner
# ------------------------------------------------------------------------------------------------
def run_one(rec, args, worktree):
    cmd = [sys.executable, "-m", "dpproofs", "verify", "--json", rec["claim"]]
    for w in rec["where"]:
        cmd += ["--where", w]
    for n in rec["integers"]:
        cmd += ["--integer", n]
    if args.time_budget is not None:
        cmd += ["--time-budget", str(args.time_budget)]
    env = dict(os.environ, PYTHONPATH=worktree)
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=worktree)
    killed = []
    timer = threading.Timer(args.timeout, lambda: (killed.append(1), proc.kill()))
    timer.start()
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    timer.cancel()
    wall = time.monotonic() - t0
    verdict, evidence = "error", err.decode()[-200:].strip().replace("\n", " | ")
    if killed:
        verdict, evidence = "timeout", f"killed after {args.timeout} s"
    elif out.strip():
        try:
            res = json.loads(out)
            verdict, evidence = res["verdict"], res.get("evidence", "")
        except json.JSONDecodeError:
            pass
    if verdict in ("proved", "holds"):
        ok = "ok" if rec["truth"] == "holds" else "WRONG"
    elif verdict == "refuted":
        ok = "ok" if rec["truth"] == "fails" else "WRONG"
    else:
        ok = "-"
    return {"id": rec["id"], "template": rec["template"], "truth": rec["truth"], "verdict": verdict, "ok": ok,
            "cpu": usage.ru_utime + usage.ru_stime, "wall": wall, "rss_mib": usage.ru_maxrss / 1024,
            "margin": rec.get("grid_margin", rec.get("witness_margin")), "evidence": evidence}


def run(args):
    with open(args.suite) as fh:
        suite = json.load(fh)
    claims = suite["claims"]
    if args.only:
        claims = [c for c in claims if any(c["id"] == o or c["template"].startswith(o) for o in args.only.split(","))]
    worktree = os.path.dirname(HERE)
    results = [None] * len(claims)
    lock = threading.Lock()
    todo = list(enumerate(claims))

    def worker():
        while True:
            with lock:
                if not todo:
                    return
                i, rec = todo.pop(0)
            results[i] = run_one(rec, args, worktree)
            r = results[i]
            print(f"{r['id']}  {r['verdict']:9s} {r['truth']:5s} {r['ok']:5s} cpu {r['cpu']:6.1f} s  wall {r['wall']:6.1f} s  "
                  f"rss {r['rss_mib']:6.0f} MiB  {r['template']}", file=sys.stderr, flush=True)

    threads = [threading.Thread(target=worker) for _ in range(args.jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"# dpproofs verify on the generated suite ({args.suite}, seed {suite['seed']}, {len(claims)} claims)")
    print(f"# command: {' '.join(sys.argv)}; time budget: {args.time_budget or 'default (60 s)'}; "
          f"jobs {args.jobs}; per-call timeout {args.timeout} s; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"{'id':5s} {'verdict':9s} {'truth':5s} {'ok':5s} {'cpu_s':>7s} {'wall_s':>7s} {'rss_MiB':>7s} {'margin':>10s}  template | evidence")
    for r in results:
        print(f"{r['id']:5s} {r['verdict']:9s} {r['truth']:5s} {r['ok']:5s} {r['cpu']:7.1f} {r['wall']:7.1f} {r['rss_mib']:7.0f} "
              f"{str(r['margin']):>10s}  {r['template']} | {r['evidence'][:160]}")
    true = [r for r in results if r["truth"] == "holds"]
    false = [r for r in results if r["truth"] == "fails"]

    def margin_of(r):
        try:
            return float(r["margin"])
        except (TypeError, ValueError):
            return 0.0

    real = [r for r in true if margin_of(r) >= 0.01]
    count = lambda rs, v: sum(r["verdict"] == v for r in rs)
    print("# summary")
    print(f"# true claims: {len(true)}: proved {count(true, 'proved')}, holds {count(true, 'holds')}, undecided "
          f"{count(true, 'undecided')}, refuted {count(true, 'refuted')} (WRONG), timeout {count(true, 'timeout')}, "
          f"error {count(true, 'error')}")
    print(f"# true claims with grid margin >= 1 %: {len(real)}: proved {count(real, 'proved')}")
    print(f"# false claims: {len(false)}: refuted {count(false, 'refuted')}, proved {count(false, 'proved')} (WRONG), holds "
          f"{count(false, 'holds')} (WRONG), undecided {count(false, 'undecided')}, timeout {count(false, 'timeout')}, "
          f"error {count(false, 'error')}")
    cpus = sorted(r["cpu"] for r in results)
    print(f"# cpu s: median {cpus[len(cpus) // 2]:.1f}, max {cpus[-1]:.1f}, total {sum(cpus):.0f}; "
          f"peak rss max {max(r['rss_mib'] for r in results):.0f} MiB; wall max {max(r['wall'] for r in results):.1f} s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--seed", type=int, default=21)
    r = sub.add_parser("run")
    r.add_argument("--suite", default=SUITE_FILE)
    r.add_argument("--time-budget", type=float, default=None)
    r.add_argument("--timeout", type=float, default=150)
    r.add_argument("--jobs", type=int, default=1)
    r.add_argument("--only", default="")
    args = ap.parse_args()
    if args.cmd == "generate":
        json.dump(generate(args.seed), sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        run(args)


if __name__ == "__main__":
    main()
