"""The package's layout promises: a light accountant path, and content no user folder can shadow."""

import subprocess
import sys

LIGHT = (
    "import dpproofs, sys; "
    "a = dpproofs.Accountant().compose(dpproofs.SampledGaussian(0.01, 4.0), steps=10_000); "
    "a.epsilon(1e-5); "
    "print(sorted(m for m in ('sympy', 'hypothesis', 'flint') if m in sys.modules))"
)


def test_an_epsilon_query_loads_neither_sympy_hypothesis_nor_flint():
    out = subprocess.run([sys.executable, "-c", LIGHT], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_the_checker_runs_from_a_folder_that_has_its_own_theorems_package(tmp_path):
    (tmp_path / "theorems").mkdir()
    (tmp_path / "theorems" / "__init__.py").write_text("raise SystemExit('an unrelated theorems package')\n")
    out = subprocess.run(
        [sys.executable, "-m", "dpproofs", "list", "abadi2016.lemma_c1"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert "abadi2016.lemma_c1" in out.stdout
