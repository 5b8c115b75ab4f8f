"""Wang, Balle & Kasiviswanathan 2019, "Subsampled Rényi Differential Privacy and Analytical
Moments Accountant" (AISTATS 2019, arXiv 1808.00087v2): one module per result.

* :mod:`.theorem9` - the general upper bound on the RDP of a mechanism run on a batch drawn
  uniformly WITHOUT replacement (batch b of n, ``gamma = b/n``) under replace-one neighbours, its
  Gaussian specialisation (``eps(inf) = inf``: the form accountants use) and the printed proof
  steps (binomial expansion, the ternary-|chi|^j-divergence bounds);
* :mod:`.lower_bound` - the general lower bound (the configuration that attains it).

Provenance of the transcription: the reference corpora reachable when these modules were written
held the paper's abstract, not its text. The number "Theorem 9" is confirmed by public code that
cites it, and its Gaussian specialisation (``eps(inf) = inf``) agrees with the excerpts of two public
implementations seen and with :mod:`dpproofs.subsampling` (transcribed independently); the general
form's ``eps(inf)`` terms, the lower bound's form (the Renyi divergence of ``((1-gamma) Q + gamma P, Q)``)
and the proof steps are transcribed from the paper as recalled and are checked here as mathematics;
their printed wording and numbering are to be compared with the PDF.

Claim ids start with ``wang2019.<result>``; each module's docstring maps ids to printed items.
Convention (the project's): ``sigma`` is the noise standard deviation over the clipping norm C;
replace-one moves the clipped sum by up to 2C, so the base Gaussian has
``eps(j) = D_j(N(2, s^2) || N(0, s^2)) = 2 j / sigma^2`` (``rdp_gaussian(j, sigma/2)``).
"""

#: The paper this package checks (used by the generated docs).
CITATION = (
    "Y.-X. Wang, B. Balle, S. Kasiviswanathan, \"Subsampled Rényi Differential Privacy and Analytical "
    "Moments Accountant\", AISTATS 2019 (arXiv 1808.00087v2)"
)
