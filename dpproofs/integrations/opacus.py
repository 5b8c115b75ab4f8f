"""Opacus accountants backed by dpproofs, registered by name, and a noise calibration that never overshoots.

Nothing here imports torch or Opacus at import time; only :func:`register` imports Opacus (>= 1.6,
the first with ``opacus.accountants.register_accountant``).

Using it with Opacus' ``PrivacyEngine``::

    from opacus import PrivacyEngine
    from dpproofs.integrations import opacus as dpo

    dpo.register()                                 # once per process; calling it again changes nothing
    engine = PrivacyEngine(accountant="dpproofs")  # RDP; "dpproofs-pld": the tight, certified PLD bound
    model, optimizer, train_loader = engine.make_private_with_epsilon(
        module=model, optimizer=optimizer, data_loader=train_loader,
        target_epsilon=8.0, target_delta=1e-5, epochs=epochs, max_grad_norm=1.0)
    ...                                            # train; every optimizer step steps the accountant
    engine.get_epsilon(1e-5)                       # dpproofs' epsilon, <= 8.0 after `epochs`
    engine.save_checkpoint(path="ckpt.pt", module=model, optimizer=optimizer)
    # resume: a new engine with the same accountant name, make_private(...), then
    # engine.load_checkpoint(path="ckpt.pt", module=model, optimizer=optimizer)

:func:`register` does three things, all idempotent (there is no unregistering):

* it registers :class:`DPProofsRDP` as ``"dpproofs"`` and :class:`DPProofsPLD` as
  ``"dpproofs-pld"`` with ``opacus.accountants.register_accountant`` (and as virtual subclasses of
  ``opacus.accountants.IAccountant``), so that ``PrivacyEngine(accountant=...)``,
  ``create_accountant`` and checkpoints know them;
* it replaces ``get_noise_multiplier`` in ``opacus.privacy_engine`` and
  ``opacus.accountants.utils`` by a function that, for these two names only, calls this module's
  :func:`get_noise_multiplier` (``dpproofs.calibrate_sigma`` for the accountant's own epsilon: never
  above the target; "dpproofs" within 1e-6 relative of the smallest such sigma, "dpproofs-pld"
  within ``calibrate_sigma``'s PLD tolerance, 1e-3), and for every other name calls Opacus' own function
  unchanged. Opacus' ``make_private_with_epsilon`` calls that name with
  ``accountant=engine.accountant.mechanism()``; without the replacement it would run Opacus'
  bisection, which stops anywhere within ``epsilon_tolerance`` (0.01) below the target.
  A ``get_noise_multiplier`` imported from Opacus before ``register()`` is Opacus' own loop.

* it wraps ``PrivacyEngine.make_private`` and ``make_private_with_epsilon`` so that, when the
  engine's accountant is one of this module's, the data loader is checked against it (below);
  with any other accountant they run unchanged.

The loader checked against the accountant. Opacus' accountant steps Poisson sampling at
``sample_rate = 1 / len(data_loader)``. :func:`loader_mismatch` reads the loader with
:func:`dpproofs.training.sampling_of` and compares:

* ``poisson_sampling=True`` (Opacus' default): Opacus replaces the loader by a ``DPDataLoader``,
  Poisson at that rate over ``len(data_loader.dataset)`` records, so the accountant is right for
  the loader that runs. When the loader as configured does not make one pass over the dataset
  per ``len(data_loader)`` steps (Opacus #813: a ``WeightedRandomSampler(num_samples=128)`` on
  100 000 records with batch size 16 is 8 steps, so Opacus samples at 0.125, an expected batch
  of 12 500, where the loader drew 16 records at rate 0.00016), or cannot be read (non-uniform
  weights, Opacus #600: the weights are dropped), a :class:`~dpproofs.errors.SamplerMismatchWarning`
  names both schemes and rates. No refusal: the epsilon is an upper bound for what runs.
* ``poisson_sampling=False``: the loader runs as it is. Unless it is Poisson at a rate at most
  the accountant's, the epsilon is no bound for it (shuffled or sequential batches, sampling with
  replacement, weights: none is Poisson). ``make_private`` warns
  (:class:`~dpproofs.errors.SamplerMismatchWarning`); ``make_private_with_epsilon`` raises
  :class:`SamplerMismatch` before it calibrates anything, because its promise -- epsilon at most
  the target after ``epochs`` -- would not hold for the loader that runs (decision: a warning
  there would let a run report a target it does not meet; with noise given, the user chose the
  noise and only the report is wrong, so a warning suffices).

What is detected, and what is not:

* an accountant that was never stepped, given a history, loaded from a checkpoint or asked for its
  optimizer hook raises :class:`DetachedAccountant` from ``get_epsilon``, ``get_privacy_spent`` and
  ``state_dict``, instead of reporting epsilon = 0: this is what an accountant assigned to
  ``engine.accountant`` after ``make_private`` looks like (Opacus' optimizer hook was made from the
  old accountant and keeps stepping it). Set ``history = []`` to read 0 before any step on purpose.
* not detected: an accountant swapped in after ``make_private`` that had already been used
  (stepped, loaded, or hooked to another optimizer) -- it keeps its old count and does not grow.
  Nothing Opacus calls tells an accountant which engine holds it; replace ``engine.accountant``
  only before ``make_private``, or better, name the accountant in ``PrivacyEngine(accountant=)``.

:class:`Accountant` is the same accountant unregistered (``Accountant("rdp")`` or
``Accountant("pld")``), with ``mechanism()`` ``"rdp"`` or ``"pld"``: an ``Accountant("rdp")``
checkpoint loads into Opacus' ``RDPAccountant`` and back.

Every accountant here keeps Opacus' ``history`` format -- a list of ``(noise_multiplier,
sample_rate, num_steps)``, consecutive equal steps merged; each step is one Poisson-subsampled
Gaussian, ``dpproofs.SampledGaussian(sample_rate, noise_multiplier)``. ``load_state_dict`` takes
the state dict of any accountant whose history has that format and records every step: this
module's (``"rdp"``, ``"pld"``, ``"dpproofs"``, ``"dpproofs-pld"``) and Opacus 1.6's ``"rdp"``,
``"prv"`` and ``"gdp"`` (read off their sources: each keeps the full history; GDP refuses a change
of noise or rate, so its one entry is the whole run) -- Opacus itself refuses any other
mechanism's state dict.

``"rdp"`` / ``"dpproofs"``: ``get_epsilon`` is :class:`dpproofs.Accountant`'s upper bound
(``conversion="improved"``, Balle et al. 2020, arXiv 1905.09982v3, Thm 21, the one Opacus uses)
over :data:`ORDERS`. ``"pld"`` / ``"dpproofs-pld"``: :class:`dpproofs.PLDAccountant`'s certified
upper bound on the tight epsilon (no order: ``get_privacy_spent`` is for ``"rdp"`` only).

Differences from Opacus' ``RDPAccountant`` (Opacus 1.6):

* orders (:data:`ORDERS`): dpproofs' default orders (fractional near 1, every integer to 64, up
  to 4096) together with Opacus' ``1.1, 1.2, ..., 10.9, 12, ..., 63``, so that the epsilon is
  never above what Opacus' accountant gives for the same history (beyond this module's upper
  rounding, about 1e-10 relative) and is below it whenever the optimum lies between or beyond
  Opacus' orders; ``get_epsilon(delta, alphas=...)`` uses the given orders instead;
* every epsilon is an upper bound (rounding accounted for, see ``dpproofs.accountant.rdp``);
* ``len(accountant)`` is the number of steps, as ``IAccountant`` documents it; Opacus'
  ``RDPAccountant`` returns the number of history entries (both are 0 exactly when no step was
  taken, which is all ``PrivacyEngine`` asks);
* ``get_epsilon`` refuses keywords it does not know (Opacus' ``RDPAccountant`` ignores them);
* ``get_noise_multiplier(..., epochs=E)``: steps is ``E / sample_rate`` rounded to the nearest
  integer when it is one up to float rounding, else rounded up; Opacus truncates with ``int()``,
  which drops a step when the float quotient falls just below the integer (``epochs=3,
  sample_rate=1/75`` gives 224 steps instead of 225).
"""

