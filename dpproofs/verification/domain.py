"""The domain of a user's claim: the box of every variable and the conditions kept as hypotheses.

A condition on one variable, linear in it with a constant coefficient, becomes a bound of the box
(decimals exact; strict bounds honoured). A bound that is a float is used as it is; any other is
rounded OUTWARD to the nearest float beyond it and the exact condition stays a hypothesis, so the
box contains the whole domain as written and the points outside it are excluded by the exact
condition (a verdict is never about a smaller domain). A variable whose exact bounds coincide
(``0.00001 <= delta <= 0.00001``) is the constant: it is substituted exactly. Every other
condition stays a hypothesis, and the coupled bounds it gives (``c1 x + c0 op 0`` with ``c1`` of
known sign on the box) tighten the box by interval propagation in ball arithmetic, to a fixed
point: a coupled upper bound whose right side is bounded on the box bounds the variable
(``lam <= sigma**2*log(1/(q*sigma))`` with q and sigma bounded and q bounded away from 0).
"""

import dataclasses
import math

import sympy
from flint import arb

from dpproofs import _validate
from dpproofs.checker import arithmetic
from dpproofs.checker.claims import Variable, relation_of
from dpproofs.checker.decide import Outcome, compare
from dpproofs.errors import BOX_ERRORS, InvalidArgument, reraise_internal

__all__ = ["Interval", "Problem", "derive", "enclose", "enclose_subdivided"]

_MIRROR = {"<=": ">=", "<": ">", ">=": "<=", ">": "<"}


@dataclasses.dataclass
class Interval:
    """The bounds of one variable while the domain is derived (tightened in place)."""

    low: float = -math.inf
    high: float = math.inf
    low_open: bool = True
    high_open: bool = True

    def tighten_low(self, value, is_open):
        if value > self.low or (value == self.low and is_open and not self.low_open):
            self.low, self.low_open = value, is_open
            return True
        return False

    def tighten_high(self, value, is_open):
        if value < self.high or (value == self.high and is_open and not self.high_open):
            self.high, self.high_open = value, is_open
            return True
        return False

    @property
    def finite(self):
        return math.isfinite(self.low) and math.isfinite(self.high)


def _float_beside(value, direction):
    """The float nearest the exact real ``value`` on one side: ``(float, exact)``.

    ``direction='down'`` gives the largest float ``<= value``, ``'up'`` the smallest ``>= value``
    (a bound rounded outward: ``up`` for an upper bound, ``down`` for a lower one).
    """
    approx = float(sympy.N(value, 30))
    if not math.isfinite(approx):
        return approx, False
    exact = sympy.Rational(approx)
    if exact == value:
        return approx, True
    too_far = bool(exact > value) if direction == "down" else bool(exact < value)
    if too_far:
        approx = math.nextafter(approx, -math.inf if direction == "down" else math.inf)
    return approx, False


def _linear_in(expr, x):
    """``(c1, c0)`` with ``expr == c1*x + c0`` and neither containing x, else None."""
    try:
        c1 = sympy.diff(expr, x)
    except (ValueError, TypeError, NotImplementedError) as error:  # pragma: no cover - sympy oddities
        reraise_internal(error)
        return None
    if c1.has(x) or c1 == 0:
        return None
    c0 = sympy.expand(expr - c1 * x)
    if c0.has(x):
        return None
    return c1, c0


def _ball_box(box, names):
    """An arb point (intervals) for ``names``, or None if some variable is not finite yet."""
    point = {}
    for name in names:
        interval = box[name]
        if not interval.finite:
            return None
        point[name] = arb(interval.low).union(arb(interval.high))
    return point


def enclose(expr, box, prec=128):
    """An arb enclosure of ``expr`` over the current box (one evaluation), or None."""
    if not expr.free_symbols:
        point = {}
    else:
        point = _ball_box(box, sorted(s.name for s in expr.free_symbols))
        if point is None:
            return None
    return _evaluate(expr, point, prec)


def _evaluate(expr, point, prec):
    try:
        value = arithmetic.evaluate_ball(expr, point, prec)
    except BOX_ERRORS as error:
        reraise_internal(error)
        return None
    if not value.is_finite():
        return None
    return value


#: Most evaluations :func:`enclose_subdivided` spends on one expression.
SUBDIVISION_EVALUATIONS = 256


