"""The one accountant interface: :class:`PrivacyAccountant` (in the spirit of dp_accounting's
``PrivacyAccountant``), which :class:`dpproofs.Accountant` (RDP) and :class:`dpproofs.PLDAccountant`
(tight, certified PLD bracket) implement.

The interface::

    acc.compose(mechanism, steps=1)      -> acc   (nothing half-applied on error)
    acc.supports(mechanism)              -> bool  (the one mechanism check)
    acc.epsilon(delta)                   -> float, or a list for a sequence of deltas
    acc.epsilon_bounds(delta)            -> (lower, upper), or a list of them
    acc.delta(epsilon)                   -> float, or a list
    acc.delta_bounds(epsilon)            -> (lower, upper), or a list
    acc.tpr_at_fpr(fpr)                  -> float, or a list: an upper bound on a test's power
    acc.tpr_at_fpr_bounds(fpr)           -> (lower, upper) around the exact profile's power bound
    acc.gdp_mu_bounds(min_delta=1e-10)   -> (lower, upper) around the composition's GDP mu
    acc.ledger                           -> [(mechanism, steps), ...] (a copy)
    acc.relation                         -> "add_remove" | "replace_one"
    acc.to_dict() / Class.from_dict(data)

``epsilon`` and ``delta`` are upper bounds; the exact (tight) value of the composition lies in
``*_bounds``. The RDP accountant's lower end is 0 (an RDP bound says nothing from below) and its
upper end is its answer. What a mechanism needs to be supported is the mechanism's own business
(:meth:`dpproofs.mechanisms.Mechanism.analysis`): an accountant asks it for its pairs under the
accountant's relation, and refuses a mechanism that has none with the mechanism's own reason.

This module holds the code both accountants share, once: the mechanism check, one value or a
sequence, the ledger's (de)serialisation.
"""

import abc
from collections.abc import Sequence

import numpy as np

from dpproofs import _validate
from dpproofs.errors import InvalidArgument, InvalidArgumentType
from dpproofs.mechanisms import Mechanism

__all__ = ["PrivacyAccountant", "Bounds", "RELATIONS", "sequence_items"]

#: The neighbouring relations, the default first.
RELATIONS = ("add_remove", "replace_one")


class Bounds(tuple):
    """``(lower, upper)``: the exact value lies in between. Attributes: ``lower``, ``upper``,
    ``source`` (``"pld"``: both ends from the tight computation; ``"rdp"``: the upper end is an RDP
    bound (the RDP accountant's, or the PLD accountant's fallback); ``"exact"``: the exact value,
    0, known without a grid: zero privacy loss, or a delta at least the composition's total variation
    bound; ``"gdp"``: a Gaussian-DP mu bracket; ``"profile"``: a power bracket of
    :meth:`PrivacyAccountant.tpr_at_fpr_bounds`), ``grid_step`` (the finest PLD grid step used, or None)."""

    def __new__(cls, lower: float, upper: float, source: str, grid_step: float | None = None) -> "Bounds":
        self = super().__new__(cls, (float(lower), float(upper)))
        self.source = source
        self.grid_step = grid_step
        return self

    @property
    def lower(self) -> float:
        return self[0]

    @property
    def upper(self) -> float:
        return self[1]

    @property
    def width(self) -> float:
        return self[1] - self[0]

    def __repr__(self):
        return f"Bounds(lower={self[0]!r}, upper={self[1]!r}, source={self.source!r}, grid_step={self.grid_step!r})"


