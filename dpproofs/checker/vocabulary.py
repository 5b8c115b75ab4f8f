"""The functions a claim may use: the registry (:data:`FUNCTIONS`) and its registration API.

Vocabulary (each a sympy ``Function`` bound to the shared evaluator; sensitivity 1):

=================================================  ===========================================
``rdp_gaussian(alpha, sigma)``                      ``D_alpha`` of the Gaussian, ``alpha/(2 sigma^2)``; alpha > 1, sigma > 0
``rdp_laplace(alpha, b)``                           ``D_alpha`` of Laplace(scale b); alpha > 1, b > 0
``rdp_randomized_response(alpha, eps)``             ``D_alpha`` of eps-RR = worst case over eps-DP pairs; alpha > 1, eps > 0
``rdp_kary_randomized_response(alpha, p, k)``       ``D_alpha`` of k-ary RR between two inputs; p in (0, 1), k >= 2 integer
``rdp_kary_randomized_response_special(alpha, p, k)`` the same against the uniform output of a special input, both orders
``rdp_sampled_gaussian(alpha, q, sigma)``           sampled-Gaussian RDP, max of both directions; alpha > 1, q in [0, 1]
``log_moment(lam, q, sigma)``                       sampled-Gaussian ``log max(A_{lam+1}, B_{lam+1})``; 0 < lam <= 9999
``delta_gaussian(eps, sigma)``                      exact Gaussian privacy profile; eps >= 0
``delta_laplace(eps, b)``                           exact Laplace privacy profile; eps >= 0
``delta_randomized_response(eps_prime, eps)``       exact eps-RR profile at eps_prime
``delta_sampled_gaussian(eps, q, sigma)``           exact one-step sampled-Gaussian profile
``delta_composed_pure(eps_prime, eps, n)``          optimal n-fold composition of eps-DP (KOV 2015); n integer
``Phi(x)``                                          standard normal CDF
``rdp_sampled_gaussian_add(alpha, q, sigma)``       add-direction sampled-Gaussian RDP ``log A_alpha/(alpha-1)``
=================================================  ===========================================

Finite pairs, compositions and events (the section at the end of :data:`FUNCTIONS`; each
registration carries its domain and a one-line doc): over a finite pair and an event, ``rdp_pair``,
``delta_pair``, the pair's ``eps_pair`` and ``l1_pair``, ``swapped``, and ``prob_P``, ``prob_Q``;
over an adaptive composition, ``joint``; the add direction of the sampled Gaussian, its
``rdp_sampled_gaussian_add`` and ``delta_sampled_gaussian_add``. Pairs, compositions and events
are *structured* arguments (:data:`STRUCTURED_TYPES`).

A paper's own quantities are registered by its content package when it is imported (the end of
this module: :func:`register`, :func:`quantity`, :func:`load_content`), in its
``quantities.py``; :func:`namespace` lists them all.

Over finite pairs, the library also registers ``hockey_stick_pair`` (every real eps),
``product_pair`` and ``power_pair``. The subsampling papers' quantities (subsampled instances,
dominating pairs, the moments of their proofs) and the shipped accountant's answers
(``accountant_epsilon_<m>`` and its kin) are content: ``theorems/<paper>/quantities.py``.

plus sympy's ``log``, ``exp``, ``sqrt``, ``erfc``, ``Abs``, ``Min``, ``Max``, ``tanh``, ``sinh``,
``cosh``, ``binomial`` and arithmetic.

:mod:`dpproofs.checker.arithmetic` evaluates expressions built from them (mpmath and arb).

Every registration states the domain of every argument (checked on every call) and a one-line
doc: ``FUNCTIONS[name].domain``, ``FUNCTIONS[name].doc``.
"""


import sympy
from mpmath import mp
from flint import arb

from dpproofs.checker.oracles import finite
from dpproofs.errors import DPProofsError, InvalidArgument
from dpproofs.math import ball
from dpproofs.math import precise

__all__ = [
    "FUNCTIONS",
    "UnsupportedExpression",
    "binding_of",
    "is_structured",
    "Phi",
]


