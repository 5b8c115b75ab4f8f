"""The training run a CLI command describes: how it is sampled, how long, and which accountant.

Two equivalent ways to give the run: ``--q Q --steps T``, or ``--dataset-size N --batch-size B
--epochs E`` (``dpproofs.accountant.training.steps_and_rate``: ``T = ceil(E N / B)``, ``q = B / N``). The
noise multiplier ``--sigma`` is the noise standard deviation divided by the clipping norm, for
every neighbouring relation (the library handles the sensitivity of each relation).

``--sampling poisson`` (default) means every record joins each batch independently with
probability q. ``--sampling fixed`` means every step draws a batch of exactly B records uniformly
without replacement, independently of the other steps (it needs ``--dataset-size`` and
``--batch-size``; ``dpproofs.FixedBatchGaussian``); it is analysed under ``--relation
replace_one`` only. ``--sampling balls-in-bins`` means every record lands in exactly one of the
``t = ceil(N/B)`` steps of each epoch, uniformly and afresh each epoch (jax_privacy's
``BallsInBinsSampling`` keeps its bins across epochs: that is not this scheme); each epoch is one
``dpproofs.RandomAllocationGaussian(t, sigma)`` (a partial epoch counted whole; either accountant,
add_remove). ``--sampling shuffle`` (reshuffled every epoch, ``DataLoader(shuffle=True)``) and
``shuffle-persistent`` (one permutation for the whole run) have no upper bound: ``dpproofs epsilon``
prints a certified LOWER bound (``dpproofs.epsilon_lower_bound``) beside the Poisson and
balls-in-bins upper bounds of the same run, and the other commands refuse them. Shuffled fixed-size batches (one pass over a random permutation per epoch),
the common data loader, are neither: no tight analysis of them exists, and Poisson numbers for
them can understate epsilon (Chua et al. 2024, "How private are DP-SGD implementations?").
"""

import argparse
import inspect

from dpproofs import _validate
from dpproofs.errors import InvalidArgument

__all__ = [
    "SAMPLINGS", "RELATIONS", "ACCOUNTANTS", "EPILOG", "add_run_arguments", "parse_steps", "run_of",
    "accountant_of", "options_for", "mechanism_of", "composition_of", "calibration_options", "scheme_text",
    "refuse_shuffled",
    "SHUFFLED",
]

SAMPLINGS = ("poisson", "fixed", "balls-in-bins", "shuffle", "shuffle-persistent")
#: The shuffled loaders: no upper bound exists; ``dpproofs epsilon`` prints a certified lower bound.
SHUFFLED = ("shuffle", "shuffle-persistent")
RELATIONS = ("add_remove", "replace_one")
#: ``--accountant`` name -> the public class (by name in :mod:`dpproofs`): the only place the CLI
#: names an accountant; everything else goes through the interface
#: (:class:`dpproofs.accountant.base.PrivacyAccountant`).
ACCOUNTANT_CLASSES = {"rdp": "Accountant", "pld": "PLDAccountant"}
ACCOUNTANTS = tuple(ACCOUNTANT_CLASSES)

