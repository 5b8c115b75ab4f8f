"""The closed-form exact quantities, each written once against an arithmetic context.

A *context* ``ctx`` gives the elementary functions and the few decisions a formula needs; it is
an mpmath context at ``dps`` digits (:class:`dpproofs.math.precise.Mp`, values correct to about
``dps`` digits) or an arb context at ``prec`` bits (:class:`dpproofs.math.ball.Arb`, enclosures).
The public entry points are ``precise.f(..., dps=)`` and ``ball.f(..., prec=)``, made from these
by :func:`dpproofs.math.precise.entry` and :func:`dpproofs.math.ball.entry` (content packages
write their own formulas the same way). Nothing here imports
mpmath or flint. The float64 :mod:`dpproofs.math.fast` is a different algorithm and stays apart.

A context provides: ``exp log log1p expm1 erfc sqrt tanh log10``; ``fsum(iterable)``,
``max(*values)``; ``binomial(n, k)`` and ``log_binomial(n, k)`` (integers); ``integer(x)`` (the int x is, else
ValueError); ``zero`` and ``two``; ``is_exactly(x, value)`` (x is
that number exactly); ``certainly_nonnegative(x)``; ``positive_part(x)``; ``sign(x)`` (+1 or -1,
raising NumericalError when a ball straddles 0); ``positive_difference(terms)`` (``a - b`` of
``terms() = (a, b)``, known positive: mpmath redoes it at higher precision until it keeps its
digits, arb clips the ball at 0); ``extra_digits(count)`` (a context manager raising the working
precision by ``count()`` digits, against a cancellation: mpmath needs them for its digits, arb
balls only to stay tight);
``log_a(alpha, q, sigma)`` and ``log_b(alpha, q, sigma)`` of the sampled Gaussian (their two
algorithms differ: mpmath quadrature, arb rigorous integral).

Conventions: sensitivity 1; natural logarithms; neighbours by add/remove of one record.
"""

#: The quantities below that :mod:`dpproofs.math.precise` and :mod:`dpproofs.math.ball` export under
#: the same names (``precise.f(*args, dps=)``, ``ball.f(*args, prec=)``).
CLOSED_FORMS = (
    "rdp_gaussian", "rdp_laplace", "rdp_randomized_response", "rdp_kary_randomized_response",
    "rdp_kary_randomized_response_special", "rdp_composed_pure",
    "delta_gaussian", "delta_laplace", "delta_randomized_response", "delta_composed_pure",
    "log_a_integer", "rdp_sampled_gaussian", "rdp_sampled_gaussian_add", "log_moment_sampled_gaussian",
    "delta_sampled_gaussian", "delta_sampled_gaussian_add",
)
__all__ = ["CLOSED_FORMS", "normal_sf", "rdp_branch_mixture", "rdp_mixture_of_gaussians_bound", *CLOSED_FORMS]

#: Guard digits of the nested evaluations (as precise.GUARD_DPS).
_GUARD = 15
_DIRECTIONS = ("add", "remove", "max")


def normal_sf(ctx, x):
    """Standard normal survival function ``1 - Phi(x) = erfc(x/sqrt 2)/2``, no cancellation for large x."""
    return ctx.erfc(x / ctx.sqrt(2)) / 2


# --- Rényi divergences of the elementary mechanisms ----------------------------------------


def rdp_gaussian(ctx, alpha, sigma):
    """``D_alpha(N(1, s^2) || N(0, s^2)) = alpha / (2 s^2)`` (Mironov 2017, arXiv 1702.07476v3, Prop. 7)."""
    return alpha / (2 * sigma**2)


