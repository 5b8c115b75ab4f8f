"""A proof of a user's claim on its whole domain, in ball arithmetic: :func:`prove`.

The claim ``lhs R rhs`` is the statement ``g >= 0`` (``g > 0`` for a strict relation) with the
margin ``g = rhs - lhs`` (``lhs - rhs`` for ``>=``/``>``). The domain as typed is covered by
boxes with exact rational corners (an exact bound is used as it is; an irrational one or a
propagated one is replaced by the float box bound, which lies outside it: the boxes only ever
cover more than the domain, never less). A box is

* **narrowed** by the hypotheses (:mod:`.contract`), and **discarded** when no point of it can
  satisfy them;
* **closed** when the claim is ``c f(A) - c f(B) >= 0`` with ``A`` beyond ``B`` in the direction
  the monotonicity facts of :mod:`.facts` make ``f`` grow (non-strict relations only);
* **reduced** to a face when the rules of monotone composition and the facts show the margin
  monotone in a variable;
* **closed** when the interval enclosure of ``g`` over it is certainly ``>= 0`` (``> 0``) (the
  better of the vocabulary's ball evaluation, the closed form's, and the facts' corner enclosure);
* **closed** by the mean-value form ``g(c) + sum_i g_i(X) (X_i - c_i)`` (``c`` the centre,
  ``g_i`` the partial derivatives that sympy computes from the closed forms of
  :data:`dpproofs.verification.exact.EXACT_FORMS`, enclosed over the box);
* **reduced** in dimension when a partial derivative has a certain sign on it: ``g`` is then
  monotone in that variable and its minimum over the box lies on one face, which is checked
  instead (an exact endpoint is a radius-0 ball: ``x <= 1`` on ``0 < x < 1`` closes at ``x = 1``;
  for a strict relation a face on an *open* bound of the domain needs only ``g >= 0`` there when
  ``g`` strictly increases away from it, since that face is not part of the domain); never in a
  variable of a hypothesis still undecided on the box, whose face could leave the domain (the
  box is split and narrowed instead);
* otherwise **split** in two along the variable that contributes the most width (the largest
  ``|g_i(X)| width_i`` when the derivatives are known, else the widest relative range, in log
  scale for logarithmic variables; an integer variable whose calls need integer arguments first).

Budgets count work: at most :data:`MAX_PROOF_BOXES` boxes and :data:`MAX_SPLIT_DEPTH` halvings of
one variable; a deadline (the time budget's safety stop) may end the proof early, saying so. When
the proof does not close, the boxes left are summarised (their hull, and which faces of the domain
they touch): that is the part of the domain left unproved.
"""

import collections
import dataclasses
import fractions
import math
import time

import sympy
from flint import arb

from dpproofs.checker import arithmetic
from dpproofs.checker import vocabulary
from dpproofs.checker.decide import Outcome, compare
from dpproofs.errors import BOX_ERRORS, reraise_internal
from dpproofs.math.ball import precision as ball_precision
from dpproofs.math.ball import to_arb
from dpproofs.verification import exact, facts
from dpproofs.verification.contract import Contractor

__all__ = ["MAX_PROOF_BOXES", "MAX_SPLIT_DEPTH", "PROOF_BITS", "Proof", "prove"]

#: Most boxes one proof examines (each costs one to ``2 + dimension`` ball evaluations).
MAX_PROOF_BOXES = 6000
#: Most halvings of one variable's range (a box narrower than 2^-60 of the range is left unproved).
MAX_SPLIT_DEPTH = 60
#: A box on a face of the domain split this many times in one variable gets a proof of the sign of
#: the derivative in it (:meth:`_Prover.monotone_by_proof`), with at most SUBPROOF_BOXES boxes, for
#: derivatives up to order MAX_DERIVATIVE_ORDER.
SUBPROOF_AFTER = 8
SUBPROOF_BOXES = 40
MAX_DERIVATIVE_ORDER = 3
#: An integer variable with fewer values than this is split down to single values before any
#: evaluation (the vocabulary's integer-order formulas are exact and cheap; a range of orders
#: would go through integrals).
SMALL_INTEGER_RANGE = 64
#: Ball precision (bits) of the box evaluations.
PROOF_BITS = 128