def sequence_items(name, value):
    """The items of a list, tuple or 1-D numpy array (as a list), or None for a single value."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, np.ndarray) and value.ndim != 0:
        if value.ndim != 1:
            raise InvalidArgument(f"{name}={value!r} must be a number or a one-dimensional sequence")
        return value.tolist()
    return None


def check_delta(value, name="delta"):
    """``delta`` in ``(0, 1)``."""
    return _validate.real(name, value, 0, 1, low_open=True, high_open=True)


def check_epsilon(value, name="epsilon"):
    """``epsilon >= 0``."""
    return _validate.real(name, value, 0)


def check_fpr(value, name="fpr"):
    """``fpr`` in ``[0, 1]``."""
    return _validate.real(name, value, 0, 1)


class PrivacyAccountant(abc.ABC):
    """Abstract accountant: see the module docstring for the interface.

    A subclass sets :attr:`kind` (``"rdp"`` or ``"pld"``: the name :func:`dpproofs.calibrate_sigma`
    and the CLI use) and implements :meth:`_compose_checked`, :meth:`_epsilon_one`,
    :meth:`_epsilon_bounds_one`, :meth:`_delta_one`, :meth:`_delta_bounds_one`, :attr:`ledger`,
    :meth:`_options` and the constructor (which must accept every key of :meth:`_options`
    and ``relation=``)."""

    #: The accountant's name in ``calibrate_sigma(accountant=...)`` and ``--accountant``.
    kind: str = ""

    _relation: str = "add_remove"

    # --- the mechanism check -------------------------------------------------------------

    def supports(self, mechanism: Mechanism) -> bool:
        """Whether :meth:`compose` accepts ``mechanism`` (under this accountant's relation)."""
        return self._refusal(mechanism) is None

    def _refusal(self, mechanism):
        """The error :meth:`compose` raises for ``mechanism``, or None if it is supported."""
        if not isinstance(mechanism, Mechanism):
            return InvalidArgumentType(
                f"mechanism={mechanism!r} must be a dpproofs mechanism ({', '.join(Mechanism._registry)}), "
                f"not {type(mechanism).__name__}"
            )
        return mechanism.refusal(self.kind, self._relation)

    def _require_supported(self, mechanism):
        refused = self._refusal(mechanism)
        if refused is not None:
            raise refused
        return mechanism

    # --- composition ---------------------------------------------------------------------

    def compose(self, mechanism: Mechanism, steps: int = 1) -> "PrivacyAccountant":
        """Add ``steps`` (an integer >= 0) applications of ``mechanism``; return ``self``. Everything
        is validated before the ledger changes: a failed compose leaves the accountant unchanged."""
        self._require_supported(mechanism)
        self._compose_checked(mechanism, steps)
        return self

    @abc.abstractmethod
    def _compose_checked(self, mechanism, steps):
        """Validate ``steps`` and add them (``mechanism`` is supported)."""

    @property
    @abc.abstractmethod
    def ledger(self) -> list:
        """The composed mechanisms as a list of ``(mechanism, steps)`` (a copy)."""

    @property
    def relation(self) -> str:
        """The neighbouring relation, ``"add_remove"`` or ``"replace_one"``."""
        return self._relation

    # --- queries: one value or a sequence ------------------------------------------------

    @staticmethod
    def _each(name, value, check, one):
        """``one(check(value))``, or a list of it over a sequence (each item validated by index)."""
        items = sequence_items(name, value)
        if items is None:
            return one(check(value, name))
        checked = [check(item, f"{name}[{index}]") for index, item in enumerate(items)]
        return [one(item) for item in checked]

    def epsilon(self, delta: float | Sequence[float]) -> float | list[float]:
        """An upper bound on epsilon at ``delta`` (in ``(0, 1)``), or a list for a sequence."""
        return self._each("delta", delta, check_delta, self._epsilon_one)

    def epsilon_bounds(self, delta: float | Sequence[float]) -> "Bounds | list[Bounds]":
        """``(lower, upper)`` around the exact epsilon of the composition at ``delta``, or a list."""
        return self._each("delta", delta, check_delta, self._epsilon_bounds_one)

    def delta(self, epsilon: float | Sequence[float]) -> float | list[float]:
        """An upper bound on delta at ``epsilon`` (``>= 0``), or a list for a sequence."""
        return self._each("epsilon", epsilon, check_epsilon, self._delta_one)

    def delta_bounds(self, epsilon: float | Sequence[float]) -> "Bounds | list[Bounds]":
        """``(lower, upper)`` around the exact delta of the composition at ``epsilon``, or a list."""
        return self._each("epsilon", epsilon, check_epsilon, self._delta_bounds_one)

    # --- the privacy curve (dpproofs.accountant.curve): from delta, so every accountant has it ---

    def tpr_at_fpr(self, fpr: float | Sequence[float]) -> float | list[float]:
        """A certified upper bound on the power (true-positive rate, ``1 - beta``) of any test at
        type-I error ``fpr`` between the composition's neighbouring output distributions, in
        either order: the f-DP trade-off of the composition read as an auditor's power bound.

        It is ``inf over eps >= 0 of min(1, delta(eps) + e^eps fpr, 1 - e^-eps (1 - delta(eps) - fpr))``
        (Dong, Roth & Su 2022, arXiv 1905.02383v3, Prop. 2.12, the f-DP / (eps, delta) duality),
        with this accountant's own :meth:`delta` (an upper bound on the exact profile). Why it stays
        an upper bound: ``(eps, delta)``-DP with a larger delta still holds, every term increases with
        delta, and an infimum over a finite set of ``eps`` is at least the infimum over all of them.
        The set is chosen by :func:`dpproofs.accountant.curve.tpr_upper` (a scan and a golden-section
        refinement): with the exact Gaussian profile it is within 1e-9 of the closed form
        ``Phi(Phi^-1(fpr) + mu)``; with the PLD accountant the gap is that of its delta bracket
        (``delta_relative_width``, 1e-2 relative by default), with the RDP accountant that of the
        RDP conversion.

        Args:
            fpr: a type-I error in ``[0, 1]``, or a sequence of them.

        Returns:
            A float in ``[fpr, 1]`` (1 at ``fpr = 1``), or a list for a sequence.

        Raises:
            InvalidArgument: ``fpr`` (or an item, named ``fpr[i]``) is nan or outside ``[0, 1]``.
            InvalidArgumentType: ``fpr`` is not a real number (nor a sequence of them).
        """
        from dpproofs.accountant import curve

        return self._each("fpr", fpr, check_fpr, lambda value: curve.tpr_upper(self._delta_one, value))

    def tpr_at_fpr_bounds(self, fpr: float | Sequence[float]) -> "Bounds | list[Bounds]":
        """:class:`Bounds` ``(lower, upper)`` around ``V(fpr)``, the power bound that the composition's
        EXACT privacy profile gives at type-I error ``fpr`` (the infimum of :meth:`tpr_at_fpr`'s
        expression with the exact delta); ``upper`` is :meth:`tpr_at_fpr`.

        For a symmetric pair (Gaussian, Laplace, randomized response) ``V`` is the largest power of a
        test; for a sampled mechanism, whose two orders differ, the profile is the maximum over both
        and the largest power may be below ``V``: then ``lower`` bounds ``V``, not the power. The
        lower end bounds an infimum over every epsilon, so it needs the lower delta on every cell
        between the points asked (monotonicity: :func:`dpproofs.accountant.curve.tpr_bounds`), not
        only at the best one. The RDP accountant's lower delta is 0: its lower end is ``fpr``.

        Args:
            fpr: a type-I error in ``[0, 1]``, or a sequence of them.

        Returns:
            :class:`Bounds` (``source="profile"``), ``fpr <= lower <= upper <= 1``, or a list.

        Raises:
            InvalidArgument: ``fpr`` (or an item, named ``fpr[i]``) is nan or outside ``[0, 1]``.
            InvalidArgumentType: ``fpr`` is not a real number (nor a sequence of them).
        """
        from dpproofs.accountant import curve

        def one(value):
            return Bounds(*curve.tpr_bounds(self._delta_bounds_one, value), "profile")

        return self._each("fpr", fpr, check_fpr, one)

    def gdp_mu_bounds(self, min_delta: float = 1e-10) -> "Bounds":
        """:class:`Bounds` ``(lower, upper)`` around the smallest Gaussian-DP ``mu`` of the
        composition "down to ``min_delta``": the smallest ``mu`` with ``delta(eps) <= max(delta_mu(eps),
        min_delta)`` at every ``eps >= 0``, ``delta_mu(eps) = Phi(-eps/mu + mu/2) - e^eps
        Phi(-eps/mu - mu/2)`` (Dong, Roth & Su 2022, arXiv 1905.02383v3, Def. 2.6 and Cor. 2.13:
        with ``min_delta`` 0 this is exactly mu-GDP). For a composition of T Gaussians of noise
        sigma it is ``sqrt(T)/sigma``; a non-Gaussian composition is not exactly GDP, and ``mu`` is
        then the smallest one whose curve dominates its profile (above ``min_delta``).

        The upper end is proved for every ``eps``, not only at the grid points the profile is asked
        at (convexity in ``e^eps`` and monotonicity of both curves:
        :func:`dpproofs.accountant.curve.gdp_mu_bounds`); for ``eps`` where the composition's delta
        is below ``min_delta`` nothing beyond that is claimed (no finite computation certifies the
        profile's far tail). The lower end comes from the accountant's lower delta (0 for the RDP
        accountant). ``source`` is ``"gdp"`` (``"exact"``: ``Bounds(0, 0)``, the profile is below
        ``min_delta`` everywhere); ``upper`` is ``inf`` when no ``mu <= 1e6`` can be proved.

        Args:
            min_delta: the floor, in ``(0, 1)``; default ``1e-10``.

        Returns:
            :class:`Bounds` ``(lower, upper)``.

        Raises:
            InvalidArgument: ``min_delta`` is nan or outside ``(0, 1)``.
            InvalidArgumentType: ``min_delta`` is not a real number.
        """
        from dpproofs.accountant import curve

        min_delta = _validate.real("min_delta", min_delta, 0, 1, low_open=True, high_open=True)
        lower, upper, source = curve.gdp_mu_bounds(self._delta_bounds_one, min_delta)
        return Bounds(lower, upper, source)

    @abc.abstractmethod
    def _epsilon_one(self, delta): ...

    @abc.abstractmethod
    def _epsilon_bounds_one(self, delta): ...

    @abc.abstractmethod
    def _delta_one(self, epsilon): ...

    @abc.abstractmethod
    def _delta_bounds_one(self, epsilon): ...

    # --- serialisation -------------------------------------------------------------------

    @abc.abstractmethod
    def _options(self) -> dict:
        """The constructor's keyword arguments (besides ``relation``) that ``to_dict`` records."""

    def to_dict(self) -> dict:
        """A plain-JSON description: type, options, relation and ledger."""
        return {
            "type": next(k.__name__ for k in type(self).__mro__ if "kind" in vars(k)),
            **self._options(),
            "relation": self._relation,
            "ledger": [{"mechanism": m.to_dict(), "steps": int(n)} for m, n in self.ledger],
        }

    @classmethod
    def from_dict(cls, data: dict) -> "PrivacyAccountant":
        """Inverse of :meth:`to_dict`; validates like the constructor and :meth:`compose`."""
        # the type is the accountant's own class name (a subclass that only adds behaviour, such as
        # the dp_accounting bridge's non-private accountants, reads and writes its base's dicts)
        name = next(k.__name__ for k in cls.__mro__ if "kind" in vars(k))
        if not isinstance(data, dict) or data.get("type") != name:
            raise InvalidArgumentType(
                f"data={data!r} must be a dict with type {name!r}, as made by {name}.to_dict()"
            )
        ledger = data.get("ledger", [])
        if not isinstance(ledger, list):
            raise InvalidArgumentType(f"data['ledger']={ledger!r} must be a list")
        options = {key: value for key, value in data.items() if key not in ("type", "ledger")}
        known = set(cls._option_names()) | {"relation"}
        unknown = set(options) - known
        if unknown:
            raise InvalidArgumentType(f"data has unknown keys {sorted(unknown)!r}; allowed: {sorted(known)!r}")
        accountant = cls(**options)
        entries = []
        for index, entry in enumerate(ledger):
            if not isinstance(entry, dict) or set(entry) != {"mechanism", "steps"}:
                raise InvalidArgumentType(
                    f"data['ledger'][{index}]={entry!r} must be a dict with keys 'mechanism' and 'steps'"
                )
            entries.append((Mechanism.from_dict(entry["mechanism"]), entry["steps"]))
        for mechanism, steps in entries:
            accountant.compose(mechanism, steps)
        return accountant

    @classmethod
    @abc.abstractmethod
    def _option_names(cls) -> tuple:
        """The keys of :meth:`_options`."""