class UnsupportedExpression(DPProofsError, ValueError):
    """An expression uses something the evaluators do not know."""


def _function(name, nargs):
    return sympy.Function(name, nargs=nargs)


class _Binding:
    """One vocabulary function: its sympy symbol, its two evaluators, its domain and doc.

    ``domain`` (optional) gives, per argument, ``(name, conditions)`` with conditions a tuple of
    ``(relation, bound)`` (``">"``, ``">="``, ``"<"``, ``"<="``), or ``(name, cls)`` for a
    structured argument (see :data:`STRUCTURED_TYPES`). The evaluators refuse an argument
    outside it (:class:`InvalidArgument`); in ball arithmetic only a certain violation is refused.
    """

    has_ball = True  # False: the ball evaluator only raises UnsupportedExpression (see _entry)

    def __init__(self, symbol, precise_fn, ball_fn, integer_args=(), domain=(), doc="", strict_ball=False):
        self.symbol = symbol
        self.strict_ball = strict_ball  # a ball must be CERTAINLY inside (else: not certainly outside)
        self.precise = precise_fn
        self.ball = ball_fn
        self.integer_args = integer_args  # positions that must be exact integers
        self.domain = domain
        self.doc = doc

    def check_domain(self, args, in_ball):
        """Raise OutsideDomain (an InvalidArgument) when an argument is (certainly, for balls) outside
        the domain, InvalidArgument when a structured argument has the wrong type.

        Conditions per argument: a class (a structured argument of that type), or a tuple of
        ``(relation, bound)`` with relation one of ``">", ">=", "<", "<="``, ``"type"`` (bound: the
        class) or ``"integer"`` (enforced by the evaluators through ``integer_args``)."""
        for (name, conditions), value in zip(self.domain, args):
            types = [conditions] if isinstance(conditions, type) else [b for r, b in conditions if r == _TYPE]
            if types:
                if not isinstance(value, tuple(types)):
                    raise InvalidArgument(f"argument {name}={value!r} of {self.symbol} must be a {types[0].__name__}")
                continue
            if isinstance(value, STRUCTURED_TYPES):
                raise InvalidArgument(f"argument {name} of {self.symbol} must be a number, not a {type(value).__name__}")
            for relation, bound in conditions:
                if relation in (">", ">=", "<", "<=") and _outside(value, relation, bound, in_ball, self.strict_ball):
                    from dpproofs.errors import OutsideDomain  # a refusal of the point: the search skips it

                    raise OutsideDomain(
                        f"argument {name}={value} of {self.symbol} is outside its domain {name} {relation} {bound}"
                    )


def _outside(value, relation, bound, in_ball, strict):
    """Whether ``value`` is refused for ``relation bound``. A ball: with ``strict``, unless it is
    certainly inside (formulas valid only inside, e.g. a log of the argument); otherwise only when
    certainly outside (the evaluators enclose their own values over a ball that merely straddles
    a bound). An mpf or int: when the relation fails."""
    if in_ball and isinstance(value, arb):
        low, high = value.lower(), value.upper()  # exact endpoints: plain comparisons are exact
        if strict:
            return not {">": low > bound, ">=": low >= bound, "<": high < bound, "<=": high <= bound}[relation]
        return {">": high <= bound, ">=": high < bound, "<": low >= bound, "<=": low > bound}[relation]
    return not {">": value > bound, ">=": value >= bound, "<": value < bound, "<=": value <= bound}[relation]


_TYPE = "type"
_INTEGER = "integer"


Phi = _function("Phi", 1)

_ORDER, _POSITIVE, _NON_NEGATIVE, _RATE = ((">", 1),), ((">", 0),), ((">=", 0),), ((">=", 0), ("<=", 1))
#: The exact sampled-Gaussian sums have about alpha terms (dpproofs.math.limits.MAX_EXACT_ORDER), and
#: the optimal composition of eps-DP about n: beyond these an evaluation would not end in bounded time.
_EXACT_ORDER = ((">", 1), ("<=", 10_000))
MAX_COMPOSITIONS = 100_000

