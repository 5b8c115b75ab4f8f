"""The shipped accountant as vocabulary functions, registered when ``dpproofs_theorems.accountant``
is imported.

Each function calls the public ``dpproofs.Accountant`` / ``dpproofs.calibrate_sigma`` exactly as a
user does, with float64 arguments, and returns the float answer, which is exact as an mpf and as an
arb ball: a claim such as ``delta_gaussian(accountant_epsilon_gaussian(sigma, T, delta, 0, 0, 0),
sigma/sqrt(T)) <= delta`` is certified by the ball evaluation of its exact side. Arguments are
rounded to the nearest float64 (an arb ball that straddles two floats cannot be passed on and
raises UnsupportedExpression); ``T`` and the 0/1 flags must be exact integers. Flags: ``classic``
(1: conversion="classic", 0: "improved"), ``refine`` and ``certified`` (1: True). The accountant
uses the default orders (its integer ones in certified mode).

=========================================================================  ===========================================
name                                                                        value
=========================================================================  ===========================================
``accountant_epsilon_<m>(<params>, T, delta, classic, refine, certified)``  ``acc.epsilon(delta, ...)``
``accountant_order_<m>(<params>, T, delta, classic, refine, certified)``    alpha of ``acc.epsilon_and_order``
``accountant_delta_<m>(<params>, T, epsilon, classic, certified)``          ``acc.delta(epsilon, ...)``
``accountant_rdp_<m>(alpha, <params>, T)``                                  ``Accountant([alpha]).compose(m, T).rdp[0]``
``accountant_tv_<m>(<params>, T, certified)``                               ``acc.total_variation_bound()``
``calibrated_sigma(epsilon, delta, q, T, classic)``                         ``dp.calibrate_sigma(...)`` (sampled Gaussian)
=========================================================================  ===========================================

with ``<m>(<params>)``: ``gaussian(sigma)``, ``laplace(b)``, ``randomized_response(eps)``,
``kary_randomized_response(p, k)`` (``k`` an exact integer), ``kary_randomized_response_special(p, k)``
(the same with ``special=True``), ``sampled_gaussian(q, sigma)``; domains are the accountant's (it raises InvalidArgument outside).
"""

import functools

from dpproofs import mechanisms
from dpproofs.accountant.calibrate import calibrate_sigma
from dpproofs.accountant.rdp import Accountant
from dpproofs.checker import vocabulary
from dpproofs.errors import InvalidArgument, OutsideDomain

#: label -> (mechanism class, names of its parameters; ``(name, "i")`` for an exact integer)
MECHANISMS = {
    "gaussian": (mechanisms.Gaussian, ("sigma",)),
    "laplace": (mechanisms.Laplace, ("b",)),
    "randomized_response": (mechanisms.RandomizedResponse, ("eps",)),
    "kary_randomized_response": (mechanisms.KaryRandomizedResponse, ("p", ("k", "i"))),
    "kary_randomized_response_special": (functools.partial(mechanisms.KaryRandomizedResponse, special=True),
                                         ("p", ("k", "i"))),
    "sampled_gaussian": (mechanisms.SampledGaussian, ("q", "sigma")),
}


def _conversion(classic):
    return "classic" if classic else "improved"


@functools.lru_cache(maxsize=64)
def _composed(make, params, steps, certified=False, orders=None):
    """The composed accountant, built as a user builds it; cached so that the several answers one
    statement asks of it (epsilon, its order) share its RDP curve (certified balls take ~0.7 s).
    Only the instance is cached: every answer calls the public methods anew."""
    return Accountant(orders, certified=bool(certified)).compose(make(*params), steps)


def _register(name, compute, arguments):
    """``arguments``: ``(name, kind)`` pairs, kind ``f`` (float) or ``i`` (exact integer). The
    function's domain is the accountant's: where the accountant refuses its arguments (an epsilon
    no sigma <= 1e4 reaches, a parameter out of range), the point is outside the domain
    (:class:`OutsideDomain`, which a claim's search skips), not a failure of the check."""
    kinds = "".join(kind for _, kind in arguments)
    domain = tuple((arg, ((vocabulary.INTEGER, None),) if kind == "i" else ()) for arg, kind in arguments)

    def inside_domain(*args):
        try:
            return compute(*args)
        except OutsideDomain:
            raise
        except InvalidArgument as refusal:
            raise OutsideDomain(f"{name}: {refusal}") from refusal

    vocabulary.register_float(name, inside_domain, kinds, domain=domain,
                              doc=f"the shipped accountant's answer, as a user calls it ({name})")


def _register_mechanism(label, make, parameters):
    count = len(parameters)
    params = [p if isinstance(p, tuple) else (p, "f") for p in parameters]
    modes = [("classic", "i"), ("refine", "i"), ("certified", "i")]

    def epsilon(*args):
        values, (steps, delta, classic, refine, certified) = args[:count], args[count:]
        return _composed(make, values, steps, certified).epsilon(delta, _conversion(classic), refine=bool(refine))

    def order(*args):
        values, (steps, delta, classic, refine, certified) = args[:count], args[count:]
        return _composed(make, values, steps, certified).epsilon_and_order(
            delta, _conversion(classic), refine=bool(refine))[1]

    def delta(*args):
        values, (steps, eps, classic, certified) = args[:count], args[count:]
        return _composed(make, values, steps, certified).delta(eps, _conversion(classic))

    def rdp(alpha, *args):
        values, (steps,) = args[:count], args[count:]
        return _composed(make, values, steps, orders=(alpha,)).rdp[0]

    _register(f"accountant_epsilon_{label}", epsilon, params + [("T", "i"), ("delta", "f")] + modes)
    _register(f"accountant_order_{label}", order, params + [("T", "i"), ("delta", "f")] + modes)
    _register(f"accountant_delta_{label}", delta, params + [("T", "i"), ("epsilon", "f")] + [modes[0], modes[2]])
    def total_variation(*args):
        values, (steps, certified) = args[:count], args[count:]
        return _composed(make, values, steps, certified).total_variation_bound()

    _register(f"accountant_rdp_{label}", rdp, [("alpha", "f")] + params + [("T", "i")])
    _register(f"accountant_tv_{label}", total_variation, params + [("T", "i"), modes[2]])


def _calibrated(eps, delta, q, steps, classic):
    return calibrate_sigma(epsilon=eps, delta=delta, q=q, steps=steps, conversion=_conversion(classic))


for _label, (_make, _parameters) in MECHANISMS.items():
    _register_mechanism(_label, _make, _parameters)
_register("calibrated_sigma", _calibrated,
          [("epsilon", "f"), ("delta", "f"), ("q", "f"), ("T", "i"), ("classic", "i")])
