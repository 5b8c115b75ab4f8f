"""The shared evaluator: exact quantities of THEOREMS.md section 2.

``precise`` (mpmath, the reference), ``fast`` (numpy float64, the accountant's hot path) and
``ball`` (python-flint arb enclosures, for certified verdicts) compute the same quantities; the
tests hold ``fast`` and ``ball`` against ``precise``.
"""
