"""Counterexample search and certification for claims (no verdicts: see dpproofs.checker.pipeline).

* :func:`point_strategy`: Hypothesis strategies over a claim's domain: log-uniform on positive
  ranges spanning more than two decades, uniform otherwise, with the boundaries and corners drawn
  often (about one draw in four takes a bound).
* :func:`run`: pinned points, then a Hypothesis search that ``target``s the negated normalised
  margin, then a local refinement from the closest points: a :class:`Found`.
* :func:`certify_point`: a candidate counterexample re-evaluated at twice the digits and in ball
  arithmetic; :func:`certify_box`: branch and bound over boxes in ball arithmetic.
"""

import contextlib
import dataclasses
import math
import random
import time

import hypothesis
import mpmath
from hypothesis import HealthCheck, Phase, Verbosity, assume, given, settings, target
from hypothesis import strategies as st

from dpproofs.checker.decide import Outcome, compare, normalised_margin
from dpproofs.errors import BOX_ERRORS, POINT_ERRORS, DPProofsError, reraise_internal
from dpproofs.checker.precision import to_bits

__all__ = ["point_strategy", "run", "Found", "certify_point", "certify_box", "format_point", "number_text"]


def _float_strategy(v):
    low, high = float(v.low), float(v.high)
    inner_low = math.nextafter(low, math.inf) if v.low_open else low
    inner_high = math.nextafter(high, -math.inf) if v.high_open else high
    bounds = sorted({inner_low, inner_high})
    if v.logarithmic:
        interior = st.floats(math.log(max(inner_low, 1e-300)), math.log(inner_high)).map(
            lambda x: min(max(math.exp(x), inner_low), inner_high)
        )
    else:
        interior = st.floats(inner_low, inner_high, allow_nan=False, allow_infinity=False)
    return st.one_of(interior, interior, interior, st.sampled_from(bounds))


def _integer_strategy(v):
    low = int(math.ceil(v.low)) + (1 if v.low_open and float(v.low).is_integer() else 0)
    high = int(math.floor(v.high)) - (1 if v.high_open and float(v.high).is_integer() else 0)
    if low > high:
        raise DPProofsError(f"variable {v.name!r} has no integer in its range")
    if v.logarithmic and low > 0:
        interior = st.floats(math.log(low), math.log(high + 1)).map(
            lambda x: min(max(int(math.exp(x)), low), high)
        )
    else:
        interior = st.integers(low, high)
    return st.one_of(interior, interior, interior, st.sampled_from(sorted({low, high})))


def point_strategy(variables, extra=None):
    """A strategy for points (dicts name -> value) of the box given by ``variables``."""
    fields = {
        v.name: (_integer_strategy(v) if v.integer else _float_strategy(v)) for v in variables
    }
    fields.update(extra or {})
    return st.fixed_dictionaries(fields)


def format_point(point):
    """A JSON-able, readable copy of a point (floats with repr precision)."""
    out = {}
    for name, value in point.items():
        if isinstance(value, (int, float, str, bool)):
            out[name] = value
        elif isinstance(value, (list, tuple)):
            out[name] = [format_point({"x": x})["x"] for x in value]
        else:
            out[name] = str(value)
    return out


def number_text(value):
    """An mpf as 17 significant digits, anything else as str."""
    return mpmath.nstr(value, 17) if isinstance(value, mpmath.mpf) else str(value)


class _Stop(BaseException):
    """Ends a Hypothesis search at once (its deadline has passed). A BaseException, not an
    Exception, so that Hypothesis neither counts it as a failure nor shrinks or replays it:
    without it, Hypothesis kept calling the test (which returned at once) until ``max_examples``
    calls, 10^7 of them for ``--samples 10000000``, minutes after the deadline."""


class _Violation(Exception):
    def __init__(self, point, lhs, rhs):
        super().__init__("violation")
        self.point, self.lhs, self.rhs = point, lhs, rhs


