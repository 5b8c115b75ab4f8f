"""Check a user's inequality over DP quantities: ``verify("claim", where=[...])`` -> Verdict.

A claim is **one relation** (``<=``, ``<``, ``>=``, ``>``) between two expressions in sympy
syntax; ``where`` holds conditions on its free variables (chained comparisons allowed:
``0 < q < 1``, ``1 <= sigma <= 20``, ``q < 1/(16*sigma)``, ``lam <= sigma**2*log(1/(q*sigma))``);
``integers`` names the variables that take integer values. ``^`` means ``**``; decimal numbers are
exact (``0.1`` is 1/10).

Vocabulary (sensitivity 1; natural logarithms; add/remove neighbours). Each function is evaluated
by the shared evaluator (mpmath reference in :mod:`dpproofs.evaluator.precise`, arb enclosures in
:mod:`dpproofs.evaluator.ball`). A call whose arguments can leave the stated domain is an error
naming the function and the argument (an argument that must be an integer must be an integer
expression, e.g. a variable declared in ``integers``).

``rdp_gaussian(alpha, sigma)``
    Rényi divergence of the Gaussian mechanism, ``D_alpha(N(1, s^2) || N(0, s^2)) =
    alpha / (2 s^2)`` (Mironov 2017, Prop. 7). Domain: alpha > 1, sigma > 0.
``rdp_laplace(alpha, b)``
    Rényi divergence of Laplace(scale b), ``log[a/(2a-1) e^((a-1)/b) + (a-1)/(2a-1)
    e^(-a/b)] / (a-1)`` (Mironov 2017, Prop. 6). Domain: alpha > 1, b > 0.
``rdp_randomized_response(alpha, eps)``
    Rényi divergence of eps-randomized response, the worst case over all eps-DP pairs:
    ``log[p^a (1-p)^(1-a) + (1-p)^a p^(1-a)] / (a-1)`` with ``p = e^eps / (1 + e^eps)``
    (Mironov 2017, Prop. 5). Domain: alpha > 1, eps >= 0.
``rdp_sampled_gaussian(alpha, q, sigma)``
    One step of the Poisson-subsampled Gaussian: ``log max(A_alpha, B_alpha) / (alpha - 1)`` with
    ``A_alpha = E_mu0[(mu/mu0)^alpha]`` (add) and ``B_alpha = E_mu[(mu0/mu)^alpha]`` (remove),
    ``mu0 = N(0, s^2)``, ``mu = (1-q) mu0 + q N(1, s^2)``; integer orders by the exact binomial
    sum, fractional orders by a 1-D integral. Domain: alpha > 1 (integer or not), 0 <= q <= 1,
    sigma > 0.
``log_moment(lam, q, sigma)``
    Abadi et al. 2016 (arXiv 1607.00133v2) Eqs. 3-4: ``alpha(lam) = log max(A_(lam+1),
    B_(lam+1))``, i.e. ``lam`` times the sampled-Gaussian RDP at order ``lam + 1``.
    Domain: lam > 0, 0 <= q <= 1, sigma > 0.
``delta_gaussian(eps, sigma)``
    Exact privacy profile of the Gaussian, ``Phi(1/(2s) - eps s) - e^eps Phi(-1/(2s) - eps s)``
    (Balle & Wang 2018). Domain: eps >= 0, sigma > 0.
``delta_laplace(eps, b)``
    Exact privacy profile of Laplace(scale b), ``(1 - e^((eps - 1/b)/2))_+``.
    Domain: eps >= 0, b > 0.
``delta_randomized_response(eps_prime, eps)``
    Exact privacy profile of eps-randomized response at eps_prime,
    ``(e^eps - e^eps_prime)_+ / (1 + e^eps)``. Domain: eps_prime >= 0, eps >= 0.
``delta_sampled_gaussian(eps, q, sigma)``
    Exact privacy profile of one sampled-Gaussian step, ``sup_S (mu(S) - e^eps mu0(S))`` and the
    reverse pair, the larger (closed form). Domain: eps >= 0, 0 <= q <= 1, sigma > 0.
``delta_composed_pure(eps_prime, eps, n)``
    Optimal n-fold composition of eps-DP at eps_prime (Kairouz, Oh & Viswanath 2015, Thm 3.3):
    ``sum_l C(n,l) [e^((n-l) eps) - e^(eps_prime + l eps)]_+ / (1 + e^eps)^n``.
    Domain: eps_prime >= 0, eps >= 0, n an integer >= 1 (an integer expression).
``Phi(x)``
    Standard normal CDF. Domain: every real x.
``log(x)``, ``exp(x)``, ``sqrt(x)``, ``erfc(x)``, ``Min(...)``, ``Max(...)``, ``Abs(x)``
    Elementary functions. Domain: log needs x > 0, sqrt x >= 0, a negative power a non-zero
    base; the others every real. Constants: ``pi``, ``E``.

Domain: every free variable must be bounded below and above by the conditions, directly
(``0 < q < 1``) or through other bounded variables (``q < 1/(16*sigma)`` with ``sigma`` bounded:
a constant box is derived by interval propagation in ball arithmetic, to a fixed point). A
condition on a single variable that is linear in it with a constant coefficient becomes part of
the box (strict bounds honoured); every other condition stays a hypothesis of the claim (points
that violate it are not drawn). Unbounded or unknown names, syntax errors, unknown functions,
calls outside a function's domain and empty domains raise :class:`~dpproofs.InvalidArgument`
naming the culprit: never a vacuous "holds".

Verdicts (see :mod:`dpproofs.claims`): **proved** (ball arithmetic on the whole domain),
**holds** (no counterexample in the examples tried; the closest approach is reported),
**refuted** (a counterexample whose violation is certified in ball arithmetic *and* confirmed by
the mpmath reference, independently of the ball path, at twice the precision or more),
**undecided** (the numbers could not separate the sides, or the two evaluators disagree).

* A closest point where the sides cannot be separated at ``dps`` digits is re-evaluated with
  doubling precision (up to :data:`MAX_REFERENCE_DPS` digits while cheap, at least ``4 dps``): a
  violation found that way is certified like any other; an equality that survives is consistent
  with a non-strict relation (*holds*, the tie and its digits named in the evidence) but not with
  a strict one (*undecided*).
* A counterexample that mpmath cannot confirm (its fixed precision loses every digit at extreme
  values, e.g. the sampled Gaussian at q = 1e-38) is moved part of the way toward interior
  points of the domain; one confirmed by both evaluators replaces it, else the verdict is
  *undecided*.

Search evaluations use ball arithmetic, at the precision of ``dps`` digits and doubling while the
enclosures neither separate the two sides nor are tight to ``dps + 2`` digits (cancellations);
the values returned are then rigorous and 10-40x cheaper than mpmath quadrature. A point whose
finite enclosures stay unseparated within :data:`SEARCH_ESCALATION_SECONDS` is counted as
unevaluable (mpmath at fixed precision would lose the same digits); where ball arithmetic fails,
mpmath is used, accepted only when ``dps`` and ``2 dps`` digits agree. The number of examples is
scaled down by the measured cost of one evaluation so that a verification stays within
:data:`TIME_BUDGET` seconds.
"""

