"""The shipped accountant under replace-one and fixed-size batches is never below a realised pair
(ids ``accountant.relations.*``).

Convention: sigma = noise std / clipping norm C; under replace-one the clipped sum moves by up to
2C. The accountant is called exactly as a user calls it (``dp.Accountant(relation="replace_one")``
with ``dp.FixedBatchGaussian`` or ``dp.SampledGaussian``). Each claim holds its answer against the
exact value of a pair of output distributions that some pair of neighbouring datasets REALISES
(so the true privacy loss is at least that value); a shipped number below it would be wrong.

Fixed-size batches (b of n without replacement, gamma = b/n), replace-one: with every other record
equal to x' and x = -x' (|x| = 1), D' gives N(b x') at every step and D gives
``(1-g) N(b x') + g N(b x' - 2 x')``: the pair P1 = ((1-g)N(0)+gN(2), N(0)) in units of C, and
with D and D' exchanged its swap P2. Scaled by 1/2 this is the sampled-Gaussian pair at noise
sigma/2, so the vocabulary's ``rdp_sampled_gaussian(alpha, gamma, sigma/2)`` (max of both
directions; exact binomial sum and quadrature) is exactly ``max(D_a(P1), D_a(P2))``, and the
exact one-step profile ``delta_sampled_gaussian(eps, gamma, sigma/2)`` is the max of both
directions' hockey sticks. Composed T times with the same records, P1^T and P2^T are realised, and
``dp.PLDAccountant().compose(dp.SampledGaussian(gamma, sigma/2), T).epsilon_bounds(delta).lower``
is a certified lower bound on their tight epsilon (max of both directions; the PLD accountant's
own claims ``accountant.pld.*`` check that end).

Poisson sampling (rate q), replace-one: with x' = 0 (a valid clipped contribution) the pair is
the add/remove pair ((1-q)N(0)+qN(1), N(0)); with x = +e, x' = -e and every other record 0 it is
the symmetric P* = ((1-q)N(0)+qN(1), (1-q)N(0)+qN(-1)). D_a(P*) has no closed form: the claims
use the Rényi divergence of P* binned into 602 intervals (a post-processing of the output, so by
data processing a LOWER bound on D_a(P*), itself realised), computed at high precision in mpmath
and with arb balls (normal tail probabilities by erfc).

Ids (prefix ``accountant.relations``):

* ``.fixed_batch.rdp_integer`` / ``.rdp_fractional`` (and ``.rdp_high_orders``: P1 alone, integer
  orders to 4096): ``Accountant([alpha], relation="replace_one")
  .compose(FixedBatchGaussian(b, n, sigma), T).rdp`` times the documented inflation >=
  ``T max(D_a(P1), D_a(P2))`` (Wang, Balle & Kasiviswanathan 2019, arXiv 1808.00087v2, Thm 9, with
  the Gaussian at sensitivity 2; fractional orders by the chord of (a-1) D_a);
  mutants: ``sigma_not_halved`` (the base Gaussian at sensitivity 1, i.e. eps(j) = j/(2 sigma^2)),
  ``wbk19_without_higher_terms`` (Theorem 9 without its j >= 3 terms);
* ``.fixed_batch.epsilon_one_step``: delta_P1(eps_shipped) <= delta for one step;
  mutant ``add_remove_accounting`` (the Poisson add/remove epsilon at the same rate and sigma);
* ``.fixed_batch.epsilon_composed``: eps_shipped >= the PLD lower end of P1^T / P2^T;
  mutant ``add_remove_accounting``;
* ``.poisson.add_remove_pair``: the replace-one curve >= T D_a of the add/remove pair
  (Mironov 2017, arXiv 1702.07476v3, Prop. 11 through D minus x);
  mutant ``add_remove_curve_below_symmetric``: the add/remove curve itself is below the
  binned symmetric pair (replace-one is NOT add/remove);
* ``.poisson.symmetric_pair``: the replace-one curve >= T D_a(binned P*);
  mutant ``prop11_without_factor``: ``eps_SG(2a) + eps_SG(2a-1)`` (Prop. 11 without its
  ``(a - 1/2)/(a - 1)``) is below the binned P* at alpha = 1.1.
"""

