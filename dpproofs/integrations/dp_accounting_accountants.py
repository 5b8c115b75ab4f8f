"""dp_accounting ``PrivacyAccountant`` classes backed by the dpproofs accountants.

    from dpproofs.integrations.dp_accounting_accountants import RdpAccountant, PLDAccountant
    accountant = PLDAccountant()                        # a dp_accounting.PrivacyAccountant
    accountant.compose(dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.1)), 10000)
    accountant.get_epsilon(1e-5)                        # the certified upper end of the bracket

A drop-in where code is written against dp_accounting's interface (``supports(event)``,
``compose(event, count=1)``, ``get_epsilon(target_delta)``, ``get_delta(target_epsilon)``,
``neighboring_relation``, ``ledger``): the classes subclass ``dp_accounting.PrivacyAccountant``,
so ``isinstance`` checks, ``mechanism_calibration`` and dp_accounting's own interface tests
(``dp_accounting.privacy_accountant_test.PrivacyAccountantTest``, run in
tests/test_integrations_dp_accounting_accountants.py) see a dp_accounting accountant. Events are
read by :mod:`dpproofs.integrations.dp_accounting` (its module docstring is the table of what
each event becomes, and which are refused); the answers are dpproofs': :class:`dpproofs.Accountant`
(RDP, the default orders, which contain dp_accounting's) and :class:`dpproofs.PLDAccountant` (the
certified bracket's upper end).

``REPLACE_SPECIAL`` (a record replaced by a special one that contributes nothing) is accounted as
add/remove: for the additive-noise events the pair is the same (the special record adds 0 to the
sum, as an absent one), and dpproofs' randomized response is the worst pair of its two inputs under
either relation, an upper bound on dp_accounting's ``REPLACE_SPECIAL`` pair.

Boundary values, as dp_accounting's interface tests require: ``get_epsilon(0)`` is 0 with no
privacy loss, the summed pure epsilon of the ledger where every step has one (Laplace, randomized
response, discrete Laplace; dp_accounting main's exponential mechanism, permute-and-flip and
``EpsilonDeltaDpEvent`` with delta 0) and ``inf`` otherwise; ``get_epsilon(delta >= 1)`` is 0; ``get_delta(inf)`` is 0;
a ``NonPrivateDpEvent`` makes epsilon ``inf`` and delta 1 everywhere.

:class:`ReadDifferentlyWarning` is issued at ``compose`` where dp_accounting 0.6 reads the same
event differently under ``REPLACE_ONE`` (its RDP accountant reads a bare ``GaussianDpEvent`` and
``SampledWithoutReplacementDpEvent`` as noise over the replace-one sensitivity 2C, dpproofs as
noise over C): the warning names the event and the noise multiplier at which dp_accounting's
answer equals ours.

Importing this module needs dp_accounting (``pip install dp-accounting``).
"""

import math
import warnings

import dp_accounting
import numpy as np
from dp_accounting import privacy_accountant

import dpproofs
from dpproofs import _validate
from dpproofs.integrations import dp_accounting as bridge

__all__ = ["RdpAccountant", "PLDAccountant", "ReadDifferentlyWarning"]

_ADD_OR_REMOVE = dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE


class ReadDifferentlyWarning(UserWarning):
    """dp_accounting reads this event differently from dpproofs (see the module docstring)."""


