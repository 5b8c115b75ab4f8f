"""Balle, Barthe & Gaboardi 2018, "Privacy Amplification by Subsampling: Tight Analyses via
Couplings and Divergences" (NeurIPS 2018; arXiv 1807.01647v2): one module per result.

* :mod:`.theorem2` - advanced joint convexity of the hockey-stick divergence (the identity) and
  the joint-convexity step the amplification proofs take after it;
* :mod:`.theorem8` - Poisson subsampling under add/remove: ``delta'(eps') <= gamma delta(eps)``;
* :mod:`.theorem9` - sampling without replacement (fixed batch size m of n) under substitution;
* :mod:`.theorem10` - sampling with replacement under substitution (group-privacy profiles);
* :mod:`.table1` - the table of amplified (eps', delta') bounds, read for pure-DP bases;
* :mod:`.gaussian_dominance` - the Gaussian sum query under replace-one, both samplings: every
  configuration's profile is below that of ``P1 = ((1-g) N(0) + g N(2), N(0))``, the bound that
  Theorem 2 gives (the derivation the shipped accountant relies on), and WOR realises ``P1``.

The paper's vocabulary quantities are registered by :mod:`.quantities` when the package is imported.
Every check runs on concrete small datasets: the subsampled mechanism is enumerated over every
batch (:mod:`dpproofs.checker.oracles.subsampled`). Claim ids start with ``balle2018.<result>``.

Provenance (checked 2026-12-01): the printed text could NOT be read, so the statements below are
still the literature's standard form of these results, not a transcription of the PDF. Full-text
copies of arXiv 1807.01647v2 are stored at

* https://hf-p-cfw.fyan.top/datasets/google/spiqa (SPIQA_train_val_test-A_raw_tex.zip, 1807.01647v2.txt,
  the LaTeX source),
* https://ar5iv.arxiv.org/html/1807.01647,
* https://deepai.org/publication/privacy-amplification-by-subsampling-tight-analyses-via-couplings-and-divergences,
* https://www.groundai.com/project/privacy-amplification-by-subsampling-tight-analyses-via-couplings-and-divergences/,

but the reference search returns only the opening of each stored page (title, abstract, the start
of Section 1): queries on the wording of advanced joint convexity, of the Poisson,
without-replacement and with-replacement theorems and of Table 1 all came back with that opening.
The result numbers are corroborated by secondary sources only, none of them the paper: another
paper's proof citing "Theorem 2 of (Balle et al., 2018) (an identity called 'Advanced Joint
Convexity' by the authors)" (the identity form used here, not an inequality), a library's
documentation citing "Theorem 9" for sampling without replacement and "Theorem 10" for sampling
with replacement, and reading notes citing "Theorem 8" for Poisson under remove/add and "Table 1"
for the three rows. What stays unverified against the printed text: the exact hypotheses (the
paper's neighbouring relations are named remove/add for Poisson and substitution for the other two
in every secondary source seen), the constants, and the with-replacement amplification fraction
(one set of notes prints ``(1 - 1/n)^m`` where :mod:`.theorem10` uses ``1 - (1 - 1/n)^m``; that
reading is the mutant ``balle2018.theorem10.mutant.kept_probability``, refuted on concrete
instances, so it cannot be the true bound whatever is printed). The checks hold the statements as
written here, so a transcription error would show as a refuted claim, not hide.
"""

#: The paper this package checks (used by the generated docs).
CITATION = ("B. Balle, G. Barthe, M. Gaboardi, \"Privacy Amplification by Subsampling: Tight Analyses "
            "via Couplings and Divergences\", NeurIPS 2018 (arXiv 1807.01647v2)")

from dpproofs_theorems.balle2018 import quantities  # noqa: E402,F401  (registers the paper's quantities)
