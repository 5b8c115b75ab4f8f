"""One-dimensional searches shared by the references and the calibration: a bracketing root
finder and a golden-section minimiser, written once for any arithmetic (floats or mpmath
numbers: only +, -, *, / and comparisons are used, and ``exp`` is passed in).

Outside our field, but the callers need what library solvers do not promise: the bracket's ends
are points where the function WAS evaluated, with their signs (a certified side), and the
arithmetic is the caller's.
"""

__all__ = ["illinois", "bisect_predicate", "golden_section", "golden_section_on_log"]


def illinois(g, low, high, g_low, g_high, *, converged, clamp=0.01, max_steps=1000):
    """Regula falsi with the Illinois modification on a bracket with ``g(low) > 0 >= g(high)``
    (``g_low``, ``g_high`` already evaluated): returns the final ``(low, high)``, both evaluated
    points with the same signs, once ``converged(low, high)`` or after ``max_steps`` evaluations.
    Each trial point is kept ``clamp`` of the bracket inside its ends, so the bracket shrinks by
    that fraction at least per step. (Dowell & Jarratt, BIT 11 (1971) 168-174.)"""
    side = 0
    for _ in range(max_steps):
        if converged(low, high):
            break
        x = (low * g_high - high * g_low) / (g_high - g_low) if g_high != g_low else (low + high) / 2
        x = min(max(x, low + clamp * (high - low)), high - clamp * (high - low))
        g_x = g(x)
        if g_x > 0:
            low, g_low = x, g_x
            if side == -1:
                g_high /= 2
            side = -1
        else:
            high, g_high = x, g_x
            if side == 1:
                g_low /= 2
            side = 1
    return low, high


def bisect_predicate(holds, inside, outside, *, relative=1e-13, max_steps=200):
    """Bisection of the segment between ``inside`` (where ``holds`` is True) and ``outside``
    (either order) for the boundary of ``holds``: returns the last evaluated point where it was
    True, within ``relative * max(1, |ends|)`` of one where it was not. Only evaluated points are
    returned, so no monotonicity of ``holds`` is assumed."""
    for _ in range(max_steps):
        middle = (inside + outside) / 2
        if holds(middle):
            inside = middle
        else:
            outside = middle
        if abs(outside - inside) <= relative * max(1.0, abs(inside), abs(outside)):
            break
    return inside


def golden_section(f, low, high, *, steps=None, tolerance=0):
    """Golden-section search of ``f`` (unimodal on ``[low, high]``) for its minimum.

    ``steps`` reductions of the bracket by 0.618 (``None``: no cap), or fewer once the bracket is
    narrower than ``tolerance``; at least one of them must bound the loop. Ties move the bracket
    to the left. Returns ``(value, x, low, high)``: the smallest value of ``f`` at any point
    evaluated, that point, and the final bracket. Written once for any arithmetic whose numbers
    support ``+ - * <`` (floats, mpmath).

    Raises:
        ValueError: neither ``steps`` nor a positive ``tolerance`` bounds the search.
    """
    if steps is None and not tolerance > 0:
        raise ValueError("golden_section needs steps or a positive tolerance to stop")
    ratio = (5**0.5 - 1) / 2
    a, b = high - ratio * (high - low), low + ratio * (high - low)
    fa, fb = f(a), f(b)
    best = min((fa, a), (fb, b), key=lambda pair: pair[0])
    done = 0
    while (steps is None or done < steps) and not high - low < tolerance:
        if fa <= fb:
            high, b, fb = b, a, fa
            a = high - ratio * (high - low)
            fa = f(a)
            if fa < best[0]:
                best = (fa, a)
        else:
            low, a, fa = a, b, fb
            b = low + ratio * (high - low)
            fb = f(b)
            if fb < best[0]:
                best = (fb, b)
        done += 1
    return best[0], best[1], low, high


def golden_section_on_log(f, low, high, *, exp, steps, tolerance=0):
    """The ``c`` in ``[exp(low), exp(high)]`` minimising ``f`` (unimodal in ``log c``) by golden
    section on ``log c`` (:func:`golden_section`): ``steps`` reductions by 0.618, or fewer once the
    ``log c`` bracket is narrower than ``tolerance``. Returns the midpoint of the final bracket, as
    ``exp(mid)``."""
    _, _, low, high = golden_section(lambda x: f(exp(x)), low, high, steps=steps, tolerance=tolerance)
    return exp((low + high) / 2)
