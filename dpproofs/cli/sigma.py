"""``dpproofs sigma --epsilon E --delta D (--q Q --steps T | --dataset-size N --batch-size B
--epochs E) [--conversion C] [--accountant rdp|pld]``.

The smallest noise multiplier (noise std / clipping norm; to 1e-6 relative, never too small) for
which the DP-SGD run is (E, D)-DP by the accountant. Exit status 0; bad arguments (or an
unreachable target) raise InvalidArgument: one line on stderr, status 2.
"""

from dpproofs.cli._run import (
    accountant_of, add_run_arguments, calibration_options, composition_of, options_for, parse_steps, run_of,
)
from dpproofs.math.conversions import CONVERSIONS

HELP = "smallest noise multiplier for a target (epsilon, delta) over a DP-SGD run"

__all__ = ["HELP", "add_arguments", "run", "render", "parse_steps"]


def add_arguments(parser):
    parser.add_argument("--epsilon", type=float, required=True, help="target epsilon, > 0")
    parser.add_argument("--delta", type=float, required=True, help="target delta, in (0, 1)")
    add_run_arguments(parser, min_steps=1)
    parser.add_argument("--conversion", default="improved", help=f"RDP only: one of {', '.join(CONVERSIONS)} (default improved)")


def run(args):
    from dpproofs.accountant.calibrate import calibrate_sigma

    q, steps, description = run_of(args)
    sigma = calibrate_sigma(epsilon=args.epsilon, delta=args.delta, q=q, steps=steps, progress=_progress(),
                            **calibration_options(args))
    achieved = accountant_of(args).compose(*composition_of(args, description, sigma))
    options = options_for(achieved.epsilon, args)
    result = {"sigma": sigma, "epsilon": args.epsilon, "achieved_epsilon": achieved.epsilon(args.delta, **options),
              "delta": args.delta, **description, **options}
    return 0, result


#: Seconds after which the PLD calibration reports its progress on stderr.
PROGRESS_AFTER = 2.0


def _progress():
    """A progress callback printing each line to stderr (never stdout: --json stays one object)
    once the calibration has run for PROGRESS_AFTER seconds."""
    import sys
    import time

    started = time.perf_counter()

    def report(line):
        if time.perf_counter() - started >= PROGRESS_AFTER:
            print(line, file=sys.stderr, flush=True)
    return report


def render(result):
    return (
        f"sigma = {result['sigma']:.8g} gives epsilon = {result['achieved_epsilon']:.10g} "
        f"<= {result['epsilon']:g} (q={result['q']:g}, steps={result['steps']}, "
        f"delta={result['delta']:g}, {result['accountant']})"
    )