#: A continuous variable is split by the derivatives' choice at most this many more times than the
#: least split one of the box; beyond, the widest relative range is split.
MAX_DEPTH_LEAD = 2

#: Most undecidable boxes kept before the proof stops (their hull is the part left unproved).
MAX_LEFT_BOXES = 200

_LEFT = object()


@dataclasses.dataclass(frozen=True)
class Proof:
    """What :func:`prove` did: ``proved``, ``boxes`` examined, how they were closed
    (``closed``: counts by ``interval``, ``mean value``, ``monotone``, ``discarded``), a ``note``
    (why it stopped, and the part left unproved), whether the deadline ``stopped`` it, and what
    else it ``assumes``."""

    proved: bool
    boxes: int
    closed: dict
    note: str
    stopped: bool = False
    #: results from the literature the proof relies on beyond the monotonicity facts (stated in
    #: the verdict's evidence)
    assumes: tuple = ()


def _margin(claim):
    if claim.relation in ("<=", "<"):
        return claim.rhs - claim.lhs
    return claim.lhs - claim.rhs


def _derivatives_of(form, variables):
    """``{name: sympy derivative}`` of ``form`` in each continuous variable whose derivative the
    ball evaluator can enclose (Max, Min and Abs have none: their derivatives are not functions
    the evaluator knows)."""
    if form is None:
        return {}
    found = {}
    for v in variables:
        if v.integer:
            continue
        symbol = next((s for s in form.free_symbols if s.name == v.name), None)
        if symbol is None:
            found[v.name] = sympy.Integer(0)
            continue
        try:
            derivative = sympy.diff(form, symbol)
        except (ValueError, TypeError, NotImplementedError) as error:  # pragma: no cover - sympy oddities
            reraise_internal(error)
            continue
        if derivative.has(sympy.Derivative, sympy.Subs) or not arithmetic.ball_supported(derivative):
            continue
        found[v.name] = derivative
    return found


def _ball_of(low, high, prec):
    with ball_precision(prec):
        if low == high:
            return to_arb(low)
        return to_arb(low).union(to_arb(high))


@dataclasses.dataclass
class _Box:
    ranges: dict  # name -> (low, high) exact (int / Fraction)
    strict: bool  # whether g > 0 is needed (else g >= 0)
    depth: dict  # name -> halvings so far
    #: a face standing for a larger box (monotonicity): its points may lie outside the hypotheses
    #: while the box it stands for does not, so no hypothesis may discard it
    proxy: bool = False
    #: halvings still to make without evaluating (after an evaluation found no finite enclosure)
    skip: int = 0
    #: names of the variables of the hypotheses not certainly true on the box (None: not known)
    live: frozenset = None


