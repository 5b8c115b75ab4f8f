"""The two evaluators of claims: a sympy expression over the vocabulary, at a point.

:func:`evaluate_mp` computes it with mpmath to a number of digits (through
:mod:`dpproofs.math.precise`); :func:`evaluate_ball` encloses it in an arb ball (through
:mod:`dpproofs.math.ball`), floats in the point taken as exact. Both check every vocabulary
function's domain (:mod:`dpproofs.checker.vocabulary`) and raise
:class:`~dpproofs.checker.vocabulary.UnsupportedExpression` for anything they do not know.
"""

import sympy
from flint import arb
from mpmath import mp

from dpproofs.checker.vocabulary import Phi, UnsupportedExpression, binding_of, is_structured
from dpproofs.errors import NumericalError
from dpproofs.math import ball
from dpproofs.math import precise

__all__ = ["evaluate_mp", "evaluate_ball", "ball_supported", "MAX_EXPONENT"]


def _integer_value(value, name):
    if value != int(value):
        raise UnsupportedExpression(f"argument {name}={value} must be an integer")
    return int(value)


# --- mpmath ------------------------------------------------------------------------------------


def evaluate_mp(expr, point, dps):
    """Value of sympy ``expr`` at ``point`` (symbol name -> number), to about ``dps`` digits."""
    with mp.workdps(dps + precise.GUARD_DPS):
        return _mp(sympy.sympify(expr), point, dps)


#: Largest argument of exp (and exponent of a power, times log|base|) the evaluators take: e^(2^40)
#: has a binary exponent of 40 bits; beyond it (``exp(exp(exp(exp(exp(x)))))``) a value would need
#: unbounded time and memory, so the point is unevaluable instead.
MAX_EXPONENT = 2.0**40


def _mp_exp(x):
    if x > MAX_EXPONENT:
        raise NumericalError(f"exp({x}) overflows (argument beyond {MAX_EXPONENT:g})")
    return mp.exp(x)


def _mp(e, point, dps):
    if e.is_Symbol:
        if e.name not in point:
            raise UnsupportedExpression(f"no value for the variable {e.name!r}")
        if is_structured(point[e.name]):  # a vocabulary type: passed as it is
            return point[e.name]
        return precise.to_mpf(point[e.name])
    if e.is_Integer:
        return mp.mpf(int(e))
    if e.is_Rational:
        return mp.mpf(int(e.p)) / int(e.q)
    if e.is_Float:
        return mp.mpf(sympy.Float(e, dps + 5)._mpf_)
    if e is sympy.pi:
        return +mp.pi
    if e is sympy.E:
        return mp.e
    if e in (sympy.oo, -sympy.oo):
        return mp.inf if e is sympy.oo else -mp.inf
    args = [_mp(a, point, dps) for a in e.args]
    if e.is_Add:
        return mp.fsum(args)
    if e.is_Mul:
        return mp.fprod(args)
    if e.is_Pow:
        base, exponent = args
        if e.exp.is_Integer:
            return base ** int(e.exp)
        if base != 0 and abs(exponent) * abs(mp.log(abs(base))) > MAX_EXPONENT:
            raise NumericalError(f"{e} overflows at this point (exponent beyond {MAX_EXPONENT:g})")
        return mp.power(base, exponent)
    simple = {
        sympy.log: mp.log,
        sympy.exp: _mp_exp,
        sympy.erfc: mp.erfc,
        sympy.erf: mp.erf,
        sympy.tanh: mp.tanh,
        sympy.sinh: mp.sinh,
        sympy.cosh: mp.cosh,
        sympy.Abs: abs,
        sympy.floor: mp.floor,
        sympy.ceiling: mp.ceil,
    }
    if e.func in simple:
        if e.func is sympy.log and len(args) == 2:
            return mp.log(args[0]) / mp.log(args[1])
        return simple[e.func](*args)
    if e.func is sympy.Min:
        return min(args)
    if e.func is sympy.Max:
        return max(args)
    if e.func is sympy.binomial:
        return mp.binomial(*args)
    if e.func is Phi:
        return precise.normal_sf(-args[0])  # Phi(x) = 1 - Phi(-x): no cancellation in the tails
    binding = binding_of(e.func)
    if binding is not None:
        for position in binding.integer_args:
            args[position] = _integer_value(args[position], f"#{position + 1} of {e.func}")
        binding.check_domain(args, in_ball=False)
        return binding.precise(*args, dps=dps + precise.GUARD_DPS)
    raise UnsupportedExpression(f"cannot evaluate {e.func} in {e}")


