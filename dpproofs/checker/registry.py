"""The registry of checkable results: content packages found by entry point, never imported by name.

The library knows no theorem. A *content package* (such as ``dpproofs_theorems``, installed from
the repository's ``theorems/`` folder) declares itself under the entry-point group
``dpproofs.content`` (``[project.entry-points."dpproofs.content"]`` in ``pyproject.toml``), or is
added at run time with :func:`register_package`. Every module below a content package that
defines ``CLAIMS`` (a list of :class:`dpproofs.checker.claims.Claim`) is a result module; ids start with
``<paper>.<result>``. A content package may also define ``PAPERS`` (paper prefix -> citation).
"""

import importlib
import importlib.metadata
import pkgutil

from dpproofs.errors import InvalidArgument

__all__ = ["ENTRY_POINT_GROUP", "register_package", "packages", "modules", "all_claims", "select", "papers"]

#: The entry-point group under which content packages declare themselves.
ENTRY_POINT_GROUP = "dpproofs.content"

_REGISTERED = []  # package names added with register_package, in call order


def register_package(name):
    """Add the content package ``name`` (an importable package name) to the registry."""
    if not isinstance(name, str) or not name:
        raise InvalidArgument(f"name={name!r} must be the importable name of a content package")
    if name not in _REGISTERED:
        _REGISTERED.append(name)


def packages():
    """The content packages, imported: entry points first (deduplicated), then registered ones."""
    names = []
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.value not in names:
            names.append(entry.value)
    names += [n for n in _REGISTERED if n not in names]
    return [importlib.import_module(name) for name in names]


def modules(attribute="CLAIMS"):
    """Every module of every content package that defines ``attribute`` (by default the result
    modules, which define ``CLAIMS``; ``"NUMERIC_CLAIMS"`` finds the notes), by module name."""
    found = []
    for package in packages():
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}."):
            if info.ispkg:
                continue
            module = importlib.import_module(info.name)
            if hasattr(module, attribute):
                found.append(module)
    return sorted(found, key=lambda m: m.__name__)


def papers():
    """``{paper prefix: citation}`` from every content package's ``PAPERS``."""
    found = {}
    for package in packages():
        found.update(getattr(package, "PAPERS", {}))
        for info in pkgutil.iter_modules(package.__path__, prefix=f"{package.__name__}."):
            if info.ispkg:
                sub = importlib.import_module(info.name)
                if hasattr(sub, "CITATION"):
                    found[info.name.rsplit(".", 1)[1]] = sub.CITATION
    return found


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