EPILOG = (
    "sigma is the noise standard deviation divided by the clipping norm C, under every relation: "
    "one record moves the clipped sum by up to C under add_remove and 2C under replace_one, and "
    "dpproofs accounts for that (never rescale sigma). --sampling poisson: each record joins each "
    "batch independently with probability q. --sampling fixed: each step draws exactly B of the N "
    "records uniformly without replacement, independently of other steps (replace_one only). "
    "--sampling balls-in-bins: each record in exactly one of the ceil(N/B) steps of each epoch, "
    "drawn afresh every epoch (random allocation; either accountant, add_remove). "
    "--sampling shuffle / shuffle-persistent: no upper bound exists; dpproofs epsilon prints a certified "
    "lower bound beside the Poisson and balls-in-bins epsilons of the same run. "
    "Shuffled fixed-size batches (the usual data loader: one pass over a permutation per epoch) "
    "are neither; no tight analysis of them exists, and Poisson numbers for them can understate "
    "epsilon (Chua et al. 2024)."
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
    parser.add_argument("--sampling", default="poisson",
                        help=f"one of {', '.join(SAMPLINGS)} (default poisson; fixed: B of N without replacement "
                             "each step; balls-in-bins: each record in one step per epoch)")
    parser.add_argument("--relation", default="add_remove",
                        help=f"one of {', '.join(RELATIONS)} (default add_remove; replace_one: a record changed)")
    parser.add_argument("--accountant", default="rdp", help=f"one of {', '.join(ACCOUNTANTS)} (default rdp)")
    parser.set_defaults(min_steps=min_steps)


def run_of(args):
    """``(q, steps, description)`` from the parsed arguments; InvalidArgument names what is wrong."""
    from dpproofs.accountant import training

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
        scheme = "shuffle" if args.sampling in SHUFFLED else args.sampling
        steps, q = training.steps_and_rate(args.dataset_size, args.batch_size, args.epochs, sampling=scheme)
        shape = {"dataset_size": args.dataset_size, "batch_size": args.batch_size, "epochs": args.epochs}
    else:
        if any(v is None for v in direct):
            raise InvalidArgument("the run needs --q and --steps (or --dataset-size, --batch-size and --epochs)")
        if args.sampling in ("fixed", "balls-in-bins", *SHUFFLED):
            raise InvalidArgument(
                f"sampling={args.sampling!r} needs --dataset-size, --batch-size and --epochs (a batch is B of N "
                "records)"
            )
        q, steps = args.q, parse_steps(args.steps)
        shape = {}
    if steps < args.min_steps:
        raise InvalidArgument(f"steps={steps!r} is outside the allowed range [{args.min_steps}, inf)")
    if args.sampling == "fixed" and args.relation != "replace_one":
        raise InvalidArgument(
            f"sampling='fixed' with relation={args.relation!r} is not supported: fixed-size batches are "
            "analysed under replace_one only (adding or removing a record changes the dataset the "
            "batch is drawn from); use --relation replace_one, or --sampling poisson"
        )
    if args.sampling == "balls-in-bins":
        shape["steps_per_epoch"] = round(1 / q)  # steps_and_rate's q is exactly 1/t
        from dpproofs.mechanisms_allocation import RandomAllocationGaussian

        refused = RandomAllocationGaussian(shape["steps_per_epoch"], 1.0).refusal(args.accountant, args.relation)
        if refused is not None:
            raise refused
    return q, steps, {"q": q, "steps": steps, "sampling": args.sampling, "relation": args.relation,
                      "accountant": args.accountant, **shape}


def accountant_of(args):
    """A fresh accountant of the kind ``--accountant`` names (from :data:`ACCOUNTANT_CLASSES`)."""
    import dpproofs

    name = ACCOUNTANT_CLASSES[_validate.choice("accountant", args.accountant, ACCOUNTANTS)]
    return getattr(dpproofs, name)(relation=args.relation)


def options_for(method, args):
    """The command-line options (``--conversion``, ``--refine``) that ``method`` takes as keywords:
    an accountant's query accepts its own options (the RDP accountant's ``conversion``). An option
    the user set away from its default that ``method`` does not take raises InvalidArgument."""
    parameters = inspect.signature(method).parameters
    given = {name: getattr(args, name) for name in ("conversion", "refine") if getattr(args, name, None) is not None}
    ignored = [f"--{name.replace('_', '-')} {value}" if value is not True else f"--{name}"
               for name, value in given.items() if name not in parameters and value not in (False, "improved")]
    if ignored:  # silently dropping an option the user typed would answer a different question
        raise InvalidArgument(f"{', '.join(ignored)} applies to --accountant rdp only (the PLD accountant's "
                              "bracket has no conversion and no order)")
    return {name: value for name, value in given.items() if name in parameters}


def mechanism_of(args, description, sigma):
    """One step of the run: ``SampledGaussian(q, sigma)`` (Poisson) or ``FixedBatchGaussian``."""
    from dpproofs.mechanisms import FixedBatchGaussian, SampledGaussian

    if args.sampling == "fixed":
        return FixedBatchGaussian(batch_size=description["batch_size"], dataset_size=description["dataset_size"],
                                  sigma=sigma)
    return SampledGaussian(description["q"], sigma)


def composition_of(args, description, sigma):
    """``(mechanism, count)`` to compose: ``count`` steps of :func:`mechanism_of`, or under
    balls-in-bins ``ceil(steps / t)`` epochs of ``RandomAllocationGaussian(t, sigma)`` (a partial
    epoch releases a subset of a whole epoch's outputs: counting it whole is conservative)."""
    refuse_shuffled(args)
    if args.sampling == "balls-in-bins":
        from dpproofs.mechanisms_allocation import RandomAllocationGaussian

        per_epoch = description["steps_per_epoch"]
        return RandomAllocationGaussian(per_epoch, sigma), -(-description["steps"] // per_epoch)
    return mechanism_of(args, description, sigma), description["steps"]


def refuse_shuffled(args):
    """InvalidArgument for a shuffled loader where an upper bound is asked for."""
    if args.sampling in SHUFFLED:
        raise InvalidArgument(
            f"sampling={args.sampling!r} has no upper bound: no sound analysis of shuffled batches exists "
            "(Chua et al., arXiv 2403.17673); `dpproofs epsilon` prints a certified lower bound beside the Poisson "
            "and balls-in-bins epsilons of the run; for an upper bound, train with --sampling poisson or balls-in-bins"
        )


def calibration_options(args):
    """Keyword arguments of ``dpproofs.calibrate_sigma`` for the run's accountant, relation and sampling
    (``conversion`` is given only when it is not the default: it applies to the RDP accountant)."""
    refuse_shuffled(args)
    options = {"accountant": args.accountant, "relation": args.relation, "sampling": args.sampling}
    if getattr(args, "conversion", "improved") != "improved":
        options["conversion"] = args.conversion
    return options


def scheme_text(result):
    """``", fixed sampling, replace_one"`` for a run that is not Poisson add/remove, else ``""``."""
    if result.get("sampling", "poisson") == "poisson" and result.get("relation", "add_remove") == "add_remove":
        return ""
    return f", {result['sampling']} sampling, {result['relation']}"
