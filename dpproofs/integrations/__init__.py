"""Drop-ins for training code: each submodule speaks one peer library's vocabulary.

* :mod:`dpproofs.integrations.dp_accounting` -- ``accountant_for(event)``: a dp_accounting
  ``DpEvent`` tree (Google's dp-accounting) as a dpproofs accountant with the run composed;
  ``supports(event)``; ``to_event(accountant)``, the reverse.
* :mod:`dpproofs.integrations.opacus` -- ``register()``: ``PrivacyEngine(accountant="dpproofs")``
  and ``"dpproofs-pld"`` in Opacus (>= 1.6), with ``make_private_with_epsilon`` calibrating by
  ours; ``Accountant``, Opacus' accountant interface (``step``, ``get_epsilon``, ``history``,
  ``state_dict``) unregistered; ``get_noise_multiplier``, which never overshoots the target epsilon.

Each submodule imports its peer package only inside the functions that need it (the Opacus one
imports Opacus only in ``register()``, and torch never itself), so ``import dpproofs`` and the
accountant path stay light.
Nothing here is imported by ``import dpproofs``.
"""

__all__ = ["dp_accounting", "opacus"]
