"""Run dp_accounting's own accountant tests (shipped in its wheel) against dpproofs' classes.

    python benchmarks/dp_accounting_own_tests.py [rdp|pld ...]

Replaces ``rdp_privacy_accountant.RdpAccountant`` and ``pld_privacy_accountant.PLDAccountant`` in
the test modules ``dp_accounting.rdp.rdp_privacy_accountant_test`` and
``dp_accounting.pld.pld_privacy_accountant_test`` by
:mod:`dpproofs.integrations.dp_accounting_accountants`' classes, runs every test with unittest and
prints each failure's first line: the exceptions to "dp_accounting's tests pass" (issue 24), to
be read one by one (a test of dp_accounting's private methods, a value where the mathematics
differs, or a defect of ours). Not a unit test: a measurement.
"""

import importlib
import io
import logging
import sys
import unittest
import warnings

from dpproofs.integrations import dp_accounting_accountants as ours

MODULES = {
    "rdp": ("dp_accounting.rdp.rdp_privacy_accountant_test", "rdp_privacy_accountant", "RdpAccountant",
            ours.RdpAccountant),
    "pld": ("dp_accounting.pld.pld_privacy_accountant_test", "pld_privacy_accountant", "PLDAccountant",
            ours.PLDAccountant),
}


class _Patched:
    """The module attribute the tests read, pointing at our class while the tests run."""

    def __init__(self, module, name, cls):
        self.module, self.name, self.cls = module, name, cls

    def __enter__(self):
        self.saved = getattr(self.module, self.name)
        setattr(self.module, self.name, self.cls)

    def __exit__(self, *exc):
        setattr(self.module, self.name, self.saved)


def run(kind):
    test_module_name, attribute, name, cls = MODULES[kind]
    tests = importlib.import_module(test_module_name)
    implementation = getattr(tests, attribute)
    suite = unittest.defaultTestLoader.loadTestsFromModule(tests)
    stream = io.StringIO()
    with _Patched(implementation, name, cls), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = unittest.TextTestRunner(stream=stream, verbosity=0).run(suite)
    problems = [("FAIL", t, tb) for t, tb in result.failures] + [("ERROR", t, tb) for t, tb in result.errors]
    print(f"{kind}: {result.testsRun} tests, {len(problems)} not passing "
          f"({len(result.failures)} failures, {len(result.errors)} errors), {len(result.skipped)} skipped")
    for label, test, traceback in problems:
        last = [line for line in traceback.strip().splitlines() if line.strip()][-1]
        print(f"  {label} {test.id().split('.', 3)[-1]}: {last[:220]}")
    return result


def main(argv):
    logging.disable(logging.WARNING)
    for kind in argv or list(MODULES):
        run(kind)


if __name__ == "__main__":
    main(sys.argv[1:])
