"""The functions a claim may use, and the two evaluators of sympy expressions built from them.

Vocabulary (each a sympy ``Function`` bound to the shared evaluator; sensitivity 1):

=================================================  ===========================================
``rdp_gaussian(alpha, sigma)``                      ``D_alpha`` of the Gaussian, ``alpha/(2 sigma^2)``; alpha > 1, sigma > 0
``rdp_laplace(alpha, b)``                           ``D_alpha`` of Laplace(scale b); alpha > 1, b > 0
``rdp_randomized_response(alpha, eps)``             ``D_alpha`` of eps-RR = worst case over eps-DP pairs; alpha > 1, eps > 0
``rdp_sampled_gaussian(alpha, q, sigma)``           sampled-Gaussian RDP, max of both directions; alpha > 1, q in [0, 1]
``log_moment(lam, q, sigma)``                       Abadi's ``alpha(lam) = log max(E1, E2)``; lam > 0
``delta_gaussian(eps, sigma)``                      exact Gaussian privacy profile; eps >= 0
``delta_laplace(eps, b)``                           exact Laplace privacy profile; eps >= 0
``delta_randomized_response(eps_prime, eps)``       exact eps-RR profile at eps_prime
``delta_sampled_gaussian(eps, q, sigma)``           exact one-step sampled-Gaussian profile
``delta_composed_pure(eps_prime, eps, n)``          optimal n-fold composition of eps-DP (KOV 2015); n integer
``Phi(x)``                                          standard normal CDF
``accountant_epsilon_<m>(...)`` and its kin         the shipped accountant's answers (floats): see the end of FUNCTIONS
``rdp_sampled_gaussian_add(alpha, q, sigma)``       add-direction sampled-Gaussian RDP ``log A_alpha/(alpha-1)``
=================================================  ===========================================

plus sympy's ``log``, ``exp``, ``sqrt``, ``erfc``, ``Abs``, ``Min``, ``Max``, ``tanh``, ``sinh``,
``cosh``, ``binomial`` and arithmetic.

:func:`evaluate_mp` computes an expression at a point with mpmath (through
:mod:`dpproofs.evaluator.precise`); :func:`evaluate_ball` encloses it in an arb ball (through
:mod:`dpproofs.evaluator.ball`). Both raise :class:`UnsupportedExpression` for anything else.
"""

import functools

import sympy
from mpmath import mp
from flint import arb

from dpproofs.errors import DPProofsError
from dpproofs.evaluator import ball, precise

__all__ = [
    "FUNCTIONS",
    "UnsupportedExpression",
    "evaluate_mp",
    "evaluate_ball",
    "ball_supported",
    "Phi",
]


class UnsupportedExpression(DPProofsError, ValueError):
    """An expression uses something the evaluators do not know."""


def _function(name, nargs):
    return sympy.Function(name, nargs=nargs)


class _Binding:
    def __init__(self, symbol, precise_fn, ball_fn, integer_args=()):
        self.symbol = symbol
        self.precise = precise_fn
        self.ball = ball_fn
        self.integer_args = integer_args  # positions that must be exact integers


Phi = _function("Phi", 1)

FUNCTIONS = {
    "rdp_gaussian": _Binding(_function("rdp_gaussian", 2), precise.rdp_gaussian, ball.rdp_gaussian),
    "rdp_laplace": _Binding(_function("rdp_laplace", 2), precise.rdp_laplace, ball.rdp_laplace),
    "rdp_randomized_response": _Binding(
        _function("rdp_randomized_response", 2),
        precise.rdp_randomized_response,
        ball.rdp_randomized_response,
    ),
    "rdp_sampled_gaussian": _Binding(
        _function("rdp_sampled_gaussian", 3), precise.rdp_sampled_gaussian, ball.rdp_sampled_gaussian
    ),
    "log_moment": _Binding(
        _function("log_moment", 3),
        precise.log_moment_sampled_gaussian,
        ball.log_moment_sampled_gaussian,
    ),
    "delta_gaussian": _Binding(
        _function("delta_gaussian", 2), precise.delta_gaussian, ball.delta_gaussian
    ),
    "delta_laplace": _Binding(_function("delta_laplace", 2), precise.delta_laplace, ball.delta_laplace),
    "delta_randomized_response": _Binding(
        _function("delta_randomized_response", 2),
        precise.delta_randomized_response,
        ball.delta_randomized_response,
    ),
    "delta_sampled_gaussian": _Binding(
        _function("delta_sampled_gaussian", 3),
        precise.delta_sampled_gaussian,
        ball.delta_sampled_gaussian,
    ),
    "delta_composed_pure": _Binding(
        _function("delta_composed_pure", 3),
        precise.delta_composed_pure,
        ball.delta_composed_pure,
        integer_args=(2,),
    ),
}