class _Backed(privacy_accountant.PrivacyAccountant):
    """A dp_accounting accountant whose ledger is read by the bridge and accounted by dpproofs."""

    _kind = "rdp"

    def _setup(self, neighboring_relation, orders=None):
        named = bridge._relation(neighboring_relation)
        relation = bridge._accounted_relation(named)  # REPLACE_SPECIAL as add/remove (module docstring)
        cls, kwargs = bridge._empty_accountant(self._kind, relation, orders)
        super().__init__(neighboring_relation)
        self._named_relation = named
        self._relation = relation
        self._accountant = cls(**kwargs)
        self._non_private = False

    @property
    def accountant(self):
        """The dpproofs accountant holding the composed run (read it for brackets, orders, ...)."""
        return self._accountant

    def _maybe_compose(self, event, count, do_compose):
        count = bridge._count("count", count)
        run = bridge._Run()
        try:  # walked once (count 1 at least: supports() asks with count 0, which would hide the leaves)
            bridge._walk(event, max(count, 1), run, dp_accounting, "event")
        except bridge.UnsupportedEvent as error:
            return self.CompositionErrorDetails(invalid_event=error.event, error_message=str(error))
        bridge._settle_randomized_response(run, self._named_relation)  # the relation picks RR's pair
        refusal = bridge._fixed_slot_refusal(run, self._named_relation) or bridge._main_branch_refusal(run, self._kind)
        if refusal is not None:
            return self.CompositionErrorDetails(invalid_event=refusal.event, error_message=str(refusal))
        for mechanism, _ in run.entries:
            refusal = mechanism.refusal(self._kind, self._relation)
            if refusal is not None:
                return self.CompositionErrorDetails(invalid_event=event,
                                                    error_message=self._relation_words(mechanism) + str(refusal))
        if do_compose and count > 0:
            self._warn_if_read_differently(event)
            for mechanism, times in run.entries:  # the walk's count was max(count, 1) = count here
                self._accountant.compose(mechanism, times)
            self._non_private = self._non_private or run.non_private
        return None

    def _relation_words(self, mechanism):
        """dp_accounting's own leading words when ``mechanism`` is refused under this relation only
        (code that matches its messages keeps working), else ``""``."""
        other = {"replace_one": "add_remove", "add_remove": "replace_one"}[self._relation]
        if mechanism.refusal(self._kind, other) is not None:
            return ""
        allowed = "`ADD_OR_REMOVE_ONE` or `REPLACE_SPECIAL`" if other == "add_remove" else "`REPLACE_ONE`"
        return f"neighboring_relation must be {allowed} for `{type(mechanism).__name__}`: "

    def _warn_if_read_differently(self, event):
        if self._relation != "replace_one":
            return
        for sub in _leaves(event):
            if isinstance(sub, (dp_accounting.GaussianDpEvent, dp_accounting.SampledWithoutReplacementDpEvent)):
                sigma = getattr(sub, "noise_multiplier", None) or getattr(sub.event, "noise_multiplier", None)
                warnings.warn(
                    f"{sub!r}: under REPLACE_ONE dp_accounting's RDP accountant reads the noise multiplier "
                    f"as std over 2C, dpproofs as std over C (dpproofs.integrations.dp_accounting); "
                    f"dp_accounting gives dpproofs' answer at noise_multiplier={2 * sigma!r}, not {sigma!r}",
                    ReadDifferentlyWarning, stacklevel=4)
                return

    def _silent(self):
        return not self._non_private and all(m.silent for m, _ in self._accountant.ledger)

    def get_epsilon(self, target_delta: float) -> float:
        """Epsilon at ``target_delta`` (an upper bound; ``inf`` if the run is non-private)."""
        delta = _validate.real("target_delta", target_delta, 0)
        if self._non_private:
            return math.inf
        if self._silent() or delta >= 1:
            return 0.0
        if delta == 0:
            return self._pure_epsilon()
        return float(self._accountant.epsilon(delta))

    def _pure_epsilon(self):
        """Epsilon at delta 0: the summed pure epsilon of the ledger (pure DP composes by summation:
        Dwork & Roth 2014, Theorem 3.16), rounded up by one ulp per term; ``inf`` when a mechanism
        has no pure epsilon (the Gaussian)."""
        ledger = self._accountant.ledger
        terms = [steps * mechanism.pure_epsilon(self._relation) for mechanism, steps in ledger]
        if any(term == math.inf for term in terms):
            return math.inf
        total = math.fsum(terms)
        return math.nextafter(total * (1 + (len(terms) + 2) * 2.0**-52), math.inf)

    def get_delta(self, target_epsilon: float) -> float:
        """Delta at ``target_epsilon`` (an upper bound; 1 if the run is non-private)."""
        epsilon = _epsilon_or_inf(target_epsilon)
        if self._non_private:
            return 1.0
        if self._silent() or epsilon == math.inf:
            return 0.0
        return float(self._accountant.delta(epsilon))


def _epsilon_or_inf(value):
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value == math.inf:
        return math.inf
    return _validate.real("target_epsilon", value, 0)


def _leaves(event):
    """The leaf events of ``event`` (compositions opened), in order."""
    if isinstance(event, dp_accounting.SelfComposedDpEvent):
        yield from _leaves(event.event)
    elif isinstance(event, dp_accounting.ComposedDpEvent):
        for sub in event.events:
            yield from _leaves(sub)
    else:
        yield event


