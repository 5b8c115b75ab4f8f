"""The API reference builds from the docstrings with one command (``dpproofs api``)."""

import pytest

from dpproofs.cli import main


def test_the_api_reference_builds_a_page_for_every_public_module(tmp_path, capsys):
    pytest.importorskip("pdoc")
    status = main(["api", "--out", str(tmp_path), "--json"])
    assert status == 0
    for page in ("dpproofs.html", "dpproofs/accountant/rdp.html", "dpproofs/integrations/opacus.html"):
        assert (tmp_path / page).stat().st_size > 1000, page
    assert "calibrate_sigma" in (tmp_path / "dpproofs.html").read_text()


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