def rdp_branch_mixture(ctx, alpha, weights, divergences):
    """``log(sum_b w_b e^{(a-1) D_b}) / (a - 1)``: the Rényi divergence of a branch-revealed mixture
    (branch ``b`` drawn with probability ``w_b`` under both distributions and shown, then a pair of
    divergence ``D_b``), exactly; and an upper bound on the mixture with the branch hidden, by joint
    convexity of ``e^{(a-1) D_a}`` (van Erven & Harremoës 2014, arXiv 1206.2459v2, Theorem 13). Upper
    bounds on the ``w_b`` and ``D_b`` give an upper bound. Not in ``CLOSED_FORMS`` (sequence
    arguments): called with a context directly. Twin: ``fast.rdp_branch_mixture``."""
    total = ctx.fsum(w * ctx.exp((alpha - 1) * d) for w, d in zip(weights, divergences))
    return ctx.log(total) / (alpha - 1)


def rdp_mixture_of_gaussians_bound(ctx, alpha, sigma, sensitivities, weights):
    """An upper bound on ``D_alpha`` between ``N(0, s^2)`` and ``sum_i w_i N(c_i, s^2)``, in either
    order (``weights`` summing to 1): :func:`rdp_branch_mixture` of the pairs ``(N(c_i, s^2), N(0,
    s^2))`` (and their swaps), each of divergence ``a c_i^2 / (2 s^2)`` (Mironov 2017, arXiv
    1702.07476v3, Prop. 7). Twin: ``fast.rdp_mixture_of_gaussians``."""
    return rdp_branch_mixture(ctx, alpha, weights, [alpha * c * c / (2 * sigma**2) for c in sensitivities])


def rdp_laplace(ctx, alpha, b):
    """Rényi divergence of Laplace(scale b), sensitivity 1 (Mironov 2017 v3, Prop. 6).

    ``1/(a-1) log[ a/(2a-1) e^{(a-1)/b} + (a-1)/(2a-1) e^{-a/b} ]`` for ``a > 1``; the ``a -> 1``
    limit (KL) is ``1/b + e^{-1/b} - 1``.
    """
    if ctx.is_exactly(alpha, 1):
        return 1 / b + ctx.expm1(-1 / b)
    inner = alpha / (2 * alpha - 1) * ctx.exp((alpha - 1) / b) + (alpha - 1) / (2 * alpha - 1) * ctx.exp(-alpha / b)
    return ctx.log(inner) / (alpha - 1)


def _rr_guard_digits(ctx, alpha, epsilon):
    # The log-sum-exp of rdp_randomized_response is O(1) - O(1) = O((a-1) eps^2): it loses about
    # 2 log10(1/eps) + log10(1/(a-1)) digits, which are added to the working precision first.
    extra = 10
    if epsilon < 1:
        extra += int(-2 * float(ctx.log10(epsilon))) + 1
    if alpha - 1 < 1:
        extra += int(-float(ctx.log10(alpha - 1))) + 1
    return extra


def rdp_randomized_response(ctx, alpha, epsilon):
    """Rényi divergence of epsilon-randomized response (Mironov 2017 v3, Prop. 5).

    With ``p = e^eps / (1 + e^eps)``: ``1/(a-1) log[p^a (1-p)^{1-a} + (1-p)^a p^{1-a}]``, the
    exact worst case over all epsilon-DP pairs. The ``a -> 1`` limit is ``eps tanh(eps/2)``.
    """
    if ctx.is_exactly(alpha, 1):
        return epsilon * ctx.tanh(epsilon / 2)
    with ctx.extra_digits(lambda: _rr_guard_digits(ctx, alpha, epsilon)):
        log_p = -ctx.log1p(ctx.exp(-epsilon))
        log_1mp = -ctx.log1p(ctx.exp(epsilon))
        first = alpha * log_p + (1 - alpha) * log_1mp
        second = alpha * log_1mp + (1 - alpha) * log_p
        top = ctx.max(first, second)
        return (top + ctx.log(ctx.exp(first - top) + ctx.exp(second - top))) / (alpha - 1)


