"""The verdict pipeline, shared by theorem claims (:func:`dpproofs.checker.claims.check`) and user
claims (:func:`dpproofs.verify`): a claim and a :class:`Plan` in, one immutable
:class:`~dpproofs.checker.verdicts.Verdict` out.

1. **search** (:func:`dpproofs.checker.search.run`): pinned points, a Hypothesis search steered by the
   normalised margin, local refinement from the closest points;
2. **confirmation** of a violation (:func:`confirm`): ball arithmetic at ``dps`` then ``2 dps``
   digits, then the mpmath reference at escalating precision (:func:`reference`); a candidate that
   cannot be confirmed (mpmath's fixed precision loses every digit at extreme values) is moved part
   of the way toward the plan's interior ``targets``; *refuted* only when both evaluators agree,
   else *undecided*;
3. **sympy proof** (``claim.prover``) of a claim without counterexample;
4. **tie escalation** (:func:`escalate_tie`): a closest point whose sides the numbers cannot
   separate at ``dps`` digits is re-evaluated with the escalation policy of
   :mod:`dpproofs.checker.precision`: a violation that appears is confirmed as in 2; a tie that survives
   is consistent with a non-strict relation (*holds*, the tie named) but not with a strict one
   (*undecided*);
5. **box proof** (``claim.certify``): branch and bound in ball arithmetic over the whole domain
   (:func:`dpproofs.checker.search.certify_box`): *proved*.
"""

import dataclasses
import time

from dpproofs.checker import precision
from dpproofs.checker import search
from dpproofs.checker.decide import Outcome, compare
from dpproofs.errors import POINT_ERRORS, reraise_internal
from dpproofs.checker.verdicts import Verdict

__all__ = ["Plan", "run", "confirm", "reference", "escalate_tie", "NUDGES", "MIN_BOX_SECONDS"]

#: Fractions of the way to an interior point tried when the reference cannot confirm a
#: counterexample (typically at extreme values such as q = 1e-300, where mpmath loses digits).
NUDGES = (1e-9, 1e-6, 1e-3, 1e-2, 0.1, 0.3)
#: A box proof is not started with less time left than this (seconds): it could not finish.
MIN_BOX_SECONDS = 0.5

# Failures of one evaluation at one point (dpproofs.errors.POINT_ERRORS): that point is skipped,
# never the verdict decided; a wrong argument of the library's own code is re-raised.


@dataclasses.dataclass(frozen=True)
class Plan:
    """How much work a check may do.

    ``examples`` Hypothesis draws (scaled by ``claim.cost``) at ``dps`` digits from ``seed``.
    ``search_seconds`` bounds the search (from its start), ``total_seconds`` everything (from
    ``started``, a ``time.perf_counter()`` value; default the start of :func:`run`),
    ``box_seconds`` the box proof, which tries at most ``max_boxes`` boxes; None: no limit.
    ``expectation``: whether the verdict reports the claim's expected result (theorem claims) or
    not (a user's claim). ``targets``: interior points of the domain toward which an unconfirmed
    counterexample may be moved.
    """

    examples: int = 100
    seed: int = 0
    dps: int = 50
    search_seconds: float | None = None
    total_seconds: float | None = None
    box_seconds: float | None = None
    max_boxes: int = 4000
    expectation: bool = True
    targets: tuple = ()
    started: float | None = None


@dataclasses.dataclass(frozen=True)
class _Result:
    """A stage's answer: everything of the verdict the search did not already fix."""

    status: str
    certified: bool = False
    evidence: str = ""
    point: dict | None = None
    sides: dict | None = None
    boxes: int = 0


def _deadline(start, seconds):
    return None if seconds is None else start + seconds


def run(claim, plan=Plan()):
    """Check ``claim`` as ``plan`` says: the :class:`~dpproofs.checker.verdicts.Verdict`."""
    started = time.perf_counter()
    clock = started if plan.started is None else plan.started
    found = search.run(claim, examples=plan.examples, seed=plan.seed, dps=plan.dps,
                       deadline=_deadline(started, plan.search_seconds))
    closest = _closest(claim, found, plan.dps)
    result = _decide(claim, plan, found, closest, _deadline(clock, plan.total_seconds))
    return Verdict(
        claim_id=claim.id,
        status=result.status,
        expected=claim.expected if plan.expectation else None,
        examples=found.examples,
        certified=result.certified,
        closest=closest,
        counterexample=None if result.point is None else search.format_point(result.point),
        sides=result.sides,
        evidence=result.evidence,
        seconds=round(time.perf_counter() - clock, 3),
        boxes=result.boxes,
    )


