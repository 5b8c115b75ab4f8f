"""Fingerprints of what a generated page shows: the data of a claim AND the code that computes it.

A stored measurement (a verdict, a slack table, a figure, a captured command) is current only if
the code that produced it is unchanged. :func:`code_digest` follows a function to every function
and class of the project (modules ``dpproofs*``) it can reach -- globals it loads, names it
imports inside its body, attributes it reads on project modules, closure cells, default
arguments, the ``__wrapped__`` function of a decorator -- and hashes their source text
(``inspect.getsource``) together with the value of every plain constant they read (numbers,
strings, sympy objects, tuples of those). A change to a claim's custom evaluation closure, to a
figure function or to an evaluator function either calls therefore changes the fingerprint.

What is not followed: code outside the project (numpy, mpmath, ...: pinned by the environment
recorded with each measurement) and objects reached only through data structures (a function
stored in a dict is followed when the dict is a global the code reads and the function is a
value of it).
"""

import dis
import functools
import hashlib
import importlib
import inspect
import re
import sys
import types

__all__ = ["code_digest", "claim_fingerprint", "numeric_claim_fingerprint", "digest"]

_PROJECT = ("dpproofs",)  # dpproofs and dpproofs_theorems
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_LOAD_GLOBAL = {"LOAD_GLOBAL", "LOAD_NAME"}
_LOAD_ATTR = {"LOAD_ATTR", "LOAD_METHOD"}
#: Number types of fractions, mpmath and python-flint whose str() is their value (not contexts).
_NUMBERS = {"Fraction", "mpf", "mpc", "arb", "acb", "fmpz", "fmpq"}


def digest(*parts):
    """A short hex digest of text parts."""
    return hashlib.sha1("\x00".join(str(p) for p in parts).encode()).hexdigest()[:12]


def _in_project(obj):
    module = getattr(obj, "__module__", None) or ""
    return module.split(".", 1)[0].startswith(_PROJECT)


def _plain(value, depth=0):
    """Stable text of a plain constant, or None for anything else."""
    if isinstance(value, (bool, int, float, str, bytes, type(None))):
        return repr(value)
    root = (type(value).__module__ or "").split(".", 1)[0]  # sympy's run-time classes have None
    if (root == "sympy" and hasattr(value, "func")) or type(value).__name__ in _NUMBERS:
        return f"{type(value).__name__}({value})"
    if depth < 3 and isinstance(value, (tuple, list, frozenset, set)):
        items = [_plain(v, depth + 1) for v in value]
        if all(i is not None for i in items):
            return f"{type(value).__name__}({', '.join(sorted(items) if isinstance(value, (set, frozenset)) else items)})"
    if depth < 3 and isinstance(value, dict):
        items = [(_plain(k, depth + 1), _plain(v, depth + 1)) for k, v in value.items()]
        if all(k is not None and v is not None for k, v in items):
            return "dict(" + ", ".join(f"{k}: {v}" for k, v in items) + ")"
    return None


def _constant(name, value):
    """Text of a module-level constant a function reads, or None. Private mutable containers
    (``_CACHE = {}``) are run-time state, not constants: they are left out."""
    if callable(value) or (name.startswith("_") and isinstance(value, (dict, list, set))):
        return None
    return _plain(value)


@functools.lru_cache(maxsize=None)
def _source(obj):
    """The source text of a project function or class (memoised: the closures of the ~600 claims and
    figures reach the same functions ~50 000 times, and ``inspect.getsource`` re-reads and re-parses
    the module each time: 80 of the 117 s of ``stale_pages``, measured)."""
    try:
        return inspect.getsource(obj)
    except (OSError, TypeError):
        code = getattr(obj, "__code__", None)
        return code.co_code.hex() if code is not None else _ADDRESS.sub("", repr(obj))