class _Tracker:
    """Counts evaluations and remembers the points of smallest margin."""

    def __init__(self, claim, dps, keep=5):
        self.claim, self.dps, self.keep = claim, dps, keep
        self.examples = 0
        self.pinned = 0  # of which at pinned points (not part of the examples budget)
        self.violation = None  # the first violation (Hypothesis replays the call that raised it)
        self.best = []  # (margin, point, lhs, rhs), ascending margin
        self.errors = 0
        self.last_error = None

    def evaluate(self, point):
        """Evaluate at ``point``; raise _Violation when the mp comparison says violated.

        Returns the margin, or None when the point is outside the hypotheses or unevaluable.
        """
        claim, dps = self.claim, self.dps
        try:
            if claim.hypotheses_at(point, dps) is not Outcome.HOLDS:
                return None
            lhs, rhs = claim.search_evaluate(point, dps)
        except POINT_ERRORS as error:
            reraise_internal(error)
            self.errors += 1
            self.last_error = f"{type(error).__name__}: {error}"
            return None
        self.examples += 1
        margin = normalised_margin(lhs, rhs, claim.relation)
        self.best.append((margin, dict(point), lhs, rhs))
        self.best.sort(key=lambda item: item[0])
        del self.best[self.keep :]
        if compare(lhs, rhs, claim.relation, dps=dps) is Outcome.VIOLATED:
            self.violation = _Violation(dict(point), lhs, rhs)
            raise self.violation
        return margin


def certify_point(claim, point, dps, values=None):
    """Re-evaluate a candidate counterexample at ``2 dps`` digits and in ball arithmetic.

    Returns ``(certified, details)``: certified is True when the hypotheses certainly hold and the
    relation is certainly violated in ball arithmetic; details holds lhs/rhs texts. A dict
    ``values`` receives ``{2 dps: (lhs, rhs)}``, the mpmath values, for reuse.
    """
    details = {}
    try:
        lhs, rhs = claim.evaluate(point, 2 * dps)
        if values is not None:
            values[2 * dps] = (lhs, rhs)
        details.update(lhs=number_text(lhs), rhs=number_text(rhs))
        if compare(lhs, rhs, claim.relation, dps=2 * dps) is not Outcome.VIOLATED:
            details["note"] = f"not violated at {2 * dps} digits"
            return False, details
    except POINT_ERRORS as error:
        reraise_internal(error)
        details["note"] = f"re-evaluation failed: {error}"
        return False, details
    if not claim.has_ball:
        details["note"] = "no ball evaluation for this claim: violation not certified"
        return False, details
    try:
        prec = to_bits(2 * dps)
        if claim.hypotheses and claim.hypotheses_ball(point, prec) is not Outcome.HOLDS:
            details["note"] = "hypotheses not certified to hold at this point"
            return False, details
        lhs_ball, rhs_ball = claim.evaluate_ball(point, prec)
    except POINT_ERRORS as error:
        reraise_internal(error)
        details["note"] = f"ball evaluation failed: {error}"
        return False, details
    details.update(lhs_ball=str(lhs_ball), rhs_ball=str(rhs_ball))
    if compare(lhs_ball, rhs_ball, claim.relation) is Outcome.VIOLATED:
        return True, details
    details["note"] = "ball arithmetic could not separate the two sides"
    return False, details


def _neighbours(claim, point, scale, rng):
    """Random perturbations of ``point`` within the box, of relative size ``scale``."""
    for _ in range(2 * max(1, len(claim.variables))):
        candidate = dict(point)
        for v in claim.variables:
            if rng.random() < 0.5:
                continue
            x = candidate[v.name]
            if v.integer:
                step = max(1, int(abs(x) * scale))
                x = x + rng.choice((-step, step))
                x = int(min(max(x, math.ceil(v.low)), math.floor(v.high)))
            elif v.logarithmic and x > 0:
                x = x * math.exp(rng.uniform(-scale, scale) * 3)
            else:
                x = x + rng.uniform(-scale, scale) * (float(v.high) - float(v.low))
            if not v.integer:
                x = min(max(x, float(v.low)), float(v.high))
                if v.low_open and x <= v.low:
                    x = math.nextafter(float(v.low), math.inf)
                if v.high_open and x >= v.high:
                    x = math.nextafter(float(v.high), -math.inf)
            candidate[v.name] = x
        if candidate != point:
            yield candidate


