"""``verify(claim, where=...)``: a user's inequality text through the shared verdict pipeline.

:func:`build_claim` parses the claim (:mod:`.parse`), derives its domain (:mod:`.domain`) and
checks its function domains (:mod:`.evaluation`); :func:`verify` probes the domain, decides the
exact corners (:mod:`.exact`), runs the search of :func:`dpproofs.checker.pipeline.run` (its box proof
off), descends from the closest approach onto the faces, and proves the claim on the exact
domain (:mod:`.prove`).
"""

import dataclasses
import fractions
import math
import random
import time
from collections.abc import Iterable

import mpmath
import sympy

from dpproofs import _validate
from dpproofs.checker import pipeline
from dpproofs.checker.claims import Claim
from dpproofs.checker.decide import Outcome, normalised_margin
from dpproofs.errors import POINT_ERRORS, InvalidArgument, InvalidArgumentType, reraise_internal
from dpproofs.checker.verdicts import Verdict
from dpproofs.math.stop import safety_stop
from dpproofs.verification import boundary, exact, prove
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

# Budgets count work, never seconds, so that the same claim and seed give the same verdict,
# examples and counterexample on any machine and under any load. TIME_BUDGET is only a safety
# stop: if it ever ends the work, the verdict says so.

#: Seconds after which a verification stops whatever it is doing (a safety stop, said in the verdict).
TIME_BUDGET = 60.0
SEARCH_SHARE = 0.6
#: The exact corners stop at this share of the time budget (a safety stop, like the others).
EXACT_SHARE = 0.15
#: The proof is tried only with at least this share of the time budget left.
MIN_PROOF_SHARE = 0.25
#: The proof stops at this share of the time budget (the rest is for building the verdict and
#: for one box evaluation that was under way: the whole verification ends within the budget).
FINISH_SHARE = 0.93
BOX_SHARE = 0.35
#: Most corners of the box evaluated as pinned points (all of them up to 6 variables).
MAX_PINNED_CORNERS = 64
#: mpmath evaluations the search may make where ball arithmetic gives no enclosure.
FALLBACK_EVALUATIONS = 24
#: Most boxes of the branch-and-bound proof.
MAX_BOXES = 4000
#: Significant digits of the side values shown at an exact counterexample (enough to show
#: the violation of ``rdp_gaussian(alpha, 1) <= 31.9999999999999999``).
SIDE_DIGITS = 30
#: Points of the box probed before the search (validity of the hypotheses, function domains).
PREFLIGHT_POINTS = 200


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
    variables, hypotheses, constants, bounds = derive(statement, conditions, set(integers))
    if constants:  # variables fixed to one exact value: substituted exactly (no float in between)
        statement = _substitute(statement, constants)
        hypotheses = tuple(_substitute(h, constants) for h in hypotheses)
    return Problem(claim.strip(), statement, tuple(conditions), variables, hypotheses, bounds)


def _substitute(expression, constants):
    """``expression`` with the constants put in, a relation kept unevaluated (``delta <= 1`` with
    delta fixed stays the relation ``1/100000 <= 1``, checked as any other)."""
    values = {s: constants[s.name] for s in expression.free_symbols if s.name in constants}
    if isinstance(expression, sympy.core.relational.Relational):
        return expression.func(expression.lhs.xreplace(values), expression.rhs.xreplace(values), evaluate=False)
    return expression.xreplace(values)


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
    except POINT_ERRORS as error:
        reraise_internal(error)
        return False


