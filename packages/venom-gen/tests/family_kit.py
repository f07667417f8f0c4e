"""A daemon only these tests know, and ``venom`` run as a real process against it.

``tinyd.py`` (written into the test's own directory, never installed and never on the client's
``sys.path``) runs venom-proto's real server with a hand-written normalized model: ``greet``
(logs each call to a file), ``count`` (a stream) and ``tail`` (a stream that logs how it
ended), and ``manifest``. ``--lie`` makes its manifest's digest disagree with hello's schema.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from venom_gen.testing import DaemonProcess, PrivateDirs

TOOL = "tiny-thing"
TIMEOUT = 15.0
VENOM = str(Path(sys.executable).with_name("venom"))


def _field(name: str, summary: str, kind: str) -> dict[str, Any]:
    return {"name": name, "summary": summary, "type": {"kind": kind}, "required": True}


def _verb(name: str, summary: str, **members: Any) -> dict[str, Any]:
    verb: dict[str, Any] = {
        "name": name,
        "summary": summary,
        "params": [],
        "result": {"kind": "object", "fields": []},
        "errors": [],
        "grant": "read",
        "streams": False,
        "exit": {"kind": "standard"},
        "examples": [],
    }
    verb.update(members)
    return verb


_ITEM = {"kind": "object", "fields": [_field("i", "Position", "integer")]}
MODEL: dict[str, Any] = {
    "format": 1,
    "tool": TOOL,
    "summary": "A daemon only this test knows",
    "verbs": [
        _verb(
            "count",
            "Stream n items",
            params=[_field("n", "How many", "integer")],
            streams=True,
            item=_ITEM,
        ),
        _verb(
            "greet",
            "Greet someone",
            params=[_field("name", "Who", "string")],
            result={"kind": "object", "fields": [_field("text", "The greeting", "string")]},
        ),
        _verb("tail", "Stream one item, then wait", streams=True, item=_ITEM),
    ],
}

DAEMON = """\
import hashlib, sys
from venom_proto import Server, VerbHandler
from venom_schema.canonical import canonical_json

from venom_proto.conventions import resolve_socket_path

model_path, log_path = sys.argv[1:3]
socket_path = resolve_socket_path("tiny-thing")
text = canonical_json(__import__("json").load(open(model_path)))
digest = "sha256:" + hashlib.sha256(text).hexdigest()
schema = "sha256:" + "0" * 64 if "--lie" in sys.argv else digest

def log(line):
    with open(log_path, "a") as f:
        f.write(line + "\\n")

def greet(call, params):
    log("greet")
    return {"text": "hello " + str(params.get("name"))}

async def count(call, params):
    for i in range(params["n"]):
        await call.emit({"i": i})
    return {}

async def tail(call, params):
    import anyio
    await call.emit({"i": 0})
    try:
        await anyio.sleep(30)
    finally:
        log("cancelled" if call.cancelled else "ended")
    return {}

def manifest(call, params):
    log("manifest")
    return {"model": text.decode(), "digest": digest}

verbs = {"greet": VerbHandler(greet), "count": VerbHandler(count, streams=True),
         "tail": VerbHandler(tail, streams=True), "manifest": VerbHandler(manifest)}
Server("tiny-thing", "9.9.9", verbs, schema=schema).serve_forever(socket_path)
"""


class Tiny(DaemonProcess):
    """``tinyd.py`` in ``here`` (the test's own directory), on its own private directories."""

    def __init__(
        self,
        here: Path,
        *,
        lie: bool = False,
        dirs: PrivateDirs | None = None,
        served: dict[str, Any] | None = None,
    ) -> None:
        script, model = here / "tinyd.py", here / "tiny_model.json"
        script.write_text(DAEMON, encoding="utf-8")
        model.write_text(json.dumps(MODEL if served is None else served), encoding="utf-8")
        self.log_file = here / "tiny.log"
        self.log_file.touch()
        argv = [sys.executable, str(script), str(model), str(self.log_file)]
        super().__init__(
            tool=TOOL,
            dirs=dirs,
            argv=[*argv, "--lie"] if lie else argv,
            owner_token=False,
            timeout=TIMEOUT,
        )

    def calls(self) -> list[str]:
        return self.log_file.read_text(encoding="utf-8").split()


def venom(
    *args: str, env: Mapping[str, str], input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``venom ARGS`` as a real process, from a working directory with nothing importable."""
    clean = {k: v for k, v in env.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [VENOM, *args],
        env=clean,
        input=input,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        cwd=clean.get("HOME", "/"),
    )


def json_out(proc: subprocess.CompletedProcess[str]) -> Any:
    assert proc.stdout.endswith("\n"), proc.stdout + proc.stderr
    assert proc.stdout.count("\n") == 1, proc.stdout
    return json.loads(proc.stdout)


def error_code(proc: subprocess.CompletedProcess[str]) -> str:
    code: str = json_out(proc)["error"]["code"]
    return code


def is_root() -> bool:
    return os.getuid() == 0
