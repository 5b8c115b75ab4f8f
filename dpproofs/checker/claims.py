"""Claims: a sympy statement with its hypotheses, bound to the shared evaluator.

A :class:`Claim` is checked by :func:`check` (the verdict pipeline of :mod:`dpproofs.checker.pipeline`)
and answers with a :class:`~dpproofs.checker.verdicts.Verdict`:

* **proved**: certified on the claim's whole domain, by sympy (``prover``) or by ball arithmetic
  with subdivision (``certify``);
* **holds**: no counterexample among the high-precision examples tried (with the count and the
  closest approach);
* **refuted**: a counterexample that re-evaluation in ball arithmetic confirms beyond rounding
  and the mpmath reference confirms at two higher precisions;
* **undecided**: the numbers could not separate the two sides, or nothing could be evaluated.

A claim records what the project *expects* of it (``"holds"`` or ``"fails"``): a printed proof
step found false is kept as a claim expected to fail, so a change of verdict is loud.
"""

import dataclasses
import math
from collections.abc import Callable, Mapping

import sympy

from dpproofs.checker import arithmetic
from dpproofs.checker import vocabulary
from dpproofs.checker.decide import Outcome, compare
from dpproofs.errors import POINT_ERRORS, DPProofsError, InvalidArgument, reraise_internal
from dpproofs.checker.precision import to_bits
from dpproofs.checker.verdicts import EXPECTATIONS, STATUSES, Verdict

__all__ = [
    "Variable",
    "Sides",
    "Claim",
    "Verdict",
    "STATUSES",
    "check",
    "relation_of",
]

KINDS = ("statement", "step", "constant", "support", "mutant", "finding", "variant")

_RELATIONS = {
    sympy.LessThan: "<=",
    sympy.StrictLessThan: "<",
    sympy.GreaterThan: ">=",
    sympy.StrictGreaterThan: ">",
    sympy.Equality: "==",
}


def relation_of(statement):
    """The relation string (``<=``, ``<``, ``>=``, ``>``, ``==``) of a sympy relational."""
    for kind, text in _RELATIONS.items():
        if isinstance(statement, kind):
            return text
    raise InvalidArgument(f"statement={statement!r} must be a sympy relation (<=, <, >=, >, Eq)")


@dataclasses.dataclass(frozen=True)
class Variable:
    """A free variable of a claim and its range. Infinite bounds are not allowed (search needs a box).

    ``log_scale=None`` draws log-uniformly when ``low > 0`` and the range spans more than two
    decades, uniformly otherwise.
    """

    name: str
    low: float
    high: float
    integer: bool = False
    low_open: bool = False
    high_open: bool = False
    log_scale: bool | None = None

    def __post_init__(self):
        if not (math.isfinite(self.low) and math.isfinite(self.high)) or self.low > self.high:
            raise InvalidArgument(
                f"variable {self.name!r}: bounds low={self.low!r}, high={self.high!r} must be "
                "finite with low <= high"
            )
        if self.low == self.high and (self.low_open or self.high_open):
            raise InvalidArgument(f"variable {self.name!r}: the range ({self.low}, {self.high}) is empty")

    @property
    def symbol(self):
        return sympy.Symbol(self.name, real=True, integer=self.integer or None)

    @property
    def logarithmic(self):
        if self.log_scale is not None:
            return self.log_scale
        return self.low > 0 and self.high / self.low > 100

    def interval_text(self):
        left = "(" if self.low_open else "["
        right = ")" if self.high_open else "]"
        kind = " integer" if self.integer else ""
        return f"{self.name} in {left}{self.low:g}, {self.high:g}{right}{kind}"


@dataclasses.dataclass(frozen=True)
class Sides:
    """Custom evaluation of a claim's two sides, for statements over structured objects.

    ``precise(point, dps) -> (lhs, rhs)`` in mpmath; ``ball(point, prec) -> (lhs, rhs)`` as arb
    enclosures (``None`` when no certified evaluation exists: then the claim can never be
    *refuted*, only found *undecided* at a violation). Optional: ``search(point, dps)``, a cheaper
    evaluation for the counterexample search whose values order the two sides as the exact
    values do (default ``precise``); ``reference(point, dps)``, the mpmath reference that
    confirms a counterexample independently of the ball path (default ``precise``).
    """

    precise: Callable
    ball: Callable | None = None
    search: Callable | None = None
    reference: Callable | None = None


