"""`Product` names its daemon side by reference; the references resolve only when used."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from venom_gen import Product
from venom_gen.product import resolve
from venom_proto import Handler


def _handlers(app: Any) -> Mapping[str, Handler]:
    return {}


def test_a_reference_is_imported_and_a_value_is_itself() -> None:
    assert resolve("venom_gen.product:resolve") is resolve
    assert resolve("venom_gen.product:Product.handlers_for") is Product.handlers_for
    assert resolve(_handlers) is _handlers
    assert resolve(None) is None


@pytest.mark.parametrize("ref", ["venom_gen.product", ":x", "venom_gen.product:"])
def test_a_malformed_reference_is_refused(ref: str) -> None:
    with pytest.raises(ValueError, match="module:attribute"):
        resolve(ref)


def test_a_missing_attribute_names_the_reference() -> None:
    with pytest.raises(AttributeError, match=r"venom_gen\.product:no_such"):
        resolve("venom_gen.product:no_such")


def test_a_product_resolves_what_it_names_on_use() -> None:
    product = Product(
        tool="t", version="1", model_path="m.json", handlers=_handlers, config=None, local={}
    )
    assert product.handlers_for(object()) == {}
    assert list(product.frame_handlers_for(object())) == []
    assert product.config_schema() is None
    with pytest.raises(KeyError):
        product.local_verb("mcp")
    assert repr(product) == "Product('t', '1')"
