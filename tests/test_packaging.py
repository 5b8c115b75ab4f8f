"""The package people install: ``python -m build`` gives a wheel and an sdist that pass ``twine
check``, with one version; the documentation site builds with warnings as errors. The slow checks
(``-m packaging``, run by ``.ci/run``) install the wheel and the sdist into fresh virtual
environments and run tests there, and build the site from a fresh clone.

The builds run without build isolation (``--no-isolation``: the installed setuptools, no network);
the fresh environments see the system's packages (``--system-site-packages``: numpy and scipy are
not installed again) but import dpproofs from what they installed, which each test asserts.
"""

import email
import html
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

import dpproofs
from dpproofs.cli import main

ROOT = Path(__file__).resolve().parents[1]
#: Test files run against each fresh install: the facade and both accountants, the checker through
#: the installed content package (entry point), bad input, the dp_accounting bridge and the layout
#: promises (a folder named theorems/ cannot shadow the content). About a minute on one core.
INSTALLED_TESTS = ("test_layout.py", "test_accountant_interface.py", "test_checker.py", "test_inputs.py",
                   "test_integrations_dp_accounting.py", "test_accountant.py")


def _needs(*modules):
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (the test extra)")


def _clean_env():
    """The environment without PYTHONPATH (a checkout on it would shadow what was installed)."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}


def _run(command, **kwargs):
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True, env=kwargs.pop("env", _clean_env()),
                          **kwargs)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """The sdist and the wheel ``python -m build`` makes (the wheel from the sdist, as build does)."""
    _needs("build", "setuptools")
    out = tmp_path_factory.mktemp("dist")
    # from a copy of the checkout: building writes into the source tree (egg-info), which two
    # xdist workers must not share, and which the checkout need not carry
    source = tmp_path_factory.mktemp("source") / "dpproofs"
    shutil.copytree(ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", "build", "dist", "site", "*.egg-info", "__pycache__", ".hypothesis", ".pytest_cache", "dpproofs_theorems"))
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", out, source], cwd=source)
    wheels, sdists = sorted(out.glob("*.whl")), sorted(out.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(out.iterdir())
    return wheels[0], sdists[0]


def test_the_version_has_one_source_read_by_setuptools_and_printed_by_the_command(capsys):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "dpproofs.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", dpproofs.__version__)
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"dpproofs {dpproofs.__version__}"


def test_the_wheel_and_sdist_carry_the_version_the_content_and_pass_twine_check(dist):
    _needs("twine")
    wheel, sdist = dist
    _run([sys.executable, "-m", "twine", "check", "--strict", wheel, sdist])
    assert wheel.name == f"dpproofs-{dpproofs.__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = email.message_from_bytes(archive.read(f"dpproofs-{dpproofs.__version__}.dist-info/METADATA"))
        entry_points = archive.read(f"dpproofs-{dpproofs.__version__}.dist-info/entry_points.txt").decode()
    assert metadata["Version"] == dpproofs.__version__ and metadata["License-Expression"] == "Apache-2.0"
    assert {"dpproofs/__init__.py", "dpproofs/py.typed", "dpproofs_theorems/__init__.py",
            "dpproofs/cli/api.py"} <= names
    assert not [n for n in names if n.startswith(("tests/", "theorems/", "docs/"))]
    assert "theorems = dpproofs_theorems" in entry_points and "dpproofs = dpproofs.cli:main" in entry_points
    with tarfile.open(sdist) as archive:
        members = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"pyproject.toml", "setup.py", "mkdocs.yml", "README.md", "LICENSE", "tests/test_packaging.py",
            "theorems/__init__.py", "docs/index.md", "docs/api/index.md"} <= members


def test_the_docs_site_builds_with_warnings_as_errors(tmp_path):
    _needs("mkdocs", "mkdocstrings")
    out = tmp_path / "site"
    assert main(["api", "--out", str(out)]) == 0
    assert (out / "index.html").is_file() and (out / "accountant" / "index.html").is_file()
    facade = (out / "api" / "dpproofs" / "index.html").read_text()
    assert "calibrate_sigma" in facade and "PLDAccountant" in facade
    page = (out / "api" / "dpproofs.accountant.pld.accountant" / "index.html").read_text()
    text = html.unescape(re.sub(r"<[^>]+>", "", page))  # the signature, with its annotations
    assert "epsilon_bounds(delta: float | Sequence[float]) -> Bounds | list[Bounds]" in text


# --- slow: fresh virtual environments and a fresh clone (pytest -m packaging) -------------------------


def _fresh_venv(path):
    venv.EnvBuilder(system_site_packages=True, with_pip=True, clear=True).create(path)
    return path / "bin" / "python"


CHECK_INSTALL = """
import importlib.metadata as md, sys
from pathlib import Path
import dpproofs, dpproofs_theorems
from packaging.requirements import Requirement
from packaging.version import Version
prefix = Path(sys.prefix).resolve()
for module in (dpproofs, dpproofs_theorems):
    assert prefix in Path(module.__file__).resolve().parents, (module.__file__, prefix)