FUNCTIONS = {
    "rdp_gaussian": _Binding(
        _function("rdp_gaussian", 2), precise.rdp_gaussian, ball.rdp_gaussian,
        domain=(("alpha", _ORDER), ("sigma", _POSITIVE)),
        doc="D_alpha of the Gaussian mechanism, alpha / (2 sigma^2) (Mironov 2017 Prop. 7)",
    ),
    "rdp_laplace": _Binding(
        _function("rdp_laplace", 2), precise.rdp_laplace, ball.rdp_laplace,
        domain=(("alpha", _ORDER), ("b", _POSITIVE)),
        doc="D_alpha of the Laplace mechanism of scale b (Mironov 2017 Prop. 6)",
    ),
    "rdp_randomized_response": _Binding(
        _function("rdp_randomized_response", 2),
        precise.rdp_randomized_response,
        ball.rdp_randomized_response,
        # eps > 0: the precise evaluator's digit budget needs log(eps) (eps = 0 is the trivial
        # mechanism, D = 0); alpha > 1: the ball evaluator divides by alpha - 1
        domain=(("alpha", _ORDER), ("eps", _POSITIVE)),
        doc="D_alpha of eps-RR = worst case over eps-DP pairs (Mironov 2017 Prop. 5)",
    ),
    "rdp_kary_randomized_response": _Binding(
        _function("rdp_kary_randomized_response", 3),
        precise.rdp_kary_randomized_response,
        ball.rdp_kary_randomized_response,
        integer_args=(2,),
        domain=(("alpha", _ORDER), ("p", ((">", 0), ("<", 1))), ("k", ((">=", 2),))),
        doc="D_alpha between two inputs' outputs of k-ary randomized response (keep the bucket with "
        "probability 1 - p, else a uniform one of k; dp_accounting's REPLACE_ONE pair)",
    ),
    "rdp_kary_randomized_response_special": _Binding(
        _function("rdp_kary_randomized_response_special", 3),
        precise.rdp_kary_randomized_response_special,
        ball.rdp_kary_randomized_response_special,
        integer_args=(2,),
        domain=(("alpha", _ORDER), ("p", ((">", 0), ("<", 1))), ("k", ((">=", 2),))),
        doc="max of both orders' D_alpha between k-ary randomized response and the uniform output of "
        "dp_accounting's special input (its REPLACE_SPECIAL pair)",
    ),
    "rdp_sampled_gaussian": _Binding(
        _function("rdp_sampled_gaussian", 3), precise.rdp_sampled_gaussian, ball.rdp_sampled_gaussian,
        domain=(("alpha", _EXACT_ORDER), ("q", _RATE), ("sigma", _POSITIVE)),
        doc="sampled-Gaussian RDP, the max of both directions (Mironov, Talwar & Zhang 2019); alpha <= 1e4",
    ),
    "log_moment": _Binding(
        _function("log_moment", 3),
        precise.log_moment_sampled_gaussian,
        ball.log_moment_sampled_gaussian,
        domain=(("lam", ((">", 0), ("<=", 9_999))), ("q", _RATE), ("sigma", _POSITIVE)),
        doc="the log moment alpha(lam) = log max(A_{lam+1}, B_{lam+1}) of one sampled-Gaussian step "
        "(Abadi et al. 2016, arXiv 1607.00133v2, Eqs. 3-4); lam <= 9999",
    ),
    "delta_gaussian": _Binding(
        _function("delta_gaussian", 2), precise.delta_gaussian, ball.delta_gaussian,
        domain=(("eps", _NON_NEGATIVE), ("sigma", _POSITIVE)),
        doc="exact privacy profile of the Gaussian mechanism (Balle & Wang 2018 Thm 8)",
    ),
    "delta_laplace": _Binding(
        _function("delta_laplace", 2), precise.delta_laplace, ball.delta_laplace,
        domain=(("eps", _NON_NEGATIVE), ("b", _POSITIVE)),
        doc="exact privacy profile of the Laplace mechanism",
    ),
    "delta_randomized_response": _Binding(
        _function("delta_randomized_response", 2),
        precise.delta_randomized_response,
        ball.delta_randomized_response,
        domain=(("eps_prime", _NON_NEGATIVE), ("eps", _NON_NEGATIVE)),
        doc="exact privacy profile of eps-RR at eps_prime",
    ),
    "delta_sampled_gaussian": _Binding(
        _function("delta_sampled_gaussian", 3),
        precise.delta_sampled_gaussian,
        ball.delta_sampled_gaussian,
        domain=(("eps", _NON_NEGATIVE), ("q", _RATE), ("sigma", _POSITIVE)),
        doc="exact one-step privacy profile of the sampled Gaussian, max of both directions",
    ),
    "delta_composed_pure": _Binding(
        _function("delta_composed_pure", 3),
        precise.delta_composed_pure,
        ball.delta_composed_pure,
        integer_args=(2,),
        domain=(("eps_prime", _NON_NEGATIVE), ("eps", _NON_NEGATIVE), ("n", ((">=", 1), ("<=", MAX_COMPOSITIONS)))),
        doc="optimal n-fold composition of eps-DP (Kairouz, Oh & Viswanath 2015); n <= 1e5",
    ),
    # --- finite pairs, adaptive compositions and events -----------------------------------
    # Finite pairs P = M(d), Q = M(d') (finite.Pair), adaptive compositions (finite.AdaptiveComposition)
    # and events (finite.Event) are structured arguments: a claim draws them through ``extra``.
    "rdp_pair": _Binding(
        _function("rdp_pair", 2), finite.rdp_pair_precise, finite.rdp_pair_ball,
        domain=(("alpha", ((">=", 1),)), ("pair", finite.Pair)),
        doc="D_alpha(P || Q) of a finite pair (alpha = 1: KL)",
    ),
    "delta_pair": _Binding(
        _function("delta_pair", 2), finite.delta_pair_precise, finite.delta_pair_ball,
        domain=(("eps", ((">=", 0),)), ("pair", finite.Pair)), strict_ball=True,
        doc="hockey-stick divergence sum_i (p_i - e^eps q_i)_+ of a finite pair (its privacy profile)",
    ),
    "eps_pair": _Binding(
        _function("eps_pair", 1), finite.eps_pair_precise, finite.eps_pair_ball,
        domain=(("pair", finite.Pair),),
        doc="max_i |log(p_i/q_i)|: the pair is eps-DP in both directions exactly at this eps",
    ),
    "l1_pair": _Binding(
        _function("l1_pair", 1), finite.l1_pair_precise, finite.l1_pair_ball,
        domain=(("pair", finite.Pair),),
        doc="||P - Q||_1 of a finite pair",
    ),
    "prob_P": _Binding(
        _function("prob_P", 2), finite.prob_p_precise, finite.prob_p_ball,
        domain=(("pair", finite.Pair), ("A", finite.Event)),
        doc="P(A) for an event A of a finite pair",
    ),
    "prob_Q": _Binding(
        _function("prob_Q", 2), finite.prob_q_precise, finite.prob_q_ball,
        domain=(("pair", finite.Pair), ("A", finite.Event)),
        doc="Q(A) for an event A of a finite pair",
    ),
    "joint": _Binding(
        _function("joint", 1), finite.joint_exact, finite.joint_exact,
        domain=(("composition", finite.AdaptiveComposition),),
        doc="the pair of joint output distributions of an adaptive composition (a finite.Pair)",
    ),
    "swapped": _Binding(
        _function("swapped", 1), lambda pair, dps: pair.swapped(), lambda pair, prec: pair.swapped(),
        domain=(("pair", finite.Pair),),
        doc="the pair (Q, P): the neighbouring datasets in the other order",
    ),
    # --- the sampled Gaussian's add direction (P = mu, Q = mu0) alone -------------------------
    "rdp_sampled_gaussian_add": _Binding(
        _function("rdp_sampled_gaussian_add", 3), precise.rdp_sampled_gaussian_add, ball.rdp_sampled_gaussian_add,
        domain=(("alpha", ((">", 1),)), ("q", ((">=", 0), ("<=", 1))), ("sigma", ((">", 0),))),
        doc="log A_alpha / (alpha-1): sampled-Gaussian RDP in the add direction (P = mu, Q = mu0)",
    ),
    "delta_sampled_gaussian_add": _Binding(
        _function("delta_sampled_gaussian_add", 3), precise.delta_sampled_gaussian_add,
        ball.delta_sampled_gaussian_add,
        domain=(("eps", ((">=", 0),)), ("q", ((">=", 0), ("<=", 1))), ("sigma", ((">", 0),))),
        doc="exact add-direction privacy profile of one sampled-Gaussian step",
    ),
}

