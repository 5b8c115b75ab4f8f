"""Shared pieces of the accountant claims: sources, variables, flags, the documented RDP inflation,
and the one way a mutant changes the library for the duration of a call (:func:`library_attribute`).

Nothing here is a claim.
"""

import contextlib

import sympy

from dpproofs.checker.claims import Variable
from dpproofs.math import fast
from dpproofs.checker.vocabulary import NAMESPACE

__all__ = [
    "F",
    "MIRONOV",
    "BBGHS",
    "CKS",
    "BALLE_WANG",
    "KOV",
    "MTZ",
    "ACCOUNTANT",
    "CONVERSION_SOURCES",
    "FLAGS",
    "FLAG_HYPOTHESES",
    "RDP_INFLATION",
    "variable",
    "conversion_name",
    "library_attribute",
]

F = NAMESPACE

MIRONOV = "Mironov 2017 (arXiv 1702.07476v3)"
BBGHS = "Balle, Barthe, Gaboardi, Hsu & Sato 2020 (arXiv 1905.09982v3), Thm 21"
CKS = "Canonne, Kamath & Steinke 2020 (arXiv 2004.00010v5), Prop. 12"
BALLE_WANG = "Balle & Wang 2018 (arXiv 1805.06530), Thm 8 (exact Gaussian profile)"
KOV = "Kairouz, Oh & Viswanath 2015 (arXiv 1311.0776), Thm 3.3 (optimal composition = T-fold RR)"
MTZ = "Mironov, Talwar & Zhang 2019 (arXiv 1908.10530), Thm 5 and s.3.3"
ACCOUNTANT = "dpproofs.Accountant (the shipped accountant, as a user calls it)"

#: conversion flag -> the paper result the conversion is
CONVERSION_SOURCES = {0: BBGHS, 1: f"{MIRONOV}, Prop. 3"}


def variable(name, low, high, **kwargs):
    """A :class:`Variable` and its sympy symbol."""
    v = Variable(name, low, high, **kwargs)
    return v, v.symbol


CLASSIC, classic = variable("classic", 0, 1, integer=True)
REFINE, refine = variable("refine", 0, 1, integer=True)
CERTIFIED, certified = variable("certified", 0, 1, integer=True)
#: the accountant's modes: conversion (0 improved, 1 classic), refine, certified
FLAGS = (CLASSIC, REFINE, CERTIFIED)
#: refine=True is not available in certified mode: refine + certified < 3/2, decided strictly at every
#: flag value (a hypothesis met with equality, such as refine + certified <= 1 at 1, is undecided
#: in mp, and claims.hypotheses_at never reaches its ball path for a relation)
FLAG_HYPOTHESES = (sympy.Lt(refine + certified, sympy.Rational(3, 2)),)

#: The accountant's documented upper curve for one mechanism (module docstring of
#: dpproofs.accountant.rdp, point (1)): its float RDP times ``1 + fast.RTOL + (n + 2) 2^-52``, n = 1.
RDP_INFLATION = 1 + sympy.Rational(repr(fast.RTOL)) + 3 * sympy.Rational(1, 2**52)


def conversion_name(flag):
    return "classic" if flag else "improved"


@contextlib.contextmanager
def library_attribute(module, name, value):
    """``module.name`` set to ``value`` for the duration, then restored (a mutant's change to the
    library: a constant such as ``LIFT_SHARE_MARGIN``, or a function wrapped)."""
    saved = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, saved)
