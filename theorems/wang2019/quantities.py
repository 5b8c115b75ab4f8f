"""The quantities of the Wang, Balle & Kasiviswanathan 2019 modules (arXiv 1808.00087v2), registered
in the vocabulary when the package is imported.

Over one fixed-size (without replacement) replace-one instance
(:class:`dpproofs.checker.oracles.subsampled.Subsampled`; the instance quantities ``eps_base``,
``sampling_fraction``, ... are the Balle-Barthe-Gaboardi package's, imported below):

* ``instance_pair`` - the exact pair ``(M(S(d)), M(S(d2)))`` (also used by the Zhu-Dong-Wang 2022
  package);
* ``base_rdp`` - ``eps(j)``, the base's RDP over the instance's neighbouring batches (both orders);
* ``wor_chi_moment``, ``wor_ternary_chi`` - the moments of the proof of Theorem 9: with ``A``, ``B``
  the output given the differing index in the batch (under ``d``, ``d2``) and ``R`` given it out,
  ``X = (1-g) R + g A``, ``Y = (1-g) R + g B``, ``E_Y[((A - B)/Y)^j]`` and the ternary
  ``E_Y[|A - B|^j / Y^j]`` (exact rationals);
* ``wor_p1_configuration`` - the Gaussian sum-query configuration realising ``P1 = ((1-g) N(0) +
  g N(2), N(0))``, the pair of the lower bound (Proposition 11); also used by the Zhu-Dong-Wang
  2022 package;
* the shipped accountant's transcription of Theorem 9: ``wbk19_shipped_log_moment`` (mpmath / arb)
  and ``wbk19_shipped_log_moment_float``, and the shipped fixed-size RDP
  ``wor_replace_one_rdp_float`` (:mod:`dpproofs.math.reductions`).
"""

import itertools
from fractions import Fraction

from flint import arb
from mpmath import mp

from dpproofs.checker import vocabulary
from dpproofs.checker.oracles import finite, subsampled
from dpproofs.errors import InvalidArgument
from dpproofs.math import ball, precise, reductions

from dpproofs_theorems.balle2018 import quantities as _instance_quantities  # noqa: F401  (eps_base, sampling_fraction)

__all__ = ["wor_parts", "wor_moment", "p1_configuration"]


def _instance(value, name, sampling=None):
    if not isinstance(value, subsampled.Subsampled):
        raise InvalidArgument(f"{name}: argument {value!r} must be a dpproofs.checker.oracles.subsampled.Subsampled instance")
    if sampling is not None and value.sampling != sampling:
        raise InvalidArgument(f"{name}: the instance samples {value.sampling!r}, not {sampling!r}")
    return value


def wor_parts(inst):
    """(A, B, R) of a WOR replace-one instance (d, d2 differ at one index i): R the output given i
    not in the batch (the same under d and d2), A and B given i in the batch, under d and d2."""
    _instance(inst, "wor_parts", "fixed")
    d, d2, b = inst.d, inst.d2, inst.batch_size
    diff = [k for k in range(len(d)) if d[k] != d2[k]]
    if len(d) != len(d2) or len(diff) != 1:
        raise InvalidArgument(f"wor_parts: {inst} is not a replace-one pair differing at one index")
    i, n, m = diff[0], len(d), inst.base.outcomes
    a, bb, r = [Fraction(0)] * m, [Fraction(0)] * m, [Fraction(0)] * m
    with_i = without = 0
    for subset in itertools.combinations(range(n), b):
        if i in subset:
            with_i += 1
            for k, v in enumerate(inst.base(tuple(d[s] for s in subset))):
                a[k] += v
            for k, v in enumerate(inst.base(tuple(d2[s] for s in subset))):
                bb[k] += v
        else:
            without += 1
            for k, v in enumerate(inst.base(tuple(d[s] for s in subset))):
                r[k] += v
    a = [x / with_i for x in a]
    bb = [x / with_i for x in bb]
    r = [x / without for x in r] if without else list(bb)
    return a, bb, r


def wor_moment(j, inst, signed):
    """E_Y[((A - B)/Y)^j] (signed) or E_Y[|A - B|^j / Y^j] (the ternary-|chi|^j divergence of
    (A, B) relative to Y = M(S(d2)) = (1-g) R + g B), exact."""
    if int(j) != j or j < 0:
        raise InvalidArgument(f"wor moment: j={j} must be an integer >= 0")
    j = int(j)
    a, bb, r = wor_parts(inst)
    g = inst.gamma
    total = Fraction(0)
    for ak, bk, rk in zip(a, bb, r):
        y = (1 - g) * rk + g * bk
        x = (ak - bk) / y
        total += y * (x**j if signed else abs(x) ** j)
    return total