#: Types of structured arguments: a claim variable bound to one of these passes through the
#: evaluators unconverted, to the vocabulary functions that take it (content packages add theirs
#: with :func:`register_type`).
STRUCTURED_TYPES = (finite.Pair, finite.AdaptiveComposition, finite.Event)


# --- helpers of the registrations below and of :func:`register` ---------------------------------

from dpproofs.checker.oracles import finite as _finite  # noqa: E402  (the finite-mechanism types and quantities)


def _no_ball(name):
    def unsupported(*args, prec):
        raise UnsupportedExpression(f"{name} has no ball evaluation (it is a quadrature)")

    return unsupported


def _entry(name, precise_fn, ball_fn, domain, doc, strict_ball=True):
    """One vocabulary registration: evaluators wrapped with the domain check; ``domain`` is a tuple
    ``(argument, ((relation, bound), ...))`` per argument as in dpproofs.verification."""
    integer_args = tuple(i for i, (_, conditions) in enumerate(domain) if (_INTEGER, None) in conditions)
    has_ball = ball_fn is not None
    ball_fn = ball_fn or _no_ball(name)

    # the evaluators of dpproofs.checker.vocabulary check ``domain`` (_Binding.check_domain) before each call
    binding = _Binding(_function(name, len(domain)), precise_fn, ball_fn, integer_args=integer_args,
                       domain=domain, doc=doc, strict_ball=strict_ball)
    binding.has_ball = has_ball
    return binding


