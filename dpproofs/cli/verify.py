"""``dpproofs verify CLAIM [--where COND]... [--integer NAME]...``: check one inequality.

Exit status: 0 proved or holds, 1 refuted, 2 malformed claim or domain (raised as
InvalidArgument, turned into status 2 by the dispatcher), 3 undecided.

``--json`` prints the verdict without its wall time, which goes to stderr instead: the same
claim, domain and seed print the same bytes on any machine and under any load.
"""

import sys

from dpproofs import _validate

HELP = "check an inequality over DP quantities (proved/holds, or a certified counterexample)"

__all__ = ["HELP", "EXIT_STATUS", "add_arguments", "run", "render"]

#: verdict status -> exit status
EXIT_STATUS = {"proved": 0, "holds": 0, "refuted": 1, "undecided": 3}


def add_arguments(parser):
    parser.add_argument("claim", metavar="CLAIM",
                        help="one relation, e.g. 'rdp_gaussian(alpha, sigma) <= alpha/sigma**2'")
    parser.add_argument("--where", action="append", default=[], metavar="COND",
                        help="a condition bounding the variables, e.g. '1 < alpha <= 64' (repeatable)")
    parser.add_argument("--integer", action="append", default=[], metavar="NAME",
                        help="a variable that takes integer values (repeatable)")
    parser.add_argument("--samples", type=int, default=500,
                        help="search draws for a cheap claim (default 500; fewer when evaluation is slow)")
    parser.add_argument("--seed", type=int, default=0, help="search seed (default 0)")
    parser.add_argument("--dps", type=int, default=50, help="decimal digits of the checks (default 50)")
    parser.add_argument("--time-budget", type=float, default=None, metavar="SECONDS",
                        help="safety stop in seconds (default 60); a verdict it cut short says so")


def run(args):
    samples = _validate.integer("--samples", args.samples, 1, 10**7)
    seed = _validate.integer("--seed", args.seed, 0, 2**32 - 1)
    dps = _validate.integer("--dps", args.dps, 20, 1000)
    from dpproofs.verification import TIME_BUDGET, verify  # loads sympy, Hypothesis and flint: only when used

    budget = TIME_BUDGET if args.time_budget is None else _validate.real("--time-budget", args.time_budget, 0, 3600,
                                                                          low_open=True)
    verdict = verify(args.claim, args.where, integers=args.integer, samples=samples, seed=seed, dps=dps,
                     time_budget=budget)
    result = verdict.to_dict()  # a user's claim: no expected result, no matches_expectation
    result["claim"] = result.pop("id")
    result["where"] = list(args.where)
    result["integers"] = list(args.integer)
    if getattr(args, "json", False):
        sys.stderr.write(f"dpproofs verify: answered in {result.pop('seconds')} s\n")
    return EXIT_STATUS[verdict.verdict], result


def render(result):
    lines = [f"{result['verdict'].upper()}: {result['claim']}"]
    if result["where"]:
        lines.append("  where " + ", ".join(result["where"]))
    if result.get("counterexample"):
        lines.append(f"  counterexample: {result['counterexample']}")
        if result.get("sides"):
            sides = result["sides"]
            lines.append(f"  there: lhs {sides.get('lhs')}, rhs {sides.get('rhs')}")
    if result.get("closest") and result["verdict"] != "refuted":
        closest = result["closest"]
        lines.append(f"  closest approach: margin {closest['margin']:.3g} at {closest['point']} "
                     f"(lhs {closest['lhs']}, rhs {closest['rhs']})")
    lines.append(f"  {result['examples']} examples, certified: {result['certified']}, "
                 f"{result['seconds']} s")
    lines.append(f"  evidence: {result['evidence']}")
    return "\n".join(lines)
