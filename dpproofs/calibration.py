"""``calibrate_sigma``: the smallest noise multiplier for a target (epsilon, delta), by either accountant.

``accountant="rdp"`` (default): :func:`dpproofs.accountant.calibrate_sigma` (one-sided bisection
on the RDP accountant, to 1e-6 relative). ``accountant="pld"``:
:func:`dpproofs.pld.calibrate_sigma_pld` (the returned sigma's certified upper epsilon is at most
the target). This module sits above both accountants, so neither imports the other's calibration.
"""

import inspect

from dpproofs import _validate
from dpproofs.errors import InvalidArgument
from dpproofs.subsampling import RELATIONS, SAMPLINGS

__all__ = ["ACCOUNTANTS", "calibrate_sigma"]

#: The accountants ``calibrate_sigma`` can calibrate with.
ACCOUNTANTS = ("rdp", "pld")


def calibrate_sigma(
    *,
    epsilon,
    delta,
    q,
    steps,
    conversion="improved",
    orders=None,
    accountant="rdp",
    relation="add_remove",
    sampling="poisson",
):
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
        if sampling != "poisson":
            raise InvalidArgument(
                f"sampling={sampling!r} with accountant='pld' is not yet supported; allowed: "
                f"sampling='poisson', or accountant='rdp'"
            )
        from dpproofs.pld import calibrate_sigma_pld

        if relation == "add_remove":
            return calibrate_sigma_pld(epsilon=epsilon, delta=delta, q=q, steps=steps)
        if "relation" not in inspect.signature(calibrate_sigma_pld).parameters:  # not there yet
            raise InvalidArgument(
                f"relation={relation!r} with accountant='pld' is not yet supported; allowed: "
                f"relation='add_remove', or accountant='rdp'"
            )
        return calibrate_sigma_pld(epsilon=epsilon, delta=delta, q=q, steps=steps, relation=relation)
    from dpproofs.accountant import calibrate_sigma as rdp_calibrate_sigma

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