import fractions
import functools

import sympy
from flint import arb
from mpmath import mp

import dpproofs as dp
from dpproofs.math import reductions as subsampling
from dpproofs.checker.claims import Claim, Sides, Variable
from dpproofs.math import ball
from dpproofs.math import precise

from dpproofs_theorems.accountant._common import ACCOUNTANT, MIRONOV, MTZ, RDP_INFLATION

__all__ = ["CLAIMS", "binned_symmetric_rdp", "SIGMA_PIN", "POISSON_PIN"]

WBK = "Wang, Balle & Kasiviswanathan 2019 (arXiv 1808.00087v2), Thm 9"
SOURCE_FIXED = f"{ACCOUNTANT}; {WBK}; realised pair: every other record x', x = -x'"
SOURCE_POISSON = f"{ACCOUNTANT}; {MIRONOV}, Prop. 11; {MTZ}; realised pairs: x' = 0, and x = +e, x' = -e"

alpha, b, n, sigma, T, delta, q = (sympy.Symbol(s, real=True) for s in ("alpha", "b", "n", "sigma", "T", "delta", "q"))
#: labels of the two sides (the Sides below evaluate them)
shipped_rdp_fixed = sympy.Function("accountant_rdp_fixed_batch_replace_one")
shipped_rdp_poisson = sympy.Function("accountant_rdp_sampled_gaussian_replace_one")
shipped_eps_fixed = sympy.Function("accountant_epsilon_fixed_batch_replace_one")
rdp_sg = sympy.Function("rdp_sampled_gaussian")
delta_sg = sympy.Function("delta_sampled_gaussian")
pld_lower_sg = sympy.Function("pld_epsilon_lower_sampled_gaussian")
rdp_binned_sym = sympy.Function("rdp_binned_symmetric_pair")
wbk19_low = sympy.Function("wbk19_rdp_without_higher_terms")
rdp_sg_add = sympy.Function("rdp_sampled_gaussian_add")
shipped_rdp_add_remove = sympy.Function("accountant_rdp_sampled_gaussian")
shipped_eps_add_remove = sympy.Function("accountant_epsilon_sampled_gaussian")

def _inflation_mp():
    return mp.mpf(RDP_INFLATION.p) / RDP_INFLATION.q


def _inflation_arb():
    return arb(RDP_INFLATION.p) / RDP_INFLATION.q


@functools.lru_cache(maxsize=256)
def _shipped_rdp(kind, a, b_value, n_value, sigma_value, steps, relation="replace_one"):
    """``Accountant([alpha], relation=...).compose(m, T).rdp[0]`` exactly as a user calls it."""
    if kind == "fixed":
        mechanism = dp.FixedBatchGaussian(b_value, n_value, sigma_value)
    else:
        mechanism = dp.SampledGaussian(b_value, sigma_value)  # b_value is q here
    return float(dp.Accountant([a], relation=relation).compose(mechanism, steps).rdp[0])


def _a(point):
    value = point["alpha"]
    return int(value) if float(value).is_integer() else float(value)


def _fixed(point):
    return int(point["b"]), int(point["n"]), float(point["sigma"]), int(point["T"])


# --- fixed-size batches: RDP -----------------------------------------------------------------------


