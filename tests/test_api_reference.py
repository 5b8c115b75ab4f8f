"""The API reference: one mkdocstrings page per public module (``dpproofs.cli.api.reference_pages``,
written to docs/api/ by ``dpproofs report``), every public name of the facade on it, each page in
the site's menu; ``dpproofs api`` builds the site (tests/test_packaging.py builds it, strict)."""

import re
from pathlib import Path

import pytest

import dpproofs
from dpproofs.cli import api, main

ROOT = Path(__file__).resolve().parents[1]


def test_the_api_reference_has_a_page_for_every_public_module():
    pages = api.reference_pages()
    assert set(pages) == {"api/index.md"} | {f"api/{module}.md" for module in api.MODULES}
    for module in api.MODULES[1:]:
        assert f"::: {module}\n" in pages[f"api/{module}.md"], module
    for module in api.MODULES:
        assert f"[`{module}`]({module}.md): " in pages["api/index.md"], module


def test_every_public_name_of_the_facade_is_on_the_reference_once():
    facade = api.reference_pages()["api/dpproofs.md"]
    for name in dpproofs.__all__:
        rows = [line for line in facade.splitlines() if line.startswith(f"| [`{name}`](")]
        assert len(rows) == 1, name
    # the lazy names are documented from their defining module, with their signature
    assert "::: dpproofs.accountant.calibrate.calibrate_sigma\n" in facade
    assert "(dpproofs.accountant.pld.accountant.md#dpproofs.accountant.pld.accountant.PLDAccountant)" in facade
    assert re.search(r"::: dpproofs\.verification\.\w+\.verify\n", facade)


def test_the_committed_reference_pages_are_the_rendered_ones_and_in_the_site_menu():
    menu = (ROOT / "mkdocs.yml").read_text()
    for relative, text in api.reference_pages().items():
        assert (ROOT / "docs" / relative).read_text() == text, f"docs/{relative} is stale: dpproofs report --render-only"
        assert f"- {relative}\n" in menu, f"mkdocs.yml's nav does not list {relative}"


def test_dpproofs_api_refuses_an_unwritable_folder_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(api.importlib.util, "find_spec", lambda name: object())  # as if mkdocs were installed
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["api", "--out", str(blocker / "site")]) == 2
    error = capsys.readouterr().err
    assert error.startswith("dpproofs api: error: out=") and "cannot be written" in error and error.count("\n") == 1


def test_dpproofs_api_names_the_packages_it_needs(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(api.importlib.util, "find_spec", lambda name: None)
    assert main(["api", "--out", str(tmp_path)]) == 2
    assert "pip install 'dpproofs[docs]'" in capsys.readouterr().err


def test_every_public_callable_has_type_hints_on_its_parameters_and_return():
    import inspect

    import dpproofs as dp
    from dpproofs.integrations import dp_accounting as bridge
    from dpproofs.integrations import opacus

    callables = [dp.rdp, dp.log_moment, dp.calibrate_sigma, dp.verify,
                 dp.training.steps_and_rate if hasattr(dp, "training") else None,
                 bridge.accountant_for, bridge.supports, bridge.to_event, opacus.get_noise_multiplier]
    for cls, names in ((dp.Accountant, ("__init__", "compose", "epsilon", "epsilon_and_order", "delta", "to_dict",
                                         "from_dict")),
                       (dp.PLDAccountant, ("__init__", "compose", "supports", "epsilon", "epsilon_bounds", "delta",
                                           "delta_bounds", "to_dict", "from_dict")),
                       (opacus.Accountant, ("__init__", "step", "get_epsilon", "state_dict", "load_state_dict"))):
        callables += [getattr(cls, name) for name in names]
    from dpproofs.accountant import training

    callables += [training.steps_and_rate, training.sampling_of, opacus.loader_mismatch]
    missing = []
    for function in filter(None, callables):
        signature = inspect.signature(function)
        for name, parameter in signature.parameters.items():
            if name in ("self", "cls") or parameter.kind in (parameter.VAR_KEYWORD, parameter.VAR_POSITIONAL):
                continue
            if parameter.annotation is inspect.Parameter.empty:
                missing.append(f"{function.__qualname__}({name})")
        if signature.return_annotation is inspect.Signature.empty:
            missing.append(f"{function.__qualname__} -> ?")
    assert not missing, missing


def test_the_api_reference_alone_renders_the_docstrings_as_the_site_does():
    yaml = pytest.importorskip("yaml")

    def options(text):
        plugins = yaml.safe_load(text)["plugins"]
        (mkdocstrings,) = [p["mkdocstrings"] for p in plugins if isinstance(p, dict) and "mkdocstrings" in p]
        return mkdocstrings["handlers"]["python"]["options"]

    assert options(api.CONFIG) == options((ROOT / "mkdocs.yml").read_text())