def _pair_fn(function, with_number=None):
    """Adapt ``function(pair, [number,] dps|prec)`` to the vocabulary order ``(number, pair)``."""
    if with_number is None:
        return lambda pair, **precision: function(pair, *precision.values())
    return lambda number, pair, **precision: function(pair, number, *precision.values())


# --- float64 code paths as vocabulary functions (register_float) -------------------------------


def _float_of(value):
    """The float64 nearest to an mpf or an arb ball (a ball must round to one float)."""
    if isinstance(value, arb):
        low, high = float(value.lower()), float(value.upper())
        if low != high:
            raise UnsupportedExpression(f"the ball {value} does not round to one float64 for the accountant")
        return low
    return float(value)


def _int_of(value):
    number = _float_of(value)
    if not number.is_integer():
        raise UnsupportedExpression(f"{value} must be an integer for the accountant")
    return int(value.unique_fmpz()) if isinstance(value, arb) else int(value)


def _accountant_binding(name, compute, kinds):
    """A binding whose precise and ball forms both return ``compute(*plain arguments)`` exactly;
    ``kinds`` is a string of ``f`` (float) and ``i`` (integer) per argument."""

    def plain(args):
        return [(_int_of if kind == "i" else _float_of)(a) for kind, a in zip(kinds, args, strict=True)]

    def precise_fn(*args, dps):
        return mp.mpf(float(compute(*plain(args))))

    def ball_fn(*args, prec):
        return arb(float(compute(*plain(args))))

    integer_positions = tuple(i for i, kind in enumerate(kinds) if kind == "i")
    return name, _Binding(_function(name, len(kinds)), precise_fn, ball_fn, integer_args=integer_positions)