import contextvars
import copy
import functools
import math
import warnings
from collections import OrderedDict
from collections.abc import Mapping, MutableMapping
from typing import Any

import dpproofs
from dpproofs import _validate
from dpproofs.accountant.base import check_delta
from dpproofs.accountant.rdp import MAX_STEPS
from dpproofs.accountant.sampling import sampling_of
from dpproofs.errors import DPProofsError, InvalidArgument, InvalidArgumentType, SamplerMismatchWarning
from dpproofs.mechanisms import SampledGaussian

__all__ = [
    "Accountant", "DPProofsRDP", "DPProofsPLD", "DetachedAccountant", "register", "get_noise_multiplier",
    "steps_for_epochs", "ACCOUNTANTS", "REGISTERED", "LOADABLE_MECHANISMS", "ORDERS", "OPACUS_ALPHAS",
    "SamplerMismatch", "SamplerMismatchWarning", "loader_mismatch",
]

#: Accountant kinds of :class:`Accountant` (its ``mechanism()`` strings).
ACCOUNTANTS = ("rdp", "pld")

#: The names :func:`register` gives Opacus, to the kind each stands for.
REGISTERED = {"dpproofs": "rdp", "dpproofs-pld": "pld"}

#: ``state_dict["mechanism"]`` values whose history :meth:`Accountant.load_state_dict` takes: this
#: module's and Opacus 1.6's accountants, all of which keep the full ``(noise_multiplier,
#: sample_rate, num_steps)`` history.
LOADABLE_MECHANISMS = ("rdp", "pld", "dpproofs", "dpproofs-pld", "prv", "gdp")

