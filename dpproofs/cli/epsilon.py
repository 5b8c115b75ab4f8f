"""``dpproofs epsilon --sigma S (--q Q --steps T | --dataset-size N --batch-size B --epochs E)
--delta D [--delta D2 ...] [--conversion C] [--refine] [--accountant rdp|pld]``.

Epsilon (an upper bound) of the DP-SGD run (Poisson-subsampled Gaussian steps) at each delta.
JSON: ``epsilon`` and ``delta`` (the first delta's), ``results`` (one row per delta: ``delta``,
``epsilon``, and ``order`` for RDP or ``epsilon_lower``/``epsilon_upper`` for PLD), and the run.
Exit status 0; bad arguments raise InvalidArgument: one line on stderr, status 2.
"""

from dpproofs.cli._progress import slow_notice
from dpproofs.cli._run import (
    SHUFFLED, accountant_of, add_run_arguments, composition_of, options_for, run_of, scheme_text,
)
from dpproofs.math.conversions import CONVERSIONS

HELP = "epsilon of a DP-SGD run (sampled-Gaussian steps) at one or more deltas"

__all__ = ["HELP", "add_arguments", "run", "render"]


def add_arguments(parser):
    parser.add_argument("--sigma", type=float, required=True, help="noise multiplier (noise std / clipping norm), > 0")
    add_run_arguments(parser)
    parser.add_argument("--delta", type=float, action="append", required=True,
                        help="target delta, in (0, 1) (repeatable: one epsilon per delta)")
    parser.add_argument("--conversion", default="improved", help=f"RDP only: one of {', '.join(CONVERSIONS)} (default improved)")
    parser.add_argument("--refine", action="store_true", help="RDP only: also optimise over continuous orders")


def run(args):
    q, steps, description = run_of(args)
    if args.sampling in SHUFFLED:
        return 0, _shuffled(args, description)
    mechanism, count = composition_of(args, description, args.sigma)
    accountant = accountant_of(args).compose(mechanism, count)
    options = options_for(accountant.epsilon_bounds, args)
    rows = []
    for delta in args.delta:
        with slow_notice(f"epsilon at delta={delta:g} ({args.accountant})"):
            bounds = accountant.epsilon_bounds(delta, **options)
        row = {"delta": delta, "epsilon": bounds.upper, "epsilon_lower": bounds.lower, "epsilon_upper": bounds.upper}
        if getattr(bounds, "order", None) is not None:
            row["order"] = bounds.order
        rows.append(row)
    result = {"epsilon": rows[0]["epsilon"], "delta": rows[0]["delta"], "results": rows,
              "sigma": mechanism.sigma, **description, **options,
              "epsilon_lower": rows[0]["epsilon_lower"], "epsilon_upper": rows[0]["epsilon_upper"]}
    if "order" in rows[0]:
        result["order"] = rows[0]["order"]
    return 0, result


def _shuffled(args, description):
    """Shuffled batches: a certified lower bound (``dpproofs.epsilon_lower_bound``, over the whole
    epochs of the run: a partial epoch releases more, so leaving it out keeps a lower bound) beside
    the Poisson (q = B/N, same steps) and balls-in-bins upper bounds (both by the chosen accountant)."""
    import math

    import dpproofs

    epochs = math.floor(description["epochs"])
    shuffled = dpproofs.ShuffledGaussian(batch_size=args.batch_size, dataset_size=args.dataset_size, sigma=args.sigma,
                                         shuffle="per-epoch" if args.sampling == "shuffle" else "persistent")
    pair = "zero_out" if args.relation == "add_remove" else "replace_one"
    poisson = accountant_of(args).compose(dpproofs.SampledGaussian(description["q"], args.sigma), description["steps"])
    options = options_for(poisson.epsilon_bounds, args)
    balls = None
    if args.relation == "add_remove":
        per_epoch = -(-args.dataset_size // args.batch_size)
        balls = accountant_of(args).compose(dpproofs.RandomAllocationGaussian(per_epoch, args.sigma),
                                            -(-description["steps"] // per_epoch))
    rows = []
    for delta in args.delta:
        with slow_notice(f"shuffled lower bound and the comparisons at delta={delta:g}"):
            lower = dpproofs.epsilon_lower_bound(shuffled, epochs, delta, pair=pair) if epochs >= 1 else 0.0
            row = {"delta": delta, "epsilon_lower_bound": lower,
                   "poisson_epsilon": poisson.epsilon_bounds(delta, **options).upper}
            if balls is not None:
                row["balls_in_bins_epsilon"] = balls.epsilon_bounds(delta, **options_for(balls.epsilon_bounds, args)).upper
        rows.append(row)
    return {"epsilon_lower_bound": rows[0]["epsilon_lower_bound"], "delta": rows[0]["delta"], "results": rows,
            "sigma": args.sigma, "pair": pair, "epochs_bounded": epochs, **description, **options}


def _render_shuffled(result):
    lines = []
    how = "reshuffled every epoch" if result["sampling"] == "shuffle" else "one permutation for the whole run"
    for row in result["results"]:
        lines.append(f"epsilon >= {row['epsilon_lower_bound']:.6g} (certified lower bound: shuffled batches, {how}; "
                     f"{result['pair']} neighbours; {result['epochs_bounded']} whole epochs; delta={row['delta']:g})")
        lines.append(f"  the same run with Poisson sampling (q={result['q']:g}): epsilon <= {row['poisson_epsilon']:.6g} "
                     f"({result['accountant']})")
        if "balls_in_bins_epsilon" in row:
            lines.append(f"  the same run with balls-in-bins batches: epsilon <= {row['balls_in_bins_epsilon']:.6g} "
                         f"({result['accountant']})")
    lines.append("No upper bound exists for shuffled batches: a Poisson number reported for them can be optimistic.")
    return "\n".join(lines)


def render(result):
    if "epsilon_lower_bound" in result:
        return _render_shuffled(result)
    lines = []
    for row in result["results"]:
        if "order" in row:
            where = f"at order {row['order']:g}, {result['conversion']} conversion"
        else:
            what = "tight epsilon" if result.get("relation", "add_remove") == "add_remove" else "worst case over datasets"
            where = f"{what} in [{row['epsilon_lower']:.6g}, {row['epsilon_upper']:.6g}]"
        lines.append(
            f"epsilon = {row['epsilon']:.6g} {where} "
            f"(q={result['q']:g}, sigma={result['sigma']:g}, steps={result['steps']}{scheme_text(result)}, delta={row['delta']:g})"
        )
    return "\n".join(lines)
