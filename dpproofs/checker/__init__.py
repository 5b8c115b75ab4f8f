"""The checker: claims, verdicts and the one comparison of uncertain numbers.

``claims`` (a sympy statement bound to the evaluator), ``verdicts``, ``decide`` (the only place
two uncertain numbers are compared), ``precision`` (the escalation policy), ``search``
(counterexample search and box certification), ``pipeline`` (one verdict pipeline),
``vocabulary`` (the functions a claim may use), ``registry`` (content packages found by entry
point), ``oracles/`` (exact ground truth on finite pairs and small datasets).

May import: :mod:`dpproofs.math`, :mod:`dpproofs.mechanisms`, :mod:`dpproofs.accountant` (whose
answers are claims), ``errors``, ``_validate``; never ``verification``, ``cli``, ``docgen`` or
``integrations`` (tests/test_layers.py).
"""