class _Target:
    """An expression to prove ``>= 0`` (``> 0``) on boxes: the claim's margin (level 0) or a
    partial derivative of its closed form (level >= 1, to prove a monotonicity)."""

    def __init__(self, expression, form, variables, claim=None, level=0, direct=False):
        self.expression, self.form, self.claim, self.level = expression, form, claim, level
        #: the expression is a rewriting of the claim's margin (facts.add_direction_at_integer_orders):
        #: enclosed by itself, not by the claim's evaluator
        self.direct = direct
        self.variables = variables
        self.derivatives = _derivatives_of(form, variables)
        self.uses_facts = any(getattr(node.func, "__name__", None) in facts.FACTS
                              for node in sympy.preorder_traversal(expression) if isinstance(node, sympy.Function))
        self._children = {}

    def child(self, name, sign):
        """The target ``sign * d expression / d name`` (its derivatives computed once)."""
        key = (name, sign)
        if key not in self._children:
            derivative = sign * self.derivatives[name]
            self._children[key] = _Target(derivative, derivative, self.variables, level=self.level + 1)
        return self._children[key]

    def enclose(self, point, prec):
        """An enclosure of the expression over ``point`` (a box). At level 0: the vocabulary's
        ball evaluation, or, where it has none (a face on an open bound of a function's domain,
        such as alpha = 1 for ``rdp_gaussian``), the closed form's, the continuous extension
        there (a finite enclosure of an elementary expression over a closed box means it is
        defined and continuous on it); the one with the higher lower bound when both exist."""
        found = []
        unsupported = False  # an integer argument given a range, which only the facts enclose
        if self.claim is not None and self.uses_facts:
            try:  # calls enclosed from their corners by monotonicity facts (facts.py), first:
                # a positive enclosure spares the vocabulary's evaluation over the box (an
                # integral for the sampled Gaussian)
                value = facts.enclose(self.expression, point, prec)
                if value.is_finite():
                    if value > 0:
                        return value
                    found.append(value)
            except vocabulary.UnsupportedExpression:
                pass
            except BOX_ERRORS as error:
                reraise_internal(error)
        if self.claim is not None:
            try:
                if self.direct:
                    value = arithmetic.evaluate_ball(self.expression, point, prec)
                else:
                    lhs, rhs = self.claim.evaluate_ball(point, prec)
                    value = rhs - lhs if self.claim.relation in ("<=", "<") else lhs - rhs
                if value.is_finite():
                    found.append(value)
            except vocabulary.UnsupportedExpression:
                unsupported = self.form is None
            except BOX_ERRORS as error:
                reraise_internal(error)
        if self.form is not None:
            try:
                value = arithmetic.evaluate_ball(self.form, point, prec)
                if value.is_finite():
                    found.append(value)
            except BOX_ERRORS as error:
                reraise_internal(error)
        if not found and unsupported:
            raise vocabulary.UnsupportedExpression("an integer argument is given a range")
        if not found:
            raise ValueError("no finite enclosure here")
        return max(found, key=lambda ball: ball.lower())

    @property
    def hypotheses(self):
        return self.claim.hypotheses if self.claim is not None else ()