def preflight(claim, pending, seed, dps, exact_points=False):
    """Domain-check the pending calls at probe points of the domain and time an evaluation.

    Returns ``(corners, interior)``: the corners of the box and the random interior points that
    satisfy the hypotheses (:data:`PREFLIGHT_POINTS` drawn from ``seed``).
    """
    rng = random.Random(seed)
    groups = _probe_points(claim, rng, PREFLIGHT_POINTS)
    valid = ([], [], [])
    for group, kept in zip(groups, valid):
        for point in group:
            if not _valid(claim, point):
                continue
            kept.append(point)
            if pending:
                try:
                    point_domain_check(pending, point)
                except DomainViolation as error:
                    raise InvalidArgument(str(error)) from None
    corners, interior, mixed = valid
    if not any(valid) and claim.variables and exact_points:
        return [], []  # no float in the domain, but exact points: decided at those
    if not any(valid) and claim.variables:
        raise InvalidArgument(
            "no point tried satisfies the conditions " + ", ".join(sympy.sstr(h) for h in claim.hypotheses)
            + " on the box " + ", ".join(v.interval_text() for v in claim.variables)
            + ": the domain looks empty, or it holds no float (narrower than the float spacing there: write "
            "the variable as an offset, e.g. alpha = 1 + t with 0 < t <= 10**(-20))"
        )
    for point in ((interior + mixed + corners)[:3] if claim.variables else [{}]):
        try:  # a call outside its function's domain is the user's error: say so now
            claim.evaluate(point, dps)
        except DomainViolation as error:
            raise InvalidArgument(str(error)) from None
        except POINT_ERRORS as error:
            reraise_internal(error)
    return corners, interior or mixed or corners


def _exact_verdict(claim, point, dps, started, how, details, examples, found_by):
    """A *refuted* verdict at an exact point, or None when the mpmath reference disagrees."""
    sides = dict(details)
    try:
        lhs, rhs = claim.evaluate_reference(point, dps)  # the mpmath values (texts only)
        sides.update(lhs=mpmath.nstr(lhs, SIDE_DIGITS), rhs=mpmath.nstr(rhs, SIDE_DIGITS))
    except POINT_ERRORS as error:
        reraise_internal(error)
    shown = exact.point_text(point)
    if how == "exact":
        evidence = (f"{found_by}: at {shown} the two sides are equal exactly (sympy, in exact arithmetic on "
                    f"the closed forms), which violates the strict relation {claim.relation}")
        sides["exact"] = "lhs - rhs = 0 exactly"
    else:
        outcome, note = pipeline.reference(claim, point, dps)
        if outcome is not Outcome.VIOLATED:
            return None
        sides["reference"] = note
        evidence = (f"{found_by}: counterexample certified in ball arithmetic with the exact coordinates "
                    f"and confirmed by the mpmath reference ({note})")
    return Verdict(claim_id=claim.id, status="refuted", expected=None, examples=examples, certified=True,
                   counterexample=shown, sides=sides, evidence=evidence,
                   seconds=round(time.perf_counter() - started, 3))


def exact_corners(claim, problem, dps, started, deadline=None):
    """Decide the claim at the exact corners of the domain as typed (:func:`.exact.candidates`):
    ``(refuted, stopped)``: a *refuted* verdict at the first violated one (else None), and
    whether ``deadline`` (the safety stop of this stage) ended it before every corner was tried."""
    if not claim.variables:
        return None, False
    points = exact.candidates(claim.variables, problem.bounds)
    for index, point in enumerate(points):
        if deadline is not None and time.perf_counter() > deadline:
            return None, True
        with safety_stop(deadline):  # also inside an evaluation (an arb integral at 4096 bits takes 40 s)
            outcome, how, details = exact.decide_at(claim, point)
        if outcome is Outcome.VIOLATED:
            verdict = _exact_verdict(claim, point, dps, started, how, details, index + 1,
                                     f"an exact corner of the domain ({index + 1} of {len(points)} tried)")
            if verdict is not None:
                return verdict, False
    return None, False


#: Most points the local descent from the closest approach evaluates (work, not seconds).
LOCAL_EVALUATIONS = 400
#: The descent and the faces of the closest approach stop at this share of the time budget.
LOCAL_SHARE = 0.7


