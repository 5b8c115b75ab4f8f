"""The verify suite: inequalities over the DP vocabulary and elementary functions with known truth.

Each :class:`Probe` states a claim, its domain, whether it is true (``"holds"``) or false
(``"fails"``), the verdict ``verify`` is expected to reach with default settings (``proved`` or
``holds`` for a true claim, ``refuted`` for a false one), why it is true or false, and tags:
``subtle`` (a sliver violation, a tie, an open bound, an integer variable or a coupled
condition) and ``fast`` (part of the default test run; the whole suite runs behind the
``campaign`` marker and in ``dpproofs report --only verify``).

tests/test_verify_suite.py asserts every verdict; docs/verify.md lists them with the measured
verdicts and times.
"""

import dataclasses

__all__ = ["Probe", "SUITE"]


@dataclasses.dataclass(frozen=True)
class Probe:
    claim: str
    where: tuple
    truth: str  # "holds" or "fails"
    verdict: str  # expected verdict with default settings: "proved", "holds" or "refuted"
    why: str
    integers: tuple = ()
    subtle: str = ""  # what makes it subtle (empty: a plain claim)
    fast: bool = False


SUITE = (
    # --- true, with a real margin -------------------------------------------------------------
    Probe("rdp_gaussian(alpha, sigma) <= alpha/sigma**2", ("1 < alpha <= 64", "0.5 <= sigma <= 10"), "holds",
          "proved", "Mironov 2017 Prop. 7: D_alpha = alpha/(2 sigma^2), half the right side", fast=True),
    Probe("delta_gaussian(eps, sigma) <= 1", ("0 <= eps <= 5", "0.5 <= sigma <= 4"), "holds", "proved",
          "a probability", fast=True),
    Probe("delta_laplace(eps, b) <= 1/(2*b)", ("0 <= eps <= 2", "0.5 <= b <= 4"), "holds", "proved",
          "delta <= 1 - exp(-1/(2b)) <= 1/(2b)", fast=True),
    Probe("rdp_laplace(alpha, b) <= 2/b", ("1.5 <= alpha <= 32", "0.5 <= b <= 4"), "holds", "proved",
          "D_alpha <= D_inf = 1/b (Mironov 2017 Prop. 6)", fast=True),
    Probe("rdp_randomized_response(alpha, eps) <= 2*eps", ("2 <= alpha <= 16", "0.1 <= eps <= 2"), "holds",
          "proved", "D_alpha <= D_inf = eps for eps-DP"),
    Probe("rdp_sampled_gaussian(alpha, q, sigma) <= rdp_gaussian(alpha, sigma)",
          ("2 <= alpha <= 5", "0.01 <= q <= 0.1", "4 <= sigma <= 5"), "holds", "proved",
          "subsampling does not increase the divergence (post-processing of a mixture)", integers=("alpha",)),
    Probe("log_moment(lam, q, sigma) <= lam*(lam + 1)/(2*sigma**2)",
          ("1 <= lam <= 4", "0.01 <= q <= 0.1", "4 <= sigma <= 5"), "holds", "proved",
          "alpha(lam) <= lam D_(lam+1) of the unsampled Gaussian", integers=("lam",)),
    Probe("Phi(x) <= 1/2 + x/sqrt(2*pi)", ("0 <= x <= 4",), "holds", "proved",
          "the normal density is at most 1/sqrt(2 pi)", subtle="a tie at x = 0"),
    Probe("tanh(x) <= x", ("0 <= x <= 3",), "holds", "proved", "tanh' = 1 - tanh^2 <= 1",
          subtle="a tie at x = 0 (monotonicity closes it)", fast=True),
    Probe("log(1 + x) <= x", ("0 <= x <= 10",), "holds", "proved", "concavity of log",
          subtle="a tie at x = 0", fast=True),
    Probe("x**2 + y**2 <= 2", ("-1 <= x <= 1", "-1 <= y <= 1"), "holds", "proved", "the corners of the square",
          subtle="ties at the four corners", fast=True),
    Probe("x <= 1", ("0 < x < 1",), "holds", "proved", "the bound itself", subtle="tight at an open bound",
          fast=True),
    Probe("x < 1", ("0 < x < 1",), "holds", "proved", "strict, tight at an open bound (not a point of the domain)",
          subtle="tight at an open bound", fast=True),
    Probe("2**n >= n + 1", ("0 <= n <= 60",), "holds", "proved", "Bernoulli's inequality", integers=("n",),
          subtle="an integer variable, ties at n = 0 and n = 1", fast=True),
    Probe("delta_randomized_response(eps_prime, eps) <= 1", ("0 <= eps_prime <= 1", "0 <= eps <= 2"), "holds",
          "proved", "a probability"),
    Probe("exp(eps) - 1 <= 2*eps", ("0 <= eps <= 1",), "holds", "proved", "e - 1 < 2; convexity",
          subtle="a tie at eps = 0"),
    Probe("Phi(x) + Phi(-x) <= 1 + 1e-6", ("-3 <= x <= 3",), "holds", "proved",
          "Phi(x) + Phi(-x) = 1: a margin of 1e-6 only", subtle="a relative margin of 5e-7 everywhere", fast=True),
    Probe("rdp_sampled_gaussian(2, q, sigma) <= 2*q**2*(exp(1/sigma**2) - 1)", ("0.001 <= q <= 0.5", "1 <= sigma <= 4"),
          "holds", "holds", "D_2 = log(1 + q^2 (e^(1/sigma^2) - 1)) (Mironov 2017); the enclosures of the sampled "
          "Gaussian on boxes this wide are too loose (and slow) for the proof to close in the time budget"),
    Probe("sqrt(x*y) <= (x + y)/2", ("0.1 <= x <= 10", "0.1 <= y <= 10"), "holds", "holds",
          "AM-GM: equality on the whole diagonal x = y (no margin to prove with)",
          subtle="a tie along a curve inside the domain"),
    Probe("q*sigma < 1/16", ("1 <= sigma <= 4", "0 < q < 1/(16*sigma)"), "holds", "holds",
          "the hypothesis itself; tight along the coupled bound", subtle="a coupled condition, tight along it"),
    # --- false ---------------------------------------------------------------------------------
    Probe("x < 0.1", ("0 <= x <= 0.1",), "fails", "refuted", "false at x = 1/10 exactly",
          subtle="a tie at a decimal bound that no float equals", fast=True),
    Probe("delta_randomized_response(eps_prime, eps) > 0", ("0 <= eps_prime <= 0.1", "0.1 <= eps <= 0.2"), "fails",
          "refuted", "delta is 0 at eps_prime = eps = 1/10", subtle="an exact tie at a corner", fast=True),
    Probe("rdp_gaussian(alpha, 1) <= 31.9999999999999999", ("1 < alpha <= 63.99999999999999999",), "fails",
          "refuted", "false at the top of the range only", subtle="violation beyond every float", fast=True),
    Probe("1/(1 - q) <= 10**17", ("0 <= q < 1",), "fails", "refuted", "unbounded as q -> 1",
          subtle="an open bound: no float q < 1 violates it", fast=True),
    Probe("log(1/(alpha - 1)) <= 37", ("1 < alpha <= 2",), "fails", "refuted", "unbounded as alpha -> 1",
          subtle="an open bound: no float violates it", fast=True),
    Probe("n <= 2**60", ("1 <= n <= 2**60 + 1",), "fails", "refuted", "false at n = 2^60 + 1 only",
          integers=("n",), subtle="an integer variable beyond the floats", fast=True),
    Probe("rdp_randomized_response(alpha, eps) <= alpha*eps**2/4", ("1 < alpha <= 64", "0 < eps <= 5"), "fails",
          "refuted", "Bun & Steinke's alpha eps^2/2 with the constant halved"),
    Probe("delta_gaussian(eps, sigma) <= 0.3989/sigma", ("0 <= eps <= 10", "1 <= sigma <= 100"), "fails",
          "refuted", "the total variation is about 1/(sqrt(2 pi) sigma) = 0.39894/sigma at small eps",
          subtle="a sliver: only eps below about 1e-6 and sigma above about 60"),
    Probe("rdp_randomized_response(alpha, eps) <= 4*(alpha - 1)*eps**2", ("1.01 <= alpha <= 64", "0 < eps <= 2"),
          "fails", "refuted", "fails only for alpha below about 8/7", subtle="a sliver near a face"),
    Probe("exp(x) <= 1 + x + x**2", ("0 <= x <= 2",), "fails", "refuted", "fails for x above about 1.79",
          fast=True),
    Probe("Phi(x) <= 0.99", ("0 <= x <= 3",), "fails", "refuted", "Phi(2.33) > 0.99", fast=True),
    Probe("delta_laplace(eps, b) <= 0.1", ("0 <= eps <= 1", "0.5 <= b <= 4"), "fails", "refuted",
          "delta_laplace(0, 1/2) = 1 - 1/e"),
    Probe("x + 1e-8*y*(1 - y) <= 1 + 1e-9", ("0 <= x <= 1", "0 <= y <= 1"), "fails", "refuted",
          "false only on the face x = 1 for y in (0.113, 0.887), by 1.5e-9 at most",
          subtle="a violation of relative size 1e-9 along a face, not at a corner", fast=True),
    Probe("x + 1e-8*(1 - 10**6*(y - 0.3)**2) <= 1 + 1e-12", ("0 <= x <= 1", "0 <= y <= 1"), "fails", "refuted",
          "false only on the face x = 1 for |y - 0.3| < 0.001, by at most 1e-8",
          subtle="a sliver of relative size 1e-8 on 0.2% of a face", fast=True),
    Probe("x*(1 - x) <= 0.25 - 1e-9", ("0 <= x <= 1",), "fails", "refuted",
          "false on the sliver |x - 1/2| < 3.2e-5 inside the domain", subtle="an interior sliver", fast=True),
    Probe("q*sigma <= 0.06", ("1 <= sigma <= 4", "0 < q < 1/(16*sigma)"), "fails", "refuted",
          "q sigma reaches 1/16 > 0.06 near the coupled bound", subtle="a coupled condition", fast=True),
    Probe("x < 1", ("0 <= x <= 1",), "fails", "refuted", "false at x = 1", subtle="a tie at a closed bound",
          fast=True),
    Probe("rdp_gaussian(alpha, sigma) < alpha/(2*sigma**2)", ("1 < alpha <= 8", "1 <= sigma <= 4"), "fails",
          "refuted", "an identity under a strict relation: false everywhere", subtle="an exact tie everywhere"),
    Probe("delta < 0.00001", ("0.00001 <= delta <= 0.00001",), "fails", "refuted", "a point domain, a tie",
          subtle="a point domain", fast=True),
)