# --- the shipped accountant, as a user calls it (claims under ``accountant.``) -----------------
#
# Each function below calls the public ``dpproofs.Accountant`` / ``dpproofs.calibrate_sigma``
# exactly as a user does, with float64 arguments, and returns the float answer, which is exact as
# an mpf and as an arb ball: a claim such as ``delta_gaussian(accountant_epsilon_gaussian(sigma, T,
# delta, 0, 0, 0), sigma/sqrt(T)) <= delta`` is certified by the ball evaluation of its exact side.
# Arguments are rounded to the nearest float64 (an arb ball that straddles two floats cannot be
# passed on and raises UnsupportedExpression); ``T`` and the 0/1 flags must be exact integers.
# Flags: ``classic`` (1: conversion="classic", 0: "improved"), ``refine`` and ``certified``
# (1: True). The accountant uses the default orders (its integer ones in certified mode).
#
# name                                                       value
# accountant_epsilon_<m>(<params>, T, delta, classic, refine, certified)   acc.epsilon(delta, ...)
# accountant_order_<m>(<params>, T, delta, classic, refine, certified)     alpha of acc.epsilon_and_order
# accountant_delta_<m>(<params>, T, epsilon, classic, certified)           acc.delta(epsilon, ...)
# accountant_rdp_<m>(alpha, <params>, T)                     Accountant([alpha]).compose(m, T).rdp[0]
# calibrated_sigma(epsilon, delta, q, T, classic)            dp.calibrate_sigma(...) (sampled Gaussian)
# rdp_sampled_gaussian_add(alpha, q, sigma)                  exact add-direction RDP, log A_alpha/(alpha-1)
#
# with <m>(<params>): gaussian(sigma), laplace(b), randomized_response(eps),
# sampled_gaussian(q, sigma); domains are the accountant's (it raises InvalidArgument outside).


def _float_of(value):
    """The float64 nearest to an mpf or an arb ball (a ball must round to one float)."""
    if isinstance(value, arb):
        low, high = float(value.lower()), float(value.upper())
        if low != high:
            raise UnsupportedExpression(f"the ball {value} does not round to one float64 for the accountant")
        return low
    return float(value)


def _int_of(value):
    number = _float_of(value)
    if not number.is_integer():
        raise UnsupportedExpression(f"{value} must be an integer for the accountant")
    return int(value.unique_fmpz()) if isinstance(value, arb) else int(value)


def _accountant_binding(name, compute, kinds):
    """A binding whose precise and ball forms both return ``compute(*plain arguments)`` exactly;
    ``kinds`` is a string of ``f`` (float) and ``i`` (integer) per argument."""

    def plain(args):
        return [(_int_of if kind == "i" else _float_of)(a) for kind, a in zip(kinds, args, strict=True)]

    def precise_fn(*args, dps):
        return mp.mpf(float(compute(*plain(args))))

    def ball_fn(*args, prec):
        return arb(float(compute(*plain(args))))

    integer_positions = tuple(i for i, kind in enumerate(kinds) if kind == "i")
    return name, _Binding(_function(name, len(kinds)), precise_fn, ball_fn, integer_args=integer_positions)


