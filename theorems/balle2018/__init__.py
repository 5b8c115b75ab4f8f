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

Every check runs on concrete small datasets: the subsampled mechanism is enumerated over every
batch (:mod:`dpproofs.subsampled`). Claim ids start with ``balle2018.<result>``.

Provenance: the paper's full text was not available to this project when these modules were
written (only its abstract); the statements and result numbers are transcribed from the
literature's standard form of these results and have not yet been compared line by line with the
PDF. The checks hold the statements as written here, so a transcription error would show as a
refuted claim, not hide.
"""

#: The paper this package checks (used by the generated docs).
CITATION = ("B. Balle, G. Barthe, M. Gaboardi, \"Privacy Amplification by Subsampling: Tight Analyses "
            "via Couplings and Divergences\", NeurIPS 2018 (arXiv 1807.01647v2)")
