"""``serve --reload=true``: the time from a saved change to the new verb answering.

A small product is written into a scratch directory and served under the reload supervisor
(rfcs/0002-wire-decisions.md D-W43). Each round saves an edit adding a verb (its manifest
entry and its handler, one file after the other as an editor saves them) and then calls the
new verb in a loop, with a fresh connection each time, until it answers; the figure is the
time from the first save to that answer: the watcher's debounce, a fresh interpreter loading
the product, the manifest's recompilation, the old daemon's drain and the swap. A second
client calls the old verb throughout; any refused or failed call is counted (it must stay 0).

Run: ``python -m bench.bench_reload [ROUNDS]`` (default 10).
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from venom_gen.testing import PrivateDirs
from venom_proto import SyncClient, VenomError
from venom_proto.conventions import resolve_socket_path
from venom_proto.owner_token import read_owner_token
from venom_schema.model_cache import compile_model

TOOL = "venom-rlb"
WAIT = 60.0

_VERB = """
        .{{ .name = "{name}", .summary = "Say {name}",
            .result = .{{ .kind = .object, .fields = .{{
                .{{ .name = "said", .summary = "What was said", .type = .{{ .kind = .string }},
                    .required = true }} }} }},
            .grant = .read }},"""

_PRODUCT = f"""
import os
from venom_gen import Product

PRODUCT = Product(
    tool="{TOOL}",
    version="1.0",
    model_path=os.path.join(os.path.dirname(os.path.abspath(__file__)), "verbs.model.json"),
    handlers="rlbench.handlers:handlers",
)
"""

_LAUNCH = (
    "import sys\n"
    "from venom_gen.binary import product_main\n"
    "from rlbench.product import PRODUCT\n"
    "sys.exit(product_main(PRODUCT))\n"
)


def _write(package: Path, verbs: list[str]) -> None:
    body = "".join(_VERB.format(name=v) for v in verbs)
    manifest = f'.{{ .format = 1, .tool = "{TOOL}", .summary = "Bench", .verbs = .{{{body}\n}} }}\n'
    (package / "verbs.zon").write_text(manifest, encoding="utf-8")
    handlers = "def handlers(app):\n    return {\n"
    handlers += "".join(f"        {v!r}: lambda call, params: {{'said': {v!r}}},\n" for v in verbs)
    (package / "handlers.py").write_text(handlers + "    }\n", encoding="utf-8")


def _client(path: str) -> SyncClient:
    token = read_owner_token(path)
    return SyncClient(path, auth=None if token is None else {"token": token}, timeout=WAIT)


def run(rounds: int = 10) -> dict[str, float]:
    """Median, min and max milliseconds from a saved edit to its new verb answering."""
    dirs = PrivateDirs()
    root = Path(tempfile.mkdtemp(prefix="rlb", dir=str(dirs.root)))
    package = root / "rlbench"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "product.py").write_text(_PRODUCT, encoding="utf-8")
    verbs = ["hi"]
    _write(package, verbs)
    compile_model(package / "verbs.zon")
    env = dirs.env(TOOL)
    env["PYTHONPATH"] = os.pathsep.join([str(root), *sys.path])
    socket_path = resolve_socket_path(TOOL, None, env)
    log = (root / "supervisor.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-c", _LAUNCH, "serve", "--reload=true"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    failures: list[BaseException] = []
    done = threading.Event()

    def keep_calling() -> None:
        while not done.is_set():
            try:
                with _client(socket_path) as client:
                    client.call("hi")
            except (VenomError, OSError) as exc:
                failures.append(exc)

    times: list[float] = []
    try:
        deadline = time.monotonic() + WAIT
        while read_owner_token(socket_path) is None or not _answers(socket_path, "hi"):
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError((root / "supervisor.log").read_text())
            time.sleep(0.05)
        caller = threading.Thread(target=keep_calling)
        caller.start()
        for n in range(rounds):
            verbs.append(f"v{n}")
            time.sleep(1.0)  # settle: each round's edit is its own change
            start = time.monotonic()
            _write(package, verbs)
            while not _answers(socket_path, verbs[-1]):
                if time.monotonic() - start > WAIT:
                    raise RuntimeError((root / "supervisor.log").read_text())
                time.sleep(0.005)
            times.append((time.monotonic() - start) * 1000)
        done.set()
        caller.join(WAIT)
    finally:
        done.set()
        proc.send_signal(signal.SIGTERM)
        proc.wait(WAIT)
        log.close()
        dirs.remove()
    return {
        "median_ms": statistics.median(times),
        "min_ms": min(times),
        "max_ms": max(times),
        "rounds": float(rounds),
        "failed_calls": float(len(failures)),
    }


def _answers(socket_path: str, verb: str) -> bool:
    try:
        with _client(socket_path) as client:
            client.call(verb)
    except (VenomError, OSError):
        return False
    return True


if __name__ == "__main__":
    result = run(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
    print(
        f"serve --reload: saved change -> new verb answering: median {result['median_ms']:.0f} ms"
        f" (min {result['min_ms']:.0f}, max {result['max_ms']:.0f}) over"
        f" {result['rounds']:.0f} edits; failed calls meanwhile: {result['failed_calls']:.0f}"
    )