def _fixed_rdp_sides(lhs_float, lhs_precise=None, lhs_ball=None, direction="max"):
    """(lhs, T max(D_a(P1), D_a(P2))) with lhs the shipped-style curve (a float, inflated) unless
    lhs_precise / lhs_ball compute it exactly; ``direction="add"``: D_a(P1) alone (exact sum)."""

    def precise_side(point, dps):
        bb, nn, s, steps = _fixed(point)
        with mp.workdps(dps + precise.GUARD_DPS):
            g = mp.mpf(bb) / nn
            exact = steps * precise.rdp_sampled_gaussian(_a(point), g, mp.mpf(s) / 2, dps=dps, direction=direction)
            lhs = lhs_precise(point, dps) if lhs_precise else mp.mpf(lhs_float(point)) * _inflation_mp()
            return lhs, exact

    def ball_side(point, prec):
        bb, nn, s, steps = _fixed(point)
        with ball.precision(prec):
            g = fractions.Fraction(bb, nn)
            exact = steps * ball.rdp_sampled_gaussian(_a(point), g, s / 2, prec=prec, direction=direction)
            lhs = lhs_ball(point, prec) if lhs_ball else arb(lhs_float(point)) * _inflation_arb()
            return lhs, exact

    return Sides(precise_side, ball_side)


def _shipped_fixed(point):
    bb, nn, s, steps = _fixed(point)
    return _shipped_rdp("fixed", _a(point), bb, nn, s, steps)


def _shipped_fixed_sigma_not_halved(point):
    """The mutant: the base Gaussian at sensitivity 1 (eps(j) = j/(2 sigma^2)), i.e. the shipped
    curve at 2 sigma."""
    bb, nn, s, steps = _fixed(point)
    return _shipped_rdp("fixed", _a(point), bb, nn, 2 * s, steps)


def _wbk19_low_precise(point, dps):
    bb, nn, s, steps = _fixed(point)
    with mp.workdps(dps + precise.GUARD_DPS):
        return steps * subsampling.wor_replace_one_rdp_integer(int(point["alpha"]), mp.mpf(bb) / nn, mp.mpf(s), backend="mpmath",
                                             higher=False)


def _wbk19_low_ball(point, prec):
    bb, nn, s, steps = _fixed(point)
    with ball.precision(prec):
        return steps * subsampling.wor_replace_one_rdp_integer(int(point["alpha"]), fractions.Fraction(bb, nn), s, backend="arb",
                                             higher=False)


B_VAR = Variable("b", 1, 64, integer=True)
N_VAR = Variable("n", 64, 10**6, integer=True)
SIGMA_VAR = Variable("sigma", 0.3, 50.0)
T_VAR = Variable("T", 1, 10**6, integer=True)
_FIXED_STATEMENT = sympy.Ge(shipped_rdp_fixed(alpha, b, n, sigma, T) * RDP_INFLATION, T * rdp_sg(alpha, b / n, sigma / 2))

fixed_rdp_integer = Claim(
    id="accountant.relations.fixed_batch.rdp_integer",
    source=SOURCE_FIXED,
    statement=_FIXED_STATEMENT,
    variables=(Variable("alpha", 2, 64, integer=True), B_VAR, N_VAR, SIGMA_VAR, T_VAR),
    title="fixed-size batches, replace-one: the shipped RDP >= the realised worst pair P1 / P2 (integer orders)",
    explanation="the exact side is max(log A, log B)/(alpha - 1) of the sampled Gaussian at gamma = b/n and sigma/2 "
    "(log B by quadrature); the inflation is the documented 1 + fast.RTOL + 3 2^-52.",
    sides=_fixed_rdp_sides(_shipped_fixed),
    cost=0.1,  # log B is a 1-D integral (~1 s at 50 digits)
)

fixed_rdp_high_orders = Claim(
    id="accountant.relations.fixed_batch.rdp_high_orders",
    source=SOURCE_FIXED,
    statement=sympy.Ge(shipped_rdp_fixed(alpha, b, n, sigma, T) * RDP_INFLATION, T * rdp_sg_add(alpha, b / n, sigma / 2)),
    variables=(Variable("alpha", 2, 4096, integer=True), B_VAR, N_VAR, SIGMA_VAR, T_VAR),
    title="fixed-size batches, replace-one: the shipped RDP >= D_a(P1) up to the default grid's integer orders (4096)",
    explanation="the P1 direction alone (log A_alpha at gamma = b/n and sigma/2, the exact binomial sum), at orders "
    "where the quadrature of the swap P2 would be slow.",
    sides=_fixed_rdp_sides(_shipped_fixed, direction="add"),
    cost=0.5,
)