#: Opacus' ``RDPAccountant.DEFAULT_ALPHAS`` (its documented default orders; no 11, none above 63).
OPACUS_ALPHAS = tuple([1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64)))

#: Default orders of this module: dpproofs' defaults and Opacus' (197 orders; costs no more time
#: than dpproofs' 118, measured: both about 13 ms for a cold epsilon query).
ORDERS = tuple(sorted(set(map(float, dpproofs.DEFAULT_ORDERS)) | set(map(float, OPACUS_ALPHAS))))

#: Keywords ``get_epsilon`` passes to the dpproofs accountant, per kind (``alphas`` is handled
#: here); calibration forwards the same ones that ``calibrate_sigma`` has (see
#: :func:`_opacus_get_noise_multiplier`).
_EPSILON_KEYWORDS = {"rdp": ("conversion", "refine"), "pld": ()}
_CALIBRATION_KEYWORDS = {"rdp": ("alphas", "conversion"), "pld": ()}

#: ``E / sample_rate`` is taken as the integer ``r`` when within this many ulps (relative) of it:
#: ``sample_rate = 1 / len(loader)`` carries one rounding (2^-53 relative) and the division
#: another, so an integer number of steps arrives within 2^-52 relative; 4 ulps is headroom, and
#: far below one step (``4 * 2^-52 * steps < 1`` for any ``steps < 2^50``).
_STEPS_ULPS = 4


class DetachedAccountant(DPProofsError, RuntimeError):
    """An accountant asked for its epsilon or its state while nothing has ever told it about a run:
    never stepped, never given a history, never loaded, and no optimizer hook made from it.

    This is what an accountant assigned to ``engine.accountant`` after Opacus' ``make_private``
    looks like: the optimizer's step hook was made from the previous accountant and steps that
    one, so this one would report epsilon = 0 however long the training runs.
    """


class SamplerMismatch(InvalidArgument):
    """``make_private_with_epsilon`` refused a data loader that does not sample the way the
    accountant assumes (``poisson_sampling=False`` with a loader that is not Poisson at a rate at
    most ``1 / len(data_loader)``): the target epsilon would not be met. The message names both
    schemes and rates."""


def loader_mismatch(data_loader: Any, *, poisson_sampling: bool = True) -> tuple[str, bool] | None:
    """How the sampling of ``data_loader`` differs from the Poisson sampling at rate ``q = 1 /
    len(data_loader)`` that Opacus' ``make_private`` accounts (see the module docstring).

    Args:
        data_loader: the loader given to ``make_private`` (read by
            :func:`dpproofs.training.sampling_of`; torch is not imported).
        poisson_sampling: ``make_private``'s argument: True, Opacus replaces the loader by Poisson
            sampling at ``q`` over its dataset; False, the loader runs as it is.

    Returns:
        None when the accountant's epsilon is a bound for the loader that runs and that loader
        is the one configured (up to the rounding of ``N / B`` to whole batches); otherwise
        ``(message, optimistic)``: the message names both schemes and rates; ``optimistic`` is
        True when the epsilon reported is not a bound for the loader that runs.

    Raises:
        InvalidArgumentType: ``poisson_sampling`` is not a bool, or ``data_loader`` has no ``len``.
    """
    if not isinstance(poisson_sampling, bool):
        raise InvalidArgumentType(f"poisson_sampling={_validate.shown(poisson_sampling)} must be a bool")
    try:
        steps = len(data_loader)
    except TypeError:
        raise InvalidArgumentType(
            f"data_loader={_validate.shown(data_loader)} has no len(): Opacus needs 1 / len(data_loader)"
        ) from None
    steps = _validate.integer("len(data_loader)", steps, 1)
    q = 1 / steps
    try:
        configured = sampling_of(data_loader)
    except (InvalidArgument, InvalidArgumentType) as error:
        configured = error
    accounted = f"Poisson sampling at rate 1/len(data_loader) = {q:.6g}"
    if poisson_sampling:
        try:
            size = len(data_loader.dataset)
        except (AttributeError, TypeError):
            return None  # Opacus refuses such a loader itself
        replaced = (f"with poisson_sampling=True Opacus replaces it by {accounted} over all {size} records "
                    f"(expected batch {q * size:.6g}), which is what the accountant accounts: the epsilon is for that "
                    "loader, not the one configured")
        if isinstance(configured, Exception):
            return f"the data loader cannot be read as configured ({configured}); {replaced}", False
        if configured.scheme == "poisson":
            return None
        per_pass = size / configured.batch_size  # steps of one pass over the dataset, before rounding
        if math.floor(per_pass) <= steps <= math.ceil(per_pass):
            return None
        return (f"the data loader as configured is {configured.describe()}, {configured.batch_size:g} of {size} "
                f"records per step; {replaced} (Opacus #813)"), False
    if isinstance(configured, Exception):
        return (f"the data loader cannot be accounted ({configured}), but the accountant accounts {accounted}: "
                "its epsilon is no bound for this loader; use poisson_sampling=True"), True
    if configured.scheme == "poisson" and configured.rate <= q:
        return None
    return (f"the data loader is {configured.describe()}, but the accountant accounts {accounted}: its epsilon "
            f"is no bound for this loader ({configured.accounting}); use poisson_sampling=True"), True