# --- Structured quantities: evaluator helpers for content packages, pairs built from pairs ------
#
# A content package registers its quantities over structured values (finite pairs, the subsampled
# instances of dpproofs.checker.oracles.subsampled) with the registration API at the end of this
# module. The helpers below adapt a function of exact values to the two evaluators (precise and
# ball) that :func:`register` takes. The library itself registers only quantities of any finite
# pair: the hockey-stick divergence at every real eps (``delta_pair`` takes eps >= 0), the product
# of two pairs and the k-fold product of one.

from dpproofs.checker.oracles import subsampled as _subsampled  # noqa: E402


def integer_arg(value, name):
    """``value`` (an int, an integer-valued mpf or an exact integer arb ball) as an int."""
    if isinstance(value, arb):
        if not (value.is_exact() and value.is_integer()):
            raise UnsupportedExpression(f"{name} must be an exact integer")
        return int(value.unique_fmpz())
    if int(value) != value:
        raise InvalidArgument(f"{name}={value} must be an integer")
    return int(value)


def _integers(args, integer_positions):
    return [integer_arg(a, f"argument {k + 1}") if k in integer_positions else a for k, a in enumerate(args)]


def exact_evaluators(fn, *integer_positions):
    """``(precise, ball)`` evaluators of ``fn(*args)``, a function returning an exact rational
    (the arguments at ``integer_positions`` passed as ints): the mpf, and the ball, of that value."""

    def precise_fn(*args, dps):
        return precise.to_mpf(fn(*_integers(args, integer_positions)))

    def ball_fn(*args, prec):
        with ball.precision(prec):
            return ball.to_arb(fn(*_integers(args, integer_positions)))

    return precise_fn, ball_fn


def structured_evaluators(fn, *integer_positions):
    """``(precise, ball)`` evaluators of ``fn(*args)``, a function returning a structured value (a
    finite pair, an instance): the same value in both arithmetics."""

    def apply(*args, **precision):
        return fn(*_integers(args, integer_positions))

    return apply, apply


def register_float(name, compute, kinds, *, domain, doc):
    """Register ``name`` as ``compute(*float64 arguments)`` (a float64 code path, e.g. the shipped
    accountant's), exact in both evaluators: ``kinds`` has ``f`` (float) or ``i`` (integer) per
    argument; a ball argument must round to one float64."""
    _, binding = _accountant_binding(name, compute, kinds)
    return register(name, binding.precise, binding.ball, domain=domain, doc=doc)


def _check_pair(value, name):
    if not isinstance(value, _finite.Pair):
        raise InvalidArgument(f"{name}: argument {value!r} must be a finite.Pair")
    return value


def _product_pair(pair, other):
    _check_pair(pair, "product_pair")
    _check_pair(other, "product_pair")
    return _finite.Pair(tuple(a * b for a in pair.p for b in other.p), tuple(a * b for a in pair.q for b in other.q))


def _power_pair(pair, k):
    _check_pair(pair, "power_pair")
    if k < 1:
        raise InvalidArgument(f"power_pair: k={k} must be an integer >= 1")
    return _subsampled.compose(pair, k)


_PAIR_ARG = ("pair", ((_TYPE, _finite.Pair),))

FUNCTIONS.update({
    "hockey_stick_pair": _entry(
        "hockey_stick_pair", _pair_fn(_finite.delta, True), _pair_fn(_finite.delta_ball, True), (("eps", ()), _PAIR_ARG),
        "sum_i (p_i - e^eps q_i)_+ at every real eps (e^eps < 1 included)"),
    "product_pair": _entry(
        "product_pair", *structured_evaluators(_product_pair), (_PAIR_ARG, _PAIR_ARG),
        "(P x P', Q x Q'): two independent steps"),
    "power_pair": _entry(
        "power_pair", *structured_evaluators(_power_pair, 1), (_PAIR_ARG, ("k", ((">=", 1), (_INTEGER, None)))),
        "the k-fold product of a finite pair (dpproofs.checker.oracles.subsampled.compose)"),
})


# --- end of the structured quantities ---------------------------------------------------------------