def _accountant_functions():
    from dpproofs import accountant as shipped
    from dpproofs import mechanisms

    makers = {
        "gaussian": (mechanisms.Gaussian, 1),
        "laplace": (mechanisms.Laplace, 1),
        "randomized_response": (mechanisms.RandomizedResponse, 1),
        "sampled_gaussian": (mechanisms.SampledGaussian, 2),
    }

    def conversion(classic):
        return "classic" if classic else "improved"

    @functools.lru_cache(maxsize=64)
    def composed(make, params, steps, certified=False, orders=None):
        """The composed accountant, built as a user builds it; cached so that the several answers
        one statement asks of it (epsilon, its order) share its RDP curve (certified balls take
        ~0.7 s). Only the instance is cached: every answer calls the public methods anew."""
        return shipped.Accountant(orders, certified=bool(certified)).compose(make(*params), steps)

    bindings = []
    for label, (make, count) in makers.items():
        def epsilon(*args, make=make, count=count):
            params, (steps, delta, classic, refine, certified) = args[:count], args[count:]
            return composed(make, params, steps, certified).epsilon(delta, conversion(classic), refine=bool(refine))

        def order(*args, make=make, count=count):
            params, (steps, delta, classic, refine, certified) = args[:count], args[count:]
            accountant = composed(make, params, steps, certified)
            return accountant.epsilon_and_order(delta, conversion(classic), refine=bool(refine))[1]

        def delta(*args, make=make, count=count):
            params, (steps, eps, classic, certified) = args[:count], args[count:]
            return composed(make, params, steps, certified).delta(eps, conversion(classic))

        def rdp(alpha, *args, make=make, count=count):
            params, (steps,) = args[:count], args[count:]
            return composed(make, params, steps, orders=(alpha,)).rdp[0]

        bindings += [
            _accountant_binding(f"accountant_epsilon_{label}", epsilon, "f" * count + "ifiii"),
            _accountant_binding(f"accountant_order_{label}", order, "f" * count + "ifiii"),
            _accountant_binding(f"accountant_delta_{label}", delta, "f" * count + "ifii"),
            _accountant_binding(f"accountant_rdp_{label}", rdp, "f" + "f" * count + "i"),
        ]

    def calibrated(eps, delta, q, steps, classic):
        return shipped.calibrate_sigma(epsilon=eps, delta=delta, q=q, steps=steps, conversion=conversion(classic))

    bindings.append(_accountant_binding("calibrated_sigma", calibrated, "fffii"))
    found = dict(bindings)
    found["rdp_sampled_gaussian_add"] = _Binding(
        _function("rdp_sampled_gaussian_add", 3),
        lambda alpha, q, sigma, dps: precise.rdp_sampled_gaussian(alpha, q, sigma, dps=dps, direction="add"),
        lambda alpha, q, sigma, prec: ball.rdp_sampled_gaussian(alpha, q, sigma, prec=prec, direction="add"),
    )
    return found


FUNCTIONS.update(_accountant_functions())

#: sympy names -> function objects, for parsing user text (see dpproofs.verification)
NAMESPACE = {name: binding.symbol for name, binding in FUNCTIONS.items()}
NAMESPACE["Phi"] = Phi

_BY_SYMBOL_NAME = {binding.symbol.__name__: binding for binding in FUNCTIONS.values()}


def _integer_value(value, name):
    if value != int(value):
        raise UnsupportedExpression(f"argument {name}={value} must be an integer")
    return int(value)


# --- mpmath ------------------------------------------------------------------------------------


def evaluate_mp(expr, point, dps):
    """Value of sympy ``expr`` at ``point`` (symbol name -> number), to about ``dps`` digits."""
    with mp.workdps(dps + precise.GUARD_DPS):
        return _mp(sympy.sympify(expr), point, dps)


def _mp(e, point, dps):
    if e.is_Symbol:
        if e.name not in point:
            raise UnsupportedExpression(f"no value for the variable {e.name!r}")
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
        return mp.power(base, exponent)
    simple = {
        sympy.log: mp.log,
        sympy.exp: mp.exp,
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
    binding = _BY_SYMBOL_NAME.get(getattr(e.func, "__name__", None))
    if binding is not None:
        for position in binding.integer_args:
            args[position] = _integer_value(args[position], f"#{position + 1} of {e.func}")
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


_BALL_SIMPLE = {
    sympy.log: lambda x: x.log(),
    sympy.exp: lambda x: x.exp(),
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
        or getattr(e.func, "__name__", None) in _BY_SYMBOL_NAME
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
    binding = _BY_SYMBOL_NAME.get(getattr(e.func, "__name__", None))
    if binding is not None:
        for position in binding.integer_args:
            if not (args[position].is_exact() and args[position].is_integer()):
                raise UnsupportedExpression(f"argument #{position + 1} of {e.func} must be an integer")
        return binding.ball(*args, prec=prec)
    raise UnsupportedExpression(f"no ball evaluation for {e.func} in {e}")