import collections
import dataclasses
import io
import keyword
import math
import random
import re
import time
import tokenize

import mpmath
import sympy
from flint import arb
from mpmath import mp
from sympy.parsing.sympy_parser import auto_number, convert_xor, parse_expr, rationalize

from dpproofs import _validate, search, vocabulary
from dpproofs.claims import Claim, Sides, Variable, Verdict, check, relation_of
from dpproofs.decide import Outcome, compare
from dpproofs.errors import DPProofsError, InvalidArgument, NumericalError

__all__ = [
    "verify",
    "Verdict",
    "parse_claim",
    "parse_condition",
    "build_claim",
    "Problem",
    "FUNCTION_DOMAINS",
    "TIME_BUDGET",
]

#: Seconds a verification may spend (search, certification, box proof); keeps each under 60 s.
TIME_BUDGET = 45.0
#: Share of the budget given to the counterexample search; the rest certifies and proves.
SEARCH_SHARE = 0.6
#: Share of the search budget the pinned corners of the box may take.
PINNED_SHARE = 0.1
#: Share of the search budget that may go to mpmath evaluations where ball arithmetic fails.
FALLBACK_SHARE = 0.2
#: Most of the budget given to the branch-and-bound proof of a claim that holds.
BOX_SHARE = 0.35
#: Most boxes of the branch-and-bound proof (in practice its time share bounds it first).
MAX_BOXES = 20_000
#: Longest claim or condition text accepted.
MAX_TEXT = 2000
#: Highest ball precision (bits) tried before falling back to mpmath for one side's value.
MAX_BALL_BITS = 8192
#: Seconds one search evaluation may spend raising the ball precision before using mpmath.
SEARCH_ESCALATION_SECONDS = 0.15
#: Ball precision (bits) of the first, cheap evaluation of a search point (see _sides).
SEARCH_BITS = 96
#: A search evaluation slower than this (seconds) whose low-precision ball has no correct digit is
#: not escalated (the point is reported unevaluable).
SLOW_SECONDS = 0.005
#: A coordinate below this fraction of its range (e.g. q = 5e-324) is *extreme*: once such a value
#: has been unevaluable at HOPELESS_REPEATS points and evaluable at none, the search skips it.
EXTREME = 1e-30
HOPELESS_REPEATS = 3
#: Seconds the ball evaluation of a candidate counterexample may spend raising its precision.
CERTIFY_ESCALATION_SECONDS = 5.0
#: Most digits the mpmath reference is given to confirm a counterexample found in ball arithmetic.
MAX_REFERENCE_DPS = 1600
#: Largest numeric exponent accepted in a literal power (``2**10**6`` would hang sympy).
MAX_LITERAL_EXPONENT = 10_000

_COMPARISONS = ("<=", ">=", "<", ">")
_RELATION_CLASSES = {"<=": sympy.Le, "<": sympy.Lt, ">=": sympy.Ge, ">": sympy.Gt}
_MIRROR = {"<=": ">=", "<": ">", ">=": "<=", ">": "<"}
_ALLOWED_OPS = {"+", "-", "*", "/", "**", "^", "(", ")", ","} | set(_COMPARISONS)

#: Functions a claim may call, by name (the vocabulary plus elementary functions).
_FUNCTIONS = dict(vocabulary.NAMESPACE)
_FUNCTIONS.update(
    log=sympy.log, exp=sympy.exp, sqrt=sympy.sqrt, erfc=sympy.erfc,
    Min=sympy.Min, Max=sympy.Max, Abs=sympy.Abs,
)
_CONSTANTS = {"pi": sympy.pi, "E": sympy.E}

_INTEGER = "integer"
#: Domain of each function: per argument, its name and conditions ``(relation, bound)``, where
#: ``(_INTEGER, None)`` asks for an integer-valued argument.
FUNCTION_DOMAINS = {
    "rdp_gaussian": (("alpha", ((">", 1),)), ("sigma", ((">", 0),))),
    "rdp_laplace": (("alpha", ((">", 1),)), ("b", ((">", 0),))),
    "rdp_randomized_response": (("alpha", ((">", 1),)), ("eps", ((">=", 0),))),
    "rdp_sampled_gaussian": (
        ("alpha", ((">", 1),)), ("q", ((">=", 0), ("<=", 1))), ("sigma", ((">", 0),)),
    ),
    "log_moment": (("lam", ((">", 0),)), ("q", ((">=", 0), ("<=", 1))), ("sigma", ((">", 0),))),
    "delta_gaussian": (("eps", ((">=", 0),)), ("sigma", ((">", 0),))),
    "delta_laplace": (("eps", ((">=", 0),)), ("b", ((">", 0),))),
    "delta_randomized_response": (("eps_prime", ((">=", 0),)), ("eps", ((">=", 0),))),
    "delta_sampled_gaussian": (
        ("eps", ((">=", 0),)), ("q", ((">=", 0), ("<=", 1))), ("sigma", ((">", 0),)),
    ),
    "delta_composed_pure": (
        ("eps_prime", ((">=", 0),)), ("eps", ((">=", 0),)), ("n", ((">=", 1), (_INTEGER, None))),
    ),
    "Phi": (("x", ()),),
    "log": (("x", ((">", 0),)),),
    "sqrt": (("x", ((">=", 0),)),),
}


def _bits(dps):
    return int(3.33 * dps) + 64


# --- parsing ------------------------------------------------------------------------------

_NUMBER = re.compile(r"^(\d[\d_]*\.?[\d_]*|\.\d[\d_]*)([eE][+-]?\d+)?$")
_IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def _tokens(text, what):
    """Python tokens of ``text``, after checking each against the whitelist of the claim grammar."""
    if not isinstance(text, str):
        raise InvalidArgument(f"{what}={text!r} must be a string")
    if len(text) > MAX_TEXT:
        raise InvalidArgument(f"{what} is longer than {MAX_TEXT} characters")
    stripped = text.strip()
    if not stripped:
        raise InvalidArgument(f"{what} is empty")
    if "\n" in stripped or "\r" in stripped:
        raise InvalidArgument(f"{what}={text!r} must be on one line")
    if stripped.count("(") != stripped.count(")"):
        raise InvalidArgument(f"{what}={text!r}: unbalanced parentheses")
    try:
        raw = list(tokenize.generate_tokens(io.StringIO(stripped).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError) as error:
        raise InvalidArgument(f"{what}={text!r}: syntax error ({error})") from None
    tokens = []
    for tok in raw:
        if tok.type in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER):
            continue
        if tok.type == tokenize.NUMBER:
            if not _NUMBER.match(tok.string):
                raise InvalidArgument(f"{what}={text!r}: {tok.string!r} is not a real decimal number")
        elif tok.type == tokenize.NAME:
            if keyword.iskeyword(tok.string) or not _IDENTIFIER.match(tok.string):
                hint = " (use e.g. 'lam')" if tok.string == "lambda" else ""
                raise InvalidArgument(f"{what}={text!r}: {tok.string!r} cannot be a name here{hint}")
        elif tok.type == tokenize.OP:
            if tok.string not in _ALLOWED_OPS:
                hint = "; write one relation with <, <=, > or >=" if tok.string in ("==", "!=", "=") else ""
                raise InvalidArgument(f"{what}={text!r}: operator {tok.string!r} is not allowed{hint}")
        else:
            raise InvalidArgument(f"{what}={text!r}: unexpected {tok.string!r}")
        tokens.append(tok)
    for tok, following in zip(tokens, tokens[1:] + [None]):
        called = following is not None and following.string == "("
        if tok.type == tokenize.NAME:
            if called and tok.string not in _FUNCTIONS:
                known = ", ".join(sorted(_FUNCTIONS))
                raise InvalidArgument(f"{what}={text!r}: unknown function {tok.string!r} (known: {known})")
            if not called and tok.string in _FUNCTIONS:
                raise InvalidArgument(f"{what}={text!r}: function {tok.string!r} must be called with arguments")
    return stripped, tokens


