"""RDP to (epsilon, delta)-DP: every conversion formula of the project, written once.

Each function takes the composed Rényi divergence ``rdp`` at order ``alpha > 1`` and returns the
per-order bound, before the minimum over orders. They are written once against an *arithmetic
backend* (the way mpmath writes a function once against a context): the same code runs on numpy
arrays (the accountant's float path), mpmath numbers (the reference), python-flint ``arb`` balls
(certified answers) and sympy expressions (the statements of claims). The backend is picked from
the types of the arguments; nothing here imports sympy or flint.

Formulas (docs/math.md, "Conversions"):

* ``classic`` -- Mironov 2017 (arXiv 1702.07476v3) Prop. 3, equal to Abadi et al. 2016
  (arXiv 1607.00133v2) Thm 2.2 at ``lambda = alpha - 1``:
  ``eps = rdp + log(1/delta)/(alpha-1)``; solved for delta: ``log delta = (alpha-1)(rdp - eps)``.
* ``improved`` -- Balle, Barthe, Gaboardi, Hsu & Sato 2020 (arXiv 1905.09982v3) Thm 21:
  ``eps = rdp + log(1 - 1/alpha) - (log delta + log alpha)/(alpha-1)``; solved for delta
  (Canonne, Kamath & Steinke 2020, arXiv 2004.00010v5, Prop. 12):
  ``log delta = (alpha-1)(rdp - eps + log(1 - 1/alpha)) - log alpha``.

Both take ``log_delta`` (not delta) so that tiny deltas keep their digits in float64.

Callers that evaluate many queries on one grid of orders compute the order-only parts once
(:func:`order_terms`) and use the ``*_at`` forms; statements that speak of ``delta`` itself use
:func:`epsilon_from_delta` / :func:`delta_from_epsilon`. :func:`epsilon_magnitude_at` and
:func:`log_delta_magnitude_at` give the sum of the magnitudes of each formula's parts, the scale of
its floating-point rounding error (the accountant's slack is a multiple of it).
"""

from typing import NamedTuple

__all__ = [
    "CONVERSIONS",
    "CONVERSION_SLACK",
    "Backend",
    "backend_for",
    "epsilon_bound",
    "log_delta_bound",
    "classic_epsilon",
    "improved_epsilon",
    "classic_log_delta",
    "improved_log_delta",
    "OrderTerms",
    "order_terms",
    "epsilon_at",
    "log_delta_at",
    "epsilon_magnitude_at",
    "log_delta_magnitude_at",
    "epsilon_from_delta",
    "delta_from_epsilon",
]

#: Names of the conversions, the default first.
CONVERSIONS = ("improved", "classic")


class Backend:
    """The functions the formulas need: ``log`` and ``log1p`` (and ``exp``, for delta itself)."""

    def __init__(self, name, log, log1p, exp=None):
        self.name, self.log, self.log1p, self.exp = name, log, log1p, exp

    def __repr__(self):
        return f"Backend({self.name!r})"


def _numpy():
    import numpy as np

    return Backend("numpy", np.log, np.log1p, np.exp)


def _mpmath():
    from mpmath import mp

    return Backend("mpmath", mp.log, mp.log1p, mp.exp)


def _arb():
    return Backend("arb", lambda x: x.log(), lambda x: x.log1p(), lambda x: x.exp())


def _sympy():
    import sympy

    return Backend("sympy", sympy.log, lambda x: sympy.log(1 + x), sympy.exp)


_FACTORIES = {"numpy": _numpy, "mpmath": _mpmath, "flint": _arb, "sympy": _sympy}
_BACKENDS = {}


def _library_of(kind):
    """The library a type comes from, by its module or, for types made at run time (sympy's
    undefined functions have ``__module__ = None``), by the first of its bases that has one."""
    for klass in kind.__mro__:
        root = (getattr(klass, "__module__", None) or "").split(".", 1)[0]
        if root in ("sympy", "flint", "mpmath"):
            return root
        if root:
            return None
    return None


def backend_for(*values):
    """The backend for these arguments: sympy if any is a sympy object, else arb, else mpmath,
    else numpy (floats, ints and arrays). Decided by the types' modules, importing nothing."""
    found = set()
    for value in values:
        found.add(_library_of(type(value)))
    for name in ("sympy", "flint", "mpmath", "numpy"):
        if name in found or name == "numpy":
            if name not in _BACKENDS:
                _BACKENDS[name] = _FACTORIES[name]()
            return _BACKENDS[name]
    raise AssertionError("unreachable")


class OrderTerms(NamedTuple):
    """The order-only parts of the formulas: ``alpha - 1``, ``log alpha``, ``log(1 - 1/alpha)``."""

    alpha_minus_1: object
    log_alpha: object
    log_ratio: object


def order_terms(alpha, *others):
    """:class:`OrderTerms` of ``alpha`` (a number or an array), in the backend of ``alpha`` and
    ``others`` (pass the other arguments of the formula so that, e.g., a float alpha with a sympy
    rdp gives sympy logs)."""
    b = backend_for(alpha, *others)
    return OrderTerms(alpha - 1, b.log(alpha), b.log1p(-1 / alpha))


# --- the formulas, at precomputed order terms (each written exactly once) ---------------------


def _classic_epsilon_at(rdp, terms, log_delta):
    return rdp - log_delta / terms.alpha_minus_1


def _improved_epsilon_at(rdp, terms, log_delta):
    return rdp + (terms.log_ratio - (log_delta + terms.log_alpha) / terms.alpha_minus_1)


def _classic_log_delta_at(rdp, terms, epsilon):
    return terms.alpha_minus_1 * (rdp - epsilon)