fixed_rdp_fractional = Claim(
    id="accountant.relations.fixed_batch.rdp_fractional",
    source=f"{SOURCE_FIXED}; chord of the convex (alpha - 1) D_alpha between integers",
    statement=_FIXED_STATEMENT,
    variables=(Variable("alpha", 1.000001, 32), B_VAR, N_VAR, SIGMA_VAR, T_VAR),
    title="fixed-size batches, replace-one: the shipped RDP >= P1 / P2 at fractional orders (the chord)",
    explanation="fractional orders: Theorem 9 at the two neighbouring integers, K = (a-1) eps interpolated linearly "
    "(K is a cumulant generating function, hence convex; K(1) = 0).",
    sides=_fixed_rdp_sides(_shipped_fixed),
    cost=0.1,  # both directions by quadrature at a fractional order
)

#: A pin where the realised pair is far above both mutants: alpha 10, b = 256 of n = 60000, sigma 1.1
SIGMA_PIN = {"alpha": 10, "b": 64, "n": 15000, "sigma": 1.1, "T": 1}

sigma_not_halved = fixed_rdp_integer.mutant(
    "sigma_not_halved",
    statement=sympy.Ge(shipped_rdp_fixed(alpha, b, n, 2 * sigma, T) * RDP_INFLATION, T * rdp_sg(alpha, b / n, sigma / 2)),
    sides=_fixed_rdp_sides(_shipped_fixed_sigma_not_halved),
    explanation="Theorem 9 with the base Gaussian at sensitivity 1 (eps(j) = j/(2 sigma^2), as if replacing a record "
    "moved the clipped sum by C, not 2C): the realised pair P1 at alpha = 10, gamma = 64/15000, sigma = 1.1 "
    "(10.47) is far above it",
    pinned=(SIGMA_PIN,),
)

without_higher_terms = fixed_rdp_integer.mutant(
    "wbk19_without_higher_terms",
    statement=sympy.Ge(T * wbk19_low(alpha, b / n, sigma), T * rdp_sg(alpha, b / n, sigma / 2)),
    sides=_fixed_rdp_sides(None, _wbk19_low_precise, _wbk19_low_ball),
    explanation="Theorem 9 keeping only its j = 2 term (a 'second-order' bound): at alpha = 10, sigma = 1.1 the "
    "j = alpha term dominates and the truncated bound (~0.005) is far below the realised pair (10.47)",
    pinned=(SIGMA_PIN,),
)


# --- fixed-size batches: epsilon -------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _shipped_epsilon(kind, b_value, n_value, sigma_value, steps, delta_value):
    if kind == "fixed":
        accountant = dp.Accountant(relation="replace_one").compose(dp.FixedBatchGaussian(b_value, n_value, sigma_value),
                                                                  steps)
    else:  # the mutant: Poisson add/remove at the same rate and sigma
        accountant = dp.Accountant().compose(dp.SampledGaussian(b_value / n_value, sigma_value), steps)
    return float(accountant.epsilon(delta_value))


def _one_step_sides(kind):
    def eps_of(point):
        bb, nn, s, _ = _fixed(dict(point, T=1))
        return _shipped_epsilon(kind, bb, nn, s, 1, float(point["delta"]))

    def precise_side(point, dps):
        bb, nn, s, _ = _fixed(dict(point, T=1))
        with mp.workdps(dps + precise.GUARD_DPS):
            value = precise.delta_sampled_gaussian(eps_of(point), mp.mpf(bb) / nn, mp.mpf(s) / 2, dps=dps,
                                                   direction="max")
            return value, precise.to_mpf(point["delta"])

    def ball_side(point, prec):
        bb, nn, s, _ = _fixed(dict(point, T=1))
        with ball.precision(prec):
            value = ball.delta_sampled_gaussian(eps_of(point), fractions.Fraction(bb, nn), s / 2, prec=prec,
                                                direction="max")
            return value, ball.to_arb(point["delta"])

    return Sides(precise_side, ball_side)


