"""Contraction of a proof's boxes by the claim's hypotheses (HC4-style, on isolable variables).

A coupled hypothesis (``n*eps - 0.001 <= eps_prime``, ``alpha <= 2*sigma**2``,
``q < 1/(16*sigma)``) cuts a box diagonally. Testing it on the whole box only discards the box
when it fails everywhere, so a box that straddles the edge is split again and again and a
monotonicity reduction onto a face that breaks the hypothesis can never close. As interval
constraint solvers do (the forward/backward "HC4-revise" of Benhamou, Goualard, Granvilliers &
Puget 1999, *Revising hull and box consistency*, ICLP), each hypothesis is solved for each of its
variables where that is possible in closed form, and the box is narrowed to the values that can
satisfy it given the ranges of the others:

    ``c1 * u(x) + c0  op  0``  with ``c1``, ``c0`` free of ``x`` and ``u`` one of
    ``x``, ``x**2`` (``x >= 0`` on the box), ``1/x`` (``x > 0``), ``sqrt(x)``, ``log(x)``,

gives ``u(x) op' -c0/c1`` (``op'`` mirrored when ``c1 < 0`` on the box), then ``x`` through
the inverse of ``u``. Every bound is enclosed in ball arithmetic over the box and rounded
outward to a float, and a strict relation is relaxed to its closure: the narrowed box contains
every point of the old box that satisfies the hypothesis, never fewer (a contraction is sound).
An integer variable is rounded inward to integers (which loses no integer point).

:meth:`Contractor.contract` also says which hypotheses are still *live* on the narrowed box (not
certainly true on all of it): a variable that appears in no live hypothesis can be fixed at an end
of its range by a monotonicity without leaving the domain (see :mod:`.prove`).
"""

import fractions
import math

import sympy
from flint import arb

from dpproofs.checker import arithmetic
from dpproofs.checker.claims import relation_of
from dpproofs.checker.decide import Outcome, compare
from dpproofs.errors import BOX_ERRORS, reraise_internal
from dpproofs.math.ball import precision as ball_precision

__all__ = ["Contractor", "ROUNDS", "MIN_GAIN"]

#: Rounds of narrowing by every rule per box (each round costs two ball evaluations per rule).
ROUNDS = 3
#: A round narrowing no range by at least this fraction of its width ends the contraction (later
#: rounds would only move bounds by rounding errors).
MIN_GAIN = fractions.Fraction(1, 100)

_MIRROR = {"<=": ">=", "<": ">", ">=": "<=", ">": "<"}
_U = sympy.Symbol("_contract_u")


def _isolations(difference, symbol):
    """``[(kind, c1, c0)]`` with ``difference == c1 * u(symbol) + c0`` for the kinds of ``u``
    that isolate ``symbol``."""
    found = []
    candidates = (("x", symbol), ("square", symbol**2), ("inverse", 1 / symbol),
                  ("sqrt", sympy.sqrt(symbol)), ("log", sympy.log(symbol)))
    for kind, u in candidates:
        try:
            replaced = sympy.expand(difference).subs(u, _U) if kind != "x" else difference.subs(symbol, _U)
            if replaced.has(symbol):
                continue
            c1 = sympy.diff(replaced, _U)
            if c1.has(_U) or c1 == 0:
                continue
            c0 = sympy.expand(replaced - c1 * _U)
            if c0.has(_U):
                continue
        except (ValueError, TypeError, NotImplementedError, AttributeError) as error:  # pragma: no cover - sympy oddities
            reraise_internal(error)
            continue
        if arithmetic.ball_supported(c1) and arithmetic.ball_supported(c0):
            found.append((kind, c1, c0))
            break  # the simplest isolation is enough
    return found


def _exact_outcome(ranges, name, bound, op):
    """Whether ``name op bound`` holds on all, none or part of the box (exact comparison)."""
    low, high = ranges[name]
    if op in ("<", "<="):
        holds = high < bound or (op == "<=" and high == bound)
        fails = low > bound or (op == "<" and low == bound)
    else:
        holds = low > bound or (op == ">=" and low == bound)
        fails = high < bound or (op == ">" and high == bound)
    return Outcome.HOLDS if holds else Outcome.VIOLATED if fails else Outcome.UNDECIDED


def _float_up(value):
    return math.nextafter(float(value), math.inf)


def _float_down(value):
    return math.nextafter(float(value), -math.inf)


