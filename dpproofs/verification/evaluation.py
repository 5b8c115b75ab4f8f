"""Evaluation of a user claim: function-domain checks and adaptive evaluation of the two sides.

* Function domains (:data:`FUNCTION_DOMAINS`): a call whose argument is certainly outside its
  function's domain everywhere on the box is an error at once (:func:`static_domain_check`); the
  calls not certainly inside it are checked at every point evaluated (:func:`point_domain_check`,
  raising :class:`DomainViolation`).
* :class:`UserEvaluation`: the sides in ball arithmetic where it decides, the mpmath evaluator
  otherwise (see the docstring of :mod:`dpproofs.verification` for the policy), with the state of
  one search kept on this plain object (never on the frozen :class:`~dpproofs.checker.claims.Sides`).
"""

import collections
import collections.abc
import math

import mpmath
import sympy
from flint import arb
from mpmath import mp

from dpproofs.checker import precision
from dpproofs.checker import arithmetic
from dpproofs.checker import vocabulary
from dpproofs.checker.claims import Sides, relation_of
from dpproofs.checker.decide import Outcome, compare
from dpproofs.errors import BOX_ERRORS, POINT_ERRORS, InvalidArgument, NumericalError, reraise_internal
from dpproofs.verification import facts
from dpproofs.verification.domain import Interval, enclose

__all__ = [
    "FUNCTION_DOMAINS",
    "DomainViolation",
    "UserEvaluation",
    "calls",
    "static_domain_check",
    "point_domain_check",
]

#: Highest ball precision (bits) one search evaluation tries before using mpmath (work, not
#: seconds: the same on every machine).
SEARCH_MAX_BITS = 2048
#: Ball precision (bits) of the first, cheap evaluation of a search point (see UserEvaluation).
SEARCH_BITS = 96
#: A coordinate below this fraction of its range (e.g. q = 5e-324) is *extreme*: once such a value
#: has been unevaluable at HOPELESS_REPEATS points and evaluable at none, the search skips it.
EXTREME = 1e-30
HOPELESS_REPEATS = 3
#: Highest ball precision (bits) the evaluation of a candidate counterexample tries.
CERTIFY_MAX_BITS = precision.MAX_BALL_BITS
#: Guard bits of the mpf midpoints taken from balls (beyond the digits asked for).
MIDPOINT_GUARD_BITS = 128

_INTEGER = "integer"
#: Domains of the elementary functions (sympy's) that a claim may call.
ELEMENTARY_DOMAINS = {
    "Phi": (("x", ()),),
    "log": (("x", ((">", 0),)),),
    "sqrt": (("x", ((">=", 0),)),),
    "power": (("base", ((">=", 0),)),),  # x**y with y not an integer: x >= 0
}


def _function_domains():
    """Per function: its arguments' names and conditions ``(relation, bound)``, where
    ``(_INTEGER, None)`` asks for an integer-valued argument. The vocabulary's own domains
    (:data:`dpproofs.checker.vocabulary.FUNCTIONS`, stated once there, content packages' quantities
    included), numeric arguments only, and the elementary functions'."""
    found = {}
    for name, binding in vocabulary.FUNCTIONS.items():
        structured = any(isinstance(conditions, type) or any(r == vocabulary.TYPE for r, _ in conditions)
                         for _, conditions in binding.domain)
        if not binding.domain or structured:
            continue  # no stated domain, or a structured argument (checked by the vocabulary itself)
        found[name] = tuple(
            (argument, tuple(conditions) + (((_INTEGER, None),) if position in binding.integer_args else ()))
            for position, (argument, conditions) in enumerate(binding.domain)
        )
    found.update(ELEMENTARY_DOMAINS)
    return found


class _FunctionDomains(collections.abc.Mapping):
    """:func:`_function_domains` of the vocabulary as it is when read (content packages register
    quantities when imported), recomputed when a registration was added."""

    def __init__(self):
        self._names, self._table = None, {}

    def _current(self):
        vocabulary.load_content()
        names = tuple(vocabulary.FUNCTIONS)
        if names != self._names:
            self._table, self._names = _function_domains(), names
        return self._table

    def __getitem__(self, name):
        return self._current()[name]

    def __iter__(self):
        return iter(self._current())

    def __len__(self):
        return len(self._current())

    def __repr__(self):
        return repr(self._current())


