"""Points on the edges of the coupled conditions, searched before the random draws.

A claim false only on a sliver cut out by a coupled condition (``n*eps - 0.001 <= eps_prime``,
violated by relative 1e-6 next to that edge) is seldom hit by draws from the box: the edge is a
surface of measure zero. For every hypothesis ``lhs rel rhs`` and every real variable ``x`` in it,
:func:`edge_points` fixes the other variables at the corners of the box and at points drawn from
the seed, and solves ``lhs - rhs = 0`` for ``x`` on its range (sign changes on a grid of
:data:`GRID` cells, then bisection at :data:`DPS` digits); the root, rounded to a float and stepped
into the domain (a few ``nextafter`` steps) where the rounding left it, is a point of the domain
on that edge. The work is counted (:data:`MAX_POINTS` points, :data:`MAX_EVALUATIONS`
evaluations of the conditions), never timed; an integer variable of a small range is taken at
each of its values; the same claim and seed give the same points.
"""

import math
import random

import sympy

from dpproofs.checker import arithmetic
from dpproofs.errors import POINT_ERRORS, reraise_internal

__all__ = ["edge_points", "MAX_POINTS", "MAX_EVALUATIONS", "GRID", "DPS"]

#: Most edge points returned (they are evaluated as pinned points of the search).
MAX_POINTS = 48
#: Most evaluations of a condition's two sides spent finding them.
MAX_EVALUATIONS = 6000
#: Cells of the sign-change grid along the solved variable.
GRID = 16
#: Digits of the evaluations of the conditions.
DPS = 30
#: Bisection steps (to the float spacing of a unit range and below).
BISECTIONS = 60
#: Points drawn from the seed for the other variables, besides the corners of their box.
DRAWS = 4
#: Integer variables of at most this range are taken at each of their values.
SMALL_INTEGER_RANGE = 16
#: ``nextafter`` steps tried to bring a rounded root into the domain.
NUDGES = 8


class _Spent(Exception):
    pass


def _inside(v, which):
    if v.integer:
        return int(v.low) if which == "low" else int(v.high)
    if which == "low":
        return math.nextafter(float(v.low), math.inf) if v.low_open else float(v.low)
    return math.nextafter(float(v.high), -math.inf) if v.high_open else float(v.high)


def edge_points(claim, seed, valid):
    """Points of the domain on the edges of the claim's coupled conditions (at most
    :data:`MAX_POINTS`); ``valid(point)`` says whether a point satisfies every condition."""
    variables = {v.name: v for v in claim.variables}
    coupled = [h for h in claim.hypotheses if len(h.free_symbols) >= 2]
    if not coupled:
        return []
    rng = random.Random(seed)
    spent = [0]
    found = []

    def gap(expr, point):
        spent[0] += 1
        if spent[0] > MAX_EVALUATIONS:
            raise _Spent
        try:
            value = arithmetic.evaluate_mp(expr, point, DPS)
        except POINT_ERRORS as error:
            reraise_internal(error)
            return None
        return value if value == value else None  # nan: unevaluable

    try:
        for hypothesis in coupled:
            expr = sympy.sympify(hypothesis.lhs - hypothesis.rhs)
            names = sorted(s.name for s in expr.free_symbols if s.name in variables)
            for name in names:
                v = variables[name]
                if v.integer:
                    continue
                others = [variables[n] for n in variables if n != name]
                bases = []
                if len(others) <= 4:
                    for mask in range(2 ** len(others)):
                        bases.append({o.name: _inside(o, "high" if mask >> i & 1 else "low") for i, o in enumerate(others)})
                    # an integer variable of a small range at each of its values (the others at corners)
                    for o in others:
                        if o.integer and int(o.high) - int(o.low) <= SMALL_INTEGER_RANGE:
                            rest = [r for r in others if r is not o]
                            for k in range(int(o.low) + 1, int(o.high)):
                                for mask in range(2 ** len(rest)):
                                    bases.append(dict({r.name: _inside(r, "high" if mask >> i & 1 else "low")
                                                       for i, r in enumerate(rest)}, **{o.name: k}))
                for _ in range(DRAWS):
                    bases.append({o.name: (rng.randint(int(o.low), int(o.high)) if o.integer
                                           else rng.uniform(_inside(o, "low"), _inside(o, "high"))) for o in others})
                low, high = _inside(v, "low"), _inside(v, "high")
                for base in bases:
                    for root in _roots(expr, base, name, low, high, gap):
                        point = _into_domain(dict(base, **{name: root}), name, low, high, valid)
                        if point is not None and point not in found:
                            found.append(point)
                            if len(found) >= MAX_POINTS:
                                return found
    except _Spent:
        pass
    return found


def _roots(expr, base, name, low, high, gap):
    """Floats near the zeros of ``expr`` in ``name`` on ``[low, high]`` (the others at ``base``)."""
    xs = [low + (high - low) * i / GRID for i in range(GRID + 1)]
    values = [gap(expr, dict(base, **{name: x})) for x in xs]
    roots = []
    for (a, fa), (b, fb) in zip(zip(xs, values), zip(xs[1:], values[1:])):
        if fa is None or fb is None:
            continue
        if fa == 0:
            roots.append(a)
            continue
        if (fa < 0) == (fb < 0):
            continue
        for _ in range(BISECTIONS):
            middle = (a + b) / 2
            if middle in (a, b):
                break
            fm = gap(expr, dict(base, **{name: middle}))
            if fm is None:
                break
            if (fm < 0) == (fa < 0):
                a, fa = middle, fm
            else:
                b = middle
        roots.extend([a, b])
    if values[-1] == 0:
        roots.append(xs[-1])
    return roots


def _into_domain(point, name, low, high, valid):
    """``point``, or its neighbours along ``name`` by a few float steps, inside the domain."""
    x = point[name]
    for step in range(NUDGES + 1):
        for candidate in ({x} if step == 0 else {_step(x, step, math.inf), _step(x, step, -math.inf)}):
            if low <= candidate <= high:
                moved = dict(point, **{name: candidate})
                if valid(moved):
                    return moved
    return None


def _step(x, count, direction):
    for _ in range(count):
        x = math.nextafter(x, direction)
    return x