def _refine(tracker, budget, seed, deadline):
    """Greedy local search from the closest points, with shrinking step sizes, until the search
    has evaluated ``budget`` points in all (or has tried ``4 budget`` candidates)."""
    if not tracker.claim.variables:
        return
    rng = random.Random(seed)
    starts = [item[1] for item in tracker.best]
    tries = 0

    def spent():
        return tracker.examples - tracker.pinned >= budget or tries >= 4 * budget

    for start in starts:
        current = start
        current_margin = next((m for m, p, *_ in tracker.best if p == start), None)
        scale = 0.1
        while not spent() and scale > 1e-6:
            if deadline is not None and time.perf_counter() > deadline:
                return
            improved = False
            for candidate in _neighbours(tracker.claim, current, scale, rng):
                tries += 1
                margin = tracker.evaluate(candidate)
                if margin is not None and (current_margin is None or margin < current_margin):
                    current, current_margin, improved = candidate, margin, True
                    break
                if spent():
                    break
            if not improved:
                scale /= 4


@dataclasses.dataclass(frozen=True)
class Found:
    """What a search saw: ``examples`` evaluated points (``pinned`` of them at the claim's pinned
    points, the rest drawn: at most the budget), the ``best`` ones (ascending normalised
    margin: ``(margin, point, lhs, rhs)``), unevaluable points, and the first ``violation``
    (``(point, lhs, rhs)`` at ``dps`` digits, not yet certified) or None."""

    examples: int
    best: tuple
    errors: int
    last_error: str | None
    violation: tuple | None
    pinned: int = 0
    stopped: bool = False  # the deadline ended the search before its budget was spent


def run(claim, *, examples=100, seed=0, dps=50, deadline=None):
    """Pinned points, a Hypothesis search, then (without a violation) a local refinement from the
    closest points: a :class:`Found`. The budget is ``max(1, round(examples * claim.cost))``
    evaluated points besides the pinned ones (``claim.cost`` < 1 marks a slow claim): two thirds
    for the Hypothesis search, the rest (and whatever the search did not use) for the
    refinement; fewer only when the domain has fewer points or a deadline stops the work.
    ``deadline`` (a ``time.perf_counter()`` value) stops early; it never changes which points
    are drawn."""
    tracker = _Tracker(claim, dps)
    budget = max(1, int(round(examples * claim.cost)))
    violation = None
    try:
        for point in claim.pinned:
            tracker.evaluate(point)
        tracker.pinned = tracker.examples
        searched = budget - budget // 3 if claim.variables else budget
        violation = _hypothesis_search(claim, tracker, searched, seed, deadline)
        if violation is None:
            _refine(tracker, budget, seed, deadline)
    except _Violation as found:
        violation = found
    return Found(
        examples=tracker.examples,
        best=tuple(tracker.best),
        errors=tracker.errors,
        last_error=tracker.last_error,
        violation=None if violation is None else (violation.point, violation.lhs, violation.rhs),
        pinned=tracker.pinned,
        stopped=deadline is not None and time.perf_counter() > deadline,
    )


@contextlib.contextmanager
def _installation_independent_draws():
    """Hypothesis draws "local constants" found in the source of modules outside site-packages
    (hypothesis.internal.conjecture.providers, since 6.131), and caches them in a ``.hypothesis/``
    folder of the current directory. That makes the points drawn depend on whether dpproofs is an
    editable or a wheel install, on which modules happen to be imported, and writes into the
    user's folder. Our searches switch it off (an internal hook: if it moves, nothing is patched
    and tests/test_reproducible.py notices)."""
    from hypothesis.internal.conjecture import providers

    original = getattr(providers, "_get_local_constants", None)
    empty = getattr(providers, "Constants", None)
    if original is None or empty is None:
        yield
        return
    cache = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)  # allowed constants per draw kind
    cache = cache if isinstance(cache, dict) else None
    saved = dict(cache) if cache is not None else None
    providers._get_local_constants = lambda: empty()
    if cache is not None:
        cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = original
        if cache is not None:
            cache.clear()
            cache.update(saved)