def enclose_subdivided(expr, box, prec=128, evaluations=SUBDIVISION_EVALUATIONS):
    """Like :func:`enclose`, cutting the box into pieces when one enclosure is not finite: the
    union of the pieces' enclosures, or None when some piece stays unbounded.

    Mid-radius balls lose the sign of a product of wide intervals (``q*sigma`` with q in
    [1e-5, 1/16] and sigma in [1, 16] encloses [-0.47, 1.01], so ``log(1/(q*sigma))`` is not
    finite); on pieces of ratio about 2 each product keeps its sign. A piece is split along its
    widest variable (geometrically when positive), at most ``evaluations`` pieces in all.
    """
    value = enclose(expr, box, prec)
    if value is not None or not expr.free_symbols:
        return value
    names = sorted(s.name for s in expr.free_symbols)
    if not all(box[name].finite for name in names):
        return None
    stack = [{name: (box[name].low, box[name].high) for name in names}]
    union, spent = None, 0
    while stack:
        piece = stack.pop()
        spent += 1
        if spent > evaluations:
            return None
        value = _evaluate(expr, {n: arb(low).union(arb(high)) for n, (low, high) in piece.items()}, prec)
        if value is not None:
            union = value if union is None else union.union(value)
            continue
        name = max(names, key=lambda n: _log_width(*piece[n]))
        low, high = piece[name]
        middle = math.sqrt(low * high) if low > 0 else (low + high) / 2
        if not low < middle < high:
            return None  # a degenerate piece that cannot be enclosed
        stack += [{**piece, name: (middle, high)}, {**piece, name: (low, middle)}]
    return union


def _log_width(low, high):
    if high <= low:
        return 0.0
    return math.log(high / low) if low > 0 else math.inf


def _float_up(ball_value):
    return math.nextafter(float(ball_value.upper()), math.inf)


def _float_down(ball_value):
    return math.nextafter(float(ball_value.lower()), -math.inf)


@dataclasses.dataclass(frozen=True)
class Problem:
    """A parsed claim with its derived domain: the input of :func:`build_claim`."""

    text: str
    statement: sympy.Basic
    conditions: tuple
    variables: tuple
    hypotheses: tuple
    #: ``{name: (low, low_strict, high, high_strict)}``: the exact (sympy) bounds of each variable
    #: as typed (None where a side has no single-variable bound).
    bounds: dict = dataclasses.field(default_factory=dict)

    def describe(self):
        parts = [v.interval_text() for v in self.variables] + [sympy.sstr(h) for h in self.hypotheses]
        return ", ".join(parts)


def derive(statement, conditions, integers):
    """Derive the box of every free variable and the conditions kept as hypotheses:
    ``(variables, hypotheses, constants, bounds)``, ``constants`` the variables fixed to one exact
    value (``{name: sympy number}``, to be substituted into the statement and the hypotheses),
    ``bounds`` the exact bounds (see :class:`Problem`)."""
    names = sorted({s.name for s in statement.free_symbols}
                   | {s.name for c in conditions for s in c.free_symbols})
    unknown_integers = sorted(set(integers) - set(names))
    if unknown_integers:
        raise InvalidArgument(f"integers: {unknown_integers} do not appear in the claim or its conditions")
    box = {name: Interval() for name in names}
    exact = {name: {"low": [], "high": []} for name in names}  # exact single-variable bounds (value, strict)
    hypotheses = []
    coupled = []  # (name, c1, c0, op): the condition c1*name + c0 op 0
    for condition in conditions:
        op = relation_of(condition)
        free = condition.free_symbols
        if not free:
            truth = compare(arithmetic.evaluate_ball(condition.lhs, {}, 256),
                            arithmetic.evaluate_ball(condition.rhs, {}, 256), op)
            if truth is Outcome.VIOLATED:
                raise InvalidArgument(f"the condition {sympy.sstr(condition)} is false: the domain is empty")
            if truth is Outcome.UNDECIDED:
                raise InvalidArgument(f"the condition {sympy.sstr(condition)} cannot be decided numerically")
            continue
        absorbed = False
        difference = condition.lhs - condition.rhs  # the condition is: difference op 0
        for symbol in sorted(free, key=lambda s: s.name):
            linear = _linear_in(difference, symbol)
            if linear is None:
                continue
            c1, c0 = linear
            bound = -c0 / c1
            if not c1.free_symbols and not bound.free_symbols and len(free) == 1:
                positive = enclose(c1, {}).lower() > 0
                this_op = op if positive else _MIRROR[op]
                strict = this_op in ("<", ">")
                interval = box[symbol.name]
                if this_op in ("<", "<="):
                    value, is_float = _float_beside(bound, "up")
                    interval.tighten_high(value, strict and is_float)
                    exact[symbol.name]["high"].append((bound, strict))
                else:
                    value, is_float = _float_beside(bound, "down")
                    interval.tighten_low(value, strict and is_float)
                    exact[symbol.name]["low"].append((bound, strict))
                absorbed = is_float  # an inexact bound stays a hypothesis: the box is only outward
            else:
                coupled.append((symbol.name, c1, c0, op))
        if not absorbed:
            hypotheses.append(condition)
    constants = _exact_points(exact, integers)
    hypotheses = [h for h in hypotheses if not (h.free_symbols and {s.name for s in h.free_symbols} <= set(constants))]
    _propagate(box, coupled)
    variables = []
    for name in names:
        if name in constants:
            continue
        interval = box[name]
        missing = [side for side, value in (("lower", interval.low), ("upper", interval.high))
                   if not math.isfinite(value)]
        if missing:
            tried = [sympy.sstr(c) for c in conditions if any(s.name == name for s in c.free_symbols)
                     and len(c.free_symbols) > 1]
            unbounded = (f"; the coupled conditions {tried} do not bound it on the box of the other "
                         "variables" if tried else "")
            raise InvalidArgument(
                f"variable {name!r} has no {' and no '.join(missing)} bound{unbounded}: add a condition "
                f"such as '0 < {name} < 1' (a bound through other bounded variables also counts, e.g. "
                f"'{name} < 1/(16*sigma)' with sigma bounded)"
            )
        integer = name in integers
        low, high = interval.low, interval.high
        low_open, high_open = interval.low_open, interval.high_open
        if integer:
            low = math.ceil(low) + (1 if low_open and float(low).is_integer() else 0)
            high = math.floor(high) - (1 if high_open and float(high).is_integer() else 0)
            low, high = _exact_integer_range(exact[name], low, high)
            low_open = high_open = False
            if low > high:
                raise InvalidArgument(f"the conditions leave no integer value for {name!r}: the domain is empty")
        _check_not_empty(name, exact[name], low, high, low_open, high_open)
        variables.append(Variable(name, low, high, integer=integer, low_open=low_open, high_open=high_open))
    bounds = {}
    for name in names:
        if name in constants:
            continue
        low = _tightest(exact[name]["low"], lambda values: sympy.Max(*values))
        high = _tightest(exact[name]["high"], lambda values: sympy.Min(*values))
        bounds[name] = (None if low is None else low[0], True if low is None else low[1],
                        None if high is None else high[0], True if high is None else high[1])
    return tuple(variables), tuple(hypotheses), constants, bounds


