"""Shared pieces of the CLI tests (no tests here): the fixture model and an in-process daemon.

Kept out of conftest.py, which other generator tests own: the root pytest config's
``pythonpath`` puts this directory on sys.path; the CLI test modules import what they use
by name.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from venom_gen.testing import PrivateDirs
from venom_proto import VenomError


def _field(
    name: str, type_: dict[str, Any], *, required: bool = False, **extra: Any
) -> dict[str, Any]:
    return {"name": name, "summary": f"The {name}", "type": type_, "required": required, **extra}


def _verb(
    name: str,
    *,
    params: list[dict[str, Any]] | None = None,
    result: dict[str, Any] | None = None,
    grant: str = "read",
    **extra: Any,
) -> dict[str, Any]:
    verb: dict[str, Any] = {
        "name": name,
        "summary": f"Summary of {name}",
        "params": params or [],
        "result": result or {"kind": "object", "fields": []},
        "errors": [],
        "grant": grant,
        "streams": False,
        "exit": {"kind": "standard"},
        "examples": [],
    }
    verb.update(extra)
    return verb


STRING = {"kind": "string"}
INTEGER = {"kind": "integer"}
EMPTY = {"kind": "object", "fields": []}


def _obj(*fields: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "object", "fields": list(fields)}


#: RFC-0004 §1's echo verb, as normalized.
ECHO = _verb(
    "echo",
    params=[
        {"name": "text", "summary": "Text to return", "type": STRING, "required": True},
        {
            "name": "style",
            "summary": "Output casing",
            "type": {"kind": "string", "choices": ["plain", "upper"]},
            "required": False,
            "default": "plain",
        },
    ],
    result=_obj({"name": "text", "summary": "Returned text", "type": STRING, "required": True}),
    examples=[
        {"params": {"text": "hi"}, "result": {"text": "hi"}},
        {"params": {"text": "hi", "style": "upper"}, "result": {"text": "HI"}},
    ],
)
ECHO["summary"] = "Return the supplied text"

KINDS_PARAMS = [
    _field("s", STRING),
    _field("flag", {"kind": "boolean"}),
    _field("int", {"kind": "integer", "min": -10, "max": 1000}),
    _field("num", {"kind": "number", "min": -1.5, "max": 1e300}),
    _field("nothing", {"kind": "null"}),
    _field("list", {"kind": "array", "items": INTEGER}),
    _field("obj", _obj(_field("x", INTEGER, required=True), _field("y", STRING, default="d"))),
    _field("max_count", INTEGER),
]

_VERBS = [
    _verb(
        "cancel",
        params=[_field("id", INTEGER, required=True)],
        result={"kind": "null"},
        grant="none",
        shared="core",
        dispatch="transport",
    ),
    _verb(
        "config.get",
        params=[_field("key", STRING, required=True)],
        result=_obj(_field("value", STRING, required=True)),
    ),
    _verb(
        "config.set",
        params=[_field("key", STRING, required=True), _field("value", STRING, required=True)],
        grant="write",
    ),
    _verb(
        "count",
        params=[_field("n", {"kind": "integer", "min": 0, "max": 100000}, required=True)],
        streams=True,
        item=_obj(_field("i", INTEGER, required=True)),
        result=_obj(_field("total", INTEGER, required=True)),
        errors=[{"code": "conflict.count_busy", "summary": "Another count runs", "data": EMPTY}],
        examples=[{"params": {"n": 2}, "result": {"total": 2}}],
    ),
    ECHO,
    _verb("hello", result=EMPTY, grant="none", shared="core", dispatch="transport"),
    _verb(
        "job",
        streams=True,
        item=_obj(_field("line", STRING, required=True)),
        result=_obj(_field("status", {"kind": "integer", "min": 0, "max": 255}, required=True)),
        exit={"kind": "result", "field": "status"},
    ),
    _verb("kinds", params=KINDS_PARAMS),
    _verb("mcp", grant="admin", shared="agent", dispatch="local"),
    _verb("pane.set_title", params=[_field("title", STRING, required=True)], grant="write"),
    _verb("ping", grant="none", shared="core"),
    _verb(
        "run",
        params=[_field("code", INTEGER, required=True)],
        result=_obj(_field("status", {"kind": "integer", "min": 0, "max": 255}, required=True)),
        exit={"kind": "result", "field": "status"},
        grant="spawn",
        examples=[{"params": {"code": -3}, "result": {"status": 3}}],
    ),
    _verb(
        "serve",
        params=[_field("foreground", {"kind": "boolean"}, default=False)],
        grant="admin",
        shared="agent",
        dispatch="local",
    ),
    _verb("set_title", params=[_field("title", STRING, required=True)], grant="write"),
    _verb("skill", result=_obj(_field("content", STRING, required=True)), shared="agent"),
    _verb(
        "skill.install",
        params=[_field("target", STRING, default="user")],
        result=_obj(_field("path", STRING, required=True)),
        grant="files",
        shared="agent",
    ),
    _verb("tail", streams=True, item=_obj(_field("line", STRING, required=True))),
]

#: The hand-written normalized model: every kind, streaming, prefix verbs, nested groups,
#: an exit policy, local and transport verbs, and an underscore in a bare and a dotted name.
MODEL: dict[str, Any] = {
    "format": 1,
    "tool": "venom-echo",
    "summary": "A toy daemon for protocol conformance",
    "verbs": sorted(_VERBS, key=lambda v: str(v["name"])),
}


def write_model(directory: Path) -> Path:
    """Write `MODEL` as the CLI's cached normalized model JSON; return its path."""
    path = directory / "venom-echo.model.json"
    path.write_text(json.dumps(MODEL), encoding="utf-8")
    return path