#: True while a checked ``make_private_with_epsilon`` runs, so that its inner ``make_private``
#: does not check (and warn) a second time.
_CHECKING = contextvars.ContextVar("dpproofs_opacus_checking", default=False)


def _checked(original, refuse):
    """``PrivacyEngine.make_private`` (``refuse=False``) or ``make_private_with_epsilon``
    (``refuse=True``) checking the loader when the engine's accountant is ours."""

    @functools.wraps(original)
    def method(self, *args, **kwargs):
        if not isinstance(getattr(self, "accountant", None), Accountant) or _CHECKING.get():
            return original(self, *args, **kwargs)
        data_loader = kwargs.get("data_loader")
        found = None if data_loader is None else loader_mismatch(
            data_loader, poisson_sampling=kwargs.get("poisson_sampling", True))
        if found is not None:
            message, optimistic = found
            if refuse and optimistic:
                raise SamplerMismatch(
                    f"make_private_with_epsilon: {message}. The target epsilon would not be met for the loader "
                    "that runs, so no noise is calibrated"
                )
            warnings.warn(message, SamplerMismatchWarning, stacklevel=2)
        token = _CHECKING.set(True)
        try:
            return original(self, *args, **kwargs)
        finally:
            _CHECKING.reset(token)

    method._dpproofs_original = original
    return method


def _entry(index, item):
    """One validated history entry ``(noise_multiplier, sample_rate, num_steps)``."""
    if not isinstance(item, (tuple, list)) or len(item) != 3:
        raise InvalidArgumentType(
            f"history[{index}]={_validate.shown(item)} must be a (noise_multiplier, sample_rate, num_steps) tuple"
        )
    sigma, q, steps = item
    _validate.real(f"history[{index}] noise_multiplier", sigma, 0)
    _validate.real(f"history[{index}] sample_rate", q, 0, 1)
    _validate.integer(f"history[{index}] num_steps", steps, 0, MAX_STEPS)
    return (sigma, q, steps)


def _history(value):
    """A validated copy of a whole history (a list of entries); raises before anything changes."""
    if isinstance(value, (str, bytes, Mapping)):
        items = None
    else:
        try:
            items = list(value)
        except TypeError:  # not iterable (a number, a 0-d numpy array, None)
            items = None
    if items is None:
        raise InvalidArgumentType(
            f"history={_validate.shown(value)} must be a list of (noise_multiplier, sample_rate, num_steps)"
        )
    return [_entry(index, item) for index, item in enumerate(items)]


def _step_arguments(noise_multiplier, sample_rate):
    _validate.real("noise_multiplier", noise_multiplier, 0)
    _validate.real("sample_rate", sample_rate, 0, 1)


def _orders(alphas):
    """``alphas`` (Opacus' keyword) as a tuple; the accountant validates the values."""
    if isinstance(alphas, (str, bytes, Mapping)):
        items = None
    else:
        try:
            items = tuple(alphas)
        except TypeError:  # not iterable
            items = None
    if items is None:
        raise InvalidArgumentType(f"alphas={_validate.shown(alphas)} must be a sequence of RDP orders")
    return items


