"""``dpproofs delta --sigma S (--q Q --steps T | --dataset-size N --batch-size B --epochs E)
--epsilon E [--epsilon E2 ...] [--conversion C] [--accountant rdp|pld]``.

Delta (an upper bound, in [0, 1]) of the DP-SGD run at each epsilon. JSON: ``delta`` and
``epsilon`` (the first epsilon's), ``results`` (one row per epsilon; PLD rows also carry
``delta_lower``/``delta_upper``), and the run. Exit status 0; bad arguments: one line, status 2.
"""

from dpproofs.cli._progress import slow_notice
from dpproofs.cli._run import accountant_of, add_run_arguments, composition_of, options_for, run_of, scheme_text
from dpproofs.math.conversions import CONVERSIONS

HELP = "delta of a DP-SGD run (sampled-Gaussian steps) at one or more epsilons"

__all__ = ["HELP", "add_arguments", "run", "render"]


def add_arguments(parser):
    parser.add_argument("--sigma", type=float, required=True, help="noise multiplier (noise std / clipping norm), > 0")
    add_run_arguments(parser)
    parser.add_argument("--epsilon", type=float, action="append", required=True,
                        help="epsilon, >= 0 (repeatable: one delta per epsilon)")
    parser.add_argument("--conversion", default="improved", help=f"RDP only: one of {', '.join(CONVERSIONS)} (default improved)")


def run(args):
    q, steps, description = run_of(args)
    mechanism, count = composition_of(args, description, args.sigma)
    accountant = accountant_of(args).compose(mechanism, count)
    options = options_for(accountant.delta_bounds, args)
    rows = []
    for epsilon in args.epsilon:
        with slow_notice(f"delta at epsilon={epsilon:g} ({args.accountant})"):
            lower, upper = accountant.delta_bounds(epsilon, **options)
        rows.append({"epsilon": epsilon, "delta": upper, "delta_lower": lower, "delta_upper": upper})
    result = {"delta": rows[0]["delta"], "epsilon": rows[0]["epsilon"], "results": rows,
              "sigma": mechanism.sigma, **description, **options}
    return 0, result


def render(result):
    return "\n".join(
        f"delta = {row['delta']:.6g} at epsilon = {row['epsilon']:g} "
        f"(q={result['q']:g}, sigma={result['sigma']:g}, steps={result['steps']}{scheme_text(result)}, {result['accountant']})"
        for row in result["results"]
    )
