"""Shared pieces of the Wang, Balle & Kasiviswanathan 2019 modules: source, symbols, the paper's
bounds as sympy expressions, and :func:`expanded_sides` (finite sums over the order).

Nothing here is a claim. The bounds are sums ``sum_{j=3}^{alpha}`` over an integer order;
they are written as sympy ``Sum`` objects, exactly as transcribed, and evaluated by substituting the
point's integer order and expanding the sum (``doit``) before the shared evaluators
(:func:`dpproofs.checker.arithmetic.evaluate_mp` / ``evaluate_ball``) see it.
"""

import sympy
from flint import arb

from dpproofs.checker import arithmetic
from dpproofs.checker.claims import Sides
from dpproofs.errors import InvalidArgument

__all__ = [
    "PAPER",
    "source",
    "sym",
    "structured",
    "J",
    "theorem9_bound",
    "lower_bound",
    "expanded_sides",
]

PAPER = "Wang, Balle & Kasiviswanathan 2019 (arXiv 1808.00087v2)"

#: the summation index of the sums
J = sympy.Symbol("j", integer=True, positive=True)


def source(item):
    """``"Wang, Balle & Kasiviswanathan 2019 (arXiv 1808.00087v2), <item>"``."""
    return f"{PAPER}, {item}"


def sym(name, **assumptions):
    """The sympy symbol a :class:`dpproofs.checker.claims.Variable` of that name binds."""
    return sympy.Symbol(name, real=True, **assumptions)


def structured(name):
    """The symbol of a structured argument (a finite base, a configuration): not a number."""
    return sympy.Symbol(name)


def theorem9_bound(alpha, gamma, eps, eps_inf):
    """The right side of Theorem 9 for an integer order ``alpha >= 2`` (as transcribed; it agrees with
    a public transcription said to be checked against the PDFs, not compared with the printed text
    here):

    ``1/(alpha-1) log(1 + gamma^2 C(alpha,2) min{4(e^{eps(2)}-1), e^{eps(2)} min{2, (e^{eps(inf)}-1)^2}}
    + sum_{j=3}^{alpha} gamma^j C(alpha,j) e^{(j-1) eps(j)} min{2, (e^{eps(inf)}-1)^j})``.

    ``eps`` maps a sympy order to the base mechanism's RDP ``eps(j)`` (an expression);
    ``eps_inf`` is its pure-DP level (``sympy.oo`` for the Gaussian: the inner minima are 2).
    """
    e2 = eps(2)
    pure = sympy.exp(eps_inf) - 1
    second = gamma**2 * sympy.binomial(alpha, 2) * sympy.Min(
        4 * (sympy.exp(e2) - 1), sympy.exp(e2) * sympy.Min(2, pure**2)
    )
    tail = sympy.Sum(
        gamma**J * sympy.binomial(alpha, J) * sympy.exp((J - 1) * eps(J)) * sympy.Min(2, pure**J),
        (J, 3, alpha),
    )
    return sympy.log(1 + second + tail) / (alpha - 1)


def lower_bound(alpha, gamma, eps):
    """The general lower bound's right side (integer ``alpha >= 2``):

    ``1/(alpha-1) log((1-gamma)^{alpha-1}(alpha gamma - gamma + 1)
    + sum_{j=2}^{alpha} C(alpha,j) gamma^j (1-gamma)^{alpha-j} e^{(j-1) eps(j)})``,

    which is ``1/(alpha-1) log E_Q[((1-gamma) + gamma P/Q)^alpha]`` when one pair ``(P, Q)`` of
    neighbouring batches attains ``eps(j) = D_j(P||Q)`` at every ``j`` (``E_Q[(P/Q)^j] =
    e^{(j-1) eps(j)}``; the ``j = 0, 1`` terms are the first summand).
    """
    head = (1 - gamma) ** (alpha - 1) * (alpha * gamma - gamma + 1)
    tail = sympy.Sum(
        sympy.binomial(alpha, J) * gamma**J * (1 - gamma) ** (alpha - J) * sympy.exp((J - 1) * eps(J)),
        (J, 2, alpha),
    )
    return sympy.log(head + tail) / (alpha - 1)


def _integer_of(value, name):
    if isinstance(value, arb):
        if not (value.is_exact() and value.is_integer()):
            raise InvalidArgument(f"{name}={value} must be an exact integer (the order of a finite sum)")
        return int(value.unique_fmpz())
    if int(value) != value:
        raise InvalidArgument(f"{name}={value} must be an integer (the order of a finite sum)")
    return int(value)


def expanded_sides(lhs, rhs, integers=("alpha",)):
    """Sides that substitute the point's integer ``integers`` into sympy ``lhs``/``rhs``, expand
    every ``Sum`` (``doit``) and evaluate with the shared evaluators. The ball sides are plain
    interval evaluation at a point (no box certification is asked of these claims)."""
    lhs, rhs = sympy.sympify(lhs), sympy.sympify(rhs)
    cache = {}  # integer values -> the expanded sides (the expansion is pure sympy, the same every time)

    def expanded(point):
        key = tuple(_integer_of(point[name], name) for name in integers)
        if key not in cache:
            values = {sym(name, integer=True): k for name, k in zip(integers, key)}
            values.update({sym(name): k for name, k in zip(integers, key)})
            cache[key] = lhs.subs(values).doit(), rhs.subs(values).doit()
        rest = {k: v for k, v in point.items() if k not in integers}
        return (*cache[key], rest)

    def precise(point, dps):
        left, right, rest = expanded(point)
        return arithmetic.evaluate_mp(left, rest, dps), arithmetic.evaluate_mp(right, rest, dps)

    def in_balls(point, prec):
        left, right, rest = expanded(point)
        return arithmetic.evaluate_ball(left, rest, prec), arithmetic.evaluate_ball(right, rest, prec)

    return Sides(precise=precise, ball=in_balls)