class RdpAccountant(_Backed):
    """dp_accounting ``RdpAccountant``'s interface over :class:`dpproofs.Accountant`.

    ``orders``: None (dpproofs' default orders, a superset of dp_accounting's) or a sequence of
    orders ``>= 1`` (``inf`` allowed), as dp_accounting takes them. dpproofs accounts at the orders
    inside its range ``[MIN_ORDER, MAX_ORDER]``; :attr:`_rdp` still has one upper bound per order
    asked for (:func:`_rdp_at_requested`), so code indexing it as dp_accounting's keeps working."""

    _kind = "rdp"

    def __init__(self, orders=None, neighboring_relation=_ADD_OR_REMOVE):
        self._requested = None if orders is None else _requested_orders(orders)
        self._setup(neighboring_relation, None if orders is None else _accounted_orders(self._requested))

    @property
    def _orders(self):
        """The orders, as dp_accounting's ``RdpAccountant._orders`` (read by its tests and by code
        written against it): the orders asked for."""
        if self._requested is None:
            return self._accountant.orders
        return np.array(self._requested)

    @property
    def _rdp(self):
        """The composed RDP at :attr:`_orders` (upper bounds), as dp_accounting's ``_rdp``; ``inf``
        everywhere once a non-private event was composed."""
        if self._requested is None:
            values = self._accountant.rdp
        else:
            values = _rdp_at_requested(self._accountant, self._requested)
        if self._non_private:
            values[:] = math.inf
        return values


class PLDAccountant(_Backed):
    """dp_accounting ``PLDAccountant``'s interface over :class:`dpproofs.PLDAccountant`:
    ``get_epsilon`` and ``get_delta`` are the certified upper ends of the brackets."""

    _kind = "pld"

    def __init__(self, neighboring_relation=_ADD_OR_REMOVE, value_discretization_interval=1e-4):
        """``value_discretization_interval`` (dp_accounting's grid step) is validated and kept for
        signature compatibility: dpproofs chooses its own grids, and its answer is a certified
        upper bound whatever the interval."""
        self.value_discretization_interval = _validate.real(
            "value_discretization_interval", value_discretization_interval, 0, low_open=True)
        self._setup(neighboring_relation)


def _requested_orders(orders):
    """``orders`` as floats, each ``>= 1`` (``inf`` allowed); InvalidArgument(Type) otherwise."""
    try:
        values = [float(a) for a in orders]
    except (TypeError, ValueError):
        raise dpproofs.InvalidArgumentType(f"orders={orders!r} must be a sequence of real numbers") from None
    if not values or any(not a >= 1 for a in values):  # also catches nan
        raise dpproofs.InvalidArgument(
            f"orders={orders!r} must be a non-empty sequence of orders in [1, inf]")
    return values


def _accounted_orders(requested):
    """The orders dpproofs accounts at for ``requested``: those in its range, plus ``MIN_ORDER``
    when an order below it was asked for and ``MAX_ORDER`` when none is in range."""
    from dpproofs.accountant.rdp import MAX_ORDER, MIN_ORDER

    kept = sorted({a for a in requested if MIN_ORDER <= a <= MAX_ORDER})
    if any(a < MIN_ORDER for a in requested) and MIN_ORDER not in kept:
        kept.insert(0, MIN_ORDER)
    return kept or [MAX_ORDER]


def _rdp_at_requested(accountant, requested):
    """One upper bound on the composed RDP per requested order.

    Rényi divergence is nondecreasing in the order (van Erven & Harremoës 2014, IEEE Trans. Inf.
    Theory 60(7), Theorem 3), so: an order in ``[1, MIN_ORDER)`` gets the value at ``MIN_ORDER``; an
    order above ``MAX_ORDER`` (``inf`` included) gets the order-infinity value, the summed pure
    epsilon of the ledger (pure DP composes by summation: Dwork & Roth 2014, Theorem 3.16), or
    ``inf`` when a mechanism has no pure epsilon.
    """
    from dpproofs.accountant.rdp import MAX_ORDER, MIN_ORDER

    accounted = {float(a): float(v) for a, v in zip(accountant.orders, accountant.rdp)}
    pure = accountant.pure_epsilon()
    values = []
    for a in requested:
        if a < MIN_ORDER:
            values.append(accounted[MIN_ORDER])
        elif a > MAX_ORDER:
            values.append(pure)
        else:
            values.append(accounted[a])
    return np.array(values, dtype=float)
