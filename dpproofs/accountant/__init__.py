"""What an ML engineer imports: the accountants, calibration, the exact one-step quantities.

``base`` (the one interface, :class:`PrivacyAccountant`, that both accountants implement),
``rdp`` (the RDP :class:`Accountant`; its certified mode in ``certified``, its caches in
``cache``), ``pld`` (the tight, certified :class:`PLDAccountant`), ``curve`` (the privacy curve
every accountant gets from its own delta: ``tpr_at_fpr``, ``tpr_at_fpr_bounds``, ``gdp_mu_bounds``), ``calibrate`` (the one
:func:`calibrate_sigma`, for either accountant), ``exact`` (``rdp`` and ``log_moment`` at high
precision), ``training`` (a data loader's setup to steps and rate). What a mechanism contributes
(its pairs per sampling and relation) lives in the mechanism (:mod:`dpproofs.mechanisms`).

May import: :mod:`dpproofs.math`, :mod:`dpproofs.mechanisms`, ``errors`` and ``_validate``; never
the checker, sympy, Hypothesis or python-flint at module level (tests/test_layers.py).
"""
