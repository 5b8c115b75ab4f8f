"""The training run a CLI command describes: how it is sampled, how long, and which accountant.

Two equivalent ways to give the run: ``--q Q --steps T``, or ``--dataset-size N --batch-size B
--epochs E`` (``dpproofs.training.steps_and_rate``: ``T = ceil(E N / B)``, ``q = B / N``). The
noise multiplier ``--sigma`` is the noise standard deviation divided by the clipping norm, for
every neighbouring relation (the library handles the sensitivity of each relation).

``--sampling poisson`` (default) means every record joins each batch independently with
probability q. Shuffled fixed-size batches, the common data loader, are neither Poisson nor
independent sampling without replacement: no tight analysis of them exists, and Poisson numbers
for them can understate epsilon (Chua et al. 2024, "How private are DP-SGD implementations?").
"""

import argparse

from dpproofs import _validate
from dpproofs.errors import InvalidArgument

__all__ = ["SAMPLINGS", "RELATIONS", "ACCOUNTANTS", "EPILOG", "add_run_arguments", "parse_steps", "run_of", "accountant_of"]

SAMPLINGS = ("poisson", "fixed")
RELATIONS = ("add_remove", "replace_one")
ACCOUNTANTS = ("rdp", "pld")

EPILOG = (
    "sigma is the noise standard deviation divided by the clipping norm. --sampling poisson "
    "assumes each record joins each batch independently with probability q; shuffled fixed-size "
    "batches (the usual data loader) are neither Poisson nor independent sampling without "
    "replacement, and Poisson numbers for them can understate epsilon (Chua et al. 2024)."
)


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


def add_run_arguments(parser, *, min_steps=0):
    """The sampling and length of the run (q and steps, or dataset size, batch size and epochs)."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument("--q", type=float, help="sampling rate, in [0, 1] (or give --dataset-size and --batch-size)")
    parser.add_argument("--steps", type=str, help=f"number of steps, an integer >= {min_steps} (or give --epochs)")
    parser.add_argument("--dataset-size", type=int, metavar="N", help="number of records N")
    parser.add_argument("--batch-size", type=int, metavar="B", help="(expected) batch size B: q = B/N")
    parser.add_argument("--epochs", type=float, metavar="E", help="epochs: steps = ceil(E N / B)")
    parser.add_argument("--sampling", default="poisson", help=f"one of {', '.join(SAMPLINGS)} (default poisson)")
    parser.add_argument("--relation", default="add_remove", help=f"one of {', '.join(RELATIONS)} (default add_remove)")
    parser.add_argument("--accountant", default="rdp", help=f"one of {', '.join(ACCOUNTANTS)} (default rdp)")
    parser.set_defaults(min_steps=min_steps)


def run_of(args):
    """``(q, steps, description)`` from the parsed arguments; InvalidArgument names what is wrong."""
    from dpproofs import training

    _validate.choice("sampling", args.sampling, SAMPLINGS)
    _validate.choice("relation", args.relation, RELATIONS)
    _validate.choice("accountant", args.accountant, ACCOUNTANTS)
    shaped = [args.dataset_size, args.batch_size, args.epochs]
    direct = [args.q, args.steps]
    if any(v is not None for v in shaped):
        if any(v is not None for v in direct):
            raise InvalidArgument("give either --q and --steps, or --dataset-size, --batch-size and --epochs, not both")
        if any(v is None for v in shaped):
            raise InvalidArgument("--dataset-size, --batch-size and --epochs go together: all three are needed")
        if args.sampling != "poisson":
            raise InvalidArgument(f"sampling={args.sampling!r} is not supported yet; allowed: poisson")
        steps, q = training.steps_and_rate(args.dataset_size, args.batch_size, args.epochs, sampling=args.sampling)
        shape = {"dataset_size": args.dataset_size, "batch_size": args.batch_size, "epochs": args.epochs}
    else:
        if any(v is None for v in direct):
            raise InvalidArgument("the run needs --q and --steps (or --dataset-size, --batch-size and --epochs)")
        q, steps = args.q, parse_steps(args.steps)
        shape = {}
    if steps < args.min_steps:
        raise InvalidArgument(f"steps={steps!r} is outside the allowed range [{args.min_steps}, inf)")
    if args.sampling != "poisson" or args.relation != "add_remove":
        raise InvalidArgument(
            f"sampling={args.sampling!r} with relation={args.relation!r} is not supported yet; "
            "allowed: poisson with add_remove"
        )
    return q, steps, {"q": q, "steps": steps, "sampling": args.sampling, "relation": args.relation,
                      "accountant": args.accountant, **shape}


def accountant_of(args):
    """A fresh accountant of the kind ``--accountant`` names."""
    import dpproofs

    if args.accountant == "pld":
        pld = getattr(dpproofs, "PLDAccountant", None)
        if pld is None:
            raise InvalidArgument("accountant='pld' is not available in this version; allowed: rdp")
        return pld()
    return dpproofs.Accountant()