def rdp_kary_randomized_response(ctx, alpha, p, k):
    """Rényi divergence of k-ary randomized response between two inputs ``x != x'``.

    The mechanism outputs the input bucket with probability ``1 - p``, else a uniform one of the
    ``k >= 2`` buckets. The pair is ``P = R(x)``, ``Q = R(x')``: atoms ``a = 1 - p + p/k`` and
    ``b = p/k`` swapped on the two true buckets, ``b`` on each of the ``k - 2`` others (the pair
    dp_accounting 0.6 analyses under ``REPLACE_ONE``, ``rdp_privacy_accountant.py``,
    ``_randomized_response_rdp_replace_one``). With ``t = log(a/b) = log1p(k (1-p)/p)`` and
    ``x = (alpha - 1) t``, the Rényi sum ``S = sum_i P_i^alpha Q_i^(1-alpha)
    = a e^x + b e^{-x} + (k - 2) b``, and since ``a + b + (k-2) b = 1`` and ``a - b = 1 - p``:
    ``S - 1 = (1 - p) expm1(x) + b expm1(x)^2 e^{-x}``, a sum of non-negatives for ``alpha > 1``
    (no cancellation). ``D_alpha = log1p(S - 1)/(alpha - 1)``; the ``alpha -> 1`` limit (KL) is
    ``(1 - p) t``. Only ``p/k`` and ``k/p`` enter, so a huge integer ``k`` is exact.
    """
    t = ctx.log1p(k * (1 - p) / p)
    if ctx.is_exactly(alpha, 1):
        return (1 - p) * t
    x = (alpha - 1) * t
    e = ctx.expm1(x)
    return ctx.log1p((1 - p) * e + p / k * e * e * ctx.exp(-x)) / (alpha - 1)


def rdp_kary_randomized_response_special(ctx, alpha, p, k):
    """Rényi divergence of k-ary randomized response against its special input, the larger of
    both orders: ``max(D_alpha(R(x) || U), D_alpha(U || R(x)))``, ``U`` uniform on the ``k``
    buckets (dp_accounting 0.6's ``REPLACE_SPECIAL`` analysis, whose special record outputs ``U``:
    ``rdp_privacy_accountant._randomized_response_rdp_replace_special`` and
    ``privacy_loss_distribution.from_randomized_response``).

    Under ``U`` the ratio ``y = R(x)/U`` is ``r1 = 1 + (k-1)(1-p)`` on one bucket (mass ``1/k``)
    and ``p`` on the ``k - 1`` others; ``E_U[y] = 1``, and ``S_b = E_U[y^b]`` with ``b = alpha``
    (first order) or ``b = 1 - alpha`` (second), ``D = log S_b / (alpha - 1)``. ``S_b - 1`` is
    small against 1 near ``alpha = 1``: it is taken as a positive difference (more digits where it
    cancels). The ``alpha -> 1`` limits (KL) are ``E_U[y log y]`` and ``-E_U[log y]``.
    """
    def logs():
        return ctx.log1p((k - 1) * (1 - p)), ctx.log(p)

    if ctx.is_exactly(alpha, 1):
        log_r1, log_p = logs()
        forward = (ctx.exp(log_r1) * log_r1 + (k - 1) * p * log_p) / k
        backward = -(log_r1 + (k - 1) * log_p) / k
        return ctx.max(forward, backward)

    def terms(b):  # recomputed in full at each precision positive_difference tries
        log_r1, log_p = logs()
        return (ctx.exp(b * log_r1) + (k - 1) * ctx.exp(b * log_p)) / k, 1

    values = [ctx.log1p(ctx.positive_difference(lambda b=b: terms(b))) / (alpha - 1) for b in (alpha, 1 - alpha)]
    return ctx.max(*values)


def rdp_composed_pure(ctx, alpha, epsilon, n):
    """Worst-case Rényi divergence of ``n``-fold composition of epsilon-DP: ``n`` times RR's."""
    with ctx.extra_digits(lambda: _GUARD):
        return n * rdp_randomized_response(ctx, alpha, epsilon)


# --- privacy profiles (hockey-stick divergences) ---------------------------------------------


