"""An Opacus-compatible accountant backed by dpproofs, and a noise calibration that never overshoots.

Duck-typed to Opacus' accountant interface (``opacus.accountants.IAccountant``); neither torch
nor Opacus is imported. ``Accountant`` keeps Opacus' ``history`` format -- a list of
``(noise_multiplier, sample_rate, num_steps)``, consecutive equal steps merged -- so checkpoints
(``state_dict`` with keys ``history`` and ``mechanism``) load both ways between it and Opacus'
``RDPAccountant``. Each step is one Poisson-subsampled Gaussian,
``dpproofs.SampledGaussian(sample_rate, noise_multiplier)``, and ``get_epsilon`` is the dpproofs
accountant's upper bound (``conversion="improved"``, Balle et al. 2020, arXiv 1905.09982v3,
Thm 21, the one Opacus uses).

Using it with Opacus' ``PrivacyEngine`` (the engine reads ``engine.accountant`` when
``make_private`` attaches its step hook and whenever ``engine.get_epsilon`` is called, so replace
it first)::

    from opacus import PrivacyEngine
    from dpproofs.integrations import opacus as dpo

    engine = PrivacyEngine(accountant="rdp")
    engine.accountant = dpo.Accountant()          # before make_private
    sigma = dpo.get_noise_multiplier(target_epsilon=8.0, target_delta=1e-5,
                                     sample_rate=1 / len(train_loader), epochs=epochs)
    model, optimizer, train_loader = engine.make_private(
        module=model, optimizer=optimizer, data_loader=train_loader,
        noise_multiplier=sigma, max_grad_norm=1.0)
    ...                                           # train; every optimizer step calls .step()
    engine.get_epsilon(1e-5)                      # dpproofs' epsilon, <= 8.0 after `epochs`

(``make_private_with_epsilon`` calibrates with Opacus' own ``get_noise_multiplier``; call ours and
``make_private`` instead, as above.)

Differences from Opacus' ``RDPAccountant`` (Opacus as of its 2025 sources):

* orders (:data:`ORDERS`): dpproofs' default orders (fractional near 1, every integer to 64, up
  to 4096) together with Opacus' ``1.1, 1.2, ..., 10.9, 12, ..., 63``, so that the epsilon is
  never above what Opacus' accountant gives for the same history (beyond this module's upper
  rounding, about 1e-10 relative) and is below it whenever the optimum lies between or beyond
  Opacus' orders; ``get_epsilon(delta, alphas=...)`` uses the given orders instead;
* every epsilon is an upper bound (rounding accounted for, see ``dpproofs.accountant.rdp``);
* ``len(accountant)`` is the number of steps, as ``IAccountant`` documents it; Opacus'
  ``RDPAccountant`` returns the number of history entries (both are 0 exactly when no step was
  taken, which is all ``PrivacyEngine`` asks);
* ``get_noise_multiplier(..., epochs=E)``: steps is ``E / sample_rate`` rounded to the nearest
  integer when it is one up to float rounding, else rounded up; Opacus truncates with ``int()``,
  which drops a step when the float quotient falls just below the integer (``epochs=3,
  sample_rate=1/75`` gives 224 steps instead of 225).
"""

import copy
import math
from collections import OrderedDict
from typing import Any

import dpproofs
from dpproofs import _validate
from dpproofs.errors import InvalidArgument, InvalidArgumentType
from dpproofs.mechanisms import SampledGaussian

__all__ = ["Accountant", "get_noise_multiplier", "steps_for_epochs", "ACCOUNTANTS", "ORDERS", "OPACUS_ALPHAS"]

#: Accountant names (Opacus' ``mechanism()`` strings).
ACCOUNTANTS = ("rdp", "pld")

#: Opacus' ``RDPAccountant.DEFAULT_ALPHAS`` (its documented default orders; no 11, none above 63).
OPACUS_ALPHAS = tuple([1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64)))

