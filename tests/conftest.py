"""Hypothesis profiles for the proof-regression suite.

* ``default``: fast, for every ``pytest`` run (a few minutes on 2 cores in all).
* ``campaign``: long searches (``pytest -m campaign --hypothesis-profile=campaign``).
* ``ci``: the campaign tests at a modest size, as run by ``.ci/run``.

Tests marked ``campaign`` are skipped unless ``-m campaign`` selects them (``.ci/run`` runs them at
the ``ci`` profile). Tests marked ``suite`` (the whole verify suite, about 2 minutes; ``dpproofs
report --only verify`` measures the same probes into docs/verify.md) are skipped unless ``-m suite``.
Tests marked ``opacus`` (a real Opacus ``PrivacyEngine``; the ``opacus`` extra) are skipped unless
``-m opacus`` selects them. Tests marked ``packaging`` (fresh virtual environments and a fresh clone;
tests/test_packaging.py) are skipped unless ``-m packaging`` selects them. Tests marked ``dask_cluster`` (a
``dask scheduler`` and ``dask worker`` processes on localhost; tests/test_dask_cluster.py) are skipped
unless ``-m dask_cluster`` selects them.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

settings.register_profile("default", max_examples=20, derandomize=True, **_COMMON)
settings.register_profile("ci", max_examples=40, derandomize=True, **_COMMON)  # twice the default: CI stays under 15 min
settings.register_profile("campaign", max_examples=1000, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_collection_modifyitems(config, items):
    markexpr = config.getoption("-m") or ""
    for marker in ("campaign", "suite", "opacus", "packaging", "dask_cluster"):
        if marker in markexpr:
            continue
        skip = pytest.mark.skip(reason=f"{marker} test: run with -m {marker}")
        for item in items:
            # the mark itself: item.keywords also holds the names of the folders above the test
            # (a checkout in a folder named "opacus" would skip every test)
            if item.get_closest_marker(marker) is not None:
                item.add_marker(skip)


@pytest.fixture(autouse=True)
def _mpmath_precision_is_restored_after_each_test():
    """A test that sets ``mp.dps`` must not change the precision of the tests after it (on one
    xdist worker the order varies: tests/test_pld.py's ``mp.dps = 40`` failed test_inputs)."""
    from mpmath import mp

    dps = mp.dps
    yield
    mp.dps = dps


@pytest.fixture
def rdp_calls(monkeypatch):
    """A list that gets one item each time a PLD accountant computes its ledger's own RDP bound
    (``PLDAccountant._rdp``), which is then computed as before: the orders asked (None for the
    default grid)."""
    import dpproofs as dp

    calls = []
    own_rdp = dp.PLDAccountant._rdp

    def counted(self, orders=None):
        calls.append(orders)
        return own_rdp(self, orders)

    monkeypatch.setattr(dp.PLDAccountant, "_rdp", counted)
    return calls