def delta_gaussian(ctx, epsilon, sigma):
    """Exact privacy profile of the Gaussian mechanism (Balle & Wang 2018, arXiv 1805.06530v2, Thm 8).

    ``Phi(1/(2s) - eps s) - e^eps Phi(-1/(2s) - eps s)``, positive: a difference that cancels.
    """
    return ctx.positive_difference(lambda: (
        normal_sf(ctx, epsilon * sigma - 1 / (2 * sigma)),
        ctx.exp(epsilon) * normal_sf(ctx, epsilon * sigma + 1 / (2 * sigma)),
    ))


def delta_laplace(ctx, epsilon, b):
    """Exact privacy profile of Laplace(scale b): ``(1 - e^{(eps - 1/b)/2})_+``."""
    return ctx.positive_part(-ctx.expm1((epsilon - 1 / b) / 2))


def delta_randomized_response(ctx, epsilon_prime, epsilon):
    """Exact privacy profile of epsilon-RR at epsilon_prime: ``(e^eps - e^eps')_+ / (1 + e^eps)``."""
    return ctx.positive_part(-ctx.expm1(epsilon_prime - epsilon)) / (1 + ctx.exp(-epsilon))


def delta_composed_pure(ctx, epsilon_prime, epsilon, n):
    """Optimal n-fold composition of epsilon-DP (Kairouz, Oh & Viswanath 2015, arXiv 1311.0776v4, Thm 3.3).

    ``sum_l C(n,l) [e^{(n-l)eps} - e^{eps' + l eps}]_+ / (1 + e^eps)^n``; only non-negative
    terms are summed, each in log space, so there is no cancellation. ``n`` is an exact integer.
    """
    n = ctx.integer(n)
    log_norm = n * ctx.log1p(ctx.exp(epsilon))
    terms = []
    for ell in range(n + 1):
        gap = epsilon_prime + ell * epsilon - (n - ell) * epsilon
        if ctx.certainly_nonnegative(gap):
            break  # terms are non-increasing in ell: every later bracket is <= 0 too
        log_term = ctx.log_binomial(n, ell) + (n - ell) * epsilon - log_norm
        terms.append(ctx.exp(log_term) * ctx.positive_part(-ctx.expm1(gap)))
    return ctx.fsum(terms)


# --- Poisson-subsampled Gaussian ------------------------------------------------------------
#
# mu0 = N(0, s^2), mu1 = N(1, s^2), mu = (1-q) mu0 + q mu1, r(z) = mu(z)/mu0(z)
#     = 1 - q + q exp((2z - 1)/(2 s^2)).
# A_a = E_{mu0}[r^a] (add direction), B_a = E_{mu}[(mu0/mu)^a] = E_{mu0}[r^{1-a}] (remove).


def log_a_integer(ctx, alpha, q, sigma):
    """``log A_alpha`` for integer alpha >= 0: the exact binomial sum (docs/math.md#integer-orders).

    ``A_a = sum_k C(a,k) (1-q)^{a-k} q^k exp((k^2-k)/(2 s^2))``. Because the binomial weights sum
    to 1, ``A - 1 = sum_{k>=2} C(a,k) (1-q)^{a-k} q^k expm1((k^2-k)/(2 s^2))``: non-negative
    terms, so ``log A = log1p(A - 1)`` keeps every digit even when ``A - 1`` is 1e-200 (tiny q).
    """
    a = ctx.integer(alpha)
    if ctx.is_exactly(q, 0):
        return ctx.zero
    if ctx.is_exactly(q, 1):
        return (alpha**2 - alpha) / (2 * sigma**2)
    log_q, log_1mq = ctx.log(q), ctx.log1p(-q)
    excess = ctx.fsum(
        ctx.exp(ctx.log_binomial(a, k) + (a - k) * log_1mq + k * log_q) * ctx.expm1((k * k - k) / (2 * sigma**2))
        for k in range(2, a + 1)
    )
    return ctx.log1p(excess)