def _closest(claim, found, dps):
    """The closest approach, its sides recomputed at the full ``dps`` digits when the search used
    a cheaper evaluation (whose values are right to about 25 digits)."""
    if not found.best:
        return None
    margin, point, lhs, rhs = found.best[0]
    if claim.has_search_evaluation:
        try:
            lhs, rhs = claim.evaluate(point, dps)
        except POINT_ERRORS as error:
            reraise_internal(error)
    return {"point": search.format_point(point), "lhs": search.number_text(lhs),
            "rhs": search.number_text(rhs), "margin": float(margin)}


def _decide(claim, plan, found, closest, deadline):
    dps = plan.dps
    if found.violation is not None:
        point = found.violation[0]
        confirmed, sides, evidence = confirm(claim, point, dps, plan.targets, deadline)
        if confirmed is not None:
            return _Result("refuted", True, f"{evidence}; found after {_count(found)}",
                           point=confirmed, sides=sides)
        return _Result("undecided", False, f"a violation found at {dps} digits could not be confirmed: "
                       f"{evidence}", point=point)
    if claim.prover is not None:
        evidence = claim.prover()
        if evidence:
            return _Result("proved", True, f"sympy: {evidence}; and {_count(found)} hold")
    if found.examples == 0:
        if found.stopped:  # the budget ran out before the first point: say so, not a wrong reason
            reason = "the time budget stopped the search before any point was evaluated"
        else:
            reason = found.last_error or "no drawn point satisfied the hypotheses"
        return _Result("undecided", False, f"nothing evaluated: {reason}")
    holds = (f"no counterexample in {_count(found)} at {dps} digits; closest margin "
             f"{closest['margin']:.3g} at {closest['point']}")
    if found.errors:
        holds += f"; {found.errors} points unevaluable"
    if found.stopped:
        holds += "; the time budget stopped the search early"
    tie, note = escalate_tie(claim, found.best[0][1], dps, deadline)
    if tie is not None:
        return tie
    holds += note
    if not claim.certify:
        return _Result("holds", False, holds)
    return _box_proof(claim, plan, holds, deadline)


def _count(found):
    """``"20 examples"``, or ``"20 examples and 2 pinned points"``."""
    drawn = found.examples - found.pinned
    text = f"{drawn} example{'s' if drawn != 1 else ''}"
    if found.pinned:
        text += f" and {found.pinned} pinned point{'s' if found.pinned != 1 else ''}"
    return text


def _box_proof(claim, plan, holds, deadline):
    now = time.perf_counter()
    limits = [s for s in (None if deadline is None else deadline - now, plan.box_seconds) if s is not None]
    remaining = min(limits) if limits else None
    if remaining is not None and remaining <= MIN_BOX_SECONDS:
        return _Result("holds", False, f"{holds}; box certification not tried (time budget spent)")
    proved, boxes, note = search.certify_box(claim, deadline=_deadline(now, remaining), max_boxes=plan.max_boxes)
    if proved:
        return _Result("proved", True, f"ball arithmetic on the whole domain ({boxes} boxes); {holds}", boxes=boxes)
    return _Result("holds", False, f"{holds}; box certification incomplete ({note})", boxes=boxes)


def reference(claim, point, dps, known=None):
    """The mpmath reference's verdict at ``point``: ``(outcome, note)``, outcome None when the
    reference cannot be trusted there.

    The reference (``claim.evaluate_reference``) is trusted only where it is consistent with
    itself: evaluated at the digits of :func:`dpproofs.checker.precision.escalation` (``2 dps``, ``4 dps``,
    ...), two successive evaluations must agree on both sides to the digits of the first (at
    extreme values, e.g. the sampled Gaussian at q = 1e-110, mpmath's
    fixed precision once returned 1e-146 for a value of 1.7e-220). ``known`` maps digits to values
    already computed by the reference at ``point`` (reused, not recomputed).
    """
    previous, note = None, ""
    known = known or {}
    for digits in precision.escalation(dps):
        try:
            lhs, rhs = known[digits] if digits in known else claim.evaluate_reference(point, digits)
            outcome = compare(lhs, rhs, claim.relation, dps=digits)
        except POINT_ERRORS as error:
            reraise_internal(error)
            return None, f"mpmath re-evaluation failed at {digits} digits: {error}"
        note = f"mpmath at {digits} digits: lhs={search.number_text(lhs)}, rhs={search.number_text(rhs)}"
        if previous is not None:
            p_digits, p_lhs, p_rhs = previous
            consistent = all(compare(a, b, "==", dps=p_digits) is Outcome.HOLDS
                             for a, b in ((p_lhs, lhs), (p_rhs, rhs)))
            if consistent:
                return outcome, f"{note}, agreeing with {p_digits} digits"
        previous = (digits, lhs, rhs)
    return None, f"{note}; not consistent with fewer digits: mpmath cannot be trusted at this point"


