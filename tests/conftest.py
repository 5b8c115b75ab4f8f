"""Hypothesis profiles for the proof-regression suite.

* ``default``: fast, for every ``pytest`` run (a few minutes on 2 cores in all).
* ``campaign``: long searches (``pytest -m campaign --hypothesis-profile=campaign``).
* ``ci``: the campaign tests at a modest size, as run by ``.ci/run``.

Tests marked ``campaign`` are skipped unless ``-m campaign`` selects them.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

settings.register_profile("default", max_examples=20, derandomize=True, **_COMMON)
settings.register_profile("ci", max_examples=60, derandomize=True, **_COMMON)
settings.register_profile("campaign", max_examples=1000, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_collection_modifyitems(config, items):
    markexpr = config.getoption("-m") or ""
    if "campaign" in markexpr:
        return
    skip = pytest.mark.skip(reason="campaign test: run with -m campaign")
    for item in items:
        if "campaign" in item.keywords:
            item.add_marker(skip)