def _exact_integer_range(sides, low, high):
    """The integer range from the exact bounds where they are rational (``n <= 2**60 + 1`` is
    not a float bound), intersected with the float one (which may come from coupled bounds)."""
    exact_low = _tightest(sides["low"], lambda values: sympy.Max(*values))
    exact_high = _tightest(sides["high"], lambda values: sympy.Min(*values))
    if exact_low is not None and exact_low[0].is_Rational:
        value, strict = exact_low
        first = int(sympy.ceiling(value)) + (1 if strict and value.is_Integer else 0)
        low = max(low, first)
    if exact_high is not None and exact_high[0].is_Rational:
        value, strict = exact_high
        last = int(sympy.floor(value)) - (1 if strict and value.is_Integer else 0)
        high = min(high, last)
    return low, high


def _tightest(bounds, pick):
    """The tightest exact bound ``(value, strict)`` of a list (``pick``: max for lower, min for upper)."""
    if not bounds:
        return None
    value = pick(v for v, _ in bounds)
    return value, any(strict for v, strict in bounds if v == value)


def _exact_points(exact, integers):
    """``{name: value}`` for the variables whose exact lower and upper bounds coincide (closed)."""
    points = {}
    for name, sides in exact.items():
        low = _tightest(sides["low"], lambda values: sympy.Max(*values))
        high = _tightest(sides["high"], lambda values: sympy.Min(*values))
        if low is None or high is None or bool(sympy.Ne(low[0], high[0])):
            continue
        if low[1] or high[1]:
            continue  # strict on a side: empty, reported by _check_not_empty
        if name in integers and not low[0].is_integer:
            continue
        points[name] = low[0]
    return points


def _check_not_empty(name, sides, low, high, low_open, high_open):
    """Raise InvalidArgument when the exact bounds (or the float box) leave no value."""
    exact_low = _tightest(sides["low"], lambda values: sympy.Max(*values))
    exact_high = _tightest(sides["high"], lambda values: sympy.Min(*values))
    if exact_low is not None and exact_high is not None:
        gap = sympy.simplify(exact_high[0] - exact_low[0])
        if bool(gap < 0) or (bool(sympy.Eq(gap, 0)) and (exact_low[1] or exact_high[1])):
            raise InvalidArgument(
                f"the conditions leave no value for {name!r} ({sympy.sstr(exact_low[0])} to "
                f"{sympy.sstr(exact_high[0])}): the domain is empty"
            )
    if low > high or (low == high and (low_open or high_open)):
        raise InvalidArgument(
            f"the conditions leave no value for {name!r} "
            f"({_validate.interval_text(low, high, low_open, high_open)}): the domain is empty"
        )


def _propagate(box, coupled, rounds=50):
    """Tighten the box with the coupled bounds ``c1 x + c0 op 0`` to a fixed point."""
    for _ in range(rounds):
        changed = False
        for name, c1, c0, op in coupled:
            sign = enclose_subdivided(c1, box)
            if sign is None or not (sign.lower() > 0 or sign.upper() < 0):
                continue
            positive = sign.lower() > 0
            this_op = op if positive else _MIRROR[op]
            bound = enclose_subdivided(-c0 / c1, box)
            if bound is None:
                continue
            interval = box[name]
            if this_op in ("<", "<="):
                changed |= interval.tighten_high(_float_up(bound), False)
            else:
                changed |= interval.tighten_low(_float_down(bound), False)
        if not changed:
            return