def _keywords(function, kwargs, allowed):
    unknown = sorted(set(kwargs) - set(allowed))
    if unknown:
        raise InvalidArgumentType(
            f"{function}() got unexpected keyword argument(s) {', '.join(map(repr, unknown))}; "
            f"allowed: {', '.join(allowed) if allowed else 'none'}"
        )


class Accountant:
    """Opacus-style accountant: ``step(noise_multiplier=, sample_rate=)``, ``get_epsilon(delta)``.

    ``accountant``: ``"rdp"`` (:class:`dpproofs.Accountant` over ``orders``, None for
    :data:`ORDERS`) or ``"pld"`` (:class:`dpproofs.PLDAccountant`, the certified upper bound on
    the tight epsilon). ``noise_multiplier = 0`` (no noise) is allowed, as in Opacus: epsilon is
    then ``inf``; ``sample_rate = 0`` steps cost nothing. ``mechanism()`` is ``accountant``; the
    registered subclasses :class:`DPProofsRDP` and :class:`DPProofsPLD` answer their registered
    names.
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
        self._told = False  # stepped, given a history, loaded, or hooked: see DetachedAccountant

    # --- Opacus' interface --------------------------------------------------------------------

    @property
    def history(self) -> list:
        """Opacus' format: a list of ``(noise_multiplier, sample_rate, num_steps)`` (a copy).

        Assignable, as Opacus' ``get_noise_multiplier`` and ``load_state_dict`` assign it; the
        new history is validated entirely before it replaces the old one.
        """
        return list(self._history)

    @history.setter
    def history(self, value: Any) -> None:
        self._history = _history(value)
        self._told = True

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """Account one optimisation step (merged into the last history entry when equal)."""
        _step_arguments(noise_multiplier, sample_rate)
        self._told = True
        if self._history:
            last_sigma, last_q, last_steps = self._history[-1]
            if last_sigma == noise_multiplier and last_q == sample_rate:
                self._history[-1] = (last_sigma, last_q, last_steps + 1)
                return
        self._history.append((noise_multiplier, sample_rate, 1))

    def get_epsilon(self, delta: float, alphas: Any = None, **kwargs: Any) -> float:
        """Upper bound on epsilon after the steps so far, at ``delta``; 0 before any step.

        ``alphas``: orders for this query (Opacus' keyword; rdp only). Other keywords go to the
        dpproofs accountant's ``epsilon`` (rdp: ``conversion="classic"``, ``refine=True``; pld:
        none). Raises :class:`DetachedAccountant` if nothing ever told this accountant about a
        run (see the module docstring).
        """
        if self._kind == "rdp":
            return self._spent("get_epsilon", delta, alphas, kwargs)[0]
        _keywords("get_epsilon", kwargs, _EPSILON_KEYWORDS["pld"])
        check_delta(delta)
        if alphas is not None:
            raise InvalidArgument(f"alphas={_validate.shown(alphas)} applies to accountant='rdp' only")
        self._require_told("get_epsilon")
        accountant = self._accountant(self._orders)
        return math.inf if accountant is None else accountant.epsilon(delta)

    def get_privacy_spent(self, *, delta: float, alphas: Any = None, **kwargs: Any) -> tuple[float, float]:
        """``(epsilon, best_alpha)`` as Opacus' ``RDPAccountant.get_privacy_spent`` (rdp only:
        a PLD bound has no order; use ``get_epsilon``). ``best_alpha`` is nan before any step
        and when a step had no noise (epsilon inf)."""
        if self._kind != "rdp":
            raise InvalidArgument(
                "get_privacy_spent returns (epsilon, best RDP order), which exists for accountant='rdp' "
                f"only; this accountant is {self.mechanism()!r}: use get_epsilon(delta)"
            )
        return self._spent("get_privacy_spent", delta, alphas, kwargs)

    def _spent(self, method, delta, alphas, kwargs):
        """``(epsilon, best_alpha)`` of the rdp accountant for ``method``."""
        _keywords(method, kwargs, _EPSILON_KEYWORDS["rdp"])
        check_delta(delta)
        orders = self._orders if alphas is None else _orders(alphas)
        self._require_told(method)
        accountant = self._accountant(orders)
        if accountant is None or not any(q > 0 and steps > 0 for _, q, steps in self._history):
            dpproofs.Accountant(list(orders)).epsilon(delta, **kwargs)  # validates the orders and keywords
            return (math.inf if accountant is None else 0.0), math.nan
        return accountant.epsilon_and_order(delta, **kwargs)

    def __len__(self) -> int:
        """Number of steps taken (the sum of ``num_steps`` over the history)."""
        return int(sum(steps for _, _, steps in self._history))

    def mechanism(self) -> str:
        """Opacus' accountant name: ``"rdp"`` or ``"pld"`` (registered subclasses: their name)."""
        return self._kind

    def state_dict(self, destination: MutableMapping | None = None) -> MutableMapping:
        """``destination`` (a new ``OrderedDict`` if None) with ``history`` (a deep copy) and
        ``mechanism``, as Opacus writes it. Raises :class:`DetachedAccountant` if nothing ever
        told this accountant about a run (a checkpoint of it would record no step)."""
        if destination is not None and not isinstance(destination, MutableMapping):
            raise InvalidArgumentType(
                f"destination={_validate.shown(destination)} must be None or a mutable mapping (a dict)"
            )
        self._require_told("state_dict")
        if destination is None:
            destination = OrderedDict()
        destination["history"] = copy.deepcopy(self._history)
        destination["mechanism"] = self.mechanism()
        return destination

    def load_state_dict(self, state_dict: Mapping) -> None:
        """Replace the history by ``state_dict["history"]``. ``InvalidArgument`` (a ValueError, as
        Opacus raises) if it is empty, lacks ``history`` or ``mechanism``, or its mechanism is
        not one of :data:`LOADABLE_MECHANISMS`; ``InvalidArgumentType`` if it is not a mapping.
        Nothing changes on error."""
        if state_dict is None or (isinstance(state_dict, Mapping) and len(state_dict) == 0):
            raise InvalidArgument(f"state_dict={state_dict!r} is empty and cannot be loaded")
        if not isinstance(state_dict, Mapping):
            raise InvalidArgumentType(
                f"state_dict={_validate.shown(state_dict)} must be a mapping with keys 'history' and 'mechanism'"
            )
        for key in ("history", "mechanism"):
            if key not in state_dict:
                raise InvalidArgument(f"state_dict={_validate.shown(state_dict)} has no key {key!r}")
        mechanism = state_dict["mechanism"]
        if not isinstance(mechanism, str) or mechanism not in LOADABLE_MECHANISMS:
            raise InvalidArgument(
                f"state_dict['mechanism']={_validate.shown(mechanism)} cannot be loaded into an accountant "
                f"with mechanism {self.mechanism()!r}; allowed: one of {list(LOADABLE_MECHANISMS)}"
            )
        self.history = state_dict["history"]

    def get_optimizer_hook_fn(self, sample_rate: float) -> Any:
        """The step hook Opacus' ``PrivacyEngine`` attaches to its ``DPOptimizer``: each optimizer
        step accounts ``noise_multiplier=optim.noise_multiplier`` at ``sample_rate *
        optim.accumulated_iterations``. Making it attaches this accountant (see
        :class:`DetachedAccountant`)."""
        sample_rate = _validate.real("sample_rate", sample_rate, 0, 1)
        self._told = True

        def hook_fn(optim):
            missing = [name for name in ("noise_multiplier", "accumulated_iterations") if not hasattr(optim, name)]
            if missing:
                raise InvalidArgumentType(
                    f"optim={_validate.shown(optim)} has no {', '.join(missing)}: the hook takes Opacus' DPOptimizer"
                )
            iterations = _validate.integer("optim.accumulated_iterations", optim.accumulated_iterations, 1, MAX_STEPS)
            rate = sample_rate * iterations
            if rate > 1:
                raise InvalidArgument(
                    f"sample_rate * optim.accumulated_iterations = {sample_rate!r} * {iterations} = {rate!r} "
                    "is above 1: more batches accumulated than the loader has in one pass"
                )
            self.step(noise_multiplier=optim.noise_multiplier, sample_rate=rate)

        return hook_fn

    # --- dpproofs' side -------------------------------------------------------------------------

    def dpproofs_accountant(self) -> Any:
        """The dpproofs accountant with the history composed (a new object each call): ``delta``,
        ``epsilon_and_order``, ``to_dict``, ... Raises if a step had no noise (epsilon inf)."""
        accountant = self._accountant(self._orders)
        if accountant is None:
            raise InvalidArgument("the history has a step with noise_multiplier=0: it is not private (epsilon = inf)")
        return copy.deepcopy(accountant)

    def _require_told(self, method):
        if not self._told:
            raise DetachedAccountant(
                f"{type(self).__name__}.{method}(): this accountant was never stepped, given a history, loaded "
                "from a checkpoint or attached to an optimizer, so its epsilon would read 0. If it was assigned to "
                "engine.accountant after make_private, Opacus' optimizer hook still steps the previous accountant: "
                "name it in PrivacyEngine(accountant='dpproofs' or 'dpproofs-pld') after "
                "dpproofs.integrations.opacus.register(), or assign it before make_private. To read 0 before "
                "any step on purpose, set accountant.history = [] first."
            )

    def _accountant(self, orders):
        """The composed accountant (cached per history and orders); None if a step is non-private."""
        key = (tuple(self._history), None if orders is None else tuple(orders))
        if self._built is not None and self._built[0] == key:
            return self._built[1]
        if any(sigma == 0 and q > 0 and steps > 0 for sigma, q, steps in self._history):
            built = None
        else:
            built = dpproofs.PLDAccountant() if self._kind == "pld" else dpproofs.Accountant(list(orders))
            for sigma, q, steps in self._history:
                if q > 0 and steps > 0:
                    built.compose(SampledGaussian(q, sigma), steps)
        self._built = (key, built)
        return built

    def __repr__(self):
        return f"{type(self).__module__}.{type(self).__qualname__}({self.mechanism()!r}, {len(self)} steps, history={self._history!r})"


