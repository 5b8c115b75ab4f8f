"""The evaluators of claims (dpproofs.checker.arithmetic) over structured arguments."""

from dpproofs.checker import registry
from dpproofs.checker import vocabulary


def _structured_pins():
    for claim in registry.all_claims():
        for point in claim.pinned:
            if any(vocabulary.is_structured(value) for value in point.values()):
                yield claim, point


def test_a_type_registered_by_content_after_the_evaluators_were_imported_is_passed_as_it_is():
    # balle2018 registers its subsampled instances when the content loads, after
    # dpproofs.checker.arithmetic has been imported: the evaluators must see the registration
    pins = list(_structured_pins())
    assert any(type(value).__name__ == "GaussianSubsampled" for _, point in pins for value in point.values())
    for claim, point in pins:
        lhs, rhs = claim.evaluate(point, 30)
        assert lhs is not None and rhs is not None, claim.id