#: Default orders of this module: dpproofs' defaults and Opacus' (197 orders; costs no more time
#: than dpproofs' 118, measured: both about 13 ms for a cold epsilon query).
ORDERS = tuple(sorted(set(map(float, dpproofs.DEFAULT_ORDERS)) | set(map(float, OPACUS_ALPHAS))))

#: ``E / sample_rate`` is taken as the integer ``r`` when within this many ulps (relative) of it:
#: ``sample_rate = 1 / len(loader)`` carries one rounding (2^-53 relative) and the division
#: another, so an integer number of steps arrives within 2^-52 relative; 4 ulps is headroom, and
#: far below one step (``4 * 2^-52 * steps < 1`` for any ``steps < 2^50``).
_STEPS_ULPS = 4


def _entry(index, item):
    """One validated history entry ``(noise_multiplier, sample_rate, num_steps)``."""
    if not isinstance(item, (tuple, list)) or len(item) != 3:
        raise InvalidArgumentType(
            f"history[{index}]={item!r} must be a (noise_multiplier, sample_rate, num_steps) tuple"
        )
    sigma, q, steps = item
    _validate.real(f"history[{index}] noise_multiplier", sigma, 0)
    _validate.real(f"history[{index}] sample_rate", q, 0, 1)
    _validate.integer(f"history[{index}] num_steps", steps, 0)
    return (sigma, q, steps)


def _step_arguments(noise_multiplier, sample_rate):
    _validate.real("noise_multiplier", noise_multiplier, 0)
    _validate.real("sample_rate", sample_rate, 0, 1)


