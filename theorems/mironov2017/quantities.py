"""The quantities only the Mironov 2017 (arXiv 1702.07476v3) claims are stated over, registered in
the vocabulary (:mod:`dpproofs.checker.vocabulary`) when this package is imported.

Over an adaptive composition (a :class:`dpproofs.checker.oracles.finite.AdaptiveComposition`,
Prop. 1 and Prop. 4): ``rdp_step`` and ``eps_composition``; the events of n-fold randomized
response (Cor. 1 and Prop. 4): ``rr_event_P`` and ``rr_event_Q``. Their evaluators are exact
rational enumerations in :mod:`dpproofs.checker.oracles.finite`. The generic quantities of finite
pairs and events (``rdp_pair``, ``delta_pair``, ``eps_pair``, ``l1_pair``, ``prob_P``,
``prob_Q``, ``joint``) and of the sampled Gaussian stay in the library.
"""

from dpproofs.checker import vocabulary
from dpproofs.checker.oracles import finite

__all__ = ["QUANTITIES"]

INTEGER, TYPE = vocabulary.INTEGER, vocabulary.TYPE

_COMPOSITION = ("C", ((TYPE, finite.AdaptiveComposition),))
_RR_EVENT = (("eps", ((">", 0),)), ("n", ((">=", 1), (INTEGER, None))), ("u", ((">=", 0), ("<=", 1))),
             ("shape", ((">=", 0), ("<=", 1), (INTEGER, None))))

QUANTITIES = {
    # name: (precise, ball, domain, doc)
    "rdp_step": (finite.rdp_step_precise, finite.rdp_step_ball,
                 (("alpha", ((">", 1),)), _COMPOSITION, ("i", ((">=", 0), (INTEGER, None)))),
                 "max over prefixes of D_alpha of step i of an adaptive composition (its RDP budget)"),
    "eps_composition": (finite.eps_composition_precise, finite.eps_composition_ball, (_COMPOSITION,),
                        "max over steps and prefixes of eps_pair: every step of the composition is eps-DP"),
    "rr_event_P": (finite.rr_event_p_precise, finite.rr_event_p_ball, _RR_EVENT,
                   "P(S) under n-fold eps-RR, S = {l >= k} (shape 0) or {l = k} (shape 1) heads, "
                   "k = min(n, floor(u (n+1)))"),
    "rr_event_Q": (finite.rr_event_q_precise, finite.rr_event_q_ball, _RR_EVENT,
                   "Q(S) (the neighbour's n-fold RR) of the event of rr_event_P"),
}

for _name, (_precise_fn, _ball_fn, _domain, _doc) in QUANTITIES.items():
    # strict_ball=False: as before the move, a ball merely straddling a bound is evaluated (the
    # evaluators enclose their values over it); only a certain violation is refused
    vocabulary.register(_name, _precise_fn, _ball_fn, domain=_domain, doc=_doc, strict_ball=False)