def p1_configuration(config):
    """The Gaussian sum-query configuration that realises P1 = ((1-g) N(0) + g N(2), N(0)) (in units
    of C, noise sigma) at the same n, b and sigma: x = 1 replaced by x' = -1, every other record -1."""
    if not isinstance(config, subsampled.GaussianSubsampled) or config.sampling != "fixed":
        raise InvalidArgument(f"wor_p1_configuration: {config!r} must be a fixed-size GaussianSubsampled")
    n = len(config.d)
    return subsampled.GaussianSubsampled((1,) + (-1,) * (n - 1), (-1,) * n, "fixed", config.sigma,
                                         batch_size=config.batch_size)


# --- registrations ----------------------------------------------------------------------------------

_INST = ("inst", ((vocabulary.TYPE, subsampled.Subsampled),))
_J_INT = ("j", ((">=", 0), (vocabulary.INTEGER, None)))


def _base_rdp_ball(j, inst, *, prec):
    out = arb(0)
    for pair in _instance(inst, "base_rdp").base_pairs():
        out = out.max(finite.rdp_ball(pair, j, prec))
    return out


@vocabulary.quantity(domain=(("j", ((">", 1),)), _INST), ball=_base_rdp_ball,
                     doc="eps(j): max over the instance's neighbouring batch pairs (both orders) of D_j")
def base_rdp(j, inst, *, dps):
    return max([mp.zero] + [finite.rdp(pair, j, dps) for pair in _instance(inst, "base_rdp").base_pairs()])


vocabulary.register(
    "instance_pair", *vocabulary.structured_evaluators(lambda inst: _instance(inst, "instance_pair").pair()),
    domain=(_INST,), doc="the exact pair (M(S(d)), M(S(d2))) of a subsampled instance (every batch enumerated)")
vocabulary.register(
    "wor_chi_moment", *vocabulary.exact_evaluators(lambda j, inst: wor_moment(j, inst, True), 0),
    domain=(_J_INT, _INST), doc="E_Y[((A - B)/Y)^j] of a WOR replace-one instance (X = (1-g)R + gA, Y = (1-g)R + gB)")
vocabulary.register(
    "wor_ternary_chi", *vocabulary.exact_evaluators(lambda j, inst: wor_moment(j, inst, False), 0),
    domain=(_J_INT, _INST), doc="E_Y[|A - B|^j / Y^j]: the ternary-|chi|^j divergence of (A, B) relative to Y")
vocabulary.register(
    "wor_p1_configuration", *vocabulary.structured_evaluators(p1_configuration),
    domain=(("config", ((vocabulary.TYPE, subsampled.GaussianSubsampled),)),),
    doc="the configuration realising P1 at the same n, b, sigma (a GaussianSubsampled)")


def _shipped_precise(alpha, gamma, sigma, *, dps):
    with mp.workdps(dps + precise.GUARD_DPS):
        return reductions.wor_replace_one_log_moment(vocabulary.integer_arg(alpha, "alpha"), precise.to_mpf(gamma),
                                           precise.to_mpf(sigma), backend="mpmath")


def _shipped_ball(alpha, gamma, sigma, *, prec):
    with ball.precision(prec):
        return reductions.wor_replace_one_log_moment(vocabulary.integer_arg(alpha, "alpha"), gamma, sigma, backend="arb")


vocabulary.register(
    "wbk19_shipped_log_moment", _shipped_precise, _shipped_ball,
    domain=(("alpha", ((">=", 2), (vocabulary.INTEGER, None))), ("gamma", ((">=", 0), ("<=", 1))), ("sigma", ((">", 0),))),
    doc="dpproofs.math.reductions.wor_replace_one_log_moment (mpmath / arb backends)")
vocabulary.register_float(
    "wbk19_shipped_log_moment_float", lambda alpha, gamma, sigma: reductions.wor_replace_one_log_moment(alpha, gamma, sigma), "iff",
    domain=(("alpha", ((vocabulary.INTEGER, None),)), ("gamma", ()), ("sigma", ())),
    doc="dpproofs.math.reductions.wor_replace_one_log_moment, the float64 path the accountant runs")
vocabulary.register_float(
    "wor_replace_one_rdp_float",
    lambda alpha, gamma, sigma: float(reductions.wor_replace_one_rdp([alpha], gamma, sigma)[0]), "fff",
    domain=(("alpha", ()), ("gamma", ()), ("sigma", ())),
    doc="dpproofs.math.reductions.wor_replace_one_rdp at one order, the float64 path the accountant runs")
