"""Import hygiene: a light sync-client path, an I/O-free core, a lazy package face.

Every public module's ``__all__`` is checked by tests/test_public_faces.py for all packages.
"""

from __future__ import annotations

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


def test_sync_client_imports_no_event_loop_and_no_orjson() -> None:
    """The CLI path: socket, stdlib json and the core only; nothing of the server."""
    loaded = modules_after("import venom_proto.sync_client; import venom_proto.conventions")
    assert heavy_in(loaded) == []
    assert [m for m in loaded if m.startswith("venom_proto._server")] == []


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
        "from venom_proto.stdjson import std_dumps, std_loads; "
        "std_loads(std_dumps({'a': [1, 2.5, None, True, '\\u00e9']}))"
    )
    loaded = modules_after(statement)
    assert "venom_proto.sync_client" in loaded
    assert "_json" in loaded  # the codec really ran on the C accelerator
    assert sorted(loaded.intersection(STARTUP_WEIGHT)) == []


def test_binary_mode_is_imported_only_when_used() -> None:
    """The CLI's NDJSON calls never load the frame codec or the binary core."""
    loaded = modules_after("import venom_proto.sync_client")
    assert sorted(loaded & {"venom_proto._client_binary", "venom_proto._core.frames"}) == []


def test_core_imports_no_io() -> None:
    """The sans-I/O core imports no socket, event loop or selector module."""
    core = [f"venom_proto._core.{m.name}" for m in pkgutil.iter_modules(core_package.__path__)]
    loaded = modules_after("; ".join(f"import {m}" for m in [*core, "venom_proto.sansio"]))
    assert sorted(loaded & {"socket", "asyncio", "anyio", "selectors", "trio"}) == []


def test_package_exports_match_the_lazy_table() -> None:
    assert set(venom_proto.__all__) == set(venom_proto._EXPORTS)
    with pytest.raises(AttributeError):
        venom_proto.no_such_name  # noqa: B018
