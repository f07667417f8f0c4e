"""Handlers that take and return the pydantic models of a Python declaration (opt-in).

``model_handler(Params, fn)`` turns ``fn(call, params: Params) -> Result | JSON`` (``def`` or
``async def``) into an ordinary handler: the registry still checks the grant, validates the
params and inserts their defaults first, then ``Params.model_validate`` builds the model (wire
names are the aliases), and a returned model is dumped to JSON (``MISSING`` fields left out)
before the registry validates the result. Streamed items stay JSON values (``emit`` a dict or
``item.model_dump(mode="json")``).

The cost is one pydantic validation per call and pydantic in the daemon; the TypedDicts of
``venom-gen handler-types`` describe the same dicts at no cost, which is why venom-echo and
venom-notes use those. This module is the only run-time one that imports pydantic, and only a
product that uses it loads it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from venom_proto import Call, Handler

__all__ = ("model_handler",)

ParamsT = TypeVar("ParamsT", bound=BaseModel)


def _json(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    return value


def model_handler(params: type[ParamsT], handler: Callable[[Call, ParamsT], Any]) -> Handler:
    """``handler``, taking its params as a ``params`` instance; ``async def`` stays async."""
    validate = params.model_validate

    if inspect.iscoroutinefunction(handler):

        @functools.wraps(handler)
        async def run_async(call: Call, raw: dict[str, Any]) -> Any:
            return _json(await handler(call, validate(raw)))

        return run_async

    @functools.wraps(handler)
    def run(call: Call, raw: dict[str, Any]) -> Any:
        return _json(handler(call, validate(raw)))

    return run