def _check_direction(direction):
    if direction not in _DIRECTIONS:
        raise ValueError(f"direction={direction!r} is not one of 'add', 'remove', 'max'")


def rdp_sampled_gaussian(ctx, alpha, q, sigma, direction="max"):
    """Rényi divergence of one sampled-Gaussian step at order ``alpha > 1`` (Mironov, Talwar & Zhang
    2019, arXiv 1908.10530v1, Sec. 3).

    ``direction``: ``"add"`` gives ``log A / (a-1)``, ``"remove"`` gives ``log B / (a-1)``,
    ``"max"`` (the definition of (alpha, eps)-RDP under add/remove neighbours) the larger.
    """
    _check_direction(direction)
    values = []
    if direction in ("add", "max"):
        values.append(ctx.log_a(alpha, q, sigma))
    if direction in ("remove", "max"):
        values.append(ctx.log_b(alpha, q, sigma))
    return ctx.positive_part(ctx.max(*values)) / (alpha - 1)


def rdp_sampled_gaussian_add(ctx, alpha, q, sigma):
    """``log A_alpha / (alpha - 1)``: the add direction (P = mu, Q = mu0) of one sampled-Gaussian step."""
    return rdp_sampled_gaussian(ctx, alpha, q, sigma, direction="add")


def log_moment_sampled_gaussian(ctx, lam, q, sigma):
    """The log moment ``alpha(lam) = log max(E1, E2)`` of one sampled-Gaussian step, with
    ``E2 = A_{lam+1}`` and ``E1 = B_{lam+1}`` (Abadi et al. 2016, arXiv 1607.00133v2, Eqs. 3-4)."""
    return ctx.positive_part(ctx.max(ctx.log_a(lam + 1, q, sigma), ctx.log_b(lam + 1, q, sigma)))


def delta_sampled_gaussian(ctx, epsilon, q, sigma, direction="max"):
    """Exact privacy profile of one sampled-Gaussian step, in closed form.

    Add (P = mu, Q = mu0): the set where ``r > e^eps`` is ``z > z* = s^2 log((e^eps-1+q)/q) + 1/2``,
    so ``delta = q Phi_c((z*-1)/s) - (e^eps - 1 + q) Phi_c(z*/s)``.
    Remove (P = mu0, Q = mu): the set where ``e^eps r < 1`` is ``z < z+ = s^2 log((e^-eps-1+q)/q)
    + 1/2`` (empty unless ``e^-eps > 1-q``), so ``delta = (1 - e^eps (1-q)) Phi(z+/s) - e^eps q
    Phi((z+-1)/s)``. Both are checked against the 1-D integral in the tests.
    """
    _check_direction(direction)
    if ctx.is_exactly(q, 0):
        return ctx.zero
    results = []
    if direction in ("add", "max"):
        z_star = sigma**2 * ctx.log((ctx.expm1(epsilon) + q) / q) + 1 / ctx.two
        results.append(ctx.positive_difference(lambda: (
            q * normal_sf(ctx, (z_star - 1) / sigma),
            (ctx.expm1(epsilon) + q) * normal_sf(ctx, z_star / sigma),
        )))
    if direction in ("remove", "max"):
        inner = ctx.expm1(-epsilon) + q
        if ctx.sign(inner) > 0:
            z_plus = sigma**2 * ctx.log(inner / q) + 1 / ctx.two
            results.append(ctx.positive_difference(lambda: (
                (1 - ctx.exp(epsilon) * (1 - q)) * normal_sf(ctx, -z_plus / sigma),
                ctx.exp(epsilon) * q * normal_sf(ctx, (1 - z_plus) / sigma),
            )))
        else:
            results.append(ctx.zero)
    return ctx.max(*results)


def delta_sampled_gaussian_add(ctx, epsilon, q, sigma):
    """The privacy profile of the pair (mu, mu0) alone (see :func:`delta_sampled_gaussian`)."""
    return delta_sampled_gaussian(ctx, epsilon, q, sigma, direction="add")
