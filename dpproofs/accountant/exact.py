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
from dpproofs.errors import InvalidArgumentType
from dpproofs.math import precise
from dpproofs.mechanisms import Mechanism

__all__ = ["rdp", "log_moment"]

#: Largest working precision a caller may ask for (digits).
MAX_REQUESTED_DPS = 10000


def _check_mechanism(mechanism):
    if not isinstance(mechanism, Mechanism):
        raise InvalidArgumentType(
            f"mechanism={mechanism!r} must be a dpproofs mechanism ({', '.join(Mechanism._registry)}), "
            f"not {type(mechanism).__name__}"
        )


def _order(name, value, low):
    if isinstance(value, mpmath.mpf):
        value = float(value) if mpmath.isfinite(value) else value
    return _validate.real(name, value, low, low_open=True)


def rdp(mechanism: Mechanism, alpha: float, *, dps: int = precise.DEFAULT_DPS) -> mpmath.mpf:
    """Rényi divergence ``D_alpha(M(d) || M(d'))`` of one application, worst neighbouring pair.

    ``alpha`` is a finite real > 1 (at most ``1e4`` for the sampled Gaussian, whose ``sigma`` must
    lie in ``[1e-150, 1e150]``: see the module docstring). For the sampled Gaussian this is the larger of the add and
    remove directions (``max(log A, log B)/(alpha-1)``), each exact (docs/math.md#poisson-subsampled-gaussian).
    """
    _check_mechanism(mechanism)
    alpha = _order("alpha", alpha, 1)
    dps = _validate.integer("dps", dps, 5, MAX_REQUESTED_DPS)
    mechanism.check_exact_order("alpha", alpha, alpha)
    return mechanism.rdp_exact(alpha, dps)


def log_moment(mechanism: Mechanism, lam: float, *, dps: int = precise.DEFAULT_DPS) -> mpmath.mpf:
    """Abadi et al. 2016 (arXiv 1607.00133v2) Eq. 2: ``alpha_M(lam)``, max over both directions.

    ``alpha_M(lam) = lam * D_{lam+1}`` for the symmetric mechanisms; for the sampled Gaussian
    ``log max(E1, E2)`` of Eqs. 3-4. ``lam`` is a finite real > 0
    (``lam + 1 <= 1e4`` for the sampled Gaussian).
    """
    _check_mechanism(mechanism)
    lam = _order("lam", lam, 0)
    dps = _validate.integer("dps", dps, 5, MAX_REQUESTED_DPS)
    mechanism.check_exact_order("lam", lam, lam + 1)
    return mechanism.log_moment_exact(lam, dps)
