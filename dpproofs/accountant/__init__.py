"""What an ML engineer imports: the accountants, calibration, the exact one-step quantities.

``rdp`` (the RDP :class:`Accountant`), ``pld`` (the tight, certified :class:`PLDAccountant`),
``calibrate`` (one :func:`calibrate_sigma` for both), ``exact`` (``rdp`` and ``log_moment`` at
high precision), ``training`` (a data loader's setup to steps and rate).

May import: :mod:`dpproofs.math`, :mod:`dpproofs.mechanisms`, ``errors`` and ``_validate``; never
the checker, sympy, Hypothesis or python-flint at module level (tests/test_layers.py).
"""
