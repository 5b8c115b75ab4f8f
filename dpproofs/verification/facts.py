"""Monotonicity facts of the vocabulary's functions, each with its source; enclosures from them.

A function that is monotone in each argument on its whole domain takes its extreme values over a
box of arguments at two corners of that box, so its enclosure over a box is the hull of two
point evaluations: much tighter than the ball evaluation of its series or integral over the box
(``rdp_randomized_response(alpha, eps)`` over ``alpha in [2, 2.1], eps in [1, 1.05]`` is
``[+/- 1.16]`` by its closed form in ball arithmetic, a few per cent wide from its corners). The
prover (:mod:`.prove`) uses :func:`enclose` beside the plain ball evaluation and keeps the
tighter lower bound; an integer argument given a range (an order ``alpha`` of a box) is enclosed
the same way from its two end values.

:data:`FACTS` maps a function to one :class:`Fact` per argument: ``+1`` nondecreasing, ``-1``
nonincreasing, ``None`` not known. Every fact is itself a claim of the checker:
tests/test_verify_facts.py states each as ``f(.., x, ..) <= f(.., x + d, ..)`` (or reversed),
checks it at random points, and refutes its reversal (a mutant) with ``verify``.

Sources used below:

* ``order``: Rényi divergence is nondecreasing in its order (van Erven & Harremoës 2014,
  *Rényi divergence and Kullback-Leibler divergence*, IEEE Trans. IT 60(7), Thm. 3); a maximum
  of two nondecreasing functions is nondecreasing.
* ``processing``: the data-processing inequality for Rényi divergences (ibid., Thm. 9) and for
  the hockey-stick divergence (Balle, Barthe & Gaboardi 2018, *Privacy amplification by
  subsampling*, arXiv 1807.01647, Thm. 1 setting): a parameter change that is a post-processing
  of the output (more Gaussian noise: ``N(0, s2^2) = N(0, s1^2) * N(0, s2^2 - s1^2)``; more Laplace
  noise: ``Laplace(b2) = Laplace(b1) * ((b1/b2)^2 delta_0 + (1 - (b1/b2)^2) Laplace(b2))`` by the
  characteristic functions ``1/(1 + b^2 t^2)``; a smaller sampling rate: with probability
  ``1 - q1/q2`` replace the output by a fresh draw of ``mu0``; a smaller randomized-response
  epsilon: flip the answer with a fixed probability; ``n`` of ``n + 1`` compositions: drop one
  output) cannot increase the divergence.
* ``hockey``: ``delta(eps) = int (p - e^eps q)_+`` is nonincreasing in ``eps`` (the integrand is).
* ``closed form``: read off the formula (Mironov 2017, arXiv 1702.07476v3, Props. 5-7; Balle &
  Wang 2018, arXiv 1805.06530, Thm. 8).
"""

import dataclasses

import sympy
from flint import arb

from dpproofs.checker import arithmetic
from dpproofs.checker import vocabulary

__all__ = ["ADD_DIRECTION_SOURCE", "Fact", "FACTS", "add_direction_at_integer_orders", "enclose"]


@dataclasses.dataclass(frozen=True)
class Fact:
    """The monotonicity of one function in one argument.

    Args:
        direction: ``+1`` nondecreasing, ``-1`` nonincreasing.
        source: where it is proved (see the module docstring).
    """

    direction: int
    source: str


_ORDER = "order: van Erven & Harremoes 2014, Thm. 3"
_PROCESSING = "processing: data-processing inequality (van Erven & Harremoes 2014, Thm. 9)"
_HOCKEY = "hockey: (p - e^eps q)_+ is nonincreasing in eps"
_FORM = "closed form (Mironov 2017 Props. 5-7, Balle & Wang 2018 Thm. 8)"

