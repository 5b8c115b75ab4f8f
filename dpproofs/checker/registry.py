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

__all__ = ["ENTRY_POINT_GROUP", "register_package", "packages", "modules", "all_claims", "select", "match_ids",
           "is_pattern", "papers"]

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


#: Characters that make an id a glob pattern (:func:`fnmatch.fnmatchcase`) rather than an exact id.
GLOB_CHARACTERS = frozenset("*?[")


def is_pattern(text):
    """Whether ``text`` is a glob pattern (``PAPER.RESULT.*``, ``PAPER*``)."""
    return any(ch in GLOB_CHARACTERS for ch in text)


def match_ids(ids, known, *, prefix=False, what="claim", listing="`dpproofs list` shows the ids"):
    """The ids of ``known`` (in their order) that ``ids`` select; ``()`` selects all of them.

    An id selects exactly the known id equal to it; a glob pattern (``*``, ``?``, ``[``) every id it
    matches (:func:`fnmatch.fnmatchcase`); with ``prefix=True`` an id also selects every id that
    starts with it followed by a dot. An id that selects nothing raises :class:`InvalidArgument`
    naming it and the closest known ids.
    """
    import difflib
    import fnmatch

    known = list(known)
    if not ids:
        return known

    def selects(i, k):
        if is_pattern(i):
            return fnmatch.fnmatchcase(k, i)
        return k == i or (prefix and k.startswith(i + "."))

    unknown = [i for i in ids if not any(selects(i, k) for k in known)]
    if unknown:
        hints = []
        for i in unknown:
            below = [k for k in known if k.startswith(i + ".")]
            if below:
                hints.append(f"{i!r} is a prefix of {len(below)} ids: select them with '{i}.*' or --prefix")
            else:
                close = difflib.get_close_matches(i, known, n=3, cutoff=0.5)
                if not close:  # the closest by common prefix, when the spelling is far off
                    longest = max((len(_common_prefix(i, k)) for k in known), default=0)
                    close = [k for k in known if longest and len(_common_prefix(i, k)) == longest][:3]
                hints.append(f"closest to {i!r}: {', '.join(close)}" if close else f"no id is close to {i!r}")
        raise InvalidArgument(f"ids={unknown!r} match no {what} ({'; '.join(hints)}; {listing})")
    return [k for k in known if any(selects(i, k) for i in ids)]


def _common_prefix(a, b):
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def select(ids=(), *, prefix=False):
    """The claims ``ids`` select, in registry order (all when ``ids`` is empty).

    An id selects exactly that claim; a glob pattern (``'PAPER.RESULT.*'``, ``'PAPER*'``)
    every claim whose id it matches; with ``prefix=True`` an id also selects the claims under it
    (``PAPER.RESULT`` and ``PAPER.RESULT.*``). An id that selects nothing raises
    :class:`InvalidArgument` naming the closest ids.
    """
    claims = all_claims()
    chosen = set(match_ids(ids, [c.id for c in claims], prefix=prefix))
    return [c for c in claims if c.id in chosen]