def _split(stripped, tokens, what):
    """Split at top-level comparison operators: ``[expr_text, op, expr_text, op, ...]``."""
    depth, pieces, start = 0, [], 0
    for tok in tokens:
        if tok.string == "(":
            depth += 1
        elif tok.string == ")":
            depth -= 1
            if depth < 0:
                raise InvalidArgument(f"{what}={stripped!r}: unbalanced parentheses")
        elif tok.string in _COMPARISONS:
            if depth != 0:
                raise InvalidArgument(f"{what}={stripped!r}: comparison {tok.string!r} inside parentheses")
            column = tok.start[1]
            pieces += [stripped[start:column], tok.string]
            start = tok.end[1]
    if depth != 0:
        raise InvalidArgument(f"{what}={stripped!r}: unbalanced parentheses")
    pieces.append(stripped[start:])
    for index in range(0, len(pieces), 2):
        if not pieces[index].strip():
            raise InvalidArgument(f"{what}={stripped!r}: a side of a comparison is empty")
    return pieces


def _local_dict(names, integers):
    local = dict(_FUNCTIONS)
    local.update(_CONSTANTS)
    for name in names:
        if name not in local:
            local[name] = (
                sympy.Symbol(name, integer=True) if name in integers else sympy.Symbol(name, real=True)
            )
    return local


_GLOBALS = {
    "Integer": sympy.Integer, "Float": sympy.Float, "Rational": sympy.Rational,
    "Add": sympy.Add, "Mul": sympy.Mul, "Pow": sympy.Pow, "__builtins__": {},
}
_TRANSFORMS = (auto_number, rationalize, convert_xor)


def _parse_expression(text, local, what):
    """Parse one side (no comparison) safely; validate the tree."""
    try:
        raw = parse_expr(text, local_dict=local, global_dict=dict(_GLOBALS), transformations=_TRANSFORMS,
                         evaluate=False)
        _check_literal_powers(raw, what)
        expr = parse_expr(text, local_dict=local, global_dict=dict(_GLOBALS), transformations=_TRANSFORMS)
    except InvalidArgument:
        raise
    except TypeError as error:
        raise InvalidArgument(f"{what}: {text.strip()!r}: wrong arguments ({error})") from None
    except Exception as error:  # SyntaxError, TokenError, sympy errors: all are bad input here
        raise InvalidArgument(f"{what}: cannot parse {text.strip()!r} ({type(error).__name__}: {error})") from None
    _check_tree(expr, text, what)
    return expr


def _check_literal_powers(expr, what):
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Pow) and not node.free_symbols:
            base, exponent = node.args
            try:
                size = abs(float(sympy.N(exponent, 15)))
            except (TypeError, ValueError, OverflowError):
                size = math.inf
            if size > MAX_LITERAL_EXPONENT and sympy.N(abs(base), 15) != 1:
                raise InvalidArgument(f"{what}: the literal power {node} is too large to evaluate")


def _check_tree(expr, text, what):
    boolean = (sympy.core.relational.Relational, sympy.logic.boolalg.BooleanFunction,
               sympy.logic.boolalg.BooleanAtom)
    if not isinstance(expr, sympy.Expr) or isinstance(expr, boolean):
        raise InvalidArgument(f"{what}: {text.strip()!r} is not a real-valued expression")
    for node in sympy.preorder_traversal(expr):
        if node in (sympy.zoo, sympy.nan, sympy.oo, -sympy.oo) or node is sympy.I:
            raise InvalidArgument(f"{what}: {text.strip()!r} is not finite and real (it evaluates to {node})")
        if node.is_Atom and not (node.is_Symbol or node.is_Number or node in (sympy.pi, sympy.E)):
            raise InvalidArgument(f"{what}: {text.strip()!r} contains {node}, which is not a real number")
    if not vocabulary.ball_supported(expr):
        raise InvalidArgument(f"{what}: {text.strip()!r} uses a function the evaluators do not know")


def _names(tokens):
    return {t.string for t in tokens if t.type == tokenize.NAME and t.string not in _FUNCTIONS
            and t.string not in _CONSTANTS}


def _parse_chain(text, what, integers):
    stripped, tokens = _tokens(text, what)
    pieces = _split(stripped, tokens, what)
    local = _local_dict(_names(tokens), integers)
    expressions = [_parse_expression(p, local, what) for p in pieces[0::2]]
    return stripped, list(zip(expressions, pieces[1::2], expressions[1:]))


def _relation(lhs, op, rhs):
    return _RELATION_CLASSES[op](lhs, rhs, evaluate=False)


def parse_claim(text, integers=()):
    """The sympy relation of a claim text: exactly one comparison."""
    stripped, links = _parse_chain(text, "claim", set(integers))
    if len(links) != 1:
        raise InvalidArgument(
            f"claim={stripped!r} must be exactly one relation (<=, <, >=, >), found {len(links)}; "
            "put conditions in 'where'"
        )
    return _relation(*links[0])


def parse_condition(text, integers=()):
    """The sympy relations of one condition text (a chain ``a < b <= c`` gives two)."""
    stripped, links = _parse_chain(text, "where", set(integers))
    if not links:
        raise InvalidArgument(f"where={stripped!r} must be a comparison such as '0 < q < 1'")
    return [_relation(*link) for link in links]


# --- the domain: bounds, propagation, box -------------------------------------------------


@dataclasses.dataclass
class _Interval:
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