def _valid(claim, point, dps=30):
    try:
        return claim.hypotheses_at(point, dps) is Outcome.HOLDS
    except POINT_ERRORS as error:
        reraise_internal(error)
        return False


def _toward(claim, point, target, t):
    """The point ``(1 - t) point + t target`` (integers rounded, structured parameters kept), or
    None if it leaves the domain."""
    moved = dict(point)
    for v in claim.variables:
        x = (1 - t) * point[v.name] + t * target[v.name]
        moved[v.name] = int(round(x)) if v.integer else x
    return moved if _valid(claim, moved) else None


def confirm(claim, point, dps, targets=(), deadline=None):
    """A counterexample confirmed by ball arithmetic *and* by the mpmath reference:
    ``(point, sides, evidence)``, or ``(None, None, reason)`` when nothing could be confirmed.

    ``point`` is tried first: :func:`dpproofs.checker.search.certify_point` at ``dps``, then ``2 dps``
    digits, then :func:`reference`. If it cannot be confirmed, points moved part of the way toward
    the first two ``targets`` (:data:`NUDGES`) that are still violated at ``dps`` digits are
    tried, until ``deadline``. ``sides`` holds the texts and enclosures of both sides at the
    confirmed point and the reference's note.
    """
    candidates = [point] + [
        moved for target in tuple(targets)[:2] for t in NUDGES
        if (moved := _toward(claim, point, target, t)) is not None
    ]
    first_note = None
    for candidate in candidates:
        if deadline is not None and time.perf_counter() > deadline and candidate is not point:
            break
        if candidate is not point:
            try:
                lhs, rhs = claim.evaluate(candidate, dps)
            except POINT_ERRORS as error:
                reraise_internal(error)
                continue
            if compare(lhs, rhs, claim.relation, dps=dps) is not Outcome.VIOLATED:
                continue
        values = {}  # mpmath values certify_point computed, when they are the reference's own
        for digits in precision.doubling(dps, 2 * dps):
            certified, details = search.certify_point(claim, candidate, digits, values)
            if certified:
                break
        if not certified:
            first_note = first_note or f"at {search.format_point(candidate)}: {details.get('note')}"
            continue
        outcome, note = reference(claim, candidate, dps, values if claim.evaluate_is_reference else None)
        if outcome is Outcome.VIOLATED:
            evidence = (f"counterexample certified in ball arithmetic at {2 * digits} digits and "
                        f"confirmed by the mpmath reference ({note})")
            if first_note:
                evidence += f"; an earlier candidate was not confirmed ({first_note})"
            return candidate, {**details, "reference": note}, evidence
        first_note = first_note or (f"at {search.format_point(candidate)}: ball arithmetic certifies a "
                                    f"violation but the mpmath reference does not ({note})")
    return None, None, first_note or "no candidate could be certified"


def escalate_tie(claim, point, dps, deadline=None):
    """Re-examine ``point`` (the closest approach) when its sides are a near-tie at ``dps`` digits:
    ``(result, note)``.

    ``result`` is None when the claim still holds (``note`` then says what the escalation saw,
    or is empty when there was no tie); else *refuted* (a violation at more digits, confirmed by
    :func:`confirm`) or *undecided* (an unconfirmed violation, or a tie that survives every
    precision of :func:`dpproofs.checker.precision.escalation` under a strict relation).
    """
    try:
        lhs, rhs = claim.evaluate(point, dps)
    except POINT_ERRORS as error:
        reraise_internal(error)
        return None, ""
    if compare(lhs, rhs, claim.relation, dps=dps) is not Outcome.UNDECIDED:
        return None, ""
    reached = dps
    for digits in precision.escalation(dps):
        try:
            lhs, rhs = claim.evaluate(point, digits)
        except POINT_ERRORS as error:
            reraise_internal(error)
            break
        outcome = compare(lhs, rhs, claim.relation, dps=digits)
        reached = digits
        if outcome is Outcome.HOLDS:
            return None, f"; the closest point is separated (holds) at {digits} digits"
        if outcome is Outcome.VIOLATED:
            confirmed, sides, evidence = confirm(claim, point, digits, (), deadline)
            if confirmed is not None:
                return _Result("refuted", True, f"a near-tie at {dps} digits is a violation at {digits} "
                               f"digits; {evidence}", point=confirmed, sides=sides), ""
            return _Result("undecided", False, f"violated at {digits} digits at the closest point, not "
                           f"confirmed: {evidence}", point=point), ""
    shown = search.format_point(point)
    if claim.relation in ("<", ">"):
        return _Result("undecided", False, f"the two sides are equal to {reached} digits at {shown}: "
                       "the strict relation cannot be confirmed there"), ""
    return None, (f"; the sides are equal to {reached} digits at {shown}: consistent with the "
                  f"non-strict relation (a violation below 1e-{reached} relative cannot be excluded there)")