class DPProofsRDP(Accountant):
    """``Accountant("rdp")`` under the name ``"dpproofs"``: what ``PrivacyEngine(accountant=
    "dpproofs")`` creates after :func:`register` (Opacus creates it with no argument)."""

    def __init__(self, *, orders: Any = None) -> None:
        super().__init__("rdp", orders=orders)

    @classmethod
    def mechanism(cls) -> str:
        """``"dpproofs"``: the name Opacus knows this class by."""
        return "dpproofs"


class DPProofsPLD(Accountant):
    """``Accountant("pld")`` under the name ``"dpproofs-pld"``: what ``PrivacyEngine(accountant=
    "dpproofs-pld")`` creates after :func:`register`."""

    def __init__(self) -> None:
        super().__init__("pld")

    @classmethod
    def mechanism(cls) -> str:
        """``"dpproofs-pld"``: the name Opacus knows this class by."""
        return "dpproofs-pld"


_CLASSES = {"dpproofs": DPProofsRDP, "dpproofs-pld": DPProofsPLD}


def register() -> tuple[str, ...]:
    """Register :class:`DPProofsRDP` as ``"dpproofs"`` and :class:`DPProofsPLD` as
    ``"dpproofs-pld"`` with Opacus (>= 1.6), make Opacus' ``get_noise_multiplier`` calibrate
    with :func:`get_noise_multiplier` for those names, and make ``PrivacyEngine.make_private``
    and ``make_private_with_epsilon`` check the data loader against our accountants with
    :func:`loader_mismatch` (see the module docstring). Idempotent:
    calling it again changes nothing. Returns the registered names. Raises ``ImportError`` naming
    what is missing if Opacus is not installed or older than 1.6.
    """
    try:
        import opacus.accountants as accountants
        import opacus.accountants.utils as utils
        import opacus.privacy_engine as privacy_engine
    except ImportError as error:
        raise ImportError(
            f"dpproofs.integrations.opacus.register() needs Opacus >= 1.6 and torch "
            f"(pip install 'dpproofs[opacus]'): {error}"
        ) from error
    if not hasattr(accountants, "register_accountant"):
        raise ImportError(
            "dpproofs.integrations.opacus.register() needs Opacus >= 1.6 (opacus.accountants.register_accountant); "
            f"installed: {getattr(__import__('opacus'), '__version__', 'unknown')}"
        )
    for name, cls in _CLASSES.items():
        accountants.IAccountant.register(cls)
        try:
            current = type(accountants.create_accountant(mechanism=name))
        except ValueError:  # not registered yet: Opacus' create_accountant raises ValueError
            current = None
        if current is not cls:
            accountants.register_accountant(name, cls, force=True)
    for module in (utils, privacy_engine):
        function = module.get_noise_multiplier
        if getattr(function, "_dpproofs_original", None) is None:
            module.get_noise_multiplier = _opacus_get_noise_multiplier(function)
    engine = privacy_engine.PrivacyEngine
    for name, refuse in (("make_private", False), ("make_private_with_epsilon", True)):
        function = getattr(engine, name)
        if getattr(function, "_dpproofs_original", None) is None:
            setattr(engine, name, _checked(function, refuse))
    return tuple(_CLASSES)


