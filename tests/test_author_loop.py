"""The author's loop end to end (issue 24): `venom-gen new` outside the checkout, a new verb
declared, `venom-gen generate`, `serve --reload=true` swapping the daemon under a client that
keeps calling, then the project's own tests and `mypy --strict`.

The project is scaffolded into a scratch directory and run from its ``src`` with this
environment's packages (tests/test_standalone.py installs the same scaffold from wheels,
outside the checkout, and puts it on PATH with `uv tool install`).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from venom_gen.build.scaffold import scaffold_product
from venom_gen.testing import DaemonProcess
from venom_proto import SyncClient, VenomError

pytest.importorskip("watchfiles")

ROOT = Path(__file__).resolve().parents[1]
TOOL = "venom-loop"
MODULE = "venom_loop"
WAIT = 60.0
BIN = Path(sys.executable).parent

#: The new verb, appended to the scaffold's declaration as an author would write it.
NEW_VERB = """

class FarewellParams(BaseModel):
    name: str = Field(default="world", description="Who to see off")


DECLARATION.verb(
    "farewell",
    "Say goodbye",
    grant="read",
    params=FarewellParams,
    result=Greeting,
    examples=[Example(FarewellParams(name="you"), Greeting(text="goodbye, you"))],
)
"""

#: Its handler, a method of the scaffold's `Handlers` class, typed by the regenerated types.
NEW_METHOD = """
    def farewell(self, call: Call, params: FarewellParams) -> FarewellResult:
        return {"text": f"goodbye, {params['name']}"}
"""


class Project:
    """The scaffolded project, and its daemon under ``serve --reload=true`` through the test
    kit's one harness (`DaemonProcess`), run from the project's ``src``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.package = root / "src" / MODULE
        path = os.pathsep.join([str(BIN), os.environ.get("PATH", "/usr/bin:/bin")])
        self.daemon = DaemonProcess(
            tool=TOOL,
            command=[sys.executable, "-m", MODULE],
            args=["--reload=true"],
            env={**os.environ, "PYTHONPATH": str(root / "src"), "PATH": path},
            timeout=WAIT,
        )

    def run(self, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            argv, cwd=self.root, env={**self.daemon.env, **env}, capture_output=True,
            text=True, timeout=600, check=False,
        )  # fmt: skip

    def client(self) -> SyncClient:
        return self.daemon.client(connect_timeout=WAIT)


def _farewell(project: Project) -> str | None:
    """None once ``farewell`` answers as declared, else the error code it got."""
    try:
        with project.client() as client:
            answer = client.call("farewell", {"name": "bo"})
    except VenomError as exc:
        return exc.code
    assert answer == {"text": "goodbye, bo"}
    return None


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    assert not tmp_path.resolve().is_relative_to(ROOT), "must be outside the checkout"
    root = tmp_path / TOOL
    scaffold_product(TOOL, root, standalone=True)
    made = Project(root)
    with made.daemon:
        yield made


def test_new_edit_generate_reload_test_and_type_check(project: Project) -> None:
    failures: list[BaseException] = []
    calls = 0
    done = threading.Event()

    def keep_calling() -> None:
        nonlocal calls
        while not done.is_set():
            try:
                with project.client() as client:
                    assert client.call("greet", {"name": "ann"}) == {"text": "hello, ann"}
                calls += 1
            except (VenomError, OSError) as exc:
                failures.append(exc)

    held = project.client()  # connected to the first daemon throughout
    assert held.call("greet") == {"text": "hello, world"}
    caller = threading.Thread(target=keep_calling)
    caller.start()
    try:
        declaration = project.package / "declaration.py"
        declaration.write_text(declaration.read_text(encoding="utf-8") + NEW_VERB)
        handlers = project.package / "handlers.py"
        text = handlers.read_text(encoding="utf-8")
        text = text.replace(
            "import GreetParams, GreetResult, bind_handlers",
            "import (\n    FarewellParams,\n    FarewellResult,\n    GreetParams,\n"
            "    GreetResult,\n    bind_handlers,\n)",
        )
        text = text.replace("\n\ndef handlers(", NEW_METHOD + "\n\ndef handlers(")
        handlers.write_text(text, encoding="utf-8")
        generated = project.run(str(BIN / "venom-gen"), "generate")
        assert generated.returncode == 0, generated.stderr
        deadline = time.monotonic() + WAIT
        while (code := _farewell(project)) is not None:  # until the new daemon serves
            assert code.startswith("unsupported"), code
            assert time.monotonic() < deadline, project.daemon.log
            time.sleep(0.1)
        # The first daemon answered the held connection, then closed it when it was replaced.
        with pytest.raises(VenomError):
            held.call("greet")
    finally:
        done.set()
        caller.join(WAIT)
        held.close()
    assert failures == [], project.daemon.log
    assert calls > 0
    assert project.daemon.stop() == 0

    quick = {"VENOM_CONFORMANCE_SELECT": "hello"}  # the whole suite: tests/test_standalone.py
    tests = project.run(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", **quick)
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]
    checked = project.run(str(BIN / "mypy"), "--strict", "src", "tests")
    assert checked.returncode == 0, checked.stdout[-3000:]
    fresh = project.run(str(BIN / "venom-gen"), "generate", "--check")
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