DELTA_VAR = Variable("delta", 1e-10, 1e-3)
fixed_epsilon_one_step = Claim(
    id="accountant.relations.fixed_batch.epsilon_one_step",
    source=f"{SOURCE_FIXED}; exact one-step profile of P1 and P2 (closed form)",
    statement=sympy.Le(delta_sg(shipped_eps_fixed(b, n, sigma, 1, delta), b / n, sigma / 2), delta),
    variables=(B_VAR, N_VAR, Variable("sigma", 0.5, 20.0), DELTA_VAR),
    title="fixed-size batches, replace-one, one step: the exact profile of P1 / P2 at the shipped epsilon is <= delta",
    explanation="dp.Accountant(relation='replace_one').compose(FixedBatchGaussian(b, n, sigma)).epsilon(delta) "
    "against the closed-form hockey stick of the sampled Gaussian at gamma = b/n and sigma/2, both directions.",
    sides=_one_step_sides("fixed"),
    cost=0.5,
)

EPSILON_PIN = {"b": 64, "n": 15000, "sigma": 1.1, "delta": 1e-5}
one_step_add_remove = fixed_epsilon_one_step.mutant(
    "add_remove_accounting",
    statement=sympy.Le(delta_sg(shipped_eps_add_remove(b / n, sigma, 1, delta), b / n, sigma / 2), delta),
    sides=_one_step_sides("add_remove"),
    explanation="the Poisson add/remove epsilon at q = b/n and the same sigma (what a user gets by feeding the fixed "
    "batch's rate into an add/remove accountant) is below what the realised replace-one pair needs",
    pinned=(EPSILON_PIN,),
)


@functools.lru_cache(maxsize=64)
def _pld_lower(b_value, n_value, sigma_value, steps, delta_value):
    """Certified lower end of the tight epsilon of T steps of P1 / P2 (the PLD accountant's)."""
    bounds = dp.PLDAccountant().compose(dp.SampledGaussian(b_value / n_value, sigma_value / 2), steps)
    return float(bounds.epsilon_bounds(delta_value).lower)


def _composed_sides(kind):
    def values(point):
        bb, nn, s, steps = _fixed(point)
        d = float(point["delta"])
        return _shipped_epsilon(kind, bb, nn, s, steps, d), _pld_lower(bb, nn, s, steps, d)

    def precise_side(point, dps):
        lhs, rhs = values(point)
        return mp.mpf(lhs), mp.mpf(rhs)

    def ball_side(point, prec):
        lhs, rhs = values(point)
        return arb(lhs), arb(rhs)

    return Sides(precise_side, ball_side)


_COMPOSED_VARS = (Variable("b", 1, 64, integer=True), Variable("n", 64, 10000, integer=True),
                  Variable("sigma", 1.0, 10.0), Variable("T", 1, 2000, integer=True), Variable("delta", 1e-10, 1e-4))
fixed_epsilon_composed = Claim(
    id="accountant.relations.fixed_batch.epsilon_composed",
    source=f"{SOURCE_FIXED}; dpproofs PLDAccountant lower end (checked by accountant.pld.*)",
    statement=sympy.Ge(shipped_eps_fixed(b, n, sigma, T, delta), pld_lower_sg(b / n, sigma / 2, T, delta)),
    variables=_COMPOSED_VARS,
    title="fixed-size batches, replace-one, T steps: the shipped epsilon >= the tight epsilon of P1^T / P2^T "
    "(PLD lower end)",
    explanation="P1^T and P2^T are realised (the same records at every step), so their tight epsilon is a lower "
    "bound on the truth; the PLD accountant's lower end is below that tight epsilon.",
    sides=_composed_sides("fixed"),
    cost=0.1,  # one PLD composition per example (~0.5-10 s)
)

