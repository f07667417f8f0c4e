"""Import hygiene: a light sync-client path, an I/O-free core, honest ``__all__`` tuples."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

import venom_proto
import venom_proto._core as core_package

HEAVY = ("anyio", "asyncio", "orjson", "trio", "dataclasses", "venom_proto._server.server")


def modules_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=30
    )
    return set(out.stdout.split())


def heavy_in(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY or m in HEAVY)


def test_importing_the_package_is_lazy() -> None:
    assert heavy_in(modules_after("import venom_proto")) == []


# The sync client reaches venom_proto._server.paths, so it pays for venom_proto/_server/__init__.
_SERVER_INIT_EAGER = bool(heavy_in(modules_after("import venom_proto._server.paths")))


@pytest.mark.xfail(
    _SERVER_INIT_EAGER,
    strict=True,
    reason="venom_proto/_server/__init__.py imports the server eagerly (anyio); it should "
    "re-export lazily so the CLI's client path stays light",
)
def test_sync_client_imports_no_event_loop_and_no_orjson() -> None:
    """The CLI path: socket, stdlib json and the core only."""
    assert heavy_in(modules_after("import venom_proto.sync_client")) == []


#: Stdlib modules a CLI call does without, a few ms of start-up each: json and re (re brings
#: enum, functools, collections), socket.py (enum, selectors), importlib (warnings), typing.
STARTUP_WEIGHT = (
    "json",
    "re",
    "enum",
    "functools",
    "collections",
    "socket",
    "selectors",
    "importlib",
    "warnings",
    "typing",
)


def test_sync_client_imports_only_c_accelerators() -> None:
    """Importing the sync client and using its codec loads none of :data:`STARTUP_WEIGHT`."""
    statement = (
        "import venom_proto.sync_client; "
        "from venom_proto._core._stdjson import std_dumps, std_loads; "
        "std_loads(std_dumps({'a': [1, 2.5, None, True, '\\u00e9']}))"
    )
    loaded = modules_after(statement)
    assert "venom_proto.sync_client" in loaded
    assert "_json" in loaded  # the codec really ran on the C accelerator
    assert sorted(loaded.intersection(STARTUP_WEIGHT)) == []


def test_core_imports_no_io() -> None:
    """The sans-I/O core imports no socket, event loop or selector module."""
    core = [f"venom_proto._core.{m.name}" for m in pkgutil.iter_modules(core_package.__path__)]
    loaded = modules_after("; ".join(f"import {m}" for m in core))
    assert sorted(loaded & {"socket", "asyncio", "anyio", "selectors", "trio"}) == []


PUBLIC_MODULES = [
    "venom_proto",
    "venom_proto.client",
    "venom_proto.sync_client",
    "venom_proto._client_core",
    "venom_proto._client_binary",
    "venom_proto._client_paths",
    *(f"venom_proto._core.{m.name}" for m in pkgutil.iter_modules(core_package.__path__)),
]


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_all_is_an_honest_tuple(name: str) -> None:
    module = importlib.import_module(name)
    exported = module.__all__
    assert isinstance(exported, tuple)
    assert len(set(exported)) == len(exported)
    for attr in exported:
        assert getattr(module, attr) is not None, attr


def test_package_exports_match_the_lazy_table() -> None:
    assert set(venom_proto.__all__) == set(venom_proto._EXPORTS)
    assert set(venom_proto.__all__) <= set(dir(venom_proto))
    with pytest.raises(AttributeError):
        venom_proto.no_such_name  # noqa: B018
