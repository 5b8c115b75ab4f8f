"""Public entry points to the exact evaluator: ``rdp`` and ``log_moment`` of one mechanism.

Both validate their arguments, then call :mod:`dpproofs.math.precise` and return an mpmath
``mpf`` correct to about ``dps`` digits (or raise :class:`dpproofs.NumericalError`).

Domain (justified in :mod:`dpproofs.math.limits`): any finite order for the closed forms (Gaussian,
Laplace, randomized response); for the sampled Gaussian, whose cost grows with the order, orders
up to ``MAX_EXACT_ORDER = 1e4`` (``alpha`` for :func:`rdp`, ``lam + 1`` for :func:`log_moment`)
and ``sigma`` in ``[SIGMA_TINY, SIGMA_HUGE] = [1e-150, 1e150]`` (outside it the quadrature's
float mode search overflows). Beyond these, :class:`dpproofs.InvalidArgument` names the bound.
"""

import mpmath

from dpproofs import _validate
from dpproofs.math import limits as domain
from dpproofs.errors import InvalidArgument, InvalidArgumentType
from dpproofs.math import precise
from dpproofs.mechanisms import Gaussian, Laplace, Mechanism, RandomizedResponse, SampledGaussian

__all__ = ["rdp", "log_moment"]

#: Largest working precision a caller may ask for (digits).
MAX_REQUESTED_DPS = 10000


def _check_mechanism(mechanism):
    if not isinstance(mechanism, Mechanism):
        raise InvalidArgumentType(
            f"mechanism={mechanism!r} must be one of Gaussian, SampledGaussian, Laplace, "
            f"RandomizedResponse, not {type(mechanism).__name__}"
        )


def _order(name, value, low):
    if isinstance(value, mpmath.mpf):
        value = float(value) if mpmath.isfinite(value) else value
    return _validate.real(name, value, low, low_open=True)


def _check_exact_domain(mechanism, name, value, order):
    """The sampled Gaussian's bounds for the exact evaluator (dpproofs.math.limits); q = 0 and q = 1
    are closed forms (0 and the Gaussian), at any order and sigma."""
    if not isinstance(mechanism, SampledGaussian) or mechanism.q in (0.0, 1.0):
        return
    if order > domain.MAX_EXACT_ORDER:
        raise InvalidArgument(
            f"{name}={value!r} is outside the allowed range of the exact sampled-Gaussian evaluator: "
            f"the order must be at most {domain.MAX_EXACT_ORDER:g} (its cost grows with the order)"
        )
    if not domain.SIGMA_TINY <= mechanism.sigma <= domain.SIGMA_HUGE:
        raise InvalidArgument(
            f"sigma={mechanism.sigma!r} is outside the range [{domain.SIGMA_TINY:g}, {domain.SIGMA_HUGE:g}] "
            f"of the exact sampled-Gaussian evaluator (the float Accountant accepts any sigma > 0)"
        )


def rdp(mechanism: Mechanism, alpha: float, *, dps: int = precise.DEFAULT_DPS) -> mpmath.mpf:
    """Rényi divergence ``D_alpha(M(d) || M(d'))`` of one application, worst neighbouring pair.

    ``alpha`` is a finite real > 1 (at most ``1e4`` for the sampled Gaussian, whose ``sigma`` must
    lie in ``[1e-150, 1e150]``: see the module docstring). For the sampled Gaussian this is the larger of the add and
    remove directions (``max(log A, log B)/(alpha-1)``), each exact (docs/math.md#poisson-subsampled-gaussian).
    """
    _check_mechanism(mechanism)
    alpha = _order("alpha", alpha, 1)
    dps = _validate.integer("dps", dps, 5, MAX_REQUESTED_DPS)
    _check_exact_domain(mechanism, "alpha", alpha, alpha)
    if isinstance(mechanism, Gaussian):
        return precise.rdp_gaussian(alpha, mechanism.sigma, dps=dps)
    if isinstance(mechanism, SampledGaussian):
        return precise.rdp_sampled_gaussian(alpha, mechanism.q, mechanism.sigma, dps=dps)
    if isinstance(mechanism, Laplace):
        return precise.rdp_laplace(alpha, mechanism.scale, dps=dps)
    if isinstance(mechanism, RandomizedResponse):
        return precise.rdp_randomized_response(alpha, mechanism.epsilon, dps=dps)
    raise InvalidArgumentType(f"mechanism={mechanism!r} is not supported")


def log_moment(mechanism: Mechanism, lam: float, *, dps: int = precise.DEFAULT_DPS) -> mpmath.mpf:
    """Abadi et al. 2016 (arXiv 1607.00133v2) Eq. 2: ``alpha_M(lam)``, max over both directions.

    ``alpha_M(lam) = lam * D_{lam+1}`` for the symmetric mechanisms; for the sampled Gaussian
    ``log max(E1, E2)`` of Eqs. 3-4. ``lam`` is a finite real > 0
    (``lam + 1 <= 1e4`` for the sampled Gaussian).
    """
    _check_mechanism(mechanism)
    lam = _order("lam", lam, 0)
    dps = _validate.integer("dps", dps, 5, MAX_REQUESTED_DPS)
    _check_exact_domain(mechanism, "lam", lam, lam + 1)
    if isinstance(mechanism, SampledGaussian):
        return precise.log_moment_sampled_gaussian(lam, mechanism.q, mechanism.sigma, dps=dps)
    with mpmath.mp.workdps(dps + precise.GUARD_DPS):
        return precise.to_mpf(lam) * rdp(mechanism, lam + 1, dps=dps + precise.GUARD_DPS)