#: ``{function name: (Fact or None per argument)}``.
FACTS = {
    "rdp_gaussian": (Fact(+1, _FORM), Fact(-1, _FORM)),
    "rdp_laplace": (Fact(+1, _ORDER), Fact(-1, _PROCESSING + " (more Laplace noise)")),
    "rdp_randomized_response": (Fact(+1, _ORDER), Fact(+1, _PROCESSING + " (flipping the answer)")),
    "rdp_sampled_gaussian": (Fact(+1, _ORDER), Fact(+1, _PROCESSING + " (a fresh draw of mu0)"),
                             Fact(-1, _PROCESSING + " (more Gaussian noise)")),
    # lam * rdp_sampled_gaussian(lam + 1, q, sigma) with the RDP >= 0 (Abadi et al. 2016, Eqs. 3-4)
    "log_moment": (Fact(+1, _ORDER + ", times lam > 0"), Fact(+1, _PROCESSING + " (a fresh draw of mu0)"),
                   Fact(-1, _PROCESSING + " (more Gaussian noise)")),
    # the add direction alone is the divergence of one pair (mu, mu0): the same facts hold for it
    # (the post-processings above map mu to mu and mu0 to mu0)
    "rdp_sampled_gaussian_add": (Fact(+1, _ORDER), Fact(+1, _PROCESSING + " (a fresh draw of mu0)"),
                                 Fact(-1, _PROCESSING + " (more Gaussian noise)")),
    "log_moment_add": (Fact(+1, _ORDER + ", times lam > 0"), Fact(+1, _PROCESSING + " (a fresh draw of mu0)"),
                       Fact(-1, _PROCESSING + " (more Gaussian noise)")),
    "delta_gaussian": (Fact(-1, _HOCKEY), Fact(-1, _PROCESSING + " (more Gaussian noise)")),
    "delta_laplace": (Fact(-1, _FORM), Fact(-1, _FORM)),
    "delta_randomized_response": (Fact(-1, _FORM), Fact(+1, _FORM)),
    "delta_sampled_gaussian": (Fact(-1, _HOCKEY), Fact(+1, _PROCESSING + " (a fresh draw of mu0)"),
                               Fact(-1, _PROCESSING + " (more Gaussian noise)")),
    "delta_composed_pure": (Fact(-1, _HOCKEY), Fact(+1, _PROCESSING + " (flipping the answer)"),
                            Fact(+1, _PROCESSING + " (dropping one of n + 1 outputs)")),
    "Phi": (Fact(+1, "a distribution function"),),
}


#: Where the remove direction of the sampled Gaussian is dominated by its add direction.
ADD_DIRECTION_SOURCE = "Mironov, Talwar & Zhang 2019 (arXiv 1908.10530v1), Thm 5 (A_alpha >= B_alpha)"

#: ``{function: its add direction}``: equal at every integer order by :data:`ADD_DIRECTION_SOURCE`
#: (``max(log A, log B) = log A``); the add direction at an integer order is an exact finite sum,
#: where the remove direction is an integral (seconds per box in ball arithmetic).
_ADD_DIRECTION = {"rdp_sampled_gaussian": "rdp_sampled_gaussian_add", "log_moment": "log_moment_add"}


def add_direction_at_integer_orders(expr, integer_names):
    """``expr`` with every ``rdp_sampled_gaussian(alpha, q, sigma)`` and ``log_moment(lam, q,
    sigma)`` whose order is an integer at every point (an integer literal, or an integer-coefficient
    polynomial in the claim's integer variables) replaced by its add direction, which equals it
    there (:data:`ADD_DIRECTION_SOURCE`).

    Args:
        expr: a sympy expression over the vocabulary.
        integer_names: the names of the claim's integer variables.

    Returns:
        The rewritten expression (``expr`` itself when nothing applies).
    """
    namespace = vocabulary.namespace()
    integers = {s: sympy.Symbol(s.name, integer=True) for s in expr.free_symbols if s.name in integer_names}

    def replace(node):
        if not node.args:
            return node
        args = [replace(a) for a in node.args]
        name = getattr(node.func, "__name__", None)
        if isinstance(node, sympy.Function) and name in _ADD_DIRECTION and args[0].xreplace(integers).is_integer:
            return namespace[_ADD_DIRECTION[name]](*args)
        return node.func(*args) if args != list(node.args) else node

    return replace(expr)


def _integer_positions(name):
    binding = vocabulary.binding_of(vocabulary.namespace()[name]) if name in vocabulary.namespace() else None
    return set(getattr(binding, "integer_args", ()) or ())


def _corner(ball, integer, low):
    """One end of an argument's enclosure as an exact value (an int for an integer argument)."""
    end = ball.lower() if low else ball.upper()
    if integer:
        mid = end.mid()
        value = int(mid.floor().unique_fmpz()) if low else int(mid.ceil().unique_fmpz())
        # the integer values inside [lower, upper]: rounded inward
        if low and arb(value) < end:
            value += 1
        if not low and arb(value) > end:
            value -= 1
        return value
    return end