def _float_inside(value, direction):
    """A float on the safe side of the exact real ``value``: ``(float, exact)``.

    ``direction='down'`` gives the largest float ``<= value``, ``'up'`` the smallest ``>= value``.
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
    except Exception:  # pragma: no cover - sympy oddities
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


def _enclose(expr, box, prec=128):
    """An arb enclosure of ``expr`` over the current box, or None."""
    if not expr.free_symbols:
        point = {}
    else:
        point = _ball_box(box, sorted(s.name for s in expr.free_symbols))
        if point is None:
            return None
    try:
        value = vocabulary.evaluate_ball(expr, point, prec)
    except (DPProofsError, ValueError, ZeroDivisionError, TypeError, ArithmeticError):
        return None
    if not value.is_finite():
        return None
    return value


def _float_up(ball_value):
    return math.nextafter(float(ball_value.upper()), math.inf)


def _float_down(ball_value):
    return math.nextafter(float(ball_value.lower()), -math.inf)


@dataclasses.dataclass
class Problem:
    """A parsed claim with its derived domain: the input of :func:`build_claim`."""

    text: str
    statement: sympy.Basic
    conditions: tuple
    variables: tuple
    hypotheses: tuple

    def describe(self):
        parts = [v.interval_text() for v in self.variables] + [sympy.sstr(h) for h in self.hypotheses]
        return ", ".join(parts)


def _domain(statement, conditions, integers):
    """Derive the box of every free variable and the conditions kept as hypotheses."""
    names = sorted({s.name for s in statement.free_symbols}
                   | {s.name for c in conditions for s in c.free_symbols})
    unknown_integers = sorted(set(integers) - set(names))
    if unknown_integers:
        raise InvalidArgument(f"integers: {unknown_integers} do not appear in the claim or its conditions")
    box = {name: _Interval() for name in names}
    hypotheses = []
    coupled = []  # (name, c1, c0, op): the condition c1*name + c0 op 0
    for condition in conditions:
        op = relation_of(condition)
        free = condition.free_symbols
        if not free:
            truth = compare(vocabulary.evaluate_ball(condition.lhs, {}, 256),
                            vocabulary.evaluate_ball(condition.rhs, {}, 256), op)
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
                positive = _enclose(c1, {}).lower() > 0
                this_op = op if positive else _MIRROR[op]
                strict = this_op in ("<", ">")
                interval = box[symbol.name]
                if this_op in ("<", "<="):
                    value, exact = _float_inside(bound, "down")
                    interval.tighten_high(value, strict and exact)
                else:
                    value, exact = _float_inside(bound, "up")
                    interval.tighten_low(value, strict and exact)
                absorbed = True
            else:
                coupled.append((symbol.name, c1, c0, op))
        if not absorbed:
            hypotheses.append(condition)
    _propagate(box, coupled)
    variables = []
    for name in names:
        interval = box[name]
        missing = [side for side, value in (("lower", interval.low), ("upper", interval.high))
                   if not math.isfinite(value)]
        if missing:
            raise InvalidArgument(
                f"variable {name!r} has no {' and no '.join(missing)} bound: add a condition such as "
                f"'0 < {name} < 1' (a bound through other bounded variables also counts, e.g. "
                f"'{name} < 1/(16*sigma)' with sigma bounded)"
            )
        integer = name in integers
        low, high = interval.low, interval.high
        low_open, high_open = interval.low_open, interval.high_open
        if integer:
            low = math.ceil(low) + (1 if low_open and float(low).is_integer() else 0)
            high = math.floor(high) - (1 if high_open and float(high).is_integer() else 0)
            low_open = high_open = False
            if low > high:
                raise InvalidArgument(f"the conditions leave no integer value for {name!r}: the domain is empty")
        if low > high or (low == high and (low_open or high_open)):
            raise InvalidArgument(
                f"the conditions leave no value for {name!r} "
                f"({_validate.interval_text(low, high, low_open, high_open)}): the domain is empty"
            )
        variables.append(Variable(name, low, high, integer=integer, low_open=low_open, high_open=high_open))
    return tuple(variables), tuple(hypotheses)


def _propagate(box, coupled, rounds=50):
    """Tighten the box with the coupled bounds ``c1 x + c0 op 0`` to a fixed point."""
    for _ in range(rounds):
        changed = False
        for name, c1, c0, op in coupled:
            sign = _enclose(c1, box)
            if sign is None or not (sign.lower() > 0 or sign.upper() < 0):
                continue
            positive = sign.lower() > 0
            this_op = op if positive else _MIRROR[op]
            bound = _enclose(-c0 / c1, box)
            if bound is None:
                continue
            interval = box[name]
            if this_op in ("<", "<="):
                changed |= interval.tighten_high(_float_up(bound), False)
            else:
                changed |= interval.tighten_low(_float_down(bound), False)
        if not changed:
            return


# --- function domains ---------------------------------------------------------------------


class _DomainViolation(Exception):
    """A call's argument is outside its function's domain at a point of the claim's domain.

    Deliberately not a ValueError nor a DPProofsError: the search treats those as unevaluable
    points and skips them, and a domain error must stop the verification instead.
    """


def _calls(expr):
    """Every call of a function with a stated domain in ``expr``: (name, node)."""
    found = []
    for node in sympy.preorder_traversal(expr):
        name = getattr(node.func, "__name__", None)
        if isinstance(node, sympy.Function) and name in FUNCTION_DOMAINS:
            found.append((name, node))
        elif isinstance(node, sympy.log):
            found.append(("log", node))
        elif isinstance(node, sympy.Pow) and node.exp == sympy.Rational(1, 2):
            found.append(("sqrt", node))
        elif isinstance(node, sympy.Pow) and node.exp.is_negative and node.base.free_symbols:
            found.append(("1/x", node))
    return found


def _argument_conditions(name, node):
    """``[(argument text, argument expr, conditions)]`` for one call."""
    if name == "sqrt":
        return [("x", node.base, ((">=", 0),))]
    if name == "1/x":
        return [("denominator", node.base, (("!=", 0),))]
    if name == "log":
        return [("x", node.args[0], ((">", 0),))]
    return [(arg_name, argument, conditions)
            for (arg_name, conditions), argument in zip(FUNCTION_DOMAINS[name], node.args)]


def _call_text(name, node):
    return sympy.sstr(node) if name != "1/x" else f"division by {sympy.sstr(node.base)}"


def _check_argument(value, conditions):
    """Outcome of the domain conditions for an arb ``value``."""
    worst = Outcome.HOLDS
    for relation, bound in conditions:
        if relation == _INTEGER:
            if value.is_exact() and value.is_integer():
                continue
            return Outcome.UNDECIDED if value.rad() > 0 else Outcome.VIOLATED
        if relation == "!=":
            outcome = Outcome.VIOLATED if (value.is_exact() and value.is_zero()) else (
                Outcome.HOLDS if not value.contains(0) else Outcome.UNDECIDED)
        else:
            outcome = compare(value, arb(bound), relation)
        if outcome is Outcome.VIOLATED:
            return outcome
        if outcome is Outcome.UNDECIDED:
            worst = outcome
    return worst


def _conditions_text(conditions):
    parts = []
    for relation, bound in conditions:
        parts.append("an integer" if relation == _INTEGER else f"{relation} {bound}")
    return " and ".join(parts)


def _integer_expression(expr, integer_names):
    return all(s.name in integer_names for s in expr.free_symbols) and expr.is_integer is True


def _outside_everywhere(interval, conditions):
    """Whether every value of a variable's interval breaks one of the (real) conditions."""
    for relation, bound in conditions:
        if relation == ">" and interval.high <= bound:
            return True
        if relation == ">=" and (interval.high < bound or (interval.high == bound and interval.high_open)):
            return True
        if relation == "<=" and (interval.low > bound or (interval.low == bound and interval.low_open)):
            return True
    return False


