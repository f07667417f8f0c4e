"""Errors cut down to fit max_frame (issue 12 §2, rfcs/0002-wire-decisions.md D-W24)."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from venom_proto import VenomError
from venom_proto._core.fitting import TRUNCATED, fit_error


def line(obj: dict[str, Any]) -> bytes:
    return orjson.dumps({"id": 1, "error": obj}, option=orjson.OPT_APPEND_NEWLINE)


def test_an_error_that_fits_is_unchanged() -> None:
    err = VenomError("not_found.thing", "no thing", {"thing": "t"})
    assert fit_error(err, 4096, line) == line(err.to_object())


def test_long_strings_are_cut_and_marked() -> None:
    err = VenomError("invalid_params.unknown", "unknown param " + "p" * 5000, {"param": "p" * 5000})
    out = orjson.loads(fit_error(err, 4096, line))["error"]
    assert out["code"] == "invalid_params.unknown"
    assert out["message"].endswith(TRUNCATED)
    assert out["message"].startswith("unknown param ppp")
    assert out["data"]["param"] == "p" * 1024 + TRUNCATED


def test_keys_lists_and_objects_are_cut_too() -> None:
    data = {"k" * 3000: 1, "list": list(range(3000)), "nested": {str(i): i for i in range(3000)}}
    out = orjson.loads(fit_error(VenomError("failed", "m", data), 4096, line))["error"]
    keys = list(out["data"])
    assert any(key.endswith(TRUNCATED) for key in keys)
    listed = next(value for value in out["data"].values() if isinstance(value, list))
    assert listed[-1] == TRUNCATED


def test_data_is_dropped_before_the_code_changes() -> None:
    data = {str(i): i for i in range(100_000)}
    fitted = fit_error(VenomError("failed.thing", "m", data), 4096, line)
    assert len(fitted) <= 4096
    out = orjson.loads(fitted)["error"]
    assert out["code"] == "failed.thing"


def test_unserialisable_data_is_dropped_code_and_message_kept() -> None:
    err = VenomError("failed", "m", {"set": {1, 2}})
    assert orjson.loads(fit_error(err, 4096, line))["error"] == {"code": "failed", "message": "m"}


def test_a_code_too_long_to_fit_becomes_internal_too_large() -> None:
    err = VenomError("failed." + "x" * 9000, "m")
    out = orjson.loads(fit_error(err, 4096, line))["error"]
    assert out == {"code": "internal.too_large", "message": "error larger than max_frame"}


@settings(max_examples=200, deadline=None)
@given(
    st.text(max_size=3000),
    st.recursive(
        st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=2000),
        lambda inner: (
            st.lists(inner, max_size=50)
            | st.dictionaries(st.text(max_size=500), inner, max_size=50)
        ),
        max_leaves=200,
    ),
    st.sampled_from([4096, 8192, 65536]),
)
def test_anything_fits(message: str, data: Any, limit: int) -> None:
    err = VenomError("failed.x", message, {"d": data})
    fitted = fit_error(err, limit, line)
    assert len(fitted) <= limit
    assert orjson.loads(fitted)["error"]["code"] in {"failed.x", "internal.too_large"}