def _descend(claim, start, dps, deadline):
    """Coordinate descent of the normalised margin from ``start`` at ``dps`` digits, the step of
    each continuous variable halving from 1/8 of its range to 2^-50 of it: ``(point, spent)``,
    the first violated point found (else None) and the points evaluated."""
    point, spent = dict(start), 0

    def margin(candidate):
        nonlocal spent
        spent += 1
        if time.perf_counter() > deadline:
            spent = LOCAL_EVALUATIONS  # the safety stop: no more points
            return None
        try:
            if claim.hypotheses_at(candidate, 30) is not Outcome.HOLDS:
                return None
            lhs, rhs = claim.search_evaluate(candidate, dps)
        except POINT_ERRORS as error:
            reraise_internal(error)
            return None
        return normalised_margin(lhs, rhs, claim.relation)

    current = margin(point)
    if current is None:
        return None, spent
    continuous = [v for v in claim.variables if not v.integer]
    for exponent in range(3, 51):
        for v in continuous:
            step = (float(v.high) - float(v.low)) / 2**exponent
            improved = True
            while improved and spent < LOCAL_EVALUATIONS:
                improved = False
                for sign in (1, -1):
                    x = point[v.name] + sign * step
                    if not (float(v.low) <= x <= float(v.high)) or (v.low_open and x == v.low) or (
                            v.high_open and x == v.high):
                        continue
                    candidate = {**point, v.name: x}
                    value = margin(candidate)
                    if value is not None and value < current:
                        point, current, improved = candidate, value, True
                        if current < 0:
                            return point, spent
                        break
            if spent >= LOCAL_EVALUATIONS:
                return None, spent
    return None, spent


def _closest_on_faces(claim, problem, verdict, dps, started, time_budget):
    """The closest approach moved onto the faces of the domain (one coordinate at a time set to
    each of its exact bounds or exact points just inside an open one), each decided exactly: a
    *refuted* verdict at the first violated point, else None. A thin violation along a face
    (``x + 1e-8*y*(1 - y) <= 1 + 1e-9`` on the unit square, false only on ``x = 1``) is found
    from any closest approach near it."""
    if not claim.variables or not verdict.closest:
        return None
    start = {}
    for v in claim.variables:
        value = verdict.closest["point"].get(v.name)
        if value is None:
            return None
        start[v.name] = fractions.Fraction(value) if isinstance(value, str) else value
    corners = exact.candidates(claim.variables, problem.bounds)
    values = {v.name: [] for v in claim.variables}
    for corner in corners:
        for name, value in corner.items():
            if value not in values[name]:
                values[name].append(value)
    tried = 0
    deadline = started + LOCAL_SHARE * time_budget
    descended, spent = _descend(claim, start, dps, deadline)
    tried += spent
    if descended is not None:
        outcome, how, details = exact.decide_at(claim, descended)
        if outcome is Outcome.VIOLATED:
            found = _exact_verdict(claim, descended, dps, started, how, details, verdict.examples + tried,
                                   f"a local descent of the margin from the closest approach ({spent} points)")
            if found is not None:
                return found
    for v in claim.variables:
        for value in values[v.name]:
            point = {**start, v.name: value}
            if point == start or time.perf_counter() > deadline:
                continue
            tried += 1
            outcome, how, details = exact.decide_at(claim, point)
            if outcome is Outcome.VIOLATED:
                found = _exact_verdict(claim, point, dps, started, how, details, verdict.examples + tried,
                                       f"the closest approach of the search moved onto a face of the domain "
                                       f"({tried} points tried)")
                if found is not None:
                    return found
    return None