COMPOSED_PIN = {"b": 10, "n": 1000, "sigma": 4.0, "T": 100, "delta": 1e-5}
composed_add_remove = fixed_epsilon_composed.mutant(
    "add_remove_accounting",
    statement=sympy.Ge(shipped_eps_add_remove(b / n, sigma, T, delta), pld_lower_sg(b / n, sigma / 2, T, delta)),
    sides=_composed_sides("add_remove"),
    explanation="the Poisson add/remove epsilon at q = b/n, sigma = 4, 100 steps (0.090) is below the tight epsilon "
    "of the realised replace-one pair (>= 0.1897)",
    pinned=(COMPOSED_PIN,),
)


# --- Poisson sampling, replace-one -----------------------------------------------------------------

#: bins of the symmetric pair: [-L, L] with L = 1 + 10 sigma cut into BINS equal intervals, plus the
#: two tails (602 cells): fine enough that the binned divergence is within a few % of D_a(P*)
BINS = 600


def binned_symmetric_rdp(a, q_value, sigma_value, *, backend, prec_or_dps):
    """D_a of P* = ((1-q)N(0)+qN(1), (1-q)N(0)+qN(-1)) (sd sigma) after binning the output into the
    cells of :data:`BINS` (a lower bound on D_a(P*) by the data-processing inequality), in mpmath
    ("mpmath", at ``prec_or_dps`` digits) or as an arb ball (at ``prec_or_dps`` bits)."""
    if backend == "mpmath":
        with mp.workdps(prec_or_dps + precise.GUARD_DPS):
            return _binned(mp.mpf(a), mp.mpf(q_value), mp.mpf(sigma_value), precise.normal_sf,
                           lambda x: x.__pow__, mp.log, mp.mpf(1))
    with ball.precision(prec_or_dps):
        return _binned(ball.to_arb(a), ball.to_arb(q_value), ball.to_arb(sigma_value), ball.normal_sf,
                       None, lambda x: x.log(), arb(1))


def _binned(aa, qq, s, sf, _unused, log, one):
    half_width = 1 + 10 * s
    edges = [-half_width + 2 * half_width * k / BINS for k in range(BINS + 1)]

    def cell_mass(low, high, mean):
        upper = sf((low - mean) / s) if low is not None else one
        lower = sf((high - mean) / s) if high is not None else 0 * one
        return upper - lower

    cells = [(None, edges[0])] + list(zip(edges[:-1], edges[1:])) + [(edges[-1], None)]
    total = 0 * one
    for low, high in cells:
        base = (1 - qq) * cell_mass(low, high, 0)
        p = base + qq * cell_mass(low, high, 1)
        r = base + qq * cell_mass(low, high, -1)
        total += (aa * log(p) + (1 - aa) * log(r)).exp() if not isinstance(one, mp.mpf) else mp.exp(
            aa * log(p) + (1 - aa) * log(r))
    return log(total) / (aa - 1)


def _poisson(point):
    return float(point["q"]), float(point["sigma"]), int(point["T"])


def _poisson_sides(lhs_float, exact, lhs_precise=None, lhs_ball=None):
    """(lhs, T exact(alpha, q, sigma)); exact is 'add_remove' or 'symmetric'."""

    def precise_side(point, dps):
        qq, s, steps = _poisson(point)
        with mp.workdps(dps + precise.GUARD_DPS):
            if exact == "add_remove":
                rhs = precise.rdp_sampled_gaussian(_a(point), qq, s, dps=dps, direction="max")
            else:
                rhs = binned_symmetric_rdp(_a(point), qq, s, backend="mpmath", prec_or_dps=dps)
            lhs = lhs_precise(point, dps) if lhs_precise else mp.mpf(lhs_float(point)) * _inflation_mp()
            return lhs, steps * rhs

    def ball_side(point, prec):
        qq, s, steps = _poisson(point)
        with ball.precision(max(prec, 256)):  # the bins' tail masses are differences of erfc values
            if exact == "add_remove":
                rhs = ball.rdp_sampled_gaussian(_a(point), qq, s, prec=prec, direction="max")
            else:
                rhs = binned_symmetric_rdp(_a(point), qq, s, backend="arb", prec_or_dps=prec)
            lhs = lhs_ball(point, prec) if lhs_ball else arb(lhs_float(point)) * _inflation_arb()
            return lhs, steps * rhs

    return Sides(precise_side, ball_side)