#: Domain of each function a claim may call (see :func:`_function_domains`).
FUNCTION_DOMAINS = _FunctionDomains()


class DomainViolation(Exception):
    """A call's argument is outside its function's domain at a point of the claim's domain.

    Deliberately not a ValueError nor a DPProofsError: the search treats those as unevaluable
    points and skips them, and a domain error must stop the verification instead.
    """


def calls(expr):
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
        elif (isinstance(node, sympy.Pow) and node.base.free_symbols and not node.exp.free_symbols
              and not node.exp.is_integer):
            found.append(("power", node))  # a real power of a negative base is not real
        elif isinstance(node, sympy.Pow) and node.base.free_symbols and node.exp.free_symbols:
            found.append(("power", node))
        elif isinstance(node, sympy.Pow) and node.exp.is_negative and node.base.free_symbols:
            found.append(("1/x", node))
    return found


def _argument_conditions(name, node):
    """``[(argument text, argument expr, conditions)]`` for one call."""
    if name == "sqrt":
        return [("x", node.base, ((">=", 0),))]
    if name == "power":
        return [("base", node.base, ((">=", 0),))]
    if name == "1/x":
        return [("denominator", node.base, (("!=", 0),))]
    if name == "log":
        if len(node.args) == 2:  # log(x, b) = log(x) / log(b)
            return [("x", node.args[0], ((">", 0),)), ("base", node.args[1], ((">", 0), ("!=", 1)))]
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
            outcome = Outcome.VIOLATED if (value.is_exact() and value == arb(bound)) else (
                Outcome.HOLDS if not value.contains(arb(bound)) else Outcome.UNDECIDED)
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


def static_domain_check(expressions, variables, integer_names):
    """Errors found on the box alone: a call argument certainly out of its domain everywhere,
    or a non-integer expression where an integer is required. Returns the calls that need
    point checks (not certainly inside their domain over the box)."""
    box = {v.name: Interval(v.low, v.high, v.low_open, v.high_open) for v in variables}
    pending = []
    for expr in expressions:
        for name, node in calls(expr):
            for arg_name, argument, conditions in _argument_conditions(name, node):
                if any(rel == _INTEGER for rel, _ in conditions) and not _integer_expression(argument, integer_names):
                    raise InvalidArgument(
                        f"{_call_text(name, node)}: argument {arg_name}={sympy.sstr(argument)} must be an "
                        "integer (declare its variables as integers)"
                    )
                if argument.is_Symbol and _outside_everywhere(box[argument.name], conditions):
                    outcome = Outcome.VIOLATED
                else:
                    value = enclose(argument, box)
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


def point_domain_check(calls, point, prec=256):
    """Raise DomainViolation when a call's argument is certainly out of its domain at ``point``;
    return False when some argument could not be decided (a ball point straddling a bound)."""
    decided = True
    for name, node in calls:
        for arg_name, argument, conditions in _argument_conditions(name, node):
            try:
                value = arithmetic.evaluate_ball(argument, point, prec)
            except BOX_ERRORS as error:
                reraise_internal(error)
                decided = False
                continue
            outcome = _check_argument(value, conditions)
            if outcome is Outcome.VIOLATED:
                shown = {k: (v if not isinstance(v, arb) else str(v)) for k, v in point.items()}
                raise DomainViolation(
                    f"{_call_text(name, node)}: argument {arg_name}={sympy.sstr(argument)} = {value.mid()} "
                    f"is outside the domain of {name} ({arg_name} {_conditions_text(conditions)}) at the "
                    f"point {shown} of the claim's domain; add a condition that excludes it"
                )
            if outcome is Outcome.UNDECIDED:
                decided = False
    return decided


def _ball_to_mpf(value):
    mantissa, exponent = value.mid().man_exp()
    return mp.mpf((int(mantissa), int(exponent)))


def _tight(value, digits):
    radius = value.rad()
    return radius.is_zero() or radius < abs(value.mid()) * arb(10) ** (-digits)