def verify(claim: str, where: str | Iterable[str] = (), *, integers: str | Iterable[str] = (), samples: int = 500,
           seed: int = 0, dps: int = 50, time_budget: float = TIME_BUDGET) -> Verdict:
    """Check the inequality ``claim`` on the domain given by ``where``: a :class:`Verdict`.

    See the docstring of :mod:`dpproofs.verification` for the syntax, the vocabulary and the
    verdicts. ``where`` and ``integers`` are a str or a list of str. Raises
    :class:`~dpproofs.InvalidArgument` for a malformed claim or domain and
    :class:`~dpproofs.InvalidArgumentType` for an argument of the wrong type. ``samples`` is the
    number of search draws; every other budget counts work too (:data:`MAX_PINNED_CORNERS`,
    :data:`FALLBACK_EVALUATIONS`, :data:`LOCAL_EVALUATIONS`, the exact corners'
    :data:`~dpproofs.verification.exact.MAX_EXACT_CANDIDATES`, the proof's
    :data:`~dpproofs.verification.prove.MAX_PROOF_BOXES`), so the verdict does not depend on the
    machine. ``time_budget`` (seconds, default :data:`TIME_BUDGET` = 60) is a safety stop shared by
    the stages (:data:`EXACT_SHARE`, :data:`SEARCH_SHARE`, :data:`LOCAL_SHARE`,
    :data:`FINISH_SHARE` of it); a verdict it cut short says so.
    """
    samples = _validate.integer("samples", samples, 1, 10**7)
    seed = _validate.integer("seed", seed, 0, 2**32 - 1)
    dps = _validate.integer("dps", dps, 20, 1000)
    time_budget = _validate.real("time_budget", time_budget, 0, 3600, low_open=True)
    started = time.perf_counter()
    # the safety stop, read inside long evaluations too (arb and mpmath integrals)
    with safety_stop(started + FINISH_SHARE * time_budget):
        return _verify(claim, where, integers, samples, seed, dps, time_budget, started)


def _verify(claim, where, integers, samples, seed, dps, time_budget, started):
    user_claim, problem, pending, evaluation = _build(claim, where, integers)
    inside = [point for point in exact.candidates(user_claim.variables, problem.bounds)
              if exact.hypotheses_hold(user_claim.hypotheses, point)] if user_claim.variables else [{}]
    corners, interior = preflight(user_claim, pending, seed, dps, exact_points=bool(inside))
    refuted, stopped = exact_corners(user_claim, problem, dps, started, started + EXACT_SHARE * time_budget)
    if refuted is not None:
        return refuted
    corner_note = "; the time budget stopped the exact corners early" if stopped else ""
    if user_claim.variables and (corners or interior) and not stopped:
        early = _early_proof(user_claim, problem, started, time_budget)
        if early is not None:
            return early
    if not user_claim.variables:
        outcome, how, details = exact.decide_at(user_claim, {})
        if outcome is Outcome.HOLDS:
            return Verdict(claim_id=user_claim.id, status="proved", expected=None, examples=1, certified=True,
                           sides=details, evidence=f"decided at the point ({'exactly' if how == 'exact' else 'ball arithmetic'})",
                           seconds=round(time.perf_counter() - started, 3))
        if outcome is Outcome.VIOLATED:
            verdict = _exact_verdict(user_claim, {}, dps, started, how, details, 1, "the claim at its only point")
            if verdict is not None:
                return verdict
    elif not corners and not interior:
        holds = Verdict(claim_id=user_claim.id, status="holds", expected=None, examples=len(inside),
                        evidence=f"the domain holds no float ({problem.describe()}): no counterexample at the "
                                 f"{len(inside)} exact points of it tried",
                        seconds=round(time.perf_counter() - started, 3))
        return _with_proof(holds, user_claim, problem, started + FINISH_SHARE * time_budget, started)
    # the search's share of the budget counts from the start of the verification
    search_budget = max(0.0, time_budget * SEARCH_SHARE - (time.perf_counter() - started))
    pinned = tuple(corners[:MAX_PINNED_CORNERS]) if user_claim.variables else ({},)
    if user_claim.variables:  # the edges of the coupled conditions, where thin violations hide
        pinned += tuple(p for p in boundary.edge_points(user_claim, seed, lambda point: _valid(user_claim, point))
                        if p not in pinned)
    searched = dataclasses.replace(user_claim, pinned=pinned, certify=False)  # proved by .prove below
    plan = pipeline.Plan(
        examples=samples if user_claim.variables else 1, seed=seed, dps=dps,
        search_seconds=search_budget, total_seconds=time_budget, box_seconds=BOX_SHARE * time_budget,
        max_boxes=MAX_BOXES, expectation=False, targets=tuple(interior), started=started,
    )
    evaluation.start_search(FALLBACK_EVALUATIONS)
    try:
        verdict = pipeline.run(searched, plan)
    except DomainViolation as error:
        raise InvalidArgument(str(error)) from None
    if corner_note:
        verdict = dataclasses.replace(verdict, evidence=verdict.evidence + corner_note)
    if verdict.status != "holds":
        return verdict
    refuted = _closest_on_faces(user_claim, problem, verdict, dps, started, time_budget)
    if refuted is not None:
        return refuted
    return _with_proof(verdict, user_claim, problem, started + FINISH_SHARE * time_budget, started)


