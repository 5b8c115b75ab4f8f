"""The ``dpproofs`` command: a dispatcher over the modules of this package.

Each command module defines ``HELP`` (one line), ``add_arguments(parser)`` and ``run(args)``,
which returns ``(exit_status, result)``: ``result`` is a JSON-able dict, printed as one JSON
object with ``--json``, else rendered by the module's ``render(result) -> str``.

Bad input (any :class:`dpproofs.DPProofsError` raised for an argument, or an argparse error)
becomes one line on stderr and exit status 2, never a traceback. Ctrl-C (KeyboardInterrupt) ends
any command with one line on stderr and exit status 130 (128 + SIGINT, the shell convention).
"""

import argparse
import importlib
import json
import sys

from dpproofs.errors import InvalidArgument, InvalidArgumentType

__all__ = ["main", "COMMANDS"]

#: command name -> module of this package
COMMANDS = {
    "epsilon": "epsilon",
    "delta": "delta",
    "sigma": "sigma",
    "check": "check",
    "list": "list_claims",
    "claims": "claims",
    "verify": "verify",
    "sweep": "sweep",
    "report": "report",
    "api": "api",
}

EXIT_BAD_INPUT = 2
#: Exit status after Ctrl-C: 128 + SIGINT (2), as a shell reports a process ended by SIGINT.
EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """argparse that reports errors as one line and exit status 2."""

    def error(self, message):
        sys.stderr.write(f"dpproofs: error: {message}\n")
        sys.exit(EXIT_BAD_INPUT)


def _load(name):
    return importlib.import_module(f"dpproofs.cli.{COMMANDS[name]}")


def build_parser(available=None):
    from dpproofs import __version__

    parser = _Parser(prog="dpproofs", description="Checked differential-privacy accounting.")
    parser.add_argument("--version", action="version", version=f"dpproofs {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMANDS:
        try:
            module = _load(name)
        except ModuleNotFoundError as error:
            if error.name != f"dpproofs.cli.{COMMANDS[name]}":
                raise
            continue  # a command whose module is not written yet is simply not offered
        sub = subparsers.add_parser(name, help=module.HELP, description=module.HELP)
        sub.add_argument("--json", action="store_true", help="print one JSON object on stdout")
        module.add_arguments(sub)
        sub.set_defaults(module=module)
    return parser


def main(argv=None):
    """Entry point of the console script; returns the exit status."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        sys.stderr.write("dpproofs: interrupted\n")
        return EXIT_INTERRUPTED


def _main(argv):
    args = build_parser().parse_args(argv)
    try:
        status, result = args.module.run(args)
    except (InvalidArgument, InvalidArgumentType) as error:
        sys.stderr.write(f"dpproofs {args.command}: error: {error}\n")
        return EXIT_BAD_INPUT
    if args.json:
        sys.stdout.write(json.dumps(result, indent=None, default=str) + "\n")
    else:
        sys.stdout.write(args.module.render(result).rstrip("\n") + "\n")
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