# --- arb -------------------------------------------------------------------------------------


def ball_supported(expr):
    """Whether :func:`evaluate_ball` knows every function in ``expr``."""
    try:
        _check_ball(sympy.sympify(expr))
    except UnsupportedExpression:
        return False
    return True


def _ball_exp(x):
    if not x.is_finite() or x.upper() > MAX_EXPONENT:
        raise NumericalError(f"exp of {x} overflows (argument beyond {MAX_EXPONENT:g})")
    return x.exp()


_BALL_SIMPLE = {
    sympy.log: lambda x: x.log(),
    sympy.exp: _ball_exp,
    sympy.erfc: lambda x: x.erfc(),
    sympy.erf: lambda x: x.erf(),
    sympy.tanh: lambda x: x.tanh(),
    sympy.sinh: lambda x: x.sinh(),
    sympy.cosh: lambda x: x.cosh(),
    sympy.Abs: abs,
}


def _check_ball(e):
    if e.is_Atom:
        if e.is_Symbol or e.is_Number or e in (sympy.pi, sympy.E):
            return
        raise UnsupportedExpression(f"no ball evaluation for {e}")
    known = (
        e.is_Add
        or e.is_Mul
        or e.is_Pow
        or e.func in _BALL_SIMPLE
        or e.func in (sympy.Min, sympy.Max, Phi, sympy.binomial)
        or binding_of(e.func) is not None
    )
    if not known:
        raise UnsupportedExpression(f"no ball evaluation for {e.func}")
    for a in e.args:
        _check_ball(a)


def evaluate_ball(expr, point, prec):
    """An arb ball containing the value of sympy ``expr`` at ``point`` (floats exact)."""
    with ball.precision(prec):
        return _ball(sympy.sympify(expr), point, prec)


def _ball(e, point, prec):
    if e.is_Symbol:
        if e.name not in point:
            raise UnsupportedExpression(f"no value for the variable {e.name!r}")
        if is_structured(point[e.name]):  # a vocabulary type: passed as it is
            return point[e.name]
        return ball.to_arb(point[e.name])
    if e.is_Integer:
        return arb(int(e))
    if e.is_Rational:
        return arb(int(e.p)) / int(e.q)
    if e.is_Float:
        with mp.workprec(prec):
            return ball.to_arb(mp.mpf(e._mpf_)) * (1 + arb(0, arb(2) ** (-prec + 2)))
    if e is sympy.pi:
        return arb.pi()
    if e is sympy.E:
        return arb(1).exp()
    args = [_ball(a, point, prec) for a in e.args]
    if e.is_Add:
        return sum(args[1:], args[0])
    if e.is_Mul:
        result = args[0]
        for a in args[1:]:
            result = result * a
        return result
    if e.is_Pow:
        base, exponent = args
        if e.exp.is_Integer:
            return base ** int(e.exp)
        if e.exp == sympy.Rational(1, 2):
            return base.sqrt()
        return (exponent * base.log()).exp()
    if e.func in _BALL_SIMPLE:
        if e.func is sympy.log and len(args) == 2:
            return args[0].log() / args[1].log()
        return _BALL_SIMPLE[e.func](*args)
    if e.func is sympy.Min:
        result = args[0]
        for a in args[1:]:
            result = result.min(a)
        return result
    if e.func is sympy.Max:
        result = args[0]
        for a in args[1:]:
            result = result.max(a)
        return result
    if e.func is sympy.binomial:
        n, k = args
        return arb.bin(n, int(k.unique_fmpz())) if k.is_exact() else (
            (n + 1).lgamma() - (k + 1).lgamma() - (n - k + 1).lgamma()
        ).exp()
    if e.func is Phi:
        return ball.normal_sf(-args[0])
    binding = binding_of(e.func)
    if binding is not None:
        for position in binding.integer_args:
            if not (args[position].is_exact() and args[position].is_integer()):
                raise UnsupportedExpression(f"argument #{position + 1} of {e.func} must be an integer")
        binding.check_domain(args, in_ball=True)
        return binding.ball(*args, prec=prec)
    raise UnsupportedExpression(f"no ball evaluation for {e.func} in {e}")