class Contractor:
    """The rules of a claim's hypotheses; :meth:`contract` narrows a box by them.

    Args:
        hypotheses: the claim's hypotheses (sympy relations).
        variables: the claim's :class:`~dpproofs.checker.claims.Variable` objects.
    """

    def __init__(self, hypotheses, variables):
        self.hypotheses = tuple(hypotheses)
        self.integer = {v.name: v.integer for v in variables}
        self.names = [frozenset(s.name for s in h.free_symbols) for h in self.hypotheses]
        self.rules = []  # (index, name, kind, c1, c0, op)
        #: ``{index: (name, bound, op)}``: the hypotheses ``name op bound`` with a rational bound
        #: (``0.1 <= eps`` is kept as a hypothesis, the float box being only outward), decided
        #: exactly on a box (ball arithmetic cannot decide ``1/10 <= eps`` at ``eps = 1/10``)
        self.exact = {}
        for index, hypothesis in enumerate(self.hypotheses):
            op = relation_of(hypothesis)
            if op not in _MIRROR:
                continue
            difference = hypothesis.lhs - hypothesis.rhs  # difference op 0
            if len(hypothesis.free_symbols) == 1:
                symbol = next(iter(hypothesis.free_symbols))
                c1 = sympy.diff(difference, symbol)
                c0 = sympy.expand(difference - c1 * symbol)
                if c1.is_Rational and c1 != 0 and c0.is_Rational and symbol.name in self.integer:
                    bound = -c0 / c1
                    self.exact[index] = (symbol.name, fractions.Fraction(int(bound.p), int(bound.q)),
                                         op if c1 > 0 else _MIRROR[op])
            for symbol in sorted(hypothesis.free_symbols, key=lambda s: s.name):
                if symbol.name not in self.integer:
                    continue
                for kind, c1, c0 in _isolations(difference, symbol):
                    self.rules.append((index, symbol.name, kind, c1, c0, op))

    def contract(self, ranges, point_of, prec):
        """Narrow ``ranges`` (``{name: (low, high)}`` exact) by the hypotheses.

        Args:
            ranges: the box, exact rational bounds per variable.
            point_of: a function from ranges to the ball point the evaluator takes.
            prec: ball precision in bits.

        Returns:
            ``(ranges, live)``: the narrowed box (None when no point of it can satisfy the
            hypotheses) and the set of the names of the variables of the hypotheses not certainly
            true on it.
        """
        ranges = dict(ranges)
        for _ in range(ROUNDS if self.rules else 0):
            gained = False
            for index, name, kind, c1, c0, op in self.rules:
                low, high = ranges[name]
                if low == high:
                    continue
                narrowed = self._narrow(ranges, point_of, prec, name, kind, c1, c0, op)
                if narrowed is None:
                    continue
                new_low, new_high = max(low, narrowed[0]), min(high, narrowed[1])
                if self.integer[name]:
                    new_low, new_high = math.ceil(new_low), math.floor(new_high)
                if new_low > new_high:
                    return None, frozenset()
                if (new_low - low) + (high - new_high) >= MIN_GAIN * (high - low):
                    gained = True
                ranges[name] = (new_low, new_high)
            if not gained:
                break
        live = set()
        point = point_of(ranges)
        for index, hypothesis in enumerate(self.hypotheses):
            if index in self.exact:
                outcome = _exact_outcome(ranges, *self.exact[index])
                if outcome is Outcome.VIOLATED:
                    return None, frozenset()
                if outcome is Outcome.UNDECIDED:
                    live |= self.names[index]
                continue
            try:
                lhs = arithmetic.evaluate_ball(hypothesis.lhs, point, prec)
                rhs = arithmetic.evaluate_ball(hypothesis.rhs, point, prec)
                outcome = compare(lhs, rhs, relation_of(hypothesis))
            except BOX_ERRORS as error:
                reraise_internal(error)
                outcome = Outcome.UNDECIDED
            if outcome is Outcome.VIOLATED:
                return None, frozenset()
            if outcome is Outcome.UNDECIDED:
                live |= self.names[index]
        return ranges, frozenset(live)

    def _narrow(self, ranges, point_of, prec, name, kind, c1, c0, op):
        """``(low, high)`` exact bounds on ``name`` implied by one rule over the box, or None."""
        point = point_of(ranges)
        try:
            sign = arithmetic.evaluate_ball(c1, point, prec)
            if not sign.is_finite() or sign.contains(arb(0)):
                return None
            bound = arithmetic.evaluate_ball(-c0 / c1, point, prec)
        except BOX_ERRORS as error:
            reraise_internal(error)
            return None
        if not bound.is_finite():
            return None
        if sign < 0:
            op = _MIRROR[op]
        upper = op in ("<", "<=")  # u(x) <= bound
        low, high = ranges[name]
        with ball_precision(prec):
            value = bound.upper() if upper else bound.lower()
            if kind == "x":
                limit = value
            elif kind == "square":
                if low < 0:
                    return None
                if upper and value < 0:
                    return (high + 1, high)  # empty
                limit = value.sqrt() if value > 0 else arb(0)
            elif kind == "sqrt":
                if low < 0:
                    return None
                if upper and value < 0:
                    return (high + 1, high)
                limit = value * value if value > 0 else arb(0)
            elif kind == "log":
                if low <= 0:
                    return None
                limit = value.exp()
            elif kind == "inverse":
                if low <= 0:
                    return None
                if value <= 0:
                    if upper:
                        return (high + 1, high)  # 1/x <= a non-positive number: no x > 0
                    return None  # 1/x >= a non-positive number: every x > 0
                limit = 1 / value
                upper = not upper  # 1/x <= b  <=>  x >= 1/b
            else:  # pragma: no cover - the kinds above are all
                return None
        if not limit.is_finite():
            return None
        if upper:
            return (low, fractions.Fraction(_float_up(limit.upper())))
        return (fractions.Fraction(_float_down(limit.lower())), high)
