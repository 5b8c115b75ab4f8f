"""``dpproofs api [--out DIR]``: build the API reference (HTML) from the docstrings, with pdoc.

The reference covers the public facade (``dpproofs``) and the modules a user imports or meets:
mechanisms, the accountants, conversions, errors, verdicts, the registry, the training helper and
the drop-in integrations. pdoc is a maintained tool (``pip install pdoc``, in the ``test`` and
``docs`` extras); the default output folder is ``build/api`` under the current folder.
"""

import importlib.util

HELP = "build the HTML API reference from the docstrings (pdoc) into --out (default build/api)"

__all__ = ["HELP", "MODULES", "add_arguments", "run", "render"]

#: The modules documented, the facade first.
MODULES = (
    "dpproofs",
    "dpproofs.mechanisms",
    "dpproofs.accountant.rdp",
    "dpproofs.accountant.pld.accountant",
    "dpproofs.math.conversions",
    "dpproofs.accountant.exact",
    "dpproofs.accountant.training",
    "dpproofs.accountant.sampling",
    "dpproofs.errors",
    "dpproofs.checker.verdicts",
    "dpproofs.checker.claims",
    "dpproofs.checker.registry",
    "dpproofs.math.limits",
    "dpproofs.integrations.dp_accounting",
    "dpproofs.integrations.dp_accounting_accountants",
    "dpproofs.integrations.opacus",
)


def add_arguments(parser):
    parser.add_argument("--out", default="build/api", help="output folder (default build/api)")


def run(args):
    from pathlib import Path

    from dpproofs.errors import InvalidArgument

    if importlib.util.find_spec("pdoc") is None:
        raise InvalidArgument("the API reference needs pdoc: pip install pdoc (or the 'docs' extra)")
    import pdoc

    modules = [m for m in MODULES if importlib.util.find_spec(m) is not None]
    out = Path(args.out)
    pdoc.pdoc(*modules, output_directory=out)
    pages = sorted(str(p.relative_to(out)) for p in out.rglob("*.html"))
    return 0, {"out": str(out), "modules": modules, "pages": pages}


def render(result):
    return f"wrote the API reference of {len(result['modules'])} modules to {result['out']}/index.html"