def _static_domain_check(expressions, variables, integer_names):
    """Errors found on the box alone: a call argument certainly out of its domain everywhere,
    or a non-integer expression where an integer is required. Returns the calls that need
    point checks (not certainly inside their domain over the box)."""
    box = {v.name: _Interval(v.low, v.high, v.low_open, v.high_open) for v in variables}
    pending = []
    for expr in expressions:
        for name, node in _calls(expr):
            for arg_name, argument, conditions in _argument_conditions(name, node):
                if any(rel == _INTEGER for rel, _ in conditions) and not _integer_expression(argument, integer_names):
                    raise InvalidArgument(
                        f"{_call_text(name, node)}: argument {arg_name}={sympy.sstr(argument)} must be an "
                        "integer (declare its variables as integers)"
                    )
                if argument.is_Symbol and _outside_everywhere(box[argument.name], conditions):
                    outcome = Outcome.VIOLATED
                else:
                    value = _enclose(argument, box)
                    if value is None:
                        pending.append((name, node))
                        break
                    outcome = _check_argument(value, conditions)
                if outcome is Outcome.VIOLATED:
                    raise InvalidArgument(
                        f"{_call_text(name, node)}: argument {arg_name}={sympy.sstr(argument)} is outside "
                        f"the domain of {name} ({arg_name} {_conditions_text(conditions)}) everywhere on "
                        f"the domain"
                    )
                if outcome is Outcome.UNDECIDED:
                    pending.append((name, node))
                    break
    return pending


def _point_domain_check(calls, point, prec=256):
    """Raise _DomainViolation when a call's argument is certainly out of its domain at ``point``;
    return False when some argument could not be decided (a ball point straddling a bound)."""
    decided = True
    for name, node in calls:
        for arg_name, argument, conditions in _argument_conditions(name, node):
            try:
                value = vocabulary.evaluate_ball(argument, point, prec)
            except (DPProofsError, ValueError, ZeroDivisionError, TypeError, ArithmeticError):
                decided = False
                continue
            outcome = _check_argument(value, conditions)
            if outcome is Outcome.VIOLATED:
                shown = {k: (v if not isinstance(v, arb) else str(v)) for k, v in point.items()}
                raise _DomainViolation(
                    f"{_call_text(name, node)}: argument {arg_name}={sympy.sstr(argument)} = {value.mid()} "
                    f"is outside the domain of {name} ({arg_name} {_conditions_text(conditions)}) at the "
                    f"point {shown} of the claim's domain; add a condition that excludes it"
                )
            if outcome is Outcome.UNDECIDED:
                decided = False
    return decided


# --- evaluation of the sides --------------------------------------------------------------


def _ball_to_mpf(value):
    mantissa, exponent = value.mid().man_exp()
    return mp.mpf((int(mantissa), int(exponent)))


def _tight(value, digits):
    radius = value.rad()
    return radius.is_zero() or radius < abs(value.mid()) * arb(10) ** (-digits)


def _ball_pair(statement, point, bits, digits, budget):
    """Arb enclosures of both sides at ``point``: ``(lhs, rhs, state)``.

    ``state`` is ``"tight"`` (both relative radii below ``10^-digits``), ``"separated"`` (the
    balls already decide the relation), ``"loose"`` (neither, after doubling the precision while
    an evaluation stays within ``budget`` seconds and ``MAX_BALL_BITS``: cancellations such as
    ``rdp_randomized_response`` at eps = 1e-300 need thousands of bits) or ``"failed"`` (no finite
    enclosure).
    """
    relation = relation_of(statement)
    started = time.perf_counter()
    best = (None, None, "failed")
    while bits <= MAX_BALL_BITS:
        before = time.perf_counter()
        try:
            left = vocabulary.evaluate_ball(statement.lhs, point, bits)
            right = vocabulary.evaluate_ball(statement.rhs, point, bits)
        except vocabulary.UnsupportedExpression:
            break
        except (DPProofsError, ValueError, ZeroDivisionError, ArithmeticError):
            # e.g. a branch of a closed form not separated at this precision: more bits may help
            left = right = None
        if left is not None and left.is_finite() and right.is_finite():
            if _tight(left, digits) and _tight(right, digits):
                return left, right, "tight"
            if compare(left, right, relation) is not Outcome.UNDECIDED:
                return left, right, "separated"
            best = (left, right, "loose")
        now = time.perf_counter()
        if now - started + 3 * (now - before) > budget:
            break
        bits *= 2
    return best


def _exact_point(point):
    return all(not isinstance(v, arb) or v.rad().is_zero() for v in point.values())


def _mp_pair(statement, point, dps):
    """Both sides by the mpmath evaluator, accepted only when ``dps`` and ``2 dps`` digits agree
    to ``dps`` digits: a composite expression (``log(1 + q*(exp(eps) - 1))`` at q = 1e-300) can
    lose every digit at fixed precision, and mpmath does not say so."""
    first = [vocabulary.evaluate_mp(side, point, dps) for side in (statement.lhs, statement.rhs)]
    second = [vocabulary.evaluate_mp(side, point, 2 * dps) for side in (statement.lhs, statement.rhs)]
    for a, b in zip(first, second):
        if compare(a, b, "==", dps=dps) is not Outcome.HOLDS:
            raise NumericalError(
                f"the mpmath values at {dps} and {2 * dps} digits disagree ({mpmath.nstr(a, 10)} against "
                f"{mpmath.nstr(b, 10)}): digits are lost to cancellation"
            )
    return tuple(second)


class _UserSides(Sides):
    """Sides with search settings: ``searching`` allows the low-precision shortcut, and
    ``fallback_seconds`` is what the search may still spend in mpmath where ball arithmetic
    fails (the mpmath integrals cost seconds per point at extreme parameters)."""

    def __init__(self, precise, ball):
        super().__init__(precise=precise, ball=ball)
        object.__setattr__(self, "searching", False)
        object.__setattr__(self, "fallback_seconds", math.inf)
        object.__setattr__(self, "unevaluable", collections.Counter())
        object.__setattr__(self, "evaluable", collections.Counter())