@dataclasses.dataclass(frozen=True)
class Claim:
    """One checkable statement. See the module docstring for the verdicts.

    ``statement`` is a sympy relation over the variables and the functions of
    :mod:`dpproofs.checker.vocabulary`, evaluated by the shared evaluator unless ``sides`` is given.
    ``hypotheses`` are sympy relations every point must satisfy (coupled conditions included).
    ``extra`` maps names to Hypothesis strategies for structured parameters (distributions,
    mechanisms) that ``sides`` consumes. ``pinned`` points are always evaluated first (every
    counterexample ever found is pinned). ``prover()`` returns evidence text when sympy proves the
    statement, else None. ``certify`` asks for ball-arithmetic branch and bound on the domain.
    """

    id: str
    source: str
    statement: sympy.Basic
    variables: tuple = ()
    hypotheses: tuple = ()
    expected: str = "holds"
    kind: str = "statement"
    title: str = ""
    explanation: str = ""
    sides: Sides | None = None
    extra: Mapping = dataclasses.field(default_factory=dict)
    pinned: tuple = ()
    prover: Callable | None = None
    certify: bool = False
    cost: float = 1.0

    def __post_init__(self):
        if self.expected not in EXPECTATIONS:
            raise InvalidArgument(f"expected={self.expected!r} is not one of {EXPECTATIONS}")
        if self.kind not in KINDS:
            raise InvalidArgument(f"kind={self.kind!r} is not one of {KINDS}")
        relation_of(self.statement)
        names = [v.name for v in self.variables] + list(self.extra)
        if len(set(names)) != len(names):
            raise InvalidArgument(f"claim {self.id!r}: duplicate variable names {names}")
        if self.sides is None:
            free = {s.name for s in self.statement.free_symbols}
            for h in self.hypotheses:
                free |= {s.name for s in h.free_symbols}
            unknown = free - set(names)
            if unknown:
                raise InvalidArgument(f"claim {self.id!r}: no domain for {sorted(unknown)}")

    @property
    def relation(self):
        return relation_of(self.statement)

    @property
    def lhs(self):
        return self.statement.lhs

    @property
    def rhs(self):
        return self.statement.rhs

    def strategy(self):
        """Hypothesis strategy for the points of this claim's domain (see dpproofs.checker.search)."""
        from dpproofs.checker import search

        return search.point_strategy(self.variables, self.extra)

    def hypotheses_at(self, point, dps):
        """Whether every hypothesis holds at ``point``: an :class:`Outcome`.

        Each hypothesis is decided in ball arithmetic first (exact inputs stay exact, so a
        boundary point such as ``sigma >= 1`` at ``sigma = 1`` is decided), then, if the balls
        cannot decide it, at ``dps`` digits.
        """
        worst = Outcome.HOLDS
        for hypothesis in self.hypotheses:
            outcome = Outcome.UNDECIDED
            if arithmetic.ball_supported(hypothesis):
                try:
                    lhs = arithmetic.evaluate_ball(hypothesis.lhs, point, to_bits(dps))
                    rhs = arithmetic.evaluate_ball(hypothesis.rhs, point, to_bits(dps))
                    outcome = compare(lhs, rhs, relation_of(hypothesis))
                except POINT_ERRORS as error:
                    reraise_internal(error)
                    outcome = Outcome.UNDECIDED
            if outcome is Outcome.UNDECIDED:
                lhs = arithmetic.evaluate_mp(hypothesis.lhs, point, dps)
                rhs = arithmetic.evaluate_mp(hypothesis.rhs, point, dps)
                outcome = compare(lhs, rhs, relation_of(hypothesis), dps=dps)
            if outcome is Outcome.VIOLATED:
                return Outcome.VIOLATED
            if outcome is Outcome.UNDECIDED:
                worst = Outcome.UNDECIDED
        return worst

    def hypotheses_ball(self, point, prec):
        """Like :meth:`hypotheses_at`, in ball arithmetic (points may hold intervals)."""
        worst = Outcome.HOLDS
        for hypothesis in self.hypotheses:
            lhs = arithmetic.evaluate_ball(hypothesis.lhs, point, prec)
            rhs = arithmetic.evaluate_ball(hypothesis.rhs, point, prec)
            outcome = compare(lhs, rhs, relation_of(hypothesis))
            if outcome is Outcome.VIOLATED:
                return Outcome.VIOLATED
            if outcome is Outcome.UNDECIDED:
                worst = Outcome.UNDECIDED
        return worst

    def evaluate(self, point, dps):
        """``(lhs, rhs)`` at ``point`` in mpmath, each to about ``dps`` digits."""
        if self.sides is not None:
            return self.sides.precise(point, dps)
        return (
            arithmetic.evaluate_mp(self.lhs, point, dps),
            arithmetic.evaluate_mp(self.rhs, point, dps),
        )

    def search_evaluate(self, point, dps):
        """``(lhs, rhs)`` for the search: ``sides.search`` when given, else :meth:`evaluate`."""
        if self.sides is not None and self.sides.search is not None:
            return self.sides.search(point, dps)
        return self.evaluate(point, dps)

    @property
    def has_search_evaluation(self):
        """Whether the search evaluates differently from :meth:`evaluate` (cheaper values)."""
        return self.sides is not None and self.sides.search is not None

    @property
    def evaluate_is_reference(self):
        """Whether :meth:`evaluate` is itself the mpmath reference (no separate ``reference``)."""
        return self.sides is None or self.sides.reference is None

    def evaluate_reference(self, point, dps):
        """``(lhs, rhs)`` by the mpmath reference: ``sides.reference``, else ``sides.precise``,
        else the statement through the mpmath evaluator."""
        if self.sides is not None:
            return (self.sides.reference or self.sides.precise)(point, dps)
        return self.evaluate(point, dps)

    def outcome_at(self, point, dps):
        """The relation at ``point`` at ``dps`` digits (an Outcome), or None outside the hypotheses."""
        if self.hypotheses_at(point, dps) is not Outcome.HOLDS:
            return None
        lhs, rhs = self.evaluate(point, dps)
        return compare(lhs, rhs, self.relation, dps=dps)

    def ball_outcome_at(self, point, prec):
        """The relation at ``point`` in ball arithmetic (an Outcome), or None outside the hypotheses."""
        if self.hypotheses and self.hypotheses_ball(point, prec) is not Outcome.HOLDS:
            return None
        lhs, rhs = self.evaluate_ball(point, prec)
        return compare(lhs, rhs, self.relation)

    @property
    def has_ball(self):
        if self.sides is not None:
            return self.sides.ball is not None
        return arithmetic.ball_supported(self.statement.lhs) and arithmetic.ball_supported(
            self.statement.rhs
        )

    def evaluate_ball(self, point, prec):
        """``(lhs, rhs)`` as arb enclosures at ``point``."""
        if self.sides is not None:
            if self.sides.ball is None:
                raise vocabulary.UnsupportedExpression(f"claim {self.id!r} has no ball evaluation")
            return self.sides.ball(point, prec)
        return (
            arithmetic.evaluate_ball(self.lhs, point, prec),
            arithmetic.evaluate_ball(self.rhs, point, prec),
        )

    def mutant(self, suffix, *, statement=None, hypotheses=None, explanation, pinned=(), sides=None):
        """A deliberately false variant (tighter constant, dropped hypothesis, flipped relation).

        A claim with custom ``sides`` evaluates those, not its statement: a new ``statement``
        then needs new ``sides`` too, or the mutant would silently check its parent.
        """
        changed = statement is not None and statement != self.statement
        if changed and self.sides is not None and sides is None:
            raise InvalidArgument(
                f"mutant {suffix!r} of {self.id!r}: the parent has custom sides, so a new "
                "statement needs new sides=... as well"
            )
        return dataclasses.replace(
            self,
            id=f"{self.id}.mutant.{suffix}",
            statement=self.statement if statement is None else statement,
            hypotheses=self.hypotheses if hypotheses is None else tuple(hypotheses),
            sides=self.sides if sides is None else sides,
            expected="fails",
            kind="mutant",
            explanation=explanation,
            pinned=tuple(pinned),
            prover=None,
            certify=False,
        )

    def describe(self):
        """Plain-text statement with its hypotheses and domain."""
        parts = [sympy.sstr(self.statement)]
        conditions = [v.interval_text() for v in self.variables]
        conditions += [sympy.sstr(h) for h in self.hypotheses]
        conditions += [f"{name} drawn by a strategy" for name in self.extra]
        if conditions:
            parts.append("for " + ", ".join(conditions))
        return " ".join(parts)


class ClaimError(DPProofsError):
    """A claim could not be checked at all (empty domain, unevaluable statement)."""


def check(claim, *, examples=100, seed=0, dps=50, time_budget=None):
    """Check ``claim`` through the verdict pipeline (:func:`dpproofs.checker.pipeline.run`): pinned
    points, a Hypothesis search with local refinement, confirmation of a violation (ball
    arithmetic and the mpmath reference) or escalation of a near-tie, sympy proof, box proof.

    ``examples`` is the number of Hypothesis draws (scaled by ``claim.cost``); ``time_budget``
    (seconds) stops the work early. Deterministic for a given seed.
    """
    from dpproofs.checker import pipeline  # loads Hypothesis: only when checking

    plan = pipeline.Plan(examples=examples, seed=seed, dps=dps, search_seconds=time_budget,
                         total_seconds=time_budget)
    return pipeline.run(claim, plan)
