"""``dpproofs sigma --epsilon E --delta D --q Q --steps T [--conversion C]``.

The smallest noise multiplier (to 1e-6 relative, never too small) for which ``T`` steps of the
Poisson-subsampled Gaussian at rate ``Q`` are (E, D)-DP by the accountant. Exit status 0; bad
arguments (or an unreachable target) raise InvalidArgument: one line on stderr, status 2.
"""

from dpproofs import _validate
from dpproofs.accountant import CONVERSIONS, Accountant, calibrate_sigma
from dpproofs.errors import InvalidArgument
from dpproofs.mechanisms import SampledGaussian

HELP = "smallest noise multiplier for a target (epsilon, delta) over T DP-SGD steps"

__all__ = ["HELP", "add_arguments", "run", "render", "parse_steps"]


def parse_steps(text):
    """``--steps`` as an exact int: digits, or an integral float such as ``1e9``."""
    try:
        value = int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            raise InvalidArgument(f"steps={text!r} must be an integer in [0, inf]") from None
    return _validate.integer("steps", value, 0)


def add_arguments(parser):
    parser.add_argument("--epsilon", type=float, required=True, help="target epsilon, > 0")
    parser.add_argument("--delta", type=float, required=True, help="target delta, in (0, 1)")
    parser.add_argument("--q", type=float, required=True, help="sampling rate, in (0, 1]")
    parser.add_argument("--steps", type=str, required=True, help="number of steps, an integer >= 1")
    parser.add_argument("--conversion", default="improved", help=f"one of {', '.join(CONVERSIONS)} (default improved)")


def run(args):
    steps = parse_steps(args.steps)
    sigma = calibrate_sigma(
        epsilon=args.epsilon, delta=args.delta, q=args.q, steps=steps, conversion=args.conversion
    )
    achieved = Accountant().compose(SampledGaussian(args.q, sigma), steps).epsilon(args.delta, args.conversion)
    return 0, {
        "sigma": sigma,
        "epsilon": args.epsilon,
        "achieved_epsilon": achieved,
        "delta": args.delta,
        "q": args.q,
        "steps": steps,
        "conversion": args.conversion,
    }


def render(result):
    return (
        f"sigma = {result['sigma']:.8g} gives epsilon = {result['achieved_epsilon']:.10g} "
        f"<= {result['epsilon']:g} (q={result['q']:g}, steps={result['steps']}, "
        f"delta={result['delta']:g}, {result['conversion']} conversion)"
    )