def _sides(statement, calls, variables):
    """Evaluation of a user claim: ball arithmetic where it decides, mpmath otherwise.

    ``precise(point, dps)`` returns mpf values that decide the relation as the exact values do:
    the midpoints of balls that are tight to ``dps + 2`` digits (two digits beyond the radius
    decide.compare assumes for ``dps`` digits) or that are already separated (then the midpoints
    are ordered as the exact values); else the mpmath evaluator's values.
    """

    def extreme(point):
        """Coordinates at extreme values (below 1e-30 of their range, e.g. q = 5e-324)."""
        return [(v.name, point[v.name]) for v in variables
                if not v.integer and point[v.name] != 0
                and abs(point[v.name]) < EXTREME * max(abs(v.low), abs(v.high))]

    def precise(point, dps):
        _point_domain_check(calls, point)
        if not sides.searching:  # certification and tie escalation: worth more bits
            return value(point, dps, CERTIFY_ESCALATION_SECONDS)
        keys = extreme(point)
        for key in keys:
            if sides.unevaluable[key] >= HOPELESS_REPEATS and not sides.evaluable[key]:
                raise NumericalError(f"{key[0]}={key[1]!r} was unevaluable at {sides.unevaluable[key]} points")
        try:
            result = search_value(point, dps)
        except NumericalError:
            for key in keys:
                sides.unevaluable[key] += 1
            raise
        for key in keys:
            sides.evaluable[key] += 1
        return result

    def search_value(point, dps):
        # a cheap low-precision evaluation decides most points: balls that already separate the
        # sides order their midpoints as the exact values (the margins that steer the search are
        # then good to about 25 digits)
        before = time.perf_counter()
        budget = SEARCH_ESCALATION_SECONDS
        try:
            left = vocabulary.evaluate_ball(statement.lhs, point, SEARCH_BITS)
            right = vocabulary.evaluate_ball(statement.rhs, point, SEARCH_BITS)
        except (DPProofsError, ValueError, ZeroDivisionError, ArithmeticError):
            pass
        else:
            if (left.is_finite() and right.is_finite()
                    and compare(left, right, relation_of(statement)) is not Outcome.UNDECIDED):
                with mp.workprec(SEARCH_BITS + 64):
                    return _ball_to_mpf(left), _ball_to_mpf(right)
            if (time.perf_counter() - before > SLOW_SECONDS
                    and any(not side.is_exact() and side.rad() >= abs(side.mid()) for side in (left, right))):
                # no digit at all, and slow (typically a quantity of order q^2 at q = 1e-300, which
                # the B integral encloses to about 1e-350 at best): one try at full precision only
                budget = 0
        return value(point, dps, budget)

    def value(point, dps, budget):
        left, right, state = _ball_pair(statement, point, _bits(dps), dps + 2, budget)
        if state in ("tight", "separated"):
            with mp.workprec(int(3.33 * dps) + 128):
                return _ball_to_mpf(left), _ball_to_mpf(right)
        if state == "loose":
            # finite enclosures that cannot be sharpened enough (e.g. log_moment at q = 1e-300,
            # a value near 1e-600 that the B integral encloses only to 1e-350): mpmath at dps
            # digits would lose the same digits, so the point is reported unevaluable
            raise NumericalError(f"the sides are not separated within {budget} s: lhs {left}, rhs {right}")
        if sides.searching and sides.fallback_seconds <= 0:
            raise NumericalError("no ball enclosure here and the search's mpmath budget is spent")
        before = time.perf_counter()
        try:
            return _mp_pair(statement, point, dps)
        finally:
            if sides.searching:
                object.__setattr__(sides, "fallback_seconds",
                                   sides.fallback_seconds - (time.perf_counter() - before))

    def ball(point, prec):
        # On a box, an argument enclosure that merely straddles a domain bound (often only by
        # the rounding of a mid-radius ball, e.g. [0, 1e-16] for eps >= 0) is evaluated anyway:
        # the ball formulas enclose their own values over the whole box, which contains the
        # true values on the valid part, so a HOLDS stays sound and anything else is undecided.
        try:
            _point_domain_check(calls, point)
        except _DomainViolation:  # a box the hypotheses may exclude: not an error of the claim
            raise NumericalError("a call is outside its domain on this whole box") from None
        if _exact_point(point):  # certifying a point: sharpen the sides through cancellations
            left, right, state = _ball_pair(statement, point, prec, int((prec - 64) / 3.33),
                                            CERTIFY_ESCALATION_SECONDS)
            if state != "failed":
                return left, right
        return (vocabulary.evaluate_ball(statement.lhs, point, prec),
                vocabulary.evaluate_ball(statement.rhs, point, prec))

    sides = _UserSides(precise=precise, ball=ball)
    return sides


# --- building and checking ----------------------------------------------------------------


def _problem(claim, where, integers):
    if isinstance(where, str):
        where = (where,)
    if isinstance(integers, str):
        integers = (integers,)
    integers = tuple(integers)
    for name in integers:
        if not isinstance(name, str) or not _IDENTIFIER.match(name) or name in _FUNCTIONS or name in _CONSTANTS:
            raise InvalidArgument(f"integers: {name!r} is not a variable name")
    statement = parse_claim(claim, integers)
    conditions = []
    for text in where:
        conditions.extend(parse_condition(text, integers))
    variables, hypotheses = _domain(statement, conditions, set(integers))
    return Problem(claim.strip(), statement, tuple(conditions), variables, hypotheses)


def build_claim(claim, where=(), *, integers=()):
    """``(Claim, Problem, calls)`` for a claim text: parsed, domain derived, domains checked."""
    problem = _problem(claim, where, integers)
    integer_names = {v.name for v in problem.variables if v.integer}
    expressions = [problem.statement.lhs, problem.statement.rhs]
    pending = _static_domain_check(expressions, problem.variables, integer_names)
    _static_domain_check([h.lhs for h in problem.hypotheses] + [h.rhs for h in problem.hypotheses],
                         problem.variables, integer_names)
    all_calls = [c for e in expressions for c in _calls(e)]
    result = Claim(
        id="verify",
        source="user claim",
        statement=problem.statement,
        variables=problem.variables,
        hypotheses=problem.hypotheses,
        title=problem.text,
        sides=_sides(problem.statement, all_calls, problem.variables),
    )
    return result, problem, pending


def _probe_points(claim, rng, count):
    """Corners, bounds and random points of the box (open bounds stepped inside)."""

    def inside(v, which):
        if v.integer:
            return int(v.low) if which == "low" else int(v.high)
        if which == "low":
            return math.nextafter(float(v.low), math.inf) if v.low_open else float(v.low)
        return math.nextafter(float(v.high), -math.inf) if v.high_open else float(v.high)

    def draw(v):
        if v.integer:
            return rng.randint(int(v.low), int(v.high))
        low, high = inside(v, "low"), inside(v, "high")
        if v.logarithmic and low > 0:
            return min(max(math.exp(rng.uniform(math.log(low), math.log(high))), low), high)
        return rng.uniform(low, high)

    variables = claim.variables
    corners, interior, mixed = [], [], []
    if len(variables) <= 6:
        for mask in range(2 ** len(variables)):
            corners.append({v.name: inside(v, "high" if mask >> i & 1 else "low") for i, v in enumerate(variables)})
    for index in range(count):
        point = {v.name: draw(v) for v in variables}
        if index < count // 4:
            interior.append(point)
            continue
        for v in variables:
            if rng.random() < 0.25:
                point[v.name] = inside(v, rng.choice(("low", "high")))
        mixed.append(point)
    return corners, interior, mixed


