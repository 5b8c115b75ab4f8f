"""``calibrate_sigma``: the smallest noise multiplier for a target (epsilon, delta), by either accountant.

``accountant="rdp"`` (default): :func:`dpproofs.accountant.rdp.calibrate_sigma` (one-sided bisection
on the RDP accountant, to 1e-6 relative). ``accountant="pld"``:
:func:`dpproofs.accountant.pld.accountant.calibrate_sigma_pld` (the returned sigma's certified upper epsilon is at most
the target). This module sits above both accountants, so neither imports the other's calibration.
"""

from collections.abc import Sequence

from dpproofs import _validate
from dpproofs.errors import InvalidArgument
from dpproofs.math.reductions import RELATIONS, SAMPLINGS

__all__ = ["ACCOUNTANTS", "calibrate_sigma"]

#: The accountants ``calibrate_sigma`` can calibrate with.
ACCOUNTANTS = ("rdp", "pld")


def calibrate_sigma(
    *,
    epsilon: float,
    delta: float,
    q: float,
    steps: int,
    conversion: str = "improved",
    orders: Sequence[float] | None = None,
    accountant: str = "rdp",
    relation: str = "add_remove",
    sampling: str = "poisson",
) -> float:
    """Smallest sigma (noise std / clipping norm C, whatever the relation) for which ``steps``
    sampled Gaussian steps at rate ``q`` are (epsilon, delta)-DP by ``accountant`` ("rdp" or
    "pld"); never too small.

    ``sampling``: "poisson" (each record independently with probability ``q``) or "fixed"
    (batches of b of n records drawn uniformly without replacement, independently each step;
    ``q`` is read as ``b/n``; NOT shuffled-epoch batches, which neither analysis covers).
    ``relation``: "add_remove" or "replace_one" (replacing a record moves the clipped sum by up to
    2C; the library accounts for it). "fixed" needs "replace_one". ``conversion`` and ``orders``
    apply to "rdp" only. Raises InvalidArgument naming the argument for bad input, an unsupported
    combination or an unreachable target.
    """
    accountant = _validate.choice("accountant", accountant, ACCOUNTANTS)
    relation = _validate.choice("relation", relation, RELATIONS)
    sampling = _validate.choice("sampling", sampling, SAMPLINGS)
    if accountant == "pld":
        if orders is not None or conversion != "improved":
            raise InvalidArgument("conversion= and orders= apply to accountant='rdp' only")
        from dpproofs.accountant.pld.accountant import calibrate_sigma_pld

        return calibrate_sigma_pld(epsilon=epsilon, delta=delta, q=q, steps=steps, relation=relation,
                                   sampling=sampling)
    from dpproofs.accountant.rdp import calibrate_sigma as rdp_calibrate_sigma

    return rdp_calibrate_sigma(
        epsilon=epsilon,
        delta=delta,
        q=q,
        steps=steps,
        conversion=conversion,
        orders=orders,
        relation=relation,
        sampling=sampling,
    )