def _shipped_poisson(point):
    qq, s, steps = _poisson(point)
    return _shipped_rdp("poisson", _a(point), qq, None, s, steps)


def _shipped_poisson_add_remove(point):
    qq, s, steps = _poisson(point)
    return _shipped_rdp("poisson", _a(point), qq, None, s, steps, relation="add_remove")


def _no_factor_precise(point, dps):
    qq, s, steps = _poisson(point)
    a = mp.mpf(point["alpha"])
    with mp.workdps(dps + precise.GUARD_DPS):
        def eps_sg(order):
            return precise.rdp_sampled_gaussian(order, qq, s, dps=dps, direction="add")
        return steps * (eps_sg(2 * a) + eps_sg(2 * a - 1))


def _no_factor_ball(point, prec):
    qq, s, steps = _poisson(point)
    a = ball.to_arb(point["alpha"])
    with ball.precision(prec):
        def eps_sg(order):
            return ball.rdp_sampled_gaussian(order, qq, s, prec=prec, direction="add")
        return steps * (eps_sg(2 * a) + eps_sg(2 * a - 1))


_POISSON_VARS = (Variable("alpha", 2, 64, integer=True), Variable("q", 1e-4, 1.0), Variable("sigma", 0.5, 50.0),
                 T_VAR)
poisson_add_remove_pair = Claim(
    id="accountant.relations.poisson.add_remove_pair",
    source=SOURCE_POISSON,
    statement=sympy.Ge(shipped_rdp_poisson(alpha, q, sigma, T) * RDP_INFLATION, T * rdp_sg(alpha, q, sigma)),
    variables=_POISSON_VARS,
    title="Poisson, replace-one: the shipped RDP >= the realised add/remove pair (x' = 0)",
    explanation="Accountant([alpha], relation='replace_one').compose(SampledGaussian(q, sigma), T).rdp against "
    "max(log A, log B)/(alpha - 1) (log B by quadrature).",
    sides=_poisson_sides(_shipped_poisson, "add_remove"),
    cost=0.1,
)

_SYM_VARS = (Variable("alpha", 1.01, 8), Variable("q", 1e-3, 0.5), Variable("sigma", 0.5, 10.0), T_VAR)
poisson_symmetric_pair = Claim(
    id="accountant.relations.poisson.symmetric_pair",
    source=f"{SOURCE_POISSON}; data processing (binning)",
    statement=sympy.Ge(shipped_rdp_poisson(alpha, q, sigma, T) * RDP_INFLATION, T * rdp_binned_sym(alpha, q, sigma)),
    variables=_SYM_VARS,
    title="Poisson, replace-one: the shipped RDP >= the binned symmetric pair P* (x = +e, x' = -e)",
    explanation="the exact side is the Rényi divergence of P* binned into 602 cells (a realised lower bound).",
    sides=_poisson_sides(_shipped_poisson, "symmetric"),
    cost=0.2,
)

