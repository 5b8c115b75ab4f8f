"""The registry of checkable results: one module per paper result, each exporting ``CLAIMS``.

A theorem module (``theorems/<paper>/<result>.py``) defines ``CLAIMS``, a list of
:class:`dpproofs.claims.Claim` whose ids start with ``<paper>.<result>``: the statement, each
printed proof step, explicit constants, supporting results, and at least one mutant (a claim
expected to fail). :func:`all_claims` collects them in a stable order; :func:`select` picks
those under given id prefixes.
"""

import importlib
import pkgutil

from dpproofs.errors import InvalidArgument

__all__ = ["all_claims", "select", "modules"]


def modules():
    """The theorem modules, imported, in name order (``theorems.<paper>.<result>``)."""
    found = []
    for info in pkgutil.walk_packages(__path__, prefix=f"{__name__}."):
        if info.ispkg:
            continue
        module = importlib.import_module(info.name)
        if hasattr(module, "CLAIMS"):
            found.append(module)
    return sorted(found, key=lambda m: m.__name__)


def all_claims():
    """Every registered claim, module by module; ids are unique."""
    claims, seen = [], set()
    for module in modules():
        for claim in module.CLAIMS:
            if claim.id in seen:
                raise RuntimeError(f"duplicate claim id {claim.id!r} in {module.__name__}")
            seen.add(claim.id)
            claims.append(claim)
    return claims


def select(ids=()):
    """Claims whose id equals one of ``ids`` or starts with it followed by a dot."""
    claims = all_claims()
    if not ids:
        return claims
    chosen = [c for c in claims if any(c.id == i or c.id.startswith(i + ".") for i in ids)]
    unknown = [i for i in ids if not any(c.id == i or c.id.startswith(i + ".") for c in claims)]
    if unknown:
        raise InvalidArgument(f"ids={unknown!r} match no claim; `dpproofs list` shows the ids")
    return chosen