def _codes(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


@functools.lru_cache(maxsize=None)
def _references(function):
    """Objects a function's code can reach directly (unfiltered), and plain constants it reads
    (memoised per function, as :func:`_closure_of` is)."""
    refs, constants = [], []
    namespace = function.__globals__
    modules = [v for v in namespace.values() if isinstance(v, types.ModuleType)]
    attributes = set()
    for code in _codes(function.__code__):
        imported = None
        for instruction in dis.get_instructions(code):
            name = instruction.argval
            if instruction.opname in _LOAD_GLOBAL and isinstance(name, str):
                if name in namespace:
                    value = namespace[name]
                    refs.append(value)
                    text = _constant(name, value)
                    if text is not None:
                        constants.append(f"{name} = {text}")
            elif instruction.opname == "IMPORT_NAME":
                imported = sys.modules.get(name) or _import(name)
                if imported is not None:
                    modules.append(imported)
                    refs.append(imported)
            elif instruction.opname == "IMPORT_FROM" and imported is not None:
                value = getattr(imported, name, None)
                if value is None:
                    value = _import(f"{imported.__name__}.{name}")
                if value is not None:
                    refs.append(value)
                    if isinstance(value, types.ModuleType):
                        modules.append(value)
            elif instruction.opname in _LOAD_ATTR and isinstance(name, str):
                attributes.add(name)
    for module in modules:
        if not _in_project_module(module):
            continue
        for name in attributes:
            if name in vars(module):
                value = vars(module)[name]
                if isinstance(value, types.ModuleType):
                    continue  # a submodule is an attribute only once imported: followed by imports
                refs.append(value)
                text = _constant(name, value)
                if text is not None:
                    constants.append(f"{module.__name__}.{name} = {text}")
    for cell in function.__closure__ or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        refs.append(value)
        # a mutable container in a closure is state (a memo table filled as the code runs), not
        # data: hashing it would make the fingerprint depend on what has been computed so far
        text = None if isinstance(value, (dict, set, list)) else _plain(value)
        if text is not None:
            constants.append(f"closure = {text}")
        elif hasattr(value, "__dataclass_fields__") or isinstance(value, (tuple, list)):
            refs.extend(_members(value))
    for value in (function.__defaults__ or ()) + tuple((function.__kwdefaults__ or {}).values()):
        refs.append(value)
        text = _plain(value)
        constants.append(f"default = {text if text is not None else type(value).__name__}")
    return tuple(refs), tuple(constants)


def _members(value):
    """Callables held by a dataclass instance (a Claim, Sides, Figure) or a tuple of them."""
    items = value if isinstance(value, (tuple, list)) else [value]
    found = []
    for item in items:
        fields = getattr(item, "__dataclass_fields__", None)
        if fields and not isinstance(item, type):
            found.extend(getattr(item, f, None) for f in fields)
        elif callable(item):
            found.append(item)
    return found


def _import(name):
    try:
        return importlib.import_module(name)
    except Exception:  # noqa: BLE001 - a name that is not a module is simply not followed
        return None


def _in_project_module(module):
    return module.__name__.split(".", 1)[0].startswith(_PROJECT)


def _unwrap(obj):
    while True:
        if isinstance(obj, functools.partial):
            obj = obj.func
        elif isinstance(obj, (staticmethod, classmethod, types.MethodType)):
            obj = obj.__func__
        elif not isinstance(obj, (types.FunctionType, type)) and callable(getattr(obj, "__wrapped__", None)):
            obj = obj.__wrapped__  # functools.lru_cache and similar wrapper objects
        else:
            return obj


@functools.lru_cache(maxsize=None)
def _closure_of(function):
    """(sorted (name, source) pairs, sorted constants) of everything ``function`` reaches."""
    # a set of (name, text): generated functions (dataclass __repr__, __eq__, ...) of different
    # classes share one qualified name, and keeping one of them would depend on traversal order
    seen, sources, constants = set(), set(), set()
    pending = [function]
    while pending:
        obj = _unwrap(pending.pop())
        if id(obj) in seen or not _in_project(obj):
            continue
        seen.add(id(obj))
        if isinstance(obj, types.FunctionType):
            # a wrapper made by functools.wraps shares the qualname: the code name tells them apart
            sources.add((f"{obj.__module__}.{obj.__qualname__}/{obj.__code__.co_name}", _source(obj)))
            refs, found = _references(obj)
            constants.update(found)
            wrapped = getattr(obj, "__wrapped__", None)  # a decorator's wrapper: follow both
            pending.extend(r for r in (*refs, wrapped) if _followable(r))
        elif isinstance(obj, type):
            sources.add((f"{obj.__module__}.{obj.__qualname__}", _source(obj)))
            pending.extend(v for v in vars(obj).values() if _followable(v))
    return tuple(sorted(sources)), tuple(sorted(constants))


def _followable(value):
    value = _unwrap(value)
    return isinstance(value, (types.FunctionType, type)) and _in_project(value)


_CANONICAL = []


def _canonical_imports():
    """Import every module of the library and of the content packages once, so that what a
    function can reach (module attributes, lazily set names) does not depend on what the process
    happened to import before: the same code gives the same digest in every process."""
    if _CANONICAL:
        return
    import importlib
    import pkgutil

    import dpproofs
    from dpproofs.checker import registry

    for info in pkgutil.walk_packages(dpproofs.__path__, prefix="dpproofs."):
        if info.name.endswith("__main__"):
            continue  # running it is not importing it
        try:
            importlib.import_module(info.name)
        except ImportError:  # an optional dependency (matplotlib, dp_accounting) that is not installed
            continue
    registry.modules()
    _CANONICAL.append(True)


def code_digest(*functions):
    """Digest of the source of every project function and class reachable from ``functions``."""
    _canonical_imports()
    parts = []
    for function in functions:
        if function is None:
            continue
        sources, constants = _closure_of(_unwrap(function))
        parts.extend(f"{name}\n{text}" for name, text in sources)
        parts.extend(constants)
    return digest(*sorted(set(parts)))


def _vocabulary_functions(expressions):
    """The evaluator functions (precise and ball) bound to the vocabulary functions used."""
    from dpproofs.checker import arithmetic, vocabulary  # the claims already imported them

    names = set()
    for expression in expressions:
        for call in getattr(expression, "atoms", lambda *_: ())(_applied()):
            names.add(type(call).__name__)
    found = [arithmetic.evaluate_mp, arithmetic.evaluate_ball]
    for name in sorted(names):
        binding = getattr(vocabulary, "_BY_SYMBOL_NAME", {}).get(name)
        if binding is not None:
            found += [binding.precise, binding.ball]
    return found


def _applied():
    import sympy

    return sympy.core.function.AppliedUndef


def claim_fingerprint(claim):
    """Everything a stored verdict of ``claim`` depends on: its data (id, kind, expectation,
    source, title, explanation, statement, hypotheses, variables, the printed construction of the
    strategies of its structured parameters, pinned points, flags) and the code of its custom
    sides, its prover and the evaluator functions behind the vocabulary it uses. Not included:
    the checker itself (``dpproofs.checker.search``, ``dpproofs.checker.decide``), which every verdict shares."""
    import sympy

    data = [
        claim.id, claim.kind, claim.expected, claim.source, claim.title or "", claim.explanation or "",
        sympy.srepr(claim.statement), [sympy.srepr(h) for h in claim.hypotheses],
        [repr(v) for v in claim.variables], claim.certify, claim.cost,
        # Hypothesis strategies of structured parameters print their construction (arguments included)
        [f"{name}={_ADDRESS.sub('', repr(strategy))}" for name, strategy in claim.extra.items()],
        [_ADDRESS.sub("", repr(p)) for p in claim.pinned],
    ]
    functions = list(_vocabulary_functions([claim.statement, *claim.hypotheses]))
    if claim.sides is not None:
        functions += [claim.sides.precise, claim.sides.ball]
    functions.append(claim.prover)
    return digest(*map(str, data), code_digest(*functions))


def numeric_claim_fingerprint(entry):
    """A notes entry (``NUMERIC_CLAIMS``): its printed data and the code of its ``compute``."""
    fields = getattr(entry, "__dataclass_fields__", {})
    data = [f"{name}={getattr(entry, name)!r}" for name in fields if not callable(getattr(entry, name))]
    functions = [getattr(entry, name) for name in fields if callable(getattr(entry, name))]
    return digest(*data, code_digest(*functions))