def _ball_pair(statement, point, bits, digits, ceiling):
    """Arb enclosures of both sides at ``point``: ``(lhs, rhs, state)``.

    ``state`` is ``"tight"`` (both relative radii below ``10^-digits``), ``"separated"`` (the
    balls already decide the relation), ``"loose"`` (neither, after doubling the precision up to
    ``ceiling`` bits: cancellations such as ``rdp_randomized_response`` at eps = 1e-300 need
    thousands of bits) or ``"failed"`` (no finite enclosure).
    """
    relation = relation_of(statement)
    best = (None, None, "failed")
    for bits in precision.doubling(bits, max(bits, ceiling)):
        try:
            left = arithmetic.evaluate_ball(statement.lhs, point, bits)
            right = arithmetic.evaluate_ball(statement.rhs, point, bits)
        except vocabulary.UnsupportedExpression:
            break
        except POINT_ERRORS as error:
            reraise_internal(error)
            # e.g. a branch of a closed form not separated at this precision: more bits may help
            left = right = None
        if left is not None and left.is_finite() and right.is_finite():
            if _tight(left, digits) and _tight(right, digits):
                return left, right, "tight"
            if compare(left, right, relation) is not Outcome.UNDECIDED:
                return left, right, "separated"
            best = (left, right, "loose")
    return best


def _exact_point(point):
    return all(not isinstance(v, arb) or v.rad().is_zero() for v in point.values())


def _mp_pair(statement, point, dps):
    """Both sides by the mpmath evaluator, accepted only when ``dps`` and ``2 dps`` digits agree
    to ``dps`` digits: a composite expression (``log(1 + q*(exp(eps) - 1))`` at q = 1e-300) can
    lose every digit at fixed precision, and mpmath does not say so."""
    first = [arithmetic.evaluate_mp(side, point, dps) for side in (statement.lhs, statement.rhs)]
    second = [arithmetic.evaluate_mp(side, point, 2 * dps) for side in (statement.lhs, statement.rhs)]
    for a, b in zip(first, second):
        if compare(a, b, "==", dps=dps) is not Outcome.HOLDS:
            raise NumericalError(
                f"the mpmath values at {dps} and {2 * dps} digits disagree ({mpmath.nstr(a, 10)} against "
                f"{mpmath.nstr(b, 10)}): digits are lost to cancellation"
            )
    return tuple(second)