def _opacus_get_noise_multiplier(original):
    """Opacus' ``get_noise_multiplier``, calling ours for :data:`REGISTERED` names.

    Of the other keywords (``make_private_with_epsilon`` passes its own, meant for
    ``make_private``, and Opacus' accountants ignore those they do not know) only those our
    calibration has are forwarded: ``alphas`` and ``conversion`` for ``"dpproofs"``.
    """

    @functools.wraps(original)
    def get_noise_multiplier_(*, target_epsilon, target_delta, sample_rate, epochs=None, steps=None,
                              accountant="rdp", epsilon_tolerance=0.01, **kwargs):
        if not (isinstance(accountant, str) and accountant in REGISTERED):
            return original(target_epsilon=target_epsilon, target_delta=target_delta, sample_rate=sample_rate,
                            epochs=epochs, steps=steps, accountant=accountant,
                            epsilon_tolerance=epsilon_tolerance, **kwargs)
        kind = REGISTERED[accountant]
        forwarded = {name: value for name, value in kwargs.items() if name in _CALIBRATION_KEYWORDS[kind]}
        return get_noise_multiplier(target_epsilon=target_epsilon, target_delta=target_delta,
                                    sample_rate=sample_rate, epochs=epochs, steps=steps, accountant=kind,
                                    epsilon_tolerance=epsilon_tolerance, **forwarded)

    get_noise_multiplier_._dpproofs_original = original
    return get_noise_multiplier_


