"""Mironov 2017, "Rényi Differential Privacy" (arXiv 1702.07476v3): one module per result.

* :mod:`.proposition3` - RDP to (eps, delta)-DP (classic and improved conversions, slack table);
* :mod:`.lemma1` - eps-DP implies D_alpha <= 2 alpha eps^2 (and the Bun-Steinke 1/2);
* :mod:`.proposition4` - advanced composition in probability form;
* :mod:`.corollary1` - (4 eps sqrt(2 n log 1/delta), delta)-DP for n-fold composition (ratio table);
* supporting: :mod:`.proposition1` (RDP composition), :mod:`.proposition10` (probability preservation).

Claim ids start with ``mironov2017.<result>``; each module's docstring maps ids to printed items.
"""

#: The paper this package checks (used by the generated docs).
CITATION = "I. Mironov, \"Rényi Differential Privacy\", CSF 2017 (arXiv 1702.07476v3)"

from dpproofs_theorems.mironov2017 import quantities  # noqa: E402,F401  (registers the paper's quantities)
