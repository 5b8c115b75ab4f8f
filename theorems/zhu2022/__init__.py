"""Zhu, Dong & Wang 2022, "Optimal Accounting of Differential Privacy via Characteristic Function"
(AISTATS 2022, arXiv 2106.08567v3): dominating pairs, one module per result.

* :mod:`.definition` - the definition (Definition 7), and the base pair every module builds on (eps0-RR dominates
  every eps0-DP pair at every real eps);
* :mod:`.subsampling` - the dominating pairs of subsampled mechanisms: Poisson sampling under
  add/remove (Theorem 11: ``((1-g) Q + g P, Q)`` for removal, ``(Q, (1-g) Q + g P)`` for addition) and sampling
  without replacement under replace-one (``((1-g) Q + g P, Q)``), from a dominating pair ``(P, Q)``
  of the base mechanism;
* :mod:`.composition` - the composition theorem (Theorem 10: products of dominating pairs dominate the
  composition) and the composition question for sampling without replacement: the per-step pair
  and its swap, composed, are NOT above every neighbouring configuration (a finding, as Lebeda,
  Regehr, Kamath & Steinke 2024, arXiv 2405.20769, report); the symmetrised pair is.

A pair ``(P, Q)`` *dominates* a mechanism when ``H_{e^eps}(M(D) || M(D')) <= H_{e^eps}(P || Q)`` for
every neighbouring ``D, D'`` and EVERY real ``eps`` (``e^eps`` in ``[0, inf)``): the composition
theorem needs the negative ``eps`` too. Ground truth is exact enumeration over every batch
(:mod:`dpproofs.checker.oracles.subsampled`). Claim ids start with ``zhu2022.<result>``. The paper's vocabulary quantities are registered by
:mod:`.quantities` when the package is imported.

Provenance (checked 2026-12-02): no full text of the paper was found. The stored pages on it
(https://paperswithcode.com/paper/optimal-accounting-of-differential-privacy,
https://emergentmind.com/papers/2106.08567, which lists 2106.08567v3 as the latest version, and
https://www.scholarfeed.org/paper/2106.08567v3) hold the abstract only; a web-page search on the
title with "dominating pair", exact-string searches of public repositories for the arXiv id and
for "Proposition 30", and a code search on dominating pairs of Poisson and without-replacement
subsampling found no copy of the body (and the reference search returns only the opening of each
stored page anyway). So the statements here are the standard ones, checked as mathematics, and not
compared with the printed text. The version cited everywhere is v3, the latest listed; the result
numbers are cited as that version's, from secondary sources (not read in the text): "Definition 7" for the dominating pair
(:mod:`.definition`) and "Theorem 10" for the adaptive composition of dominating pairs
(:mod:`.composition`), cited so by three independent secondary sources; "Theorem 11" for the
dominating pairs of Poisson subsampling (:mod:`.subsampling`, :mod:`.gaussian`; the issue's review
of the sources, and a public review of Lebeda et al. citing "Theorem 11 of Zhu et al." for the
pointwise maximum of the add and remove relations); "Definition 12" for the phi-function (the
characteristic function of the dominating privacy loss, the paper's accounting object, not checked
here). The number of the without-replacement statement was not confirmed; its claims name it by
content. Whether the printed without-replacement statement asserts the pair ``((1-g) Q + g P, Q)``
at every real eps (which ``zhu2022.subsampling.wor.negative_eps`` refutes) or only for eps >= 0
could not be settled from the text; the findings stand as statements about the pairs themselves
either way.
"""

#: The paper this package checks (used by the generated docs).
CITATION = (
    "Y. Zhu, J. Dong, Y.-X. Wang, \"Optimal Accounting of Differential Privacy via Characteristic "
    "Function\", AISTATS 2022 (arXiv 2106.08567v3)"
)

from dpproofs_theorems.zhu2022 import quantities  # noqa: E402,F401  (registers the paper's quantities)