class Accountant:
    """Opacus-style accountant: ``step(noise_multiplier=, sample_rate=)``, ``get_epsilon(delta)``.

    ``accountant``: ``"rdp"`` (:class:`dpproofs.Accountant` over ``orders``, None for
    :data:`ORDERS`) or ``"pld"`` (:class:`dpproofs.PLDAccountant`). ``noise_multiplier =
    0`` (no noise) is allowed, as in Opacus: epsilon is then ``inf``; ``sample_rate = 0`` steps
    cost nothing.
    """

    def __init__(self, accountant: str = "rdp", *, orders: Any = None) -> None:
        self._kind = _validate.choice("accountant", accountant, ACCOUNTANTS)
        if self._kind == "pld":
            if orders is not None:
                raise InvalidArgument(f"orders={orders!r} applies to accountant='rdp' only; allowed with 'pld': None")
        else:
            dpproofs.Accountant(orders if orders is not None else ORDERS)  # validates the orders now
        self._orders = ORDERS if orders is None and self._kind == "rdp" else orders
        self._history = []
        self._built = None  # (history snapshot, orders) -> accountant, rebuilt when they change

    # --- Opacus' interface --------------------------------------------------------------------

    @property
    def history(self):
        """Opacus' format: a list of ``(noise_multiplier, sample_rate, num_steps)`` (a copy).

        Assignable, as Opacus' ``get_noise_multiplier`` and ``load_state_dict`` assign it; the
        new history is validated entirely before it replaces the old one.
        """
        return list(self._history)

    @history.setter
    def history(self, value):
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise InvalidArgumentType(f"history={value!r} must be a list of (noise_multiplier, sample_rate, num_steps)")
        self._history = [_entry(index, item) for index, item in enumerate(value)]

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """Account one optimisation step (merged into the last history entry when equal)."""
        _step_arguments(noise_multiplier, sample_rate)
        if self._history:
            last_sigma, last_q, last_steps = self._history[-1]
            if last_sigma == noise_multiplier and last_q == sample_rate:
                self._history[-1] = (last_sigma, last_q, last_steps + 1)
                return
        self._history.append((noise_multiplier, sample_rate, 1))

    def get_epsilon(self, delta: float, alphas: Any = None, **kwargs: Any) -> float:
        """Upper bound on epsilon after the steps so far, at ``delta``; 0 before any step.

        ``alphas``: orders for this query (Opacus' keyword; rdp only). Other keywords go to the
        dpproofs accountant's ``epsilon`` (e.g. ``conversion="classic"``, ``refine=True``).
        """
        return self.get_privacy_spent(delta=delta, alphas=alphas, **kwargs)[0]

    def get_privacy_spent(self, *, delta, alphas=None, **kwargs):
        """``(epsilon, best_alpha)`` as Opacus' ``RDPAccountant.get_privacy_spent`` (rdp only)."""
        if self._kind != "rdp":
            raise InvalidArgument("get_privacy_spent applies to accountant='rdp' only; use get_epsilon")
        accountant = self._accountant(alphas)
        if accountant is None:
            dpproofs.Accountant(alphas if alphas is not None else self._orders).epsilon(delta, **kwargs)
            return math.inf, math.nan
        if not self._history:
            accountant.epsilon(delta, **kwargs)  # validates delta and keywords
            return 0.0, math.nan
        return accountant.epsilon_and_order(delta, **kwargs)

    def __len__(self) -> int:
        """Number of steps taken (the sum of ``num_steps`` over the history)."""
        return int(sum(steps for _, _, steps in self._history))

    def mechanism(self):
        """Opacus' accountant name: ``"rdp"`` or ``"pld"``."""
        return self._kind

    def state_dict(self, destination: dict | None = None) -> dict:
        """``destination`` (a new ``OrderedDict`` if None) with ``history`` (a deep copy) and
        ``mechanism``, as Opacus writes it."""
        if destination is None:
            destination = OrderedDict()
        destination["history"] = copy.deepcopy(self._history)
        destination["mechanism"] = self.mechanism()
        return destination

    def load_state_dict(self, state_dict: dict) -> None:
        """Replace the history by ``state_dict["history"]``; ``InvalidArgument`` (a ValueError,
        as Opacus raises) if it is empty, lacks ``history`` or ``mechanism``, or is of another
        mechanism. Nothing changes on error."""
        if state_dict is None or len(state_dict) == 0:
            raise InvalidArgument(f"state_dict={state_dict!r} is empty and cannot be loaded")
        for key in ("history", "mechanism"):
            if key not in state_dict:
                raise InvalidArgument(f"state_dict={state_dict!r} has no key {key!r}")
        if state_dict["mechanism"] != self.mechanism():
            raise InvalidArgument(
                f"state_dict['mechanism']={state_dict['mechanism']!r} cannot be loaded into an "
                f"accountant with mechanism {self.mechanism()!r}"
            )
        self.history = state_dict["history"]

    def get_optimizer_hook_fn(self, sample_rate):
        """The step hook Opacus' ``PrivacyEngine`` attaches to its ``DPOptimizer``: each optimizer
        step accounts ``noise_multiplier=optim.noise_multiplier`` at ``sample_rate *
        optim.accumulated_iterations``."""
        _validate.real("sample_rate", sample_rate, 0, 1)

        def hook_fn(optim):
            self.step(
                noise_multiplier=optim.noise_multiplier,
                sample_rate=sample_rate * optim.accumulated_iterations,
            )

        return hook_fn

    # --- dpproofs' side -------------------------------------------------------------------------

    def dpproofs_accountant(self):
        """The dpproofs accountant with the history composed (a new object each call): ``delta``,
        ``epsilon_and_order``, ``to_dict``, ... Raises if a step had no noise (epsilon inf)."""
        accountant = self._accountant(None)
        if accountant is None:
            raise InvalidArgument("the history has a step with noise_multiplier=0: it is not private (epsilon = inf)")
        return copy.deepcopy(accountant)

    def _accountant(self, alphas):
        """The composed accountant (cached per history and orders); None if a step is non-private."""
        orders = self._orders if alphas is None else alphas
        if self._kind == "pld" and alphas is not None:
            raise InvalidArgument(f"alphas={alphas!r} applies to accountant='rdp' only")
        key = (tuple(self._history), None if orders is None else tuple(orders))
        if self._built is not None and self._built[0] == key:
            return self._built[1]
        if any(sigma == 0 and q > 0 and steps > 0 for sigma, q, steps in self._history):
            built = None
        else:
            built = dpproofs.PLDAccountant() if self._kind == "pld" else dpproofs.Accountant(orders)
            for sigma, q, steps in self._history:
                if q > 0 and steps > 0:
                    built.compose(SampledGaussian(q, sigma), steps)
        self._built = (key, built)
        return built

    def __repr__(self):
        return f"dpproofs.integrations.opacus.Accountant({self._kind!r}, {len(self)} steps, history={self._history!r})"