def enclose(expr, point, prec):
    """An enclosure of ``expr`` over the box ``point`` with every call of a function of
    :data:`FACTS` enclosed by its values at the two corners its facts give.

    Args:
        expr: a sympy expression over the vocabulary.
        point: ``{name: arb or int}``, the box (balls) or a point.
        prec: ball precision in bits.

    Returns:
        An arb enclosure of ``expr`` over the box.

    Raises:
        ValueError, ArithmeticError, DPProofsError: as the ball evaluator does where it fails
        (a corner outside a function's domain, say).
    """
    values = dict(point)
    replaced = {}
    for node in sympy.postorder_traversal(expr):
        name = getattr(node.func, "__name__", None)
        if not isinstance(node, sympy.Function) or name not in FACTS or node in replaced:
            continue
        args = [a.xreplace(replaced) for a in node.args]
        balls = [arithmetic.evaluate_ball(a, values, prec) if a.free_symbols else None for a in args]
        integers = _integer_positions(name)
        symbols = [sympy.Symbol(f"_fact_arg{i}") for i in range(len(args))]
        low_point, high_point = {}, {}
        for i, (arg, ball, fact) in enumerate(zip(args, balls, FACTS[name])):
            if ball is None:
                value = int(arg) if i in integers and arg.is_Integer else arithmetic.evaluate_ball(arg, {}, prec)
                low_point[symbols[i].name] = high_point[symbols[i].name] = value
                continue
            if ball.rad() == 0:
                value = int(ball.unique_fmpz()) if i in integers and ball.is_integer() else ball
                low_point[symbols[i].name] = high_point[symbols[i].name] = value
                continue
            if fact is None:
                if i in integers:
                    raise vocabulary.UnsupportedExpression(f"argument #{i + 1} of {name} must be an integer")
                low_point[symbols[i].name] = high_point[symbols[i].name] = ball
                continue
            low_point[symbols[i].name] = _corner(ball, i in integers, fact.direction > 0)
            high_point[symbols[i].name] = _corner(ball, i in integers, fact.direction < 0)
        call = node.func(*symbols)
        low = arithmetic.evaluate_ball(call, low_point, prec)
        high = low if high_point == low_point else arithmetic.evaluate_ball(call, high_point, prec)
        value = low.union(high)
        symbol = sympy.Symbol(f"_fact{len(replaced)}")
        replaced[node] = symbol
        values[symbol.name] = value
    return arithmetic.evaluate_ball(expr.xreplace(replaced), values, prec)


_INCREASING = (sympy.exp, sympy.log, sympy.sqrt, sympy.erf, sympy.tanh, sympy.sinh, sympy.atan)


def _sign(expr, point, prec):
    """``+1``/``-1`` when ``expr`` is certainly positive/negative over the box, ``0`` when it is
    zero, else None."""
    if expr.is_zero:
        return 0
    try:
        value = arithmetic.evaluate_ball(expr, point, prec)
    except vocabulary.UnsupportedExpression:
        return None
    except (ValueError, ArithmeticError, TypeError, ZeroDivisionError):
        return None
    except Exception as error:  # noqa: BLE001 - DPProofsError of a domain check: no sign known
        if type(error).__module__.startswith("dpproofs"):
            return None
        raise
    if not value.is_finite():
        return None
    if value > 0:
        return 1
    if value < 0:
        return -1
    return None


def _agree(directions):
    """The common direction of a list (zeros ignored), else None."""
    found = 0
    for d in directions:
        if d is None:
            return None
        if d == 0:
            continue
        if found and d != found:
            return None
        found = d
    return found