def _improved_log_delta_at(rdp, terms, epsilon):
    return terms.alpha_minus_1 * (rdp - epsilon + terms.log_ratio) - terms.log_alpha


# ... and the sums of the magnitudes of their parts (the scale of their rounding error)

#: What a float64 evaluation of a conversion adds to be an upper bound: this times the sum of the
#: magnitudes of its parts (its rounding error is a small multiple of ``2^-52`` times that sum: a
#: few correctly rounded operations; 16 ulps leave room for them).
CONVERSION_SLACK = 2.0**-48


def _classic_epsilon_magnitude(rdp, terms, log_delta):
    return abs(rdp) + abs(log_delta) / terms.alpha_minus_1


def _improved_epsilon_magnitude(rdp, terms, log_delta):
    return abs(rdp) + (abs(terms.log_ratio) + (abs(log_delta) + abs(terms.log_alpha)) / terms.alpha_minus_1)


def _classic_log_delta_magnitude(rdp, terms, epsilon):
    return terms.alpha_minus_1 * (abs(rdp) + abs(epsilon))


def _improved_log_delta_magnitude(rdp, terms, epsilon):
    return terms.alpha_minus_1 * (abs(rdp) + abs(epsilon) + abs(terms.log_ratio)) + abs(terms.log_alpha)


def classic_epsilon(rdp, alpha, log_delta):
    """Mironov 2017 Prop. 3: ``rdp + log(1/delta)/(alpha - 1)``."""
    return rdp - log_delta / (alpha - 1)  # = _classic_epsilon_at without the unused logs


def improved_epsilon(rdp, alpha, log_delta):
    """Balle et al. 2020 Thm 21: ``rdp + log(1 - 1/alpha) - (log delta + log alpha)/(alpha - 1)``."""
    return _improved_epsilon_at(rdp, order_terms(alpha, rdp, log_delta), log_delta)


def classic_log_delta(rdp, alpha, epsilon):
    """Prop. 3 solved for delta: ``log delta = (alpha - 1)(rdp - eps)``."""
    return (alpha - 1) * (rdp - epsilon)  # = _classic_log_delta_at without the unused logs


def improved_log_delta(rdp, alpha, epsilon):
    """Thm 21 solved for delta (CKS20 Prop. 12): ``(alpha-1)(rdp - eps + log(1-1/alpha)) - log alpha``."""
    return _improved_log_delta_at(rdp, order_terms(alpha, rdp, epsilon), epsilon)


_EPSILON = {"classic": classic_epsilon, "improved": improved_epsilon}
_LOG_DELTA = {"classic": classic_log_delta, "improved": improved_log_delta}
_EPSILON_AT = {"classic": _classic_epsilon_at, "improved": _improved_epsilon_at}
_LOG_DELTA_AT = {"classic": _classic_log_delta_at, "improved": _improved_log_delta_at}
_EPSILON_MAGNITUDE = {"classic": _classic_epsilon_magnitude, "improved": _improved_epsilon_magnitude}
_LOG_DELTA_MAGNITUDE = {"classic": _classic_log_delta_magnitude, "improved": _improved_log_delta_magnitude}


def _known(conversion):
    if conversion not in _EPSILON:
        from dpproofs.errors import InvalidArgument

        raise InvalidArgument(f"conversion={conversion!r} must be one of {CONVERSIONS}")
    return conversion


def epsilon_bound(conversion, rdp, alpha, log_delta):
    """The per-order epsilon of ``conversion`` ("improved" or "classic")."""
    return _EPSILON[_known(conversion)](rdp, alpha, log_delta)


def log_delta_bound(conversion, rdp, alpha, epsilon):
    """The per-order log delta of ``conversion`` ("improved" or "classic")."""
    return _LOG_DELTA[_known(conversion)](rdp, alpha, epsilon)



def epsilon_at(conversion, rdp, terms, log_delta):
    """:func:`epsilon_bound` at precomputed :func:`order_terms` (no logarithm of alpha taken)."""
    return _EPSILON_AT[_known(conversion)](rdp, terms, log_delta)


def log_delta_at(conversion, rdp, terms, epsilon):
    """:func:`log_delta_bound` at precomputed :func:`order_terms`."""
    return _LOG_DELTA_AT[_known(conversion)](rdp, terms, epsilon)


def epsilon_magnitude_at(conversion, rdp, terms, log_delta):
    """Sum of the magnitudes of the parts of :func:`epsilon_at`: its floating-point rounding error is
    at most a small multiple of ``2^-52`` times this (the accountant adds :data:`CONVERSION_SLACK` times it)."""
    return _EPSILON_MAGNITUDE[_known(conversion)](rdp, terms, log_delta)


def log_delta_magnitude_at(conversion, rdp, terms, epsilon):
    """Sum of the magnitudes of the parts of :func:`log_delta_at` (see :func:`epsilon_magnitude_at`)."""
    return _LOG_DELTA_MAGNITUDE[_known(conversion)](rdp, terms, epsilon)


def epsilon_from_delta(conversion, rdp, alpha, delta):
    """:func:`epsilon_bound` with ``delta`` itself (its log taken in the arguments' backend), for
    statements that speak of delta, e.g. sympy claims ``delta_M(epsilon_from_delta(...)) <= delta``."""
    return epsilon_bound(conversion, rdp, alpha, backend_for(rdp, alpha, delta).log(delta))


def delta_from_epsilon(conversion, rdp, alpha, epsilon):
    """``exp`` of :func:`log_delta_bound` (delta itself, before the clip to 1) in the arguments' backend."""
    return backend_for(rdp, alpha, epsilon).exp(log_delta_bound(conversion, rdp, alpha, epsilon))
