"""``verify(claim, where=...)``: a user's inequality text through the shared verdict pipeline.

:func:`build_claim` parses the claim (:mod:`.parse`), derives its domain (:mod:`.domain`) and
checks its function domains (:mod:`.evaluation`); :func:`verify` probes the domain, sizes the
search to the time budget and runs :func:`dpproofs.pipeline.run`.
"""

import dataclasses
import math
import random
import time
from collections.abc import Iterable

import sympy

from dpproofs import _validate, pipeline
from dpproofs.claims import Claim
from dpproofs.decide import Outcome
from dpproofs.errors import DPProofsError, InvalidArgument, InvalidArgumentType
from dpproofs.verdicts import Verdict
from dpproofs.verification.domain import Problem, derive
from dpproofs.verification.evaluation import (
    DomainViolation,
    UserEvaluation,
    calls,
    point_domain_check,
    static_domain_check,
)
from dpproofs.verification.parse import is_variable_name, parse_claim, parse_condition

__all__ = ["verify", "Verdict", "build_claim", "preflight", "TIME_BUDGET"]

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
#: Most seconds the probing of the domain before the search may take (and at most
#: PREFLIGHT_SHARE of the budget).
PREFLIGHT_SECONDS = 8.0
PREFLIGHT_SHARE = 0.15


def _texts(name, value):
    """A str or an iterable of str as a tuple of str; anything else an InvalidArgumentType."""
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, Iterable) or isinstance(value, (bytes, dict)):
        raise InvalidArgumentType(f"{name}={value!r} must be a str or a list of str, not {type(value).__name__}")
    values = tuple(value)
    for item in values:
        if not isinstance(item, str):
            raise InvalidArgumentType(f"{name}: {item!r} must be a str, not {type(item).__name__}")
    return values


def _problem(claim, where, integers):
    if not isinstance(claim, str):
        raise InvalidArgumentType(f"claim={claim!r} must be a str, not {type(claim).__name__}")
    where = _texts("where", where)
    integers = _texts("integers", integers)
    for name in integers:
        if not is_variable_name(name):
            raise InvalidArgument(f"integers: {name!r} is not a variable name")
    statement = parse_claim(claim, integers)
    conditions = []
    for text in where:
        conditions.extend(parse_condition(text, integers))
    variables, hypotheses, constants = derive(statement, conditions, set(integers))
    if constants:  # variables fixed to one exact value: substituted exactly (no float in between)
        statement = _substitute(statement, constants)
        hypotheses = tuple(_substitute(h, constants) for h in hypotheses)
    return Problem(claim.strip(), statement, tuple(conditions), variables, hypotheses)


def _substitute(expression, constants):
    return expression.xreplace({s: constants[s.name] for s in expression.free_symbols if s.name in constants})


def _build(claim, where, integers):
    problem = _problem(claim, where, integers)
    integer_names = {v.name for v in problem.variables if v.integer}
    expressions = [problem.statement.lhs, problem.statement.rhs]
    pending = static_domain_check(expressions, problem.variables, integer_names)
    static_domain_check([h.lhs for h in problem.hypotheses] + [h.rhs for h in problem.hypotheses],
                        problem.variables, integer_names)
    evaluation = UserEvaluation(problem.statement, [c for e in expressions for c in calls(e)], problem.variables)
    result = Claim(
        id=problem.text,
        source="user claim",
        statement=problem.statement,
        variables=problem.variables,
        hypotheses=problem.hypotheses,
        title=problem.text,
        sides=evaluation.sides(),
        certify=True,
    )
    return result, problem, pending, evaluation


def build_claim(claim, where=(), *, integers=()):
    """``(Claim, Problem, pending calls)`` for a claim text: parsed, domain derived, domains
    checked (the pending calls are those to check at every point)."""
    result, problem, pending, _ = _build(claim, where, integers)
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