def steps_for_epochs(epochs, sample_rate):
    """Steps in ``epochs`` passes at ``sample_rate`` (``1 / len(loader)`` in Opacus): ``epochs /
    sample_rate`` rounded to the nearest integer when it is one up to float rounding (see
    ``_STEPS_ULPS``), else rounded up (a partial last pass is a step)."""
    epochs = _validate.real("epochs", epochs, 0, low_open=True)
    sample_rate = _validate.real("sample_rate", sample_rate, 0, 1, low_open=True)
    ratio = epochs / sample_rate
    nearest = round(ratio)
    if abs(ratio - nearest) <= _STEPS_ULPS * 2.0**-52 * ratio:
        return max(1, int(nearest))
    return int(math.ceil(ratio))


def get_noise_multiplier(
    *,
    target_epsilon: float,
    target_delta: float,
    sample_rate: float,
    epochs: float | None = None,
    steps: int | None = None,
    accountant: str = "rdp",
    epsilon_tolerance: float = 0.01,
    alphas: Any = None,
    **kwargs: Any,
) -> float:
    """Smallest noise multiplier (to 1e-6 relative) for which ``steps`` (or ``epochs`` passes)
    Poisson-sampled Gaussian steps at ``sample_rate`` are (target_epsilon, target_delta)-DP by
    this module's ``Accountant(accountant)``; Opacus' signature.

    Never overshoots: ``Accountant(accountant)`` with ``history = [(sigma, sample_rate, steps)]``
    reports ``get_epsilon(target_delta) <= target_epsilon`` (computed by
    :func:`dpproofs.calibrate_sigma`, one-sided bisection). ``alphas`` calibrates for those
    orders instead of the default ones (so that an accountant queried with ``alphas`` also stays
    below the target). ``epsilon_tolerance`` (Opacus' bisection stop, > 0) is accepted and
    validated; the answer is already far closer: its epsilon is below the target by much less
    than any ``epsilon_tolerance`` >= 1e-4 (sigma is within 1e-6 relative of the smallest
    admissible one). ``kwargs`` go to ``calibrate_sigma`` (e.g. ``conversion``).
    """
    if (steps is None) == (epochs is None):
        raise InvalidArgument(
            f"steps={steps!r}, epochs={epochs!r}: give exactly one of steps and epochs"
        )
    _validate.real("epsilon_tolerance", epsilon_tolerance, 0, low_open=True)
    q = _validate.real("sample_rate", sample_rate, 0, 1, low_open=True)
    steps = steps_for_epochs(epochs, q) if steps is None else _validate.integer("steps", steps, 1)
    kind = _validate.choice("accountant", accountant, ACCOUNTANTS)
    if kind == "pld":
        if alphas is not None:
            raise InvalidArgument(f"alphas={alphas!r} applies to accountant='rdp' only")
        return dpproofs.calibrate_sigma(
            epsilon=target_epsilon, delta=target_delta, q=q, steps=steps, accountant="pld", **kwargs
        )
    return dpproofs.calibrate_sigma(
        epsilon=target_epsilon, delta=target_delta, q=q, steps=steps,
        orders=list(ORDERS) if alphas is None else alphas, **kwargs
    )