class _Prover:
    def __init__(self, claim, problem, max_boxes, deadline, prec):
        self.claim, self.max_boxes, self.deadline, self.prec = claim, max_boxes, deadline, prec
        self.margin = _margin(claim)
        # at integer orders the sampled Gaussian's RDP is its add direction, an exact finite sum
        # (facts.ADD_DIRECTION_SOURCE); the remove direction's integral is never evaluated on a box
        expression = facts.add_direction_at_integer_orders(self.margin, {v.name for v in claim.variables if v.integer})
        self.add_direction = expression != self.margin
        self.assumes = ((f"the sampled Gaussian at integer orders taken as its add direction "
                         f"({facts.ADD_DIRECTION_SOURCE})",) if self.add_direction else ())
        self.target = _Target(expression, exact.exact_form(expression), claim.variables, claim=claim,
                              direct=self.add_direction)
        self.variables = {v.name: v for v in claim.variables}
        self.domain = {}  # name -> (low, high, low_open, high_open): the first box's bounds
        for v in claim.variables:
            self.domain[v.name] = _initial_range(v, problem.bounds.get(v.name))
        self.closed = {"interval": 0, "mean value": 0, "monotone": 0, "derivative proofs": 0, "discarded": 0}
        self.contractor = Contractor(claim.hypotheses, claim.variables)
        self.boxes = 0

    def point(self, ranges):
        return {name: (low if low == high and isinstance(low, int) else _ball_of(low, high, self.prec))
                for name, (low, high) in ranges.items()}

    def certainly(self, ball, strict):
        return compare(ball, arb(0), ">" if strict else ">=") is Outcome.HOLDS

    def run(self):
        first = {name: (low, high) for name, (low, high, _, _) in self.domain.items()}
        box = _Box(first, self.claim.relation in ("<", ">"), {name: 0 for name in first})
        left, stack, why = self.cover(self.target, box, self.max_boxes)
        if why is not None:
            return self._unfinished(stack + left, why, stopped=why.startswith("the time budget"))
        if left:
            return self._unfinished(left, "some boxes cannot be decided")
        return Proof(True, self.boxes, dict(self.closed), "every box decided", assumes=self.assumes)

    def cover(self, target, box, budget):
        """Examine ``box`` and its pieces breadth first for ``target``: ``(left, stack, why)``,
        the boxes given up, the boxes not examined and why the work stopped (None: finished)."""
        stack = collections.deque([box])
        left = []  # boxes given up (narrower than MAX_SPLIT_DEPTH halvings allow, or a point)
        spent = 0
        while stack:
            if self.boxes >= self.max_boxes:
                return left, list(stack), f"the budget of {self.max_boxes} boxes is spent"
            if spent >= budget:
                return left, list(stack), f"the budget of {budget} boxes is spent"
            if self.deadline is not None and time.perf_counter() > self.deadline:
                return left, list(stack), "the time budget stopped the proof"
            box = stack.popleft()  # breadth first: the budget is spread over the whole domain
            self.boxes += 1
            spent += 1
            result = self.examine(target, box)
            if result is None:
                continue
            if result is _LEFT:
                left.append(box)
                if target.level > 0 or len(left) > MAX_LEFT_BOXES:
                    return left, list(stack), f"more than {MAX_LEFT_BOXES} boxes cannot be decided"
                continue
            stack.extend(result)
        return left, [], None

    def examine(self, target, box):
        """None when the box is closed; a list of boxes to examine instead; :data:`_LEFT` when it
        cannot be decided (a point, or narrower than :data:`MAX_SPLIT_DEPTH` halvings)."""
        ranges = box.ranges
        if all(low == high for low, high in ranges.values()):
            return self.at_point(target, box)
        if any(self.variables[name].integer and 0 < high - low < SMALL_INTEGER_RANGE for name, (low, high) in ranges.items()):
            return self.split(box, {}, True)  # a few integer values: one at a time (exact orders are cheap)
        if box.skip:
            return self.split(box, {}, False, box.skip - 1)
        try:
            point = self.point(ranges)
        except BOX_ERRORS as error:
            reraise_internal(error)
            point = None
        if point is not None and target.hypotheses and not box.proxy:
            # narrow the box to the part that can satisfy the hypotheses (contract.py); a box
            # none of whose points can is discarded
            try:
                narrowed, live = self.contractor.contract(ranges, self.point, self.prec)
            except BOX_ERRORS as error:
                reraise_internal(error)
                narrowed, live = ranges, None
            if narrowed is None:
                self.closed["discarded"] += 1
                return None
            if narrowed != ranges:
                self.closed["contracted"] = self.closed.get("contracted", 0) + 1
                box = dataclasses.replace(box, ranges=narrowed)
                ranges = narrowed
                if all(low == high for low, high in ranges.values()):
                    return self.at_point(target, box)
                point = self.point(ranges)
            box.live = live
        if point is not None and target.uses_facts and not box.strict:
            try:  # f(A) - f(B) with A beyond B in the direction the facts make f grow
                if facts.dominates(target.expression, point, self.prec):
                    self.closed["facts"] = self.closed.get("facts", 0) + 1
                    return None
            except BOX_ERRORS as error:
                reraise_internal(error)
        natural = None
        needs_integer_split = False
        if point is not None:
            try:
                natural = target.enclose(point, self.prec)
            except vocabulary.UnsupportedExpression:
                needs_integer_split = True  # an integer argument given a range
            except BOX_ERRORS as error:
                reraise_internal(error)
                natural = None
        if natural is not None and self.certainly(natural, box.strict):
            self.closed["interval"] += 1
            return None
        if natural is None and not needs_integer_split and target.form is None:
            # no finite enclosure on so wide a box, for a function without a closed form (such
            # failures are slow, e.g. the sampled Gaussian's series over a wide sigma range):
            # halve every variable twice before evaluating again
            return self.split(box, {}, False, 2 * len(ranges) - 1)
        if point is not None and target.uses_facts:
            reduced = self.monotone_by_facts(target, box, point)
            if reduced is not None:
                self.closed["monotone"] += 1
                return [reduced]
        gradient = {}
        if point is not None and not needs_integer_split:
            gradient = self.gradient(target, box, point)
            reduced = self.monotone(target, box, gradient)
            if reduced is not None:
                self.closed["monotone"] += 1
                return [reduced]
            if gradient and self.mean_value(target, box, gradient):
                self.closed["mean value"] += 1
                return None
            reduced = self.monotone_by_proof(target, box, gradient)
            if reduced is not None:
                self.closed["derivative proofs"] += 1
                return [reduced]
        return self.split(box, gradient, needs_integer_split)

    def at_point(self, target, box):
        """A box that is one point (a corner reached by monotonicity): decided as the exact stage
        decides (ball arithmetic with exact coordinates, a tie by sympy on the closed forms)."""
        point = {name: low for name, (low, _) in box.ranges.items()}
        try:
            if target.hypotheses and not box.proxy and not exact.hypotheses_hold(target.hypotheses, point):
                if self.claim.hypotheses_ball(self.point(box.ranges), self.prec) is Outcome.VIOLATED:
                    self.closed["discarded"] += 1
                    return None
            outcome = exact.relation_outcome(target.expression, sympy.Integer(0), ">" if box.strict else ">=", point)
        except BOX_ERRORS as error:
            reraise_internal(error)
            return _LEFT
        if outcome is Outcome.HOLDS:
            self.closed["interval"] += 1
            return None
        return _LEFT

    def gradient(self, target, box, point):
        found = {}
        for name, derivative in target.derivatives.items():
            low, high = box.ranges[name]
            if low == high:
                continue
            try:
                value = arithmetic.evaluate_ball(derivative, point, self.prec)
            except BOX_ERRORS as error:
                reraise_internal(error)
                continue
            if value.is_finite():
                found[name] = value
        return found

    def _face(self, box, name, increasing, strictly):
        """The face of ``box`` where the minimum lies when the target is monotone in ``name``."""
        low, high = box.ranges[name]
        end = low if increasing else high
        open_end = self._open(name, "low" if increasing else "high", end)
        strict = box.strict and not (open_end and strictly)
        # no live hypothesis involves ``name``: every point of the domain in the box has its
        # image on the face in the domain too, so the face keeps the hypotheses (not a proxy)
        return _Box({**box.ranges, name: (end, end)}, strict, dict(box.depth), proxy=box.proxy)

    def monotone(self, target, box, gradient):
        """The face of the box where the minimum lies, when a derivative has a certain sign.

        Not in a variable of a hypothesis still undecided on the box (unless the box is already a
        proxy, whose every point must satisfy the claim): its face could lie outside the domain
        where the claim need not hold; the box is split instead, and contraction narrows the
        pieces to the domain."""
        for name, value in gradient.items():
            if not box.proxy and target.hypotheses and (box.live is None or name in box.live):
                continue
            if value.lower() >= 0:
                return self._face(box, name, True, value.lower() > 0)
            if value.upper() <= 0:
                return self._face(box, name, False, value.upper() < 0)
        return None

    def monotone_by_facts(self, target, box, point):
        """The face of the box where the minimum lies, when the rules of monotone composition
        and the vocabulary's monotonicity facts (facts.py) show the target monotone in a variable
        (``f(x + d) - f(x)`` with ``f`` nondecreasing is nondecreasing in ``d``)."""
        for name in sorted(box.ranges):
            low, high = box.ranges[name]
            if low == high:
                continue
            if not box.proxy and target.hypotheses and (box.live is None or name in box.live):
                continue  # its face could leave the domain (see monotone)
            try:
                way = facts.direction(target.expression, name, point, self.prec)
            except BOX_ERRORS as error:
                reraise_internal(error)
                continue
            if way:
                return self._face(box, name, way > 0, False)
        return None

    def monotone_by_proof(self, target, box, gradient):
        """A monotonicity that interval evaluation of the derivative cannot see, proved by covering
        the box for the derivative itself (a tie at a face: ``log(1 + x) <= x`` at x = 0, where
        ``1 - 1/(1 + x)`` is 0 and its enclosures on ``[0, w]`` dip below 0 by rounding). Tried
        on boxes on a face of the domain, split :data:`SUBPROOF_AFTER` times in that variable,
        up to derivatives of order :data:`MAX_DERIVATIVE_ORDER`, each with
        :data:`SUBPROOF_BOXES` boxes."""
        if target.level + 1 > MAX_DERIVATIVE_ORDER:
            return None
        for name in sorted(gradient):
            low, high = box.ranges[name]
            d_low, d_high, _, _ = self.domain[name]
            if box.depth[name] < SUBPROOF_AFTER or not (low == d_low or high == d_high):
                continue
            if not box.proxy and target.hypotheses and (box.live is None or name in box.live):
                continue  # its face could leave the domain (see monotone)
            increasing = low == d_low  # the face the box touches is where the minimum should be
            child = target.child(name, 1 if increasing else -1)
            sub = _Box(dict(box.ranges), False, dict(box.depth), proxy=True)
            left, stack, why = self.cover(child, sub, SUBPROOF_BOXES)
            if why is None and not left:
                return self._face(box, name, increasing, False)
        return None

    def _open(self, name, side, value):
        low, high, low_open, high_open = self.domain[name]
        return (low_open and value == low) if side == "low" else (high_open and value == high)

    def mean_value(self, target, box, gradient):
        centre = {}
        for name, (low, high) in box.ranges.items():
            centre[name] = low if low == high else _centre(low, high, self.variables[name])
        if any(box.ranges[name][0] != box.ranges[name][1] and name not in gradient for name in box.ranges
               if not self.variables[name].integer):
            return False
        if any(self.variables[name].integer and low != high for name, (low, high) in box.ranges.items()):
            return False
        try:
            value = target.enclose({name: (c if isinstance(c, int) else to_arb(c)) for name, c in centre.items()},
                                   self.prec)
        except BOX_ERRORS as error:
            reraise_internal(error)
            return False
        with ball_precision(self.prec):
            for name, slope in gradient.items():
                low, high = box.ranges[name]
                offset = _ball_of(low - centre[name], high - centre[name], self.prec)
                value = value + slope * offset
        return value.is_finite() and self.certainly(value, box.strict)

    def split(self, box, gradient, integer_first, skip=0):
        candidates = [name for name, (low, high) in box.ranges.items() if low != high]
        if integer_first:
            integers = [name for name in candidates if self.variables[name].integer]
            candidates = integers or candidates
        if not candidates:
            return _LEFT
        continuous = [n for n in candidates if not self.variables[n].integer]

        def score(name):
            low, high = box.ranges[name]
            v = self.variables[name]
            if v.integer:
                return math.inf if integer_first else float(high - low) / max(1.0, float(v.high - v.low))
            if continuous and all(n in gradient for n in continuous):
                return float(abs(gradient[name]).upper()) * float(high - low)
            return _relative_width(low, high, self.domain[name], v.logarithmic)

        name = max(sorted(candidates), key=score)
        if continuous and name in continuous and box.depth[name] - min(box.depth[n] for n in continuous) > MAX_DEPTH_LEAD:
            # the derivatives' enclosures over a wide box can be so wide that one variable always
            # scores highest while the others are never split (the Gaussian conversion over alpha,
            # sigma and delta split alpha 9 times and delta never): the widest relative range then
            name = max(sorted(continuous), key=lambda n: _relative_width(*box.ranges[n], self.domain[n],
                                                                       self.variables[n].logarithmic))
        low, high = box.ranges[name]
        if box.depth[name] >= MAX_SPLIT_DEPTH:
            return _LEFT
        if self.variables[name].integer:
            middle = (low + high) // 2
            halves = ((low, middle), (middle + 1, high))
        else:
            middle = _centre(low, high, self.variables[name])
            halves = ((low, middle), (middle, high))
        depth = {**box.depth, name: box.depth[name] + 1}
        return [_Box({**box.ranges, name: half}, box.strict, depth, box.proxy, skip) for half in halves]

    def _unfinished(self, stack, why, stopped=False):
        names = sorted(self.domain)
        hull = {}
        for name in names:
            lows = [b.ranges[name][0] for b in stack]
            highs = [b.ranges[name][1] for b in stack]
            hull[name] = (min(lows), max(highs))
        faces = []
        for name in names:
            low, high = hull[name]
            d_low, d_high, _, _ = self.domain[name]
            if d_high > d_low and (high - low) <= (d_high - d_low) * fractions.Fraction(1, 1000):
                if low == d_low:
                    faces.append(f"{name} = {_number(d_low)}")
                elif high == d_high:
                    faces.append(f"{name} = {_number(d_high)}")
        where = f"; unproved: {len(stack)} boxes within {_ranges_text(hull)}"
        if faces:
            where += " (along the face " + " and ".join(faces) + " of the domain)"
        return Proof(False, self.boxes, dict(self.closed), why + where, stopped)