def preflight(claim, pending, seed, dps, deadline_seconds=PREFLIGHT_SECONDS):
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
                    point_domain_check(pending, point)
                except DomainViolation as error:
                    raise InvalidArgument(str(error)) from None
    corners, interior, mixed = valid
    if not any(valid) and claim.variables:
        raise InvalidArgument(
            "no point tried satisfies the conditions " + ", ".join(sympy.sstr(h) for h in claim.hypotheses)
            + " on the box " + ", ".join(v.interval_text() for v in claim.variables)
            + ": the domain looks empty, or it holds no float (narrower than the float spacing there: write "
            "the variable as an offset, e.g. alpha = 1 + t with 0 < t <= 10**(-20))"
        )
    timings = []
    for point in ((interior + mixed + corners)[:3] if claim.variables else [{}]):
        before = time.perf_counter()
        try:
            claim.evaluate(point, dps)
        except DomainViolation as error:
            raise InvalidArgument(str(error)) from None
        except (DPProofsError, ValueError, ZeroDivisionError, ArithmeticError):
            pass
        timings.append(time.perf_counter() - before)
    return corners, interior or mixed or corners, max(sum(timings) / len(timings), 1e-4)


def verify(claim: str, where: str | Iterable[str] = (), *, integers: str | Iterable[str] = (), samples: int = 500,
           seed: int = 0, dps: int = 50, time_budget: float = TIME_BUDGET) -> Verdict:
    """Check the inequality ``claim`` on the domain given by ``where``: a :class:`Verdict`.

    See the docstring of :mod:`dpproofs.verification` for the syntax, the vocabulary and the
    verdicts. ``where`` and ``integers`` are a str or a list of str. Raises
    :class:`~dpproofs.InvalidArgument` for a malformed claim or domain and
    :class:`~dpproofs.InvalidArgumentType` for an argument of the wrong type. ``samples`` is the
    number of search draws for a cheap claim (fewer when one evaluation is slow, to stay within
    ``time_budget`` seconds: the probing takes at most PREFLIGHT_SHARE of it, the search
    SEARCH_SHARE, the box proof BOX_SHARE).
    """
    samples = _validate.integer("samples", samples, 1, 10**7)
    seed = _validate.integer("seed", seed, 0, 2**32 - 1)
    dps = _validate.integer("dps", dps, 20, 1000)
    time_budget = _validate.real("time_budget", time_budget, 0, 3600, low_open=True)
    started = time.perf_counter()
    user_claim, _, pending, evaluation = _build(claim, where, integers)
    corners, interior, seconds_per_eval = preflight(
        user_claim, pending, seed, dps, deadline_seconds=min(PREFLIGHT_SECONDS, PREFLIGHT_SHARE * time_budget))
    search_budget = time_budget * SEARCH_SHARE
    # each draw costs about one evaluation plus the refinement's half share
    affordable = search_budget / (1.5 * seconds_per_eval + 2e-3)
    draws = samples if not user_claim.variables else max(1, min(samples, int(affordable)))
    # the corners of the box are pinned when they are cheap to evaluate (an expensive claim
    # still draws them through the strategy, which takes each bound about one time in four)
    affordable_corners = int(PINNED_SHARE * search_budget / seconds_per_eval)
    pinned = tuple(corners[:affordable_corners]) if user_claim.variables else ({},)
    searched = dataclasses.replace(user_claim, pinned=pinned, cost=draws / samples)
    plan = pipeline.Plan(
        examples=samples if user_claim.variables else 1, seed=seed, dps=dps,
        search_seconds=search_budget, total_seconds=time_budget, box_seconds=BOX_SHARE * time_budget,
        max_boxes=MAX_BOXES, expectation=False, targets=tuple(interior), started=started,
    )
    evaluation.start_search(FALLBACK_SHARE * search_budget)
    try:
        return pipeline.run(searched, plan)
    except DomainViolation as error:
        raise InvalidArgument(str(error)) from None