@dataclass
class Script:
    """What the fake daemon does for one request."""

    items: list[Any] = field(default_factory=list)
    result: Any = None
    error: VenomError | None = None
    interrupt_after: int | None = None  # raise KeyboardInterrupt after this many items


@dataclass
class FakeStream:
    """Stands in for ``SyncClient.stream``'s handle."""

    id: int
    script: Script

    def __iter__(self) -> Iterator[Any]:
        for n, item in enumerate(self.script.items):
            if self.script.interrupt_after == n:
                raise KeyboardInterrupt
            yield item
        if self.script.interrupt_after == len(self.script.items):
            raise KeyboardInterrupt
        if self.script.error is not None:
            raise self.script.error

    @property
    def result(self) -> Any:
        for _ in self:
            pass
        return self.script.result


@dataclass
class FakeDaemon:
    """An in-process daemon: scripted replies, a record of requests, hellos and cancels."""

    responder: Callable[[str, dict[str, Any]], Script]
    connect_error: VenomError | None = None
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    hellos: list[dict[str, Any]] = field(default_factory=list)
    cancelled: list[int | str] = field(default_factory=list)
    closed: int = 0

    def __call__(
        self,
        socket_path: str,
        *,
        client_name: str,
        client_version: str,
        caps: tuple[str, ...],
        auth: dict[str, Any] | None,
        connect_timeout: float,
    ) -> FakeDaemon:
        self.hellos.append(
            {
                "socket": socket_path,
                "name": client_name,
                "version": client_version,
                "caps": caps,
                "auth": auth,
                "connect_timeout": connect_timeout,
            }
        )
        if self.connect_error is not None:
            raise self.connect_error
        return self

    def stream(self, verb: str, params: dict[str, Any]) -> FakeStream:
        self.requests.append((verb, params))
        return FakeStream(len(self.requests) + 1, self.responder(verb, params))

    def cancel(self, id: int | str, *, wait: float | None = None) -> None:
        self.cancelled.append(id)

    def close(self) -> None:
        self.closed += 1


def _count(n: int) -> Script:
    special = {
        99: Script(items=[{"i": 0}], error=VenomError("conflict.count_busy", "busy")),
        98: Script(items=[{"i": 0}, {"i": "bad"}], result={"total": 2}),
        97: Script(items=[{"i": 0}], result={"total": "bad"}),
        96: Script(items=[{"i": 0}, {"i": 1}], interrupt_after=1),
    }
    return special.get(n) or Script(items=[{"i": i} for i in range(n)], result={"total": n})


def default_responder(verb: str, params: dict[str, Any]) -> Script:
    """A plausible daemon for the fixture model, with failure modes keyed by magic values."""
    if verb == "echo":
        text = params["text"]
        return Script(result={"text": text.upper() if params.get("style") == "upper" else text})
    if verb == "count":
        return _count(params["n"])
    if verb == "run":
        return Script(result={"status": params["code"]})
    if verb == "config.get":
        if params["key"] == "nope":
            return Script(error=VenomError("not_found.key", "no key 'nope'", {"key": "nope"}))
        return Script(result={"value": params["key"] + "-value"})
    if verb == "skill":
        return Script(result={"content": "---\nname: venom-echo\n---\n# Skill\n"})
    if verb == "skill.install":
        return Script(result={"path": "/p/" + params.get("target", "user")})
    if verb == "job":
        return Script(items=[{"line": "x"}], result={"status": 4})
    if verb == "tail":
        return Script(items=[{"line": "a"}], interrupt_after=1)
    return Script(result={})


@dataclass
class CliRun:
    """The outcome of one in-process CLI run."""

    code: int
    stdout: str
    stderr: str


@pytest.fixture
def fake_daemon() -> FakeDaemon:
    """A fresh fake daemon with the default responder."""
    return FakeDaemon(default_responder)


@pytest.fixture
def run_cli(tmp_path: Path, fake_daemon: FakeDaemon) -> Callable[..., CliRun]:
    """Run ``venom_gen.cli.main`` in-process against `fake_daemon`."""
    from venom_gen.cli import main

    model_path = write_model(tmp_path)

    def run(
        *argv: str,
        local: dict[str, Callable[[list[str]], int]] | None = None,
        environ: dict[str, str] | None = None,
    ) -> CliRun:
        out, err = io.BytesIO(), io.StringIO()
        env = (
            {"VENOM_ECHO_SOCKET": str(tmp_path / "venom-echo.sock")} if environ is None else environ
        )
        code = main(
            model_path,
            argv=list(argv),
            local=local,
            version="9.9.9",
            connect=fake_daemon,
            environ=env,
            stdout=out,
            stderr=err,
        )
        return CliRun(code, out.getvalue().decode("utf-8"), err.getvalue())

    return run


#: A script running the generated CLI as a real process: ``python cli.py MODEL ARGV...``.
CLI_SCRIPT = """\
import sys
from venom_gen.cli import main
sys.exit(main(sys.argv[1], argv=sys.argv[2:], version="0.1.0"))
"""


@pytest.fixture
def short_dir(venom_dirs: PrivateDirs) -> Path:
    """A private directory with a path short enough for ``sun_path`` (the test kit's)."""
    return venom_dirs.root


@pytest.fixture
def cli(short_dir: Path) -> list[str]:
    """argv prefix running the generated CLI for the fixture model."""
    script = short_dir / "cli.py"
    script.write_text(CLI_SCRIPT, encoding="utf-8")
    return [sys.executable, str(script), str(write_model(short_dir))]