def _initial_range(v, bounds):
    """``(low, high, low_open, high_open)`` exact for one variable: the exact bounds where they are
    rational, else the float box bounds (outside the domain, hence open)."""
    if v.integer:
        return int(v.low), int(v.high), False, False
    low, low_open = fractions.Fraction(v.low), v.low_open
    high, high_open = fractions.Fraction(v.high), v.high_open
    if bounds is not None:
        exact_low, low_strict, exact_high, high_strict = bounds
        if exact_low is not None and exact_low.is_Rational and fractions.Fraction(int(exact_low.p), int(exact_low.q)) >= low:
            low, low_open = fractions.Fraction(int(exact_low.p), int(exact_low.q)), low_strict
        elif exact_low is not None and not (exact_low.is_Rational and fractions.Fraction(int(exact_low.p), int(exact_low.q)) == low):
            low_open = True  # a float below an irrational bound: outside the domain
        if exact_high is not None and exact_high.is_Rational and fractions.Fraction(int(exact_high.p), int(exact_high.q)) <= high:
            high, high_open = fractions.Fraction(int(exact_high.p), int(exact_high.q)), high_strict
        elif exact_high is not None:
            high_open = True
    return low, high, low_open, high_open


def _centre(low, high, v):
    if v.logarithmic and low > 0 and high / low > 4:
        middle = fractions.Fraction(math.sqrt(float(low) * float(high)))
        if low < middle < high:
            return middle
    return (low + high) / 2


def _relative_width(low, high, domain, logarithmic):
    d_low, d_high = domain[0], domain[1]
    if logarithmic and low > 0 and d_low > 0:
        return math.log(float(high) / float(low)) / max(1e-300, math.log(float(d_high) / float(d_low)))
    return float(high - low) / max(1e-300, float(d_high - d_low))


def _number(value):
    if isinstance(value, fractions.Fraction) and value.denominator != 1:
        as_float = float(value)
        return repr(as_float) if fractions.Fraction(as_float) == value else f"{value.numerator}/{value.denominator}"
    return str(int(value)) if value == int(value) else repr(float(value))


def _ranges_text(ranges):
    return ", ".join(f"{name} in [{_number(low)}, {_number(high)}]" for name, (low, high) in sorted(ranges.items()))


def prove(claim, problem, *, max_boxes=MAX_PROOF_BOXES, deadline=None, prec=PROOF_BITS):
    """Try to prove ``claim`` on the whole domain of ``problem``: a :class:`Proof`."""
    if not claim.variables:
        return Proof(False, 0, {}, "no variables: decided at the point")
    return _Prover(claim, problem, max_boxes, deadline, prec).run()
