"""Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang 2024, "How Private are DP-SGD
Implementations?" (ICML 2024, arXiv 2403.17673v2) and "Scalable DP-SGD: Shuffling vs. Poisson
Subsampling" (NeurIPS 2024, arXiv 2411.04205): lower bounds on the privacy of shuffled batches.

* :mod:`.shuffle` - the pair of neighbouring datasets behind :func:`dpproofs.epsilon_lower_bound`
  (every record -1, the target +1 against 0 or -1): the law of the batch sums' maximum that the
  shipped bound evaluates equals the one of the loader enumerated over every order (n <= 6, with
  and without ``drop_last``); and the shipped certified lower bound is at most the exact delta of
  that pair with two batches (a 2-D Gaussian-mixture integral, reduced to 1-D).

Provenance (checked 2026-12-02): the reference search returns only the opening of each stored copy
of the papers (arxiv.org/html/2403.17673v1 and v2, the ICML and NeurIPS text dumps,
api-inference.pages.dev/papers/2411.04205.md), so no section, theorem or figure number is cited.
What the modules rest on instead: the authors' reference implementation, read in full
(google-research/google-research, ``dpsgd_batch_sampler_accounting/dpsgd_bounds.py``,
``ShuffleAccountant``: the pair ``(MoG(2), MoG(1))``, ``MoG(m) = sum_t (1/T) N(m e_t, sigma^2 I)``,
the "cube" sets ``{max_t x_t <= C}``, persistent shuffling as one epoch at ``sigma / sqrt(E)``,
reshuffling as the max statistic's PLD composed). The datasets realising that pair are this
project's reading (every record -1, the target +1 in one and 0 in the other), checked here by
enumerating the loader.

Claim ids start with ``chua2024.<result>``.
"""

#: The papers this package checks (used by the generated docs).
CITATION = (
    "L. Chua, B. Ghazi, P. Kamath, R. Kumar, P. Manurangsi, A. Sinha, C. Zhang, \"How Private are DP-SGD "
    "Implementations?\", ICML 2024 (arXiv 2403.17673v2); and \"Scalable DP-SGD: Shuffling vs. Poisson "
    "Subsampling\", NeurIPS 2024 (arXiv 2411.04205)"
)
