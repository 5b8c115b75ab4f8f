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
"""

__all__ = [
    "CONVERSIONS",
    "Backend",
    "backend_for",
    "epsilon_bound",
    "log_delta_bound",
    "classic_epsilon",
    "improved_epsilon",
    "classic_log_delta",
    "improved_log_delta",
]

#: Names of the conversions, the default first.
CONVERSIONS = ("improved", "classic")


class Backend:
    """The two functions the formulas need: ``log`` and ``log1p``."""

    def __init__(self, name, log, log1p):
        self.name, self.log, self.log1p = name, log, log1p

    def __repr__(self):
        return f"Backend({self.name!r})"


def _numpy():
    import numpy as np

    return Backend("numpy", np.log, np.log1p)


def _mpmath():
    from mpmath import mp

    return Backend("mpmath", mp.log, mp.log1p)


def _arb():
    return Backend("arb", lambda x: x.log(), lambda x: x.log1p())


def _sympy():
    import sympy

    return Backend("sympy", sympy.log, lambda x: sympy.log(1 + x))


_FACTORIES = {"numpy": _numpy, "mpmath": _mpmath, "flint": _arb, "sympy": _sympy}
_BACKENDS = {}


def backend_for(*values):
    """The backend for these arguments: sympy if any is a sympy object, else arb, else mpmath,
    else numpy (floats, ints and arrays). Decided by the types' modules, importing nothing."""
    found = set()
    for value in values:
        root = type(value).__module__.split(".", 1)[0]
        if root in ("sympy", "flint", "mpmath"):
            found.add(root)
    for name in ("sympy", "flint", "mpmath", "numpy"):
        if name in found or name == "numpy":
            if name not in _BACKENDS:
                _BACKENDS[name] = _FACTORIES[name]()
            return _BACKENDS[name]
    raise AssertionError("unreachable")


def classic_epsilon(rdp, alpha, log_delta):
    """Mironov 2017 Prop. 3: ``rdp + log(1/delta)/(alpha - 1)``."""
    return rdp - log_delta / (alpha - 1)


def improved_epsilon(rdp, alpha, log_delta):
    """Balle et al. 2020 Thm 21: ``rdp + log(1 - 1/alpha) - (log delta + log alpha)/(alpha - 1)``."""
    b = backend_for(rdp, alpha, log_delta)
    return rdp + b.log1p(-1 / alpha) - (log_delta + b.log(alpha)) / (alpha - 1)


def classic_log_delta(rdp, alpha, epsilon):
    """Prop. 3 solved for delta: ``log delta = (alpha - 1)(rdp - eps)``."""
    return (alpha - 1) * (rdp - epsilon)


def improved_log_delta(rdp, alpha, epsilon):
    """Thm 21 solved for delta (CKS20 Prop. 12): ``(alpha-1)(rdp - eps + log(1-1/alpha)) - log alpha``."""
    b = backend_for(rdp, alpha, epsilon)
    return (alpha - 1) * (rdp - epsilon + b.log1p(-1 / alpha)) - b.log(alpha)


_EPSILON = {"classic": classic_epsilon, "improved": improved_epsilon}
_LOG_DELTA = {"classic": classic_log_delta, "improved": improved_log_delta}


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