#: alpha = 1.1, q = 0.001, sigma = 4: Prop. 11 without its factor ~ 3.2 q^2/(2 s^2)-ish, P* ~ 4.4
POISSON_PIN = {"alpha": 1.1, "q": 0.001, "sigma": 4.0, "T": 1}
prop11_without_factor = poisson_symmetric_pair.mutant(
    "prop11_without_factor",
    statement=sympy.Ge(T * (rdp_sg_add(2 * alpha, q, sigma) + rdp_sg_add(2 * alpha - 1, q, sigma)),
                       T * rdp_binned_sym(alpha, q, sigma)),
    sides=_poisson_sides(None, "symmetric", _no_factor_precise, _no_factor_ball),
    explanation="Mironov's Prop. 11 without the factor (a - 1/2)/(a - 1) on D_{2a}: near alpha = 1 (where that factor "
    "is large) the sum eps_SG(2a) + eps_SG(2a - 1) is below the realised symmetric pair",
    pinned=(POISSON_PIN,),
)

add_remove_below_symmetric = poisson_symmetric_pair.mutant(
    "add_remove_curve_below_symmetric",
    statement=sympy.Ge(shipped_rdp_add_remove(alpha, q, sigma, T) * RDP_INFLATION, T * rdp_binned_sym(alpha, q, sigma)),
    sides=_poisson_sides(_shipped_poisson_add_remove, "symmetric"),
    explanation="the add/remove curve (relation='add_remove', what a replace-one user gets by default) is below the "
    "realised replace-one pair P*: the relation matters",
    pinned=(POISSON_PIN,),
)

CLAIMS = [
    fixed_rdp_integer,
    fixed_rdp_high_orders,
    fixed_rdp_fractional,
    sigma_not_halved,
    without_higher_terms,
    fixed_epsilon_one_step,
    one_step_add_remove,
    fixed_epsilon_composed,
    composed_add_remove,
    poisson_add_remove_pair,
    poisson_symmetric_pair,
    prop11_without_factor,
    add_remove_below_symmetric,
]


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen): the shipped answers for one realistic run under each
# (sampling, relation) pair, beside the tight epsilon of the realised fixed-batch pair P1^T / P2^T.


def _figure_relations(path):
    """epsilon(delta = 1e-5) against epochs for n = 60000, b = 256, sigma = 1.1, as a user computes it."""
    import math

    from dpproofs.docgen import pyplot, save

    plt = pyplot()
    n_value, b_value, s_value, d_value = 60000, 256, 1.1, 1e-5
    epochs = [1, 2, 5, 10, 20, 40, 60]
    series = {"fixed batches, replace-one (RDP, WBK19 Thm 9)": [], "realised pair P1^T / P2^T (tight, PLD lower end)": [],
              "Poisson, replace-one (RDP, Mironov Prop. 11)": [], "Poisson, add/remove (RDP)": []}
    for e in epochs:
        steps = math.ceil(e * n_value / b_value)
        values = (
            dp.Accountant(relation="replace_one").compose(dp.FixedBatchGaussian(b_value, n_value, s_value), steps),
            None,
            dp.Accountant(relation="replace_one").compose(dp.SampledGaussian(b_value / n_value, s_value), steps),
            dp.Accountant().compose(dp.SampledGaussian(b_value / n_value, s_value), steps),
        )
        for (label, points), accountant in zip(series.items(), values):
            if accountant is None:
                points.append(_pld_lower(b_value, n_value, s_value, steps, d_value))
            else:
                points.append(accountant.epsilon(d_value))
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for (label, points), style in zip(series.items(), ("C0-", "k--", "C1-", "C2-")):
        ax.plot(epochs, points, style, marker="o", ms=3, label=label)
    ax.set_xlabel("epochs (n = 60000, b = 256, sigma = 1.1 = noise std / clipping norm)")
    ax.set_ylabel("epsilon at delta = 1e-5")
    ax.legend(fontsize=7)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("accountant_relations_epochs.png",
                   "epsilon against epochs for one run under each sampling and relation: the fixed-batch replace-one "
                   "RDP bound stays above the tight epsilon of the realised pair P1^T / P2^T (dashed), which is "
                   "itself far above the Poisson add/remove number a user gets by feeding b/n into an add/remove "
                   "accountant", _figure_relations),)


FIGURES = _figures()