class UserEvaluation:
    """Evaluation of a user claim's sides: ball arithmetic where it decides, mpmath otherwise.

    :meth:`precise` (certification, tie escalation) and :meth:`search` (the counterexample
    search) return mpf values that decide the relation as the exact values do: the midpoints of
    balls that are tight to ``dps + 2`` digits (two digits beyond the radius decide.compare
    assumes for ``dps`` digits) or that are already separated (then the midpoints are ordered as
    the exact values); else the mpmath evaluator's values, accepted only when ``dps`` and
    ``2 dps`` digits agree. :meth:`reference` is the mpmath evaluator alone.

    The search's state lives here: ``fallbacks``, how many mpmath evaluations the search may
    still make where ball arithmetic fails (the mpmath integrals cost seconds per point at extreme
    parameters), and the counts of unevaluable and evaluable extreme coordinates.
    """

    def __init__(self, statement, calls, variables):
        self.statement = statement
        self.relation = relation_of(statement)
        # the search evaluates the sampled Gaussian at integer orders as its add direction, an exact
        # finite sum, equal to it there (facts.ADD_DIRECTION_SOURCE): the remove direction's
        # integral costs seconds per point and fails at extreme rates (q = 1e-180); certification
        # and the reference keep the claim as written
        integers = {v.name for v in variables if v.integer}
        self.search_statement = statement.func(facts.add_direction_at_integer_orders(statement.lhs, integers),
                                               facts.add_direction_at_integer_orders(statement.rhs, integers))
        self.calls = tuple(calls)
        self.variables = tuple(variables)
        self.fallbacks = math.inf
        self.unevaluable = collections.Counter()
        self.evaluable = collections.Counter()

    def sides(self):
        """The :class:`~dpproofs.checker.claims.Sides` of the claim, bound to this evaluation."""
        return Sides(precise=self.precise, ball=self.ball, search=self.search, reference=self.reference)

    def start_search(self, fallbacks):
        """Give a new search ``fallbacks`` mpmath evaluations; forget the last one."""
        self.fallbacks = fallbacks
        self.unevaluable.clear()
        self.evaluable.clear()

    def _extreme(self, point):
        """Coordinates at extreme values (below 1e-30 of their range, e.g. q = 5e-324)."""
        return [(v.name, point[v.name]) for v in self.variables
                if not v.integer and point[v.name] != 0
                and abs(point[v.name]) < EXTREME * max(abs(v.low), abs(v.high))]

    def precise(self, point, dps):
        """Certification and tie escalation: worth more bits."""
        point_domain_check(self.calls, point)
        return self._value(point, dps, CERTIFY_MAX_BITS, searching=False)

    def search(self, point, dps):
        """A search point: a cheap low-precision evaluation first, hopeless extremes skipped."""
        point_domain_check(self.calls, point)
        keys = self._extreme(point)
        for key in keys:
            if self.unevaluable[key] >= HOPELESS_REPEATS and not self.evaluable[key]:
                raise NumericalError(f"{key[0]}={key[1]!r} was unevaluable at {self.unevaluable[key]} points")
        try:
            result = self._search_value(point, dps)
        except NumericalError:
            for key in keys:
                self.unevaluable[key] += 1
            raise
        for key in keys:
            self.evaluable[key] += 1
        return result

    def reference(self, point, dps):
        """Both sides by the mpmath evaluator alone (independent of the ball path)."""
        return (arithmetic.evaluate_mp(self.statement.lhs, point, dps),
                arithmetic.evaluate_mp(self.statement.rhs, point, dps))

    def _search_value(self, point, dps):
        # a cheap low-precision evaluation decides most points: balls that already separate the
        # sides order their midpoints as the exact values (the margins that steer the search are
        # then good to about 25 digits)
        statement = self.search_statement
        try:
            left = arithmetic.evaluate_ball(statement.lhs, point, SEARCH_BITS)
            right = arithmetic.evaluate_ball(statement.rhs, point, SEARCH_BITS)
        except POINT_ERRORS as error:
            reraise_internal(error)
        else:
            if (left.is_finite() and right.is_finite()
                    and compare(left, right, self.relation) is not Outcome.UNDECIDED):
                with mp.workprec(SEARCH_BITS + precision.GUARD_BITS):
                    return _ball_to_mpf(left), _ball_to_mpf(right)
        return self._value(point, dps, SEARCH_MAX_BITS, searching=True, statement=statement)

    def _value(self, point, dps, ceiling, searching, statement=None):
        statement = self.statement if statement is None else statement
        left, right, state = _ball_pair(statement, point, precision.to_bits(dps), dps + 2, ceiling)
        if state in ("tight", "separated"):
            with mp.workprec(precision.to_bits(dps, guard=MIDPOINT_GUARD_BITS)):
                return _ball_to_mpf(left), _ball_to_mpf(right)
        if state == "loose":
            # finite enclosures that cannot be sharpened enough (e.g. log_moment at q = 1e-300,
            # a value near 1e-600 that the B integral encloses only to 1e-350): mpmath at dps
            # digits would lose the same digits, so the point is reported unevaluable
            raise NumericalError(f"the sides are not separated within {max(ceiling, precision.to_bits(dps))} bits: "
                                 f"lhs {left}, rhs {right}")
        if searching and self.fallbacks <= 0:
            raise NumericalError("no ball enclosure here and the search's mpmath evaluations are spent")
        if searching:
            self.fallbacks -= 1
        return _mp_pair(statement, point, dps)

    def ball(self, point, prec):
        """Ball enclosures of both sides at a point or over a box.

        On a box, an argument enclosure that merely straddles a domain bound (often only by the
        rounding of a mid-radius ball, e.g. [0, 1e-16] for eps >= 0) is evaluated anyway: the
        ball formulas enclose their own values over the whole box, which contains the true values
        on the valid part, so a HOLDS stays sound and anything else is undecided.
        """
        try:
            point_domain_check(self.calls, point)
        except DomainViolation:  # a box the hypotheses may exclude: not an error of the claim
            raise NumericalError("a call is outside its domain on this whole box") from None
        if _exact_point(point):  # certifying a point: sharpen the sides through cancellations
            left, right, state = _ball_pair(self.statement, point, prec, precision.to_digits(prec),
                                            CERTIFY_MAX_BITS)
            if state != "failed":
                return left, right
        return (arithmetic.evaluate_ball(self.statement.lhs, point, prec),
                arithmetic.evaluate_ball(self.statement.rhs, point, prec))
