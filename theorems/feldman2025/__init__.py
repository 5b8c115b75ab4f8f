"""Feldman & Shenfeld 2025, "Privacy amplification by random allocation" (arXiv 2502.08202v4), and
the random-allocation pair it analyses: one module per result.

* :mod:`.allocation_rdp` - the Rényi divergences of one epoch of random 1-of-t allocation with
  Gaussian noise, the pair ``P = (1/t) sum_i N(e_i, s^2 I_t)`` against ``Q = N(0, s^2 I_t)``
  (:mod:`dpproofs.math.allocation`): the add direction ``D(P||Q)`` as a finite sum (checked
  against brute-force enumeration of every composition of the order, and, for a finite base
  mechanism, against enumeration of every output of the epoch), the remove direction ``D(Q||P)``
  by this project's integral bound (checked against a quadrature of the exact value), and the
  float64 paths the accountant runs.
* :mod:`.allocation_decomposition` - random k-of-t allocation as a post-processing of k composed
  1-of-about-t/k allocations (the decomposition the accountants use for k > 1), checked by exact
  enumeration on a finite base.

Provenance (2026-12-02): only the abstract and the opening of Section 1 of arXiv 2502.08202v2-v4
could be read through the reference search (it returns the opening of each stored page). The
integer-order add-direction sum is the one the authors' public code (``random_allocation``,
``RDP.py``: a sum over the integer partitions of alpha with at most t parts) computes; its
statement number in the paper was NOT confirmed, so the claims cite the pair and the paper without
a result number and are checked as mathematics. The paper's main theorem (random allocation at
least as private as Poisson subsampling at rate ``(1 + o(1)) k/t``) is an (epsilon, delta)
statement with an o(1) term whose exact form could not be read: it is not stated here. The
remove-direction bound is this project's own derivation (module docstring of
:mod:`dpproofs.math.allocation`), not the paper's.
"""

#: The paper this package checks (used by the generated docs).
CITATION = (
    "V. Feldman, M. Shenfeld, \"Privacy amplification by random allocation\" (arXiv 2502.08202v4)"
)

from dpproofs_theorems.feldman2025 import quantities  # noqa: E402,F401  (registers the quantities)
