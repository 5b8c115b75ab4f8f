"""The RDP accountant's certified mode (``Accountant(certified=True)``): epsilon and delta from
python-flint ``arb`` enclosures of the composed RDP at integer orders, the upper end of each ball
rounded up to a float (the module docstring of :mod:`dpproofs.accountant.rdp`, "Certified mode").

Each mechanism gives its one-step enclosure (:meth:`dpproofs.mechanisms.Mechanism.rdp_ball`);
the conversions are those of :mod:`dpproofs.math.conversions` in ball arithmetic. flint is
imported on first use only (the accountant path never imports it at module level).
"""

import math

from dpproofs.math import conversions, fast

__all__ = ["epsilon", "delta", "PREC"]

#: Working precision of the enclosures (bits).
PREC = 128

_ULP = 2.0**-52


def composed_rdp(orders, relation, cache, items):
    """arb enclosures of the composed RDP at each (integer) order; ``cache`` maps
    ``(mechanism, order)`` to the one-step ball (the accountant's, kept across queries)."""
    from flint import arb

    totals = []
    for alpha in orders:
        a = int(alpha)
        total = arb(0)
        for mechanism, steps in items:
            key = (mechanism, a)
            value = cache.get(key)
            if value is None:
                value = mechanism.rdp_ball(a, relation, PREC)
                cache[key] = value
            total = total + steps * value
        totals.append(total)
    return totals


def epsilon(orders, relation, cache, items, delta_value, conversion):
    """``(epsilon, order)``: the smallest float upper end over the orders of the conversion's ball."""
    from flint import arb, ctx

    saved = ctx.prec
    ctx.prec = PREC
    try:
        log_delta = arb(delta_value).log()  # the float delta is exact as an arb
        best = None
        for alpha, total in zip(orders, composed_rdp(orders, relation, cache, items)):
            value = conversions.epsilon_bound(conversion, total, arb(int(alpha)), log_delta)
            upper = arb_upper_float(value)
            if best is None or upper < best[0]:
                best = (upper, float(alpha))
    finally:
        ctx.prec = saved
    return max(0.0, best[0]), best[1]


def delta(orders, relation, cache, items, epsilon_value, conversion):
    """The smallest float upper end over the orders of the delta conversion (in ``(0, 1]``)."""
    from flint import arb, ctx

    saved = ctx.prec
    ctx.prec = PREC
    try:
        eps = arb(epsilon_value)
        best = math.inf
        for alpha, total in zip(orders, composed_rdp(orders, relation, cache, items)):
            log_value = conversions.log_delta_bound(conversion, total, arb(int(alpha)), eps)
            best = min(best, arb_upper_float(log_value))
    finally:
        ctx.prec = saved
    if best >= 0:
        return 1.0
    return min(1.0, max(math.nextafter(math.exp(best) * (1.0 + 4 * _ULP), math.inf), fast.TINY))


def arb_upper_float(value):
    """The upper end of an arb ball as a float that is >= it (``inf`` for an unbounded ball)."""
    from flint import arb

    if not value.is_finite():
        return math.inf
    upper = value.upper()
    result = float(upper)
    if not (arb(result) - upper).lower() >= 0:  # exact points: decided by the sign of the difference
        result = math.nextafter(result, math.inf)
    return result