assert md.version("dpproofs") == dpproofs.__version__, md.version("dpproofs")
for text in md.requires("dpproofs"):
    requirement = Requirement(text)
    if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
        assert Version(md.version(requirement.name)) in requirement.specifier, text
print(dpproofs.__version__)
"""


def _check_install_and_run_tests(python, tests_from, work):
    """Assert the venv imports its own dpproofs with its dependencies met, then run
    :data:`INSTALLED_TESTS` from a copy of ``tests_from`` (no source tree beside it)."""
    assert _run([python, "-c", CHECK_INSTALL], cwd=work).stdout.strip() == dpproofs.__version__
    run = work / "run"
    shutil.copytree(tests_from, run / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    _run([python, "-m", "pytest", *[f"tests/{name}" for name in INSTALLED_TESTS], "-q", "-n", "0", "-p",
          "no:cacheprovider"], cwd=run)
    version = _run([python.parent / "dpproofs", "--version"], cwd=work).stdout.strip()
    assert version == f"dpproofs {dpproofs.__version__}"


@pytest.mark.packaging
def test_the_wheel_installs_in_a_fresh_venv_and_passes_its_tests(dist, tmp_path):
    wheel, sdist = dist
    python = _fresh_venv(tmp_path / "venv")
    # --no-deps: the dependencies come from the system (checked by CHECK_INSTALL); --force-reinstall:
    # a dpproofs of the same version installed outside the venv must not satisfy it
    _run([python, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--force-reinstall", wheel], cwd=tmp_path)
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path / "sdist", filter="data")
    (tests,) = (tmp_path / "sdist").glob("*/tests")
    _check_install_and_run_tests(python, tests, tmp_path)
    if importlib.util.find_spec("mkdocs") and importlib.util.find_spec("mkdocstrings"):
        # no checkout beside the installed package: `dpproofs api` builds the API reference alone
        _run([python.parent / "dpproofs", "api", "--out", tmp_path / "api"], cwd=tmp_path)
        assert "calibrate_sigma" in (tmp_path / "api" / "api" / "dpproofs" / "index.html").read_text()


@pytest.mark.packaging
def test_the_sdist_installs_in_a_fresh_venv_and_passes_its_tests(dist, tmp_path):
    _, sdist = dist
    python = _fresh_venv(tmp_path / "venv")
    # with build isolation, as a user installs it: pip fetches the build-system requirement (setuptools
    # >= 77, for the SPDX license; the venv's own setuptools is older); dependencies from the system
    _run([python, "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall", sdist], cwd=tmp_path)
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path / "sdist", filter="data")
    (tests,) = (tmp_path / "sdist").glob("*/tests")
    _check_install_and_run_tests(python, tests, tmp_path)


@pytest.mark.packaging
def test_the_docs_site_builds_from_a_fresh_clone_with_one_command(tmp_path):
    _needs("mkdocs", "mkdocstrings")
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a git checkout")
    clone = tmp_path / "clone"
    _run(["git", "clone", "--quiet", ROOT, clone])
    # the README's command: nothing installed from the clone (mkdocstrings reads its source)
    _run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=clone,
         env={**_clean_env(), "NO_MKDOCS_2_WARNING": "1"})
    assert (clone / "site" / "api" / "dpproofs" / "index.html").is_file()
