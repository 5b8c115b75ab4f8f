"""The mathematics: each formula once, written against an arithmetic (numpy float64, mpmath, arb).

``formulas`` writes each closed form once against an arithmetic context, which ``precise``
(mpmath, the reference) and ``ball`` (python-flint arb enclosures, for certified verdicts) supply
and run; they keep apart only what differs (the quadratures); ``fast`` (numpy float64, the
accountant's hot path) is its own algorithm. Together they compute the exact quantities of
docs/math.md; ``conversions`` (RDP to (epsilon, delta)) and ``reductions`` (sampling x relation to
one step's RDP) are written once against a backend; ``pld_exact`` is the high-precision privacy
profile of composed Gaussians (the PLD's reference); ``limits`` states every public quantity's
domain; ``roots`` holds the one-dimensional searches.

May import: :mod:`dpproofs.errors` and :mod:`dpproofs._validate` only (tests/test_layers.py).
No paper's quantity lives here: a paper registers its own in its content package.
"""