def _valid(claim, point, dps=30):
    try:
        return claim.hypotheses_at(point, dps) is Outcome.HOLDS
    except (DPProofsError, ValueError, ZeroDivisionError, ArithmeticError):
        return False


def _preflight(claim, pending, seed, dps, deadline_seconds=8.0):
    """Domain-check the pending calls at probe points of the domain and time an evaluation.

    Returns ``(corners, interior, seconds)``: the corners of the box and the random interior
    points that satisfy the hypotheses, and the mean seconds of one evaluation of the claim.
    """
    rng = random.Random(seed)
    started = time.perf_counter()
    groups = _probe_points(claim, rng, 200)
    valid = ([], [], [])
    for group, kept in zip(groups, valid):
        for point in group:
            if time.perf_counter() - started > deadline_seconds:
                break
            if not _valid(claim, point):
                continue
            kept.append(point)
            if pending:
                try:
                    _point_domain_check(pending, point)
                except _DomainViolation as error:
                    raise InvalidArgument(str(error)) from None
    corners, interior, mixed = valid
    if not any(valid) and claim.variables:
        raise InvalidArgument(
            "no point tried satisfies the conditions " + ", ".join(sympy.sstr(h) for h in claim.hypotheses)
            + " on the box " + ", ".join(v.interval_text() for v in claim.variables)
            + ": the domain looks empty"
        )
    timings = []
    for point in ((interior + mixed + corners)[:3] if claim.variables else [{}]):
        before = time.perf_counter()
        try:
            claim.evaluate(point, dps)
        except _DomainViolation as error:
            raise InvalidArgument(str(error)) from None
        except (DPProofsError, ValueError, ZeroDivisionError, ArithmeticError):
            pass
        timings.append(time.perf_counter() - before)
    return corners, interior or mixed or corners, max(sum(timings) / len(timings), 1e-4)


def _mp_violated(claim, point, dps):
    """The mpmath reference (not the ball path) at ``dps`` digits: the Outcome at ``point``."""
    lhs = vocabulary.evaluate_mp(claim.lhs, point, dps)
    rhs = vocabulary.evaluate_mp(claim.rhs, point, dps)
    return compare(lhs, rhs, claim.relation, dps=dps), lhs, rhs


def _point_of(counterexample, claim):
    return {v.name: counterexample[v.name] for v in claim.variables}


def _reference(claim, point, dps):
    """The mpmath reference's verdict at ``point``: ``(outcome, note)``.

    The reference is trusted only where it is consistent with itself: evaluated at ``2 dps``
    digits and again at twice that, both sides must agree to ``2 dps`` digits and both
    evaluations must see the violation (at extreme values, e.g. the sampled Gaussian at
    q = 1e-110, its fixed precision returns 1e-146 for a value of 1.7e-220). The digits keep
    doubling, up to MAX_REFERENCE_DPS, while one evaluation stays under a second.
    """
    digits, previous, note = 2 * dps, None, ""
    while digits <= max(MAX_REFERENCE_DPS, 4 * dps):
        before = time.perf_counter()
        try:
            outcome, lhs, rhs = _mp_violated(claim, point, digits)
        except (DPProofsError, ValueError, ZeroDivisionError, ArithmeticError) as error:
            return None, f"mpmath re-evaluation failed at {digits} digits: {error}"
        note = f"mpmath at {digits} digits: lhs={mpmath.nstr(lhs, 20)}, rhs={mpmath.nstr(rhs, 20)}"
        if previous is not None:
            p_digits, p_outcome, p_lhs, p_rhs = previous
            consistent = all(compare(a, b, "==", dps=p_digits) is Outcome.HOLDS
                             for a, b in ((p_lhs, lhs), (p_rhs, rhs)))
            if consistent and outcome is Outcome.VIOLATED and p_outcome is Outcome.VIOLATED:
                return Outcome.VIOLATED, f"{note}, agreeing with {p_digits} digits"
            if consistent:
                return outcome, f"{note}, agreeing with {p_digits} digits"
        previous = (digits, outcome, lhs, rhs)
        if time.perf_counter() - before > 1 and digits >= 4 * dps:
            break
        digits *= 2
    return None, f"{note}; not consistent with fewer digits: mpmath cannot be trusted at this point"


def _toward(claim, point, target, t):
    """The point ``(1 - t) point + t target`` (integers rounded), or None if it leaves the domain."""
    moved = {}
    for v in claim.variables:
        x = (1 - t) * point[v.name] + t * target[v.name]
        moved[v.name] = int(round(x)) if v.integer else x
    return moved if _valid(claim, moved) else None


#: Fractions of the way to an interior point tried when the reference cannot confirm a
#: counterexample (typically at extreme values such as q = 1e-300, where mpmath loses digits).
NUDGES = (1e-9, 1e-6, 1e-3, 1e-2, 0.1, 0.3)


def _settle(claim, point, dps, interior=(), deadline=None):
    """A counterexample confirmed by ball arithmetic *and* by the mpmath reference.

    ``point`` is tried first (ball certification at ``dps``, then ``2 dps`` digits); if it cannot
    be confirmed (typically at extreme values such as q = 1e-300, where mpmath's fixed precision
    loses every digit), points moved part of the way toward interior points of the domain
    (:data:`NUDGES`) are tried. Returns ``(counterexample, evidence)``, counterexample None when
    nothing could be confirmed.
    """
    candidates = [point] + [
        moved for target in interior[:2] for t in NUDGES
        if (moved := _toward(claim, point, target, t)) is not None
    ]
    first_note = None
    for candidate in candidates:
        if deadline is not None and time.perf_counter() > deadline and candidate is not point:
            break
        if candidate is not point:
            try:
                lhs, rhs = claim.evaluate(candidate, dps)
            except (DPProofsError, ValueError, ZeroDivisionError, ArithmeticError):
                continue
            if compare(lhs, rhs, claim.relation, dps=dps) is not Outcome.VIOLATED:
                continue
        for digits in (dps, 2 * dps):
            certified, details = search.certify_point(claim, candidate, digits)
            if certified:
                break
        if not certified:
            first_note = first_note or f"at {search.format_point(candidate)}: {details.get('note')}"
            continue
        outcome, note = _reference(claim, candidate, dps)
        if outcome is Outcome.VIOLATED:
            evidence = (f"counterexample certified in ball arithmetic at {2 * digits} digits and "
                        f"confirmed by the mpmath reference ({note})")
            if first_note:
                evidence += f"; an earlier candidate was not confirmed ({first_note})"
            return {**search.format_point(candidate), **details, "reference": note}, evidence
        first_note = first_note or (f"at {search.format_point(candidate)}: ball arithmetic certifies a "
                                    f"violation but the mpmath reference does not ({note})")
    return None, first_note or "no candidate could be certified"


