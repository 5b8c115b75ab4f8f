"""``dpproofs epsilon --q Q --sigma S --steps T --delta D [--conversion C] [--refine]``.

Epsilon (an upper bound) of ``T`` steps of the Poisson-subsampled Gaussian (DP-SGD) at sampling
rate ``Q`` and noise multiplier ``S``, at the accountant's default orders. Exit status 0; bad
arguments raise InvalidArgument, which the dispatcher turns into one line on stderr and status 2.
"""

from dpproofs.accountant import CONVERSIONS, Accountant
from dpproofs.commands.sigma import parse_steps
from dpproofs.mechanisms import SampledGaussian

HELP = "epsilon of T sampled-Gaussian (DP-SGD) steps at a given delta"

__all__ = ["HELP", "add_arguments", "run", "render"]


def add_arguments(parser):
    parser.add_argument("--q", type=float, required=True, help="sampling rate, in [0, 1]")
    parser.add_argument("--sigma", type=float, required=True, help="noise multiplier, > 0")
    parser.add_argument("--steps", type=str, required=True, help="number of steps, an integer >= 0")
    parser.add_argument("--delta", type=float, required=True, help="target delta, in (0, 1)")
    parser.add_argument("--conversion", default="improved", help=f"one of {', '.join(CONVERSIONS)} (default improved)")
    parser.add_argument("--refine", action="store_true", help="also optimise over continuous orders")


def run(args):
    steps = parse_steps(args.steps)
    mechanism = SampledGaussian(args.q, args.sigma)
    accountant = Accountant().compose(mechanism, steps)
    epsilon, order = accountant.epsilon_and_order(args.delta, args.conversion, refine=args.refine)
    return 0, {
        "epsilon": epsilon,
        "order": order,
        "q": mechanism.q,
        "sigma": mechanism.sigma,
        "steps": steps,
        "delta": args.delta,
        "conversion": args.conversion,
        "refine": bool(args.refine),
    }


def render(result):
    return (
        f"epsilon = {result['epsilon']:.6g} at order {result['order']:g} "
        f"(q={result['q']:g}, sigma={result['sigma']:g}, steps={result['steps']}, "
        f"delta={result['delta']:g}, {result['conversion']} conversion)"
    )
