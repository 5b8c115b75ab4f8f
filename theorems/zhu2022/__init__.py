"""Zhu, Dong & Wang 2022, "Optimal Accounting of Differential Privacy via Characteristic Function"
(AISTATS 2022, arXiv 2106.08567): dominating pairs, one module per result.

* :mod:`.definition` - the definition, and the base pair every module builds on (eps0-RR dominates
  every eps0-DP pair at every real eps);
* :mod:`.subsampling` - the dominating pairs of subsampled mechanisms: Poisson sampling under
  add/remove (``((1-g) Q + g P, Q)`` for removal, ``(Q, (1-g) Q + g P)`` for addition) and sampling
  without replacement under replace-one (``((1-g) Q + g P, Q)``), from a dominating pair ``(P, Q)``
  of the base mechanism;
* :mod:`.composition` - the composition theorem (products of dominating pairs dominate the
  composition) and the composition question for sampling without replacement: the per-step pair
  and its swap, composed, are NOT above every neighbouring configuration (a finding, as Lebeda,
  Regehr, Kamath & Steinke 2024, arXiv 2405.20769, report); the symmetrised pair is.

A pair ``(P, Q)`` *dominates* a mechanism when ``H_{e^eps}(M(D) || M(D')) <= H_{e^eps}(P || Q)`` for
every neighbouring ``D, D'`` and EVERY real ``eps`` (``e^eps`` in ``[0, inf)``): the composition
theorem needs the negative ``eps`` too. Ground truth is exact enumeration over every batch
(:mod:`dpproofs.subsampled`). Claim ids start with ``zhu2022.<result>``.

Provenance: the reference corpora reachable when these modules were written held no text of the
paper, so results are named by content (the definition, the composition theorem, the subsampling
theorems), not by number, and the arXiv version is not given; the statements are the standard ones
and are checked here as mathematics.
"""

#: The paper this package checks (used by the generated docs).
CITATION = (
    "Y. Zhu, J. Dong, Y.-X. Wang, \"Optimal Accounting of Differential Privacy via Characteristic "
    "Function\", AISTATS 2022 (arXiv 2106.08567)"
)