def direction(expr, name, point, prec):
    """How ``expr`` varies with the variable ``name`` over the box ``point``, from the rules of
    monotone composition and :data:`FACTS`: ``+1`` nondecreasing, ``-1`` nonincreasing, ``0``
    constant, None not known.

    Args:
        expr: a sympy expression over the vocabulary.
        name: a variable's name.
        point: ``{name: arb or int}``, the box.
        prec: ball precision in bits (of the sign decisions).

    Returns:
        ``+1``, ``-1``, ``0`` or None.
    """
    if name not in {s.name for s in expr.free_symbols}:
        return 0
    if expr.is_Symbol:
        return 1
    if expr.is_Add:
        return _agree(direction(a, name, point, prec) for a in expr.args)
    if expr.is_Mul:
        varying = [a for a in expr.args if name in {s.name for s in a.free_symbols}]
        constant = sympy.Mul(*[a for a in expr.args if a not in varying])
        sign = _sign(constant, point, prec)
        if not sign:
            return None
        if len(varying) == 1:
            inner = direction(varying[0], name, point, prec)
            return None if inner is None else sign * inner
        # a product of nonnegative factors, each monotone the same way
        if any(_sign(f, point, prec) != 1 for f in varying):
            return None
        inner = _agree(direction(f, name, point, prec) for f in varying)
        return None if inner is None else sign * inner
    if expr.is_Pow:
        base, exponent = expr.args
        if name not in {s.name for s in exponent.free_symbols}:
            if not exponent.is_number:
                return None
            inner = direction(base, name, point, prec)
            if inner is None:
                return None
            if exponent.is_Integer and int(exponent) % 2 == 1 and exponent > 0:
                return inner
            if _sign(base, point, prec) != 1:
                return None
            return inner if exponent > 0 else -inner
        if name in {s.name for s in base.free_symbols}:
            return None
        inner = direction(exponent, name, point, prec)
        above = _sign(base - 1, point, prec)
        if inner is None or above is None:
            return None
        return inner * above
    if expr.func in _INCREASING:
        return direction(expr.args[0], name, point, prec) if len(expr.args) == 1 else None
    if expr.func is sympy.erfc:
        inner = direction(expr.args[0], name, point, prec)
        return None if inner is None else -inner
    if expr.func in (sympy.Min, sympy.Max):
        return _agree(direction(a, name, point, prec) for a in expr.args)
    func = getattr(expr.func, "__name__", None)
    if isinstance(expr, sympy.Function) and func in FACTS:
        parts = []
        for arg, fact in zip(expr.args, FACTS[func]):
            inner = direction(arg, name, point, prec)
            if inner is None or (inner and fact is None):
                return None
            parts.append(inner * fact.direction if inner else 0)
        return _agree(parts)
    return None


def _call_and_factor(term):
    """``(factor, call)`` with ``term == factor * call`` for a call of a function of
    :data:`FACTS` and a factor free of calls, else None."""
    if isinstance(term, sympy.Function) and getattr(term.func, "__name__", None) in FACTS:
        return sympy.Integer(1), term
    if term.is_Mul:
        calls = [a for a in term.args if isinstance(a, sympy.Function)
                 and getattr(a.func, "__name__", None) in FACTS]
        if len(calls) == 1:
            factor = sympy.Mul(*[a for a in term.args if a is not calls[0]])
            if not factor.has(sympy.Function):
                return factor, calls[0]
    return None


def dominates(expr, point, prec):
    """Whether ``expr`` is ``c * f(A) - c * f(B)`` with ``c > 0`` on the box and, in every
    argument, ``A_i - B_i`` of the sign that :data:`FACTS` says makes ``f`` grow (or zero): then
    ``f(A) >= f(B)`` at every point of the box, by monotonicity along the path from B to A
    one argument at a time (the vocabulary's domains are boxes, so the path stays in them), and
    ``expr >= 0`` there.

    Args:
        expr: a sympy expression (the margin of a claim).
        point: ``{name: arb or int}``, the box.
        prec: ball precision in bits.

    Returns:
        True when ``expr >= 0`` is shown on the whole box, else False.
    """
    if not expr.is_Add or len(expr.args) != 2:
        return False
    parts = [_call_and_factor(t) for t in expr.args]
    if None in parts:
        return False
    (c1, f1), (c2, f2) = parts
    if f1.func != f2.func or sympy.expand(c1 + c2) != 0:
        return False
    if _sign(c1, point, prec) == 1:
        big, small = f1, f2
    elif _sign(c2, point, prec) == 1:
        big, small = f2, f1
    else:
        return False
    for a, b, fact in zip(big.args, small.args, FACTS[getattr(big.func, "__name__")]):
        gap = sympy.expand(a - b)
        if gap == 0:
            continue
        if fact is None or _sign(fact.direction * gap, point, prec) != 1 and not _nonnegative(fact.direction * gap, point, prec):
            return False
    return True


def _nonnegative(expr, point, prec):
    """Whether ``expr >= 0`` on the box (ball arithmetic)."""
    try:
        value = arithmetic.evaluate_ball(expr, point, prec)
    except Exception as error:  # noqa: BLE001 - as in _sign
        if isinstance(error, (ValueError, ArithmeticError, TypeError)) or type(error).__module__.startswith("dpproofs"):
            return False
        raise
    return value.is_finite() and value >= 0