def _escalate(claim, verdict, dps):
    """Re-examine a closest point that is a near-tie at ``dps`` digits with doubling precision.

    Up to :data:`MAX_REFERENCE_DPS` digits while one evaluation stays under a second (at least
    ``4 dps``). A violation that appears is certified like any other; a tie that survives is
    consistent with a non-strict relation (the evidence names the point and the digits) and not
    with a strict one (undecided).
    """
    closest = verdict.closest
    if not closest:
        return verdict
    point = closest["point"]
    try:
        lhs, rhs = claim.evaluate(point, dps)
    except (DPProofsError, ValueError, ZeroDivisionError, ArithmeticError, _DomainViolation):
        return verdict
    if compare(lhs, rhs, claim.relation, dps=dps) is not Outcome.UNDECIDED:
        return verdict
    digits, reached = 2 * dps, dps
    while digits <= max(MAX_REFERENCE_DPS, 4 * dps):
        before = time.perf_counter()
        try:
            lhs, rhs = claim.evaluate(point, digits)
        except (DPProofsError, ValueError, ZeroDivisionError, ArithmeticError):
            break
        outcome = compare(lhs, rhs, claim.relation, dps=digits)
        reached = digits
        if outcome is Outcome.HOLDS:
            verdict.evidence += f"; the closest point is separated (holds) at {digits} digits"
            return verdict
        if outcome is Outcome.VIOLATED:
            counterexample, evidence = _settle(claim, point, digits)
            if counterexample is not None:
                verdict.status, verdict.certified = "refuted", True
                verdict.counterexample = counterexample
                verdict.evidence = f"a near-tie at {dps} digits is a violation at {digits} digits; {evidence}"
                return verdict
            verdict.status, verdict.certified = "undecided", False
            verdict.counterexample = search.format_point(point)
            verdict.evidence = f"violated at {digits} digits at the closest point, not confirmed: {evidence}"
            return verdict
        if digits >= 4 * dps and time.perf_counter() - before > 1:
            break
        digits *= 2
    if claim.relation in ("<", ">"):
        verdict.status, verdict.certified = "undecided", False
        verdict.evidence = (f"the two sides are equal to {reached} digits at {point}: the strict relation "
                            "cannot be confirmed there")
    else:
        verdict.evidence += (f"; the sides are equal to {reached} digits at {point}: consistent with "
                             f"the non-strict relation (a violation below 1e-{reached} relative cannot "
                             "be excluded there)")
    return verdict


def _refresh_closest(claim, verdict, dps):
    """Recompute the closest point's sides at the full ``dps`` digits (the search may have used
    the low-precision shortcut, whose values are right to about 25 digits)."""
    if not verdict.closest:
        return
    try:
        lhs, rhs = claim.evaluate(verdict.closest["point"], dps)
    except (DPProofsError, ValueError, ZeroDivisionError, ArithmeticError, _DomainViolation):
        return
    verdict.closest["lhs"], verdict.closest["rhs"] = mpmath.nstr(lhs, 17), mpmath.nstr(rhs, 17)


def verify(claim, where=(), *, integers=(), samples=500, seed=0, dps=50, time_budget=TIME_BUDGET):
    """Check the inequality ``claim`` on the domain given by ``where``: a :class:`Verdict`.

    See the module docstring for the syntax, the vocabulary and the verdicts. Raises
    :class:`~dpproofs.InvalidArgument` for a malformed claim or domain. ``samples`` is the number
    of search draws for a cheap claim (fewer when one evaluation is slow, to stay within
    ``time_budget`` seconds).
    """
    samples = _validate.integer("samples", samples, 1, 10**7)
    seed = _validate.integer("seed", seed, 0, 2**32 - 1)
    dps = _validate.integer("dps", dps, 20, 1000)
    time_budget = _validate.real("time_budget", time_budget, 0, 3600, low_open=True)
    started = time.perf_counter()
    user_claim, problem, pending = build_claim(claim, where, integers=integers)
    corners, interior, seconds_per_eval = _preflight(user_claim, pending, seed, dps)
    search_budget = time_budget * SEARCH_SHARE
    # each draw costs about one evaluation plus the refinement's half share
    affordable = search_budget / (1.5 * seconds_per_eval + 2e-3)
    draws = samples if not user_claim.variables else max(1, min(samples, int(affordable)))
    # the corners of the box are pinned when they are cheap to evaluate (an expensive claim
    # still draws them through the strategy, which takes each bound about one time in four)
    affordable_corners = int(PINNED_SHARE * search_budget / seconds_per_eval)
    pinned = tuple(corners[:affordable_corners]) if user_claim.variables else ({},)
    searched = dataclasses.replace(user_claim, pinned=pinned, cost=draws / samples)
    try:
        object.__setattr__(searched.sides, "searching", True)
        object.__setattr__(searched.sides, "fallback_seconds", FALLBACK_SHARE * search_budget)
        try:
            verdict = check(searched, examples=samples if user_claim.variables else 1, seed=seed, dps=dps,
                            time_budget=search_budget)
        finally:
            object.__setattr__(searched.sides, "searching", False)
        _refresh_closest(searched, verdict, dps)
        if verdict.status in ("refuted", "undecided") and verdict.counterexample:
            found = verdict.counterexample
            point = _point_of(found, searched)
            counterexample, evidence = _settle(searched, point, dps, interior,
                                               deadline=started + time_budget)
            if counterexample is not None:
                verdict.status, verdict.certified = "refuted", True
                verdict.counterexample = counterexample
                verdict.evidence = f"{evidence}; found after {verdict.examples} examples"
            else:
                verdict.status, verdict.certified = "undecided", False
                verdict.evidence = f"a violation found at {dps} digits could not be confirmed: {evidence}"
        elif verdict.status == "holds":
            verdict = _escalate(searched, verdict, dps)
        if verdict.status == "holds" and verdict.examples == 0:
            verdict.status = "undecided"
        if verdict.status == "holds":
            remaining = min(time_budget - (time.perf_counter() - started), BOX_SHARE * time_budget)
            if remaining > 0.5:
                proved, boxes, note = search.certify_box(searched, deadline=time.perf_counter() + remaining,
                                                         max_boxes=MAX_BOXES)
                verdict.boxes = boxes
                if proved:
                    verdict.status, verdict.certified = "proved", True
                    verdict.evidence = (f"ball arithmetic on the whole domain ({boxes} boxes); "
                                        + verdict.evidence)
                else:
                    verdict.evidence += f"; not proved on the whole domain ({note})"
    except _DomainViolation as error:
        raise InvalidArgument(str(error)) from None
    verdict.claim_id = problem.text
    verdict.seconds = round(time.perf_counter() - started, 3)
    return verdict
