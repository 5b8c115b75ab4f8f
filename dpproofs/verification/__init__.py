"""Check a user's inequality over DP quantities: ``verify("claim", where=[...])`` -> Verdict.

A claim is **one relation** (``<=``, ``<``, ``>=``, ``>``) between two expressions in sympy
syntax; ``where`` holds conditions on its free variables (chained comparisons allowed:
``0 < q < 1``, ``1 <= sigma <= 20``, ``q < 1/(16*sigma)``, ``lam <= sigma**2*log(1/(q*sigma))``);
``integers`` names the variables that take integer values. ``^`` means ``**``; decimal numbers are
exact (``0.1`` is 1/10).

Vocabulary (sensitivity 1; natural logarithms; add/remove neighbours). Each function is evaluated
by the shared evaluator (mpmath reference in :mod:`dpproofs.math.precise`, arb enclosures in
:mod:`dpproofs.math.ball`). A call whose arguments can leave the stated domain is an error
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
``log(x)``, ``log(x, b)``, ``exp(x)``, ``sqrt(x)``, ``erfc(x)``, ``tanh(x)``, ``sinh(x)``, ``cosh(x)``, ``binomial(n, k)``, ``Min(...)``, ``Max(...)``, ``Abs(x)``
    Elementary functions. Domain: log needs x > 0 (and a base b > 0, b != 1), sqrt x >= 0, a
    negative power a non-zero base, a power whose exponent is not an integer a base >= 0; the
    others every real. Constants: ``pi``, ``E``. An argument of exp beyond 2^40 (or a power that
    large) is an overflow: that point is unevaluable, never a hang.

Domain: every free variable must be bounded below and above by the conditions, directly
(``0 < q < 1``) or through other bounded variables (``q < 1/(16*sigma)`` with ``sigma`` bounded:
a constant box is derived by interval propagation in ball arithmetic, to a fixed point). A
condition on a single variable that is linear in it with a constant coefficient becomes part of
the box (strict bounds honoured; decimals are exact: a bound that is not a float is rounded
outward and also kept as a hypothesis, so a verdict always covers the domain exactly as
written); every other condition stays a hypothesis of the claim (points that violate it are not
drawn). A variable whose bounds coincide is that exact number, substituted; a domain that holds
no float (``1 < alpha <= 1 + 10**(-20)``) is decided at exact points and proved on exact boxes.
Unbounded or unknown names, syntax errors, unknown functions, calls outside a function's domain
and empty domains raise :class:`~dpproofs.InvalidArgument` naming the culprit: never a vacuous
"holds".

Verdicts (see :mod:`dpproofs.checker.claims`): **proved** (ball arithmetic on the whole domain),
**holds** (no counterexample in the examples tried; the closest approach is reported),
**refuted** (a counterexample whose violation is certified in ball arithmetic *and* confirmed by
the mpmath reference, independently of the ball path, at twice the precision or more; or an
exact tie under a strict relation, decided in exact arithmetic),
**undecided** (the numbers could not separate the sides, or the two evaluators disagree).

The work, in order:

1. **Exact corners** (:mod:`.exact`): the claim is decided at the corners of the domain as typed,
   with exact rational coordinates (``x = 1/10`` for ``x <= 0.1``), and at exact points just
   inside its open bounds (``q = 1 - 2^-64`` for ``q < 1``): ball arithmetic with the exact
   coordinates at doubling precision, and where the sides agree to every bit, exact arithmetic
   (sympy on the closed forms of the vocabulary functions that have one, and on the forms that
   hold at exact points: the sampled Gaussian at q = 0 and q = 1, ``delta_composed_pure`` at an
   integer n, ``log_moment`` as ``lam rdp_sampled_gaussian(lam + 1, ...)``). A counterexample's
   coordinates are printed exactly (``"1/10"``).
   Then an **early proof** (the proof of step 3 with at most ``EARLY_PROOF_BOXES`` = 400 boxes):
   a claim that closes on so few boxes is *proved* before any search (``examples`` 0); a false
   claim cannot close and goes on to the search.
2. **Search**: the pinned float corners and points on the edges of the coupled conditions
   (:mod:`.boundary`: each condition solved to equality for one variable, the others at the box
   corners and at seeded draws), a Hypothesis search steered by the margin (the bounds drawn
   often) and a local refinement from the closest approaches.
3. **Proof** (:mod:`.prove`): subdivision of the exact domain into boxes with exact corners,
   each first narrowed by the hypotheses (:mod:`.contract`: HC4-style contraction, every
   hypothesis solved for each variable it isolates, so a coupled bound such as
   ``alpha <= 2*sigma**2`` narrows boxes instead of rejecting points), then closed by interval
   evaluation (monotone vocabulary calls enclosed from two corners by the monotonicity facts of
   :mod:`.facts`, each with its source; ``f(A) - f(B)`` closed at once when ``A`` lies beyond
   ``B`` in the direction the facts make ``f`` grow), by monotone composition through the facts
   (a variable fixed at an end of its range), by the mean-value form with ball derivatives (sympy
   differentiates the closed form of the margin), or reduced to a face by monotonicity (the sign
   of a partial derivative, certified on the box or proved by covering the box for the
   derivative); split along the variable contributing the most width. A proof that does not
   close names the part of the domain it left (the hull of the boxes left, and the faces of the
   domain they lie along).

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
finite enclosures stay unseparated up to :data:`SEARCH_MAX_BITS` bits is counted as
unevaluable (mpmath at fixed precision would lose the same digits); where ball arithmetic fails,
mpmath is used (at most ``FALLBACK_EVALUATIONS`` times per search), accepted only when ``dps``
and ``2 dps`` digits agree. Every budget counts work (examples, corners, bits, boxes: at most
:data:`~dpproofs.verification.prove.MAX_PROOF_BOXES`), never seconds, so the same claim and seed
give the same JSON on any machine and under any load (the ``seconds`` field aside);
:data:`TIME_BUDGET` (60 s by default, the ``time_budget`` argument) is a safety stop, read also
inside long evaluations (the arb and mpmath integrals of the sampled Gaussian, through
:mod:`dpproofs.math.stop`), and a verdict it cut short says so.
"""

from dpproofs.checker.precision import MAX_BALL_BITS
from dpproofs.checker.precision import MAX_ESCALATION_DPS as MAX_REFERENCE_DPS
from dpproofs.verification.domain import Problem
from dpproofs.verification.evaluation import CERTIFY_MAX_BITS, FUNCTION_DOMAINS, SEARCH_MAX_BITS
from dpproofs.verification.frontend import TIME_BUDGET, Verdict, build_claim, verify
from dpproofs.verification.parse import parse_claim, parse_condition

__all__ = [
    "verify",
    "Verdict",
    "parse_claim",
    "parse_condition",
    "build_claim",
    "Problem",
    "FUNCTION_DOMAINS",
    "TIME_BUDGET",
    "MAX_REFERENCE_DPS",
    "MAX_BALL_BITS",
    "SEARCH_MAX_BITS",
    "CERTIFY_MAX_BITS",
]
