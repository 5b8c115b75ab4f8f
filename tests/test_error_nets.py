"""The checker's and the verifier's error nets skip a point only for a reason of the point.

A point outside a function's domain (:class:`dpproofs.errors.OutsideDomain`), an unconverged
series (``NumericalError``) or a numeric library's ``ValueError`` is skipped; a wrong argument
passed by the library's own code (any other ``InvalidArgument``, or ``InvalidArgumentType``)
propagates and fails the check, instead of being skipped silently.
"""

import ast
import pathlib

import mpmath
import pytest
import sympy

import dpproofs as dp
from dpproofs import errors
from dpproofs.checker import arithmetic
from dpproofs.checker import vocabulary
from dpproofs.checker.claims import Claim, Sides, Variable, check

ROOT = pathlib.Path(__file__).resolve().parents[1]
x = sympy.Symbol("x", real=True)


def _claim(raising, pinned=({"x": 0.5},)):
    def precise(point, dps):
        if point["x"] < 0.75:
            raise raising
        return mpmath.mpf(point["x"]), mpmath.mpf(1)

    return Claim(id="test.nets", source="test", statement=sympy.Le(x, 1), variables=(Variable("x", 0.0, 1.0),),
                 sides=Sides(precise=precise), pinned=pinned)


def test_a_wrong_argument_of_the_library_inside_an_evaluation_propagates_from_check():
    with pytest.raises(errors.InvalidArgument, match="internal"):
        check(_claim(errors.InvalidArgument("internal: q=2 passed by the library")), examples=5)
    with pytest.raises(errors.InvalidArgumentType, match="internal"):
        check(_claim(errors.InvalidArgumentType("internal: a str where a float belongs")), examples=5)


@pytest.mark.parametrize("raising", [errors.OutsideDomain("x=0.5 is outside the domain"),
                                     errors.NumericalError("series did not converge"),
                                     ValueError("math domain error"), ZeroDivisionError("division by zero")])
def test_a_failure_of_the_point_is_skipped_and_the_check_goes_on(raising):
    verdict = check(_claim(raising), examples=5)
    assert verdict.status in ("holds", "proved"), verdict.evidence


def test_the_vocabulary_refuses_a_point_outside_a_domain_with_outside_domain_an_invalid_argument():
    alpha = sympy.Symbol("alpha", real=True)
    expression = vocabulary.FUNCTIONS["rdp_gaussian"].symbol(alpha, 1)
    with pytest.raises(errors.OutsideDomain) as refused:
        arithmetic.evaluate_mp(expression, {"alpha": mpmath.mpf("0.5")}, 30)
    assert isinstance(refused.value, errors.InvalidArgument)  # what users and the CLI already catch


def test_a_wrong_argument_inside_a_user_claims_evaluation_propagates_from_verify(monkeypatch):
    real = arithmetic.evaluate_mp

    def wrong(expr, point, dps):
        if expr.has(vocabulary.FUNCTIONS["rdp_gaussian"].symbol):
            raise errors.InvalidArgument("internal: sigma=-1 passed by the library")
        return real(expr, point, dps)

    monkeypatch.setattr(arithmetic, "evaluate_mp", wrong)
    monkeypatch.setattr(arithmetic, "evaluate_ball", lambda *args, **kwargs: (_ for _ in ()).throw(
        errors.InvalidArgument("internal: sigma=-1 passed by the library")))
    with pytest.raises(errors.InvalidArgument, match="internal"):
        dp.verify("rdp_gaussian(alpha, sigma) <= alpha/(2*sigma**2)", ["1 < alpha <= 8", "1 <= sigma <= 2"],
                  samples=5)


def test_reraise_internal_tells_the_point_failures_from_the_librarys_wrong_arguments():
    for skipped in (errors.OutsideDomain("x"), errors.NumericalError("x"), ValueError("x"), OverflowError("x"),
                    vocabulary.UnsupportedExpression("x"), TypeError("x")):
        assert errors.reraise_internal(skipped) is None
    for internal in (errors.InvalidArgument("x"), errors.InvalidArgumentType("x")):
        with pytest.raises(type(internal)):
            errors.reraise_internal(internal)


def _handlers(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            yield node


@pytest.mark.parametrize("module", ["checker/claims.py", "checker/search.py", "checker/pipeline.py",
                                    "verification/domain.py", "verification/evaluation.py",
                                    "verification/frontend.py", "verification/prove.py"])
def test_every_net_of_the_checker_and_the_verifier_re_raises_the_librarys_wrong_arguments_first(module):
    """No handler catches DPProofsError, InvalidArgument or Exception wholesale; every handler of
    POINT_ERRORS / BOX_ERRORS (which hold ValueError and so InvalidArgument) starts with
    ``reraise_internal``. Handlers of a plain ``ValueError``/``TypeError`` tuple must do the same."""
    broad = {"DPProofsError", "InvalidArgument", "Exception", "BaseException"}
    needs_filter = broad | {"POINT_ERRORS", "BOX_ERRORS", "ValueError", "TypeError"}
    for handler in _handlers(ROOT / "dpproofs" / module):
        names = {n.id if isinstance(n, ast.Name) else getattr(n, "attr", "") for n in ast.walk(handler.type)}
        assert not names & broad, f"{module}:{handler.lineno} catches {sorted(names & broad)}"
        if names & needs_filter:
            first = handler.body[0]
            call = first.value if isinstance(first, ast.Expr) else None
            assert isinstance(call, ast.Call) and getattr(call.func, "id", "") == "reraise_internal", \
                f"{module}:{handler.lineno}: a handler of {sorted(names)} must call reraise_internal first"