#: Boxes of the proof tried before any search (a claim that closes on few boxes is proved
#: without the search's cost; a false one cannot close, so it goes on to the search).
EARLY_PROOF_BOXES = 400
#: The early proof stops after this share of the time budget from its start (a safety stop).
EARLY_PROOF_SHARE = 0.2


def _early_proof(claim, problem, started, time_budget):
    """A *proved* verdict from :func:`.prove.prove` with :data:`EARLY_PROOF_BOXES` boxes, tried
    after the exact corners and before the search; None when it does not close."""
    # its share counts from its own start (a machine slowed by other work must not leave it no
    # time after the exact corners), within the verification's safety stop
    deadline = min(time.perf_counter() + EARLY_PROOF_SHARE * time_budget, started + FINISH_SHARE * time_budget)
    try:
        proof = prove.prove(claim, problem, max_boxes=EARLY_PROOF_BOXES, deadline=deadline)
    except DomainViolation as error:
        raise InvalidArgument(str(error)) from None
    if not proof.proved:
        return None
    closed = ", ".join(f"{count} {how}" for how, count in proof.closed.items() if count)
    return Verdict(claim_id=claim.id, status="proved", expected=None, examples=0, certified=True,
                   boxes=proof.boxes, seconds=round(time.perf_counter() - started, 3),
                   evidence=f"{_proof_text(proof, closed)}, before "
                            f"any search; the exact corners of the domain were decided first")


def _proof_text(proof, closed):
    """How a finished proof closed, and what it assumed beyond the monotonicity facts."""
    assumed = "".join(f", with {what}" for what in proof.assumes)
    return f"ball arithmetic on the whole domain ({proof.boxes} boxes: {closed}){assumed}"


def _with_proof(verdict, claim, problem, deadline, started):
    """The verdict after :func:`.prove.prove`: *proved* when the proof closes, else *holds* with
    what the proof left unproved. Not tried when less than :data:`MIN_PROOF_SHARE` of the time
    budget is left (one box evaluation of a slow claim can take seconds)."""
    budget = (deadline - started) / FINISH_SHARE
    if deadline - time.perf_counter() < MIN_PROOF_SHARE * budget:
        return dataclasses.replace(verdict, seconds=round(time.perf_counter() - started, 3),
                                   evidence=f"{verdict.evidence}; proof not tried (the time budget is spent)")
    try:
        proof = prove.prove(claim, problem, deadline=deadline)
    except DomainViolation as error:
        raise InvalidArgument(str(error)) from None
    closed = ", ".join(f"{count} {how}" for how, count in proof.closed.items() if count)
    seconds = round(time.perf_counter() - started, 3)
    if proof.proved:
        return dataclasses.replace(
            verdict, status="proved", certified=True, boxes=proof.boxes, seconds=seconds,
            evidence=f"{_proof_text(proof, closed)}; {verdict.evidence}")
    return dataclasses.replace(verdict, boxes=proof.boxes, seconds=seconds,
                               evidence=f"{verdict.evidence}; proof incomplete after {proof.boxes} boxes "
                                        f"({closed or 'none closed'}): {proof.note}")
