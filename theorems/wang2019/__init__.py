"""Wang, Balle & Kasiviswanathan 2019, "Subsampled Rényi Differential Privacy and Analytical
Moments Accountant" (AISTATS 2019, arXiv 1808.00087v2): one module per result.

* :mod:`.theorem9` - the general upper bound on the RDP of a mechanism run on a batch drawn
  uniformly WITHOUT replacement (batch b of n, ``gamma = b/n``) under replace-one neighbours, its
  Gaussian specialisation (``eps(inf) = inf``: the form accountants use) and the proof steps
  (binomial expansion, the ternary-|chi|^j-divergence bounds; this project's reading of the proof,
  unconfirmed from the text);
* :mod:`.lower_bound` - the general lower bound, Proposition 11 (the configuration that attains it).

Provenance (checked 2026-12-02): the printed text could NOT be read. Full-text copies of the
paper are stored at

* https://documents.pub/document/subsampledrnyidiierentialprivacyandanalyticalmoments-accountant-2018-12-05.html
* https://deepai.org/publication/subsampled-renyi-differential-privacy-and-analytical-moments-accountant

(also the abstract pages https://proceedings.mlr.press/v89/wang19b.html and
https://www.scholarfeed.org/paper/1808.00087v2, which lists v2), but the reference search returns
only the opening of each stored page (title, abstract, the start of Section 1): queries on the
wording of Theorem 9 ("RDP for Subsampled Mechanisms", the ``min{2, (e^{eps(inf)} - 1)^j}``
terms), of the ternary-|chi|^j divergence and of the lower bound all came back with that opening.
What the modules rest on instead: (1) Theorem 9's number, its hypotheses (integer ``alpha >= 2``,
a batch of ``m`` of ``n`` drawn uniformly without replacement, ``gamma = m/n``, replace-one
neighbours) and its bound, exactly as :func:`._common.theorem9_bound` writes it, agree with a
public transcription that says it was checked against the arXiv v2 and PMLR PDFs, and with the
excerpts of three public implementations that cite "Theorem 9" (all with ``eps(inf) = inf``,
``min{4(e^{eps(2)}-1), 2e^{eps(2)}}``); (2) the same transcription numbers the lower bound
"Proposition 11" and writes it as ``alpha/(alpha-1) log(1-gamma) + 1/(alpha-1) log(1 + alpha
gamma/(1-gamma) + sum_{j>=2} C(alpha,j) (gamma/(1-gamma))^j e^{(j-1) eps(j)})``, which equals
:func:`._common.lower_bound` term by term (multiply out ``(1-gamma)^alpha``); the issue's review of
the sources gives the same number, and the claims' sources cite it (arXiv v2 numbering);
(3) the proof steps of :mod:`.theorem9` (binomial expansion, the ternary-divergence bounds) are not
confirmed from any text, and are checked here as mathematics. Other result numbers seen cited:
"Theorem 27" of arXiv 1808.00087, as TensorFlow Privacy cites it without a version (its forward-difference bound for sampling without replacement, a tighter result for
mechanisms meeting a condition; not checked here).

The paper's vocabulary quantities are registered by :mod:`.quantities` when the package is imported.
Claim ids start with ``wang2019.<result>``; each module's docstring maps ids to the paper's items.
Convention (the project's): ``sigma`` is the noise standard deviation over the clipping norm C;
replace-one moves the clipped sum by up to 2C, so the base Gaussian has
``eps(j) = D_j(N(2, s^2) || N(0, s^2)) = 2 j / sigma^2`` (``rdp_gaussian(j, sigma/2)``).
"""

#: The paper this package checks (used by the generated docs).
CITATION = (
    "Y.-X. Wang, B. Balle, S. Kasiviswanathan, \"Subsampled Rényi Differential Privacy and Analytical "
    "Moments Accountant\", AISTATS 2019 (arXiv 1808.00087v2)"
)

from dpproofs_theorems.wang2019 import quantities  # noqa: E402,F401  (registers the paper's quantities)
