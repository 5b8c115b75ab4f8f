"""The shared evaluator: the exact quantities of docs/math.md#exact-quantities.

``precise`` (mpmath, the reference), ``fast`` (numpy float64, the accountant's hot path) and
``ball`` (python-flint arb enclosures, for certified verdicts) compute the same quantities; the
tests hold ``fast`` and ``ball`` against ``precise``.
"""