def steps_for_epochs(epochs: float, sample_rate: float) -> int:
    """Steps in ``epochs`` passes at ``sample_rate`` (``1 / len(loader)`` in Opacus): ``epochs /
    sample_rate`` rounded to the nearest integer when it is one up to float rounding (see
    ``_STEPS_ULPS``), else rounded up (a partial last pass is a step)."""
    epochs = _validate.real("epochs", epochs, 0, low_open=True)
    sample_rate = _validate.real("sample_rate", sample_rate, 0, 1, low_open=True)
    ratio = epochs / sample_rate
    if ratio > MAX_STEPS:
        raise InvalidArgument(
            f"epochs / sample_rate = {ratio!r} steps is above MAX_STEPS=10**300 (epochs={epochs!r}, "
            f"sample_rate={sample_rate!r})"
        )
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

    ``accountant``: ``"rdp"`` or ``"pld"`` (also their registered names ``"dpproofs"`` and
    ``"dpproofs-pld"``). Never overshoots: ``Accountant(accountant)`` with ``history =
    [(sigma, sample_rate, steps)]`` reports ``get_epsilon(target_delta) <= target_epsilon``
    (computed by :func:`dpproofs.calibrate_sigma`, one-sided bisection: for "pld" within its
    ``tolerance``, default 1e-3 relative, of the smallest such sigma). ``alphas`` calibrates for
    those orders instead of the default ones (so that an accountant queried with ``alphas`` also
    stays below the target). ``epsilon_tolerance`` (Opacus' bisection stop, > 0) is accepted and
    validated; the answer is already far closer: its epsilon is below the target by much less
    than any ``epsilon_tolerance`` >= 1e-4. ``kwargs`` go to ``calibrate_sigma`` (rdp:
    ``conversion``; pld: ``relative_width``, ``tolerance``).
    """
    if (steps is None) == (epochs is None):
        raise InvalidArgument(
            f"steps={steps!r}, epochs={epochs!r}: give exactly one of steps and epochs"
        )
    kind = _validate.choice("accountant", accountant, ACCOUNTANTS + tuple(REGISTERED))
    kind = REGISTERED.get(kind, kind)
    _keywords("get_noise_multiplier", kwargs, ("conversion",) if kind == "rdp" else ("relative_width", "tolerance"))
    _validate.real("epsilon_tolerance", epsilon_tolerance, 0, low_open=True)
    q = _validate.real("sample_rate", sample_rate, 0, 1, low_open=True)
    steps = steps_for_epochs(epochs, q) if steps is None else _validate.integer("steps", steps, 1, MAX_STEPS)
    if kind == "pld":
        if alphas is not None:
            raise InvalidArgument(f"alphas={_validate.shown(alphas)} applies to accountant='rdp' only")
        for name, value in kwargs.items():  # calibrate_sigma checks the ranges; a list there is a bare TypeError
            if value is not None:
                _validate.real(name, value)
        return dpproofs.calibrate_sigma(
            epsilon=target_epsilon, delta=target_delta, q=q, steps=steps, accountant="pld", **kwargs
        )
    return dpproofs.calibrate_sigma(
        epsilon=target_epsilon, delta=target_delta, q=q, steps=steps,
        orders=list(ORDERS if alphas is None else _orders(alphas)), **kwargs
    )