def _hypothesis_search(claim, tracker, draws, seed, deadline):
    strategy = claim.strategy()

    @settings(
        max_examples=draws,
        database=None,
        deadline=None,
        derandomize=False,
        phases=[Phase.explicit, Phase.generate, Phase.target],
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
    )
    @hypothesis.seed(seed)
    @given(strategy)
    def probe(point):
        if tracker.violation is not None:
            raise tracker.violation  # Hypothesis replaying the failing call: the same outcome
        if deadline is not None and time.perf_counter() > deadline:
            raise _Stop
        if tracker.examples - tracker.pinned >= draws:
            return  # the budget is spent (Hypothesis also counts calls the hypotheses rejected)
        margin = tracker.evaluate(point)
        assume(margin is not None)
        target(max(-1e300, min(1e300, -float(margin))), label="negated margin")

    try:
        with _installation_independent_draws():
            probe()
    except _Violation as found:
        return found
    except hypothesis.errors.Unsatisfiable:
        return None
    except _Stop:
        return None
    return None


def _box_point(claim, box):
    from flint import arb

    point = {}
    for v in claim.variables:
        low, high = box[v.name]
        if v.integer:
            point[v.name] = int(low)
        else:
            point[v.name] = arb(low).union(arb(high))
    return point


def certify_box(claim, *, deadline=None, max_boxes=4000, prec=128):
    """Branch and bound in ball arithmetic over the claim's whole domain.

    Each box is evaluated with interval arguments (integer variables are split down to single
    values); a box is discarded when a hypothesis certainly fails on it, accepted when the
    statement certainly holds on it, and split along its widest dimension (in log scale for
    logarithmic variables) otherwise. Returns ``(proved, boxes, note)``.
    """
    if claim.extra or not claim.has_ball:
        return False, 0, "claim has no ball evaluation over boxes"
    stack = [{v.name: (float(v.low), float(v.high)) for v in claim.variables}]
    boxes = 0
    while stack:
        if boxes >= max_boxes:
            return False, boxes, f"{len(stack)} boxes left after {max_boxes}"
        if deadline is not None and time.perf_counter() > deadline:
            return False, boxes, "time budget spent"
        box = stack.pop()
        boxes += 1
        splittable = [
            v for v in claim.variables
            if (v.integer and box[v.name][1] > box[v.name][0]) or (not v.integer and box[v.name][1] > box[v.name][0])
        ]
        integer_wide = [v for v in splittable if v.integer]
        outcome = Outcome.UNDECIDED
        if not integer_wide:
            point = _box_point(claim, box)
            try:
                hyp = claim.hypotheses_ball(point, prec) if claim.hypotheses else Outcome.HOLDS
                if hyp is Outcome.VIOLATED:
                    continue
                lhs, rhs = claim.evaluate_ball(point, prec)
                outcome = compare(lhs, rhs, claim.relation)
            except BOX_ERRORS as error:
                reraise_internal(error)
                outcome = Outcome.UNDECIDED
        if outcome is Outcome.HOLDS:
            continue
        if outcome is Outcome.VIOLATED and not splittable:
            return False, boxes, f"statement fails on the box {box}"
        if not splittable:
            return False, boxes, f"undecided on the degenerate box {box}"
        v = _widest(splittable, box)
        low, high = box[v.name]
        if v.integer:
            middle = (int(low) + int(high)) // 2
            halves = ((low, middle), (middle + 1, high))
        else:
            middle = math.sqrt(low * high) if v.logarithmic and low > 0 else (low + high) / 2
            if not low < middle < high:
                return False, boxes, f"cannot split {v.name} further at {box}"
            halves = ((low, middle), (middle, high))
        for half in halves:
            stack.append({**box, v.name: half})
    return True, boxes, "every box decided"


def _widest(variables, box):
    def width(v):
        low, high = box[v.name]
        if v.integer:
            return math.inf if high > low else 0
        if v.logarithmic and low > 0:
            return math.log(high / low)
        return (high - low) / max(1e-300, float(v.high) - float(v.low)) * 10

    return max(variables, key=width)