#: sympy names -> function objects, for parsing user text (see dpproofs.verification)
NAMESPACE = {name: binding.symbol for name, binding in FUNCTIONS.items()}
NAMESPACE["Phi"] = Phi

_BY_SYMBOL_NAME = {binding.symbol.__name__: binding for binding in FUNCTIONS.values()}


def is_structured(value):
    """Whether ``value`` is a structured argument (a registered type, passed to functions as it is)."""
    return isinstance(value, STRUCTURED_TYPES)


def binding_of(func):
    """The registration behind a vocabulary function (a sympy ``Function`` class), or None."""
    return _BY_SYMBOL_NAME.get(getattr(func, "__name__", None))


# --- registration: a content package's own quantities ------------------------------------------
#
# The library registers only generic quantities (mechanisms, profiles, finite pairs). A paper's own
# quantities are registered by its content package when the package is imported, with
# :func:`register` or the :func:`quantity` decorator; :func:`load_content` imports every content
# package (found by entry point, :mod:`dpproofs.checker.registry`) so that a claim typed by a user
# sees them all.

#: Domain conditions a content package writes: ``("k", ((">=", 0), (INTEGER, None)))`` marks an
#: argument that must be an exact integer; ``("pair", ((TYPE, Pair),))`` a structured argument.
INTEGER, TYPE = _INTEGER, _TYPE


def register(name, precise, ball=None, *, domain, doc, strict_ball=True):
    """Register the vocabulary function ``name``: ``precise(*args, dps=...)`` (mpmath) and
    ``ball(*args, prec=...)`` (arb; None: no certified evaluation), ``domain`` a tuple of
    ``(argument, conditions)`` per argument, ``doc`` one line with its source; with ``strict_ball``
    a ball argument must be certainly inside the domain, else only a certain violation is refused
    (for evaluators that enclose their values over a straddling ball). Returns the sympy
    function. Registering the same evaluator again is a no-op; another one under a taken name
    raises :class:`InvalidArgument`."""
    if not isinstance(name, str) or not name.isidentifier():
        raise InvalidArgument(f"name={name!r} must be an identifier")
    existing = FUNCTIONS.get(name)
    if existing is not None:
        if existing.precise is precise:
            return existing.symbol
        raise InvalidArgument(f"name={name!r} is already a vocabulary function")
    binding = _entry(name, precise, ball, tuple(domain), doc, strict_ball)
    FUNCTIONS[name] = binding
    NAMESPACE[name] = binding.symbol
    _BY_SYMBOL_NAME[binding.symbol.__name__] = binding
    return binding.symbol


def quantity(name=None, *, domain, doc, ball=None):
    """Decorator form of :func:`register` on the precise evaluator: ``@quantity(domain=..., doc=...,
    ball=...)``; the name defaults to the function's. Returns the function unchanged."""

    def decorate(precise):
        register(name or precise.__name__, precise, ball, domain=domain, doc=doc)
        return precise

    return decorate


def register_type(cls):
    """Make ``cls`` a structured argument type (passed to the functions unconverted)."""
    global STRUCTURED_TYPES
    if not isinstance(cls, type):
        raise InvalidArgument(f"cls={cls!r} must be a class")
    if cls not in STRUCTURED_TYPES:
        STRUCTURED_TYPES = STRUCTURED_TYPES + (cls,)
    return cls


_LOADED = []  # the registry's run-time registrations at each load of the content


def load_content():
    """Import every content package and its paper subpackages once (again only after
    :func:`dpproofs.checker.registry.register_package` added one), so that the quantities they
    register are known."""
    import importlib
    import pkgutil

    from dpproofs.checker import registry

    key = tuple(getattr(registry, "_REGISTERED", ()))
    if _LOADED and _LOADED[-1] == key:
        return
    for package in registry.packages():
        for info in pkgutil.iter_modules(getattr(package, "__path__", ()), prefix=f"{package.__name__}."):
            if info.ispkg:
                importlib.import_module(info.name)
    _LOADED.append(key)


def namespace():
    """``{name: sympy function}`` of every vocabulary function, content packages' included."""
    load_content()
    return NAMESPACE
