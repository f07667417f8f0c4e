"""One start-up boundary: the CLI's verb-call path is a few modules, and only they are written
around start-up cost; a product at run time imports only what it runs.

The verb-call path may not import ``typing`` (a few ms of every call, checked by
packages/venom-echo/tests/test_echo_cli_imports.py), so its modules import annotation-only names
under ``TYPE_CHECKING = False``. That idiom belongs to those modules alone: any other module,
product code and the scaffold's templates are plain Python that imports ``typing`` freely.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from venom_gen.testing import DaemonProcess, PrivateDirs, product_command

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [*ROOT.glob("packages/*/src"), *ROOT.glob("examples/*/src")]
TEMPLATES = ROOT / "packages/venom-gen/src/venom_gen/build/scaffold/templates"
IDIOM = "TYPE_CHECKING = False"
#: Modules of build time, and third-party packages no running product needs.
BUILD_TIME = ("venom_gen.build", "typer", "click", "rich")
#: The Python declaration path (RFC-0004 §2): pydantic runs at build time, never on a call.
DECLARATIONS = ("venom_schema.declare", "pydantic", "pydantic_core")

#: Human text's renderer (rfcs/0004 D-S64): on the path of a human-mode call that prints.
HUMAN_RENDERER = "venom_gen.cli.human"

_PROBE = """
import json, sys
from venom_echo.__main__ import main
code = main()
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
sys.exit(code)
"""


def _modules_of(code: str, *argv: str) -> tuple[int, list[str]]:
    dirs = PrivateDirs()  # no daemon there: the call fails fast, on the light path
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code, *argv],
            env=dirs.env("venom-echo"),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        dirs.remove()
    line = proc.stderr.rsplit("MODULES ", 1)[1]
    return proc.returncode, json.loads(line)


def _module_name(path: Path) -> str:
    src = next(s for s in SOURCES if path.is_relative_to(s))
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _with_idiom() -> set[str]:
    return {
        _module_name(path)
        for src in SOURCES
        for path in src.rglob("*.py")
        if IDIOM in path.read_text(encoding="utf-8")
    }


#: ``venom call``, the family's client (venom_gen.family): the other short-lived path.
_VENOM_PROBE = """
import json, sys
from venom_gen.family import main
code = main()
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
sys.exit(code)
"""
_VENOM_CALL = ("call", "venom-echo", "echo", '{"text":"hi"}')


def test_only_modules_on_the_verb_call_path_use_the_type_checking_idiom() -> None:
    code, loaded = _modules_of(_PROBE, "echo", "--text", "hi")
    assert code == 6  # unavailable.not_running: the call went all the way to connect()
    assert "venom_proto.sync_client" in loaded  # the probe really walked the client path
    venom_code, venom_loaded = _modules_of(_VENOM_PROBE, *_VENOM_CALL)
    assert venom_code == 6
    assert "venom_gen.family._call" in venom_loaded
    # Human text's renderer loads only once a result prints (the real call below loads it).
    off_path = sorted(_with_idiom() - set(loaded) - set(venom_loaded) - {HUMAN_RENDERER})
    assert off_path == [], f"{IDIOM} outside the verb-call path: {off_path}"


#: Every module of ours a verb call loads, as docs/architecture.md ("The start-up boundary")
#: lists them: each costs the call ~0.15 ms however small it is, so one more is a decision made
#: here and there, not an accident.
VERB_CALL_PATH = frozenset(
    {
        *("venom_echo", "venom_echo.__main__", "venom_echo._version", "venom_echo.product"),
        *("venom_gen", "venom_gen.startup", "venom_gen.binary", "venom_gen.product"),
        "venom_gen.local",
        *("venom_gen.cli", "venom_gen.cli._run", "venom_gen.cli._argv"),
        *("venom_gen.cli._tree", "venom_gen.cli._call", "venom_gen.cli._output"),
        # Human mode only (issue 25): the escaping on any human-mode output, the renderer
        # once a result prints; --json loads neither.
        *("venom_gen.cli.terminal", "venom_gen.cli.human"),
        *("venom_proto", "venom_proto._version", "venom_proto.conventions", "venom_proto.paths"),
        *("venom_proto.owner_token", "venom_proto.model_cache", "venom_proto.stdjson"),
        *("venom_proto.sync_client", "venom_proto._client_core", "venom_proto._client_paths"),
        *("venom_proto._core", "venom_proto._core.errors"),
        *("venom_proto._core.ndjson", "venom_proto._core.replies"),
        *("venom_schema", "venom_schema.surfaces", "venom_schema.names", "venom_schema.grants"),
        *("venom_schema.runtime", "venom_schema.runtime._checks", "venom_schema.runtime._compile"),
    }
)


def test_the_path_is_a_few_modules_of_the_toolkit() -> None:
    """What a verb call loads of ours: the entry, the CLI, the client and the validators."""
    _, loaded = _modules_of(_PROBE, "echo", "--text", "hi")
    ours = [m for m in loaded if m.split(".")[0].startswith("venom_")]
    assert sorted(set(ours) - VERB_CALL_PATH) == [], "a new module on the verb-call path"
    assert len(ours) <= len(VERB_CALL_PATH) == 38
    # The local verbs' table is on the path; a local verb's module, like the daemon, is not.
    off_path = ("venom_gen.daemon", "venom_gen.local.", "venom_echo.handlers")
    assert not [m for m in ours if m.startswith(off_path)]
    assert [m for m in loaded if m.startswith(DECLARATIONS)] == []


#: Stdlib modules a verb call must not load, each a share of the ~1.5x-of-bare budget
#: (docs/architecture.md "The start-up boundary"): ``re`` (with ``enum``, ``functools`` and
#: ``collections``), ``json`` (imports ``re``), ``socket`` (``enum``, ``selectors``), the
#: typing machinery, and anything that starts threads, processes or an event loop.
COSTLY = (
    "re", "json", "socket", "selectors", "enum", "functools", "collections", "typing",
    "dataclasses", "inspect", "ast", "tokenize", "contextlib", "weakref", "warnings",
    "pathlib", "tempfile", "shutil", "subprocess", "threading", "logging", "datetime",
    "asyncio", "anyio", "orjson", "hashlib",
)  # fmt: skip

# The console script's own body (the echo daemon's binary, as installed): nothing of the probe
# itself may show up in what is measured.
_ENTRY = "from venom_echo.__main__ import run\nrun()\n"
#: The start-up image's switch (venom_gen.startup, rfcs/0004 D-S76).
IMAGE_SWITCH = "VENOM_STARTUP_IMAGE"


def _imported(
    argv: list[str], env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    names = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and not line.endswith("imported package")
    }
    return proc, names


def test_a_real_verb_call_imports_none_of_the_costly_stdlib() -> None:
    """``venom-echo echo --text hi`` against a running daemon, under ``-X importtime``.

    Counted are the imports beyond a bare interpreter's (site and its .pth files vary by
    environment), so any hit is the verb-call path's own: connect, hello, the call, output.
    Without the start-up image, so that every module is an import ``-X importtime`` shows.
    """
    with DaemonProcess("venom_echo.product:PRODUCT") as daemon:
        env = {**daemon.env, IMAGE_SWITCH: "0"}
        _, bare = _imported(["-c", "pass"], env)
        proc, loaded = _imported(["-c", _ENTRY, "echo", "--text", "hi"], env)
        as_json, loaded_json = _imported(["-c", _ENTRY, "echo", "--text", "hi", "--json"], env)
    assert (proc.returncode, proc.stdout) == (0, "text: hi\n"), proc.stderr[-2000:]
    assert (as_json.returncode, as_json.stdout) == (0, '{"text":"hi"}\n'), as_json.stderr[-2000:]
    assert "venom_proto.sync_client" in loaded  # the call really went through the client
    for names in (loaded, loaded_json):
        costly = sorted(name for name in names - bare if name.split(".")[0] in COSTLY)
        assert costly == [], f"the verb-call path imports {costly}"
        assert sorted(n for n in names if n.startswith("venom_") and n not in VERB_CALL_PATH) == []
    # Human text costs its two modules (and unicodedata, for ASCII text, never) in human
    # mode only.
    assert {HUMAN_RENDERER, "venom_gen.cli.terminal"} <= loaded
    assert HUMAN_RENDERER not in loaded_json
    assert "venom_gen.cli.terminal" not in loaded_json
    assert "unicodedata" not in loaded


def _image_env(daemon_env: dict[str, str], cache: str) -> dict[str, str]:
    # Bytecode writing on (the image is written like a .pyc), into a cache of this test's own
    # (PYTHONPYCACHEPREFIX): no other test's image, and none left in the checkout.
    env = {k: v for k, v in daemon_env.items() if k not in ("PYTHONDONTWRITEBYTECODE",)}
    env.pop(IMAGE_SWITCH, None)
    env["PYTHONPYCACHEPREFIX"] = cache
    return env


# Without json: the probe's own imports must not count.
_SYS_MODULES_PROBE = """
import sys
from venom_echo.__main__ import main
code = main()
sys.stderr.write("\\nMODULES " + " ".join(sorted(sys.modules)) + "\\n")
sys.exit(code)
"""


def test_with_the_start_up_image_a_verb_call_imports_four_modules_of_ours(
    tmp_path: Path,
) -> None:
    """The image (written by the first successful call, never by ``--help`` or a usage
    error) holds the rest of the path: the import system finds only the console script's
    module, its package, venom_gen and venom_gen.startup, and C extensions. The process ends
    with the same modules loaded as without the image, none of them `COSTLY`."""
    cache = str(tmp_path / "pycache")
    with DaemonProcess("venom_echo.product:PRODUCT") as daemon:
        env = _image_env(daemon.env, cache)
        for argv in (["--help"], ["echo", "--nope"], ["echo"]):
            subprocess.run(
                [sys.executable, "-c", _ENTRY, *argv], env=env, capture_output=True, timeout=60
            )
            assert list(Path(cache).rglob("venom-startup.*.image")) == [], argv
        first, _ = _imported(["-c", _ENTRY, "echo", "--text", "hi"], env)
        assert first.returncode == 0, first.stderr[-2000:]
        (image,) = Path(cache).rglob("venom-startup.*.image")
        proc, loaded = _imported(["-c", _ENTRY, "echo", "--text", "hi"], env)
        as_json, loaded_json = _imported(["-c", _ENTRY, "echo", "--text", "hi", "--json"], env)
        probes = {
            switch: subprocess.run(
                [sys.executable, "-c", _SYS_MODULES_PROBE, "echo", "--text", "hi"],
                env={**env, IMAGE_SWITCH: switch},
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            for switch in ("1", "0")
        }
    assert (proc.returncode, proc.stdout) == (0, "text: hi\n"), proc.stderr[-2000:]
    assert (as_json.returncode, as_json.stdout) == (0, '{"text":"hi"}\n')
    entry = {"venom_echo", "venom_echo.__main__", "venom_gen", "venom_gen.startup"}
    for names in (loaded, loaded_json):
        assert {n for n in names if n.split(".")[0].startswith("venom_")} == entry
    modules = {}
    for switch, probe in probes.items():
        assert probe.returncode == 0, probe.stderr[-2000:]
        modules[switch] = set(probe.stderr.rsplit("MODULES ", 1)[1].split())
    assert modules["1"] == modules["0"]
    assert sorted(m for m in modules["1"] if m.split(".")[0] in COSTLY) == []
    assert image.stat().st_mode & 0o777 == 0o644


# Interpreter finalization raises an audit event (PyInterpreterState_Clear in 3.11; the name
# varies by version, hence the match), and adding a hook registers no atexit callback.
_FINALIZED = """
import atexit, os, sys
def hook(event, args, write=os.write):  # bound now: finalization clears module globals
    if event.startswith("cpython.") and "Clear" in event:
        write(2, b"finalized\\n")
sys.addaudithook(hook)
if sys.argv[1] == "atexit":
    atexit.register(lambda: sys.stderr.write("atexit ran\\n"))
del sys.argv[1]
from venom_echo.__main__ import run
run()
"""


def test_the_console_script_ends_a_finished_call_without_finalization(tmp_path: Path) -> None:
    """After a CLI call ``run()`` flushes and ends the process (rfcs/0004 D-S77): output
    through a pipe is whole, the status is the call's; an ``atexit`` callback, a local verb
    or the switch gives the interpreter its ordinary exit."""
    big = "x" * 100_000  # more than a pipe holds (64 KiB): the flush must write it all
    with DaemonProcess("venom_echo.product:PRODUCT") as daemon:
        env = _image_env(daemon.env, str(tmp_path / "pycache"))

        def run(mode: str, *argv: str, switch: str = "1") -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [sys.executable, "-c", _FINALIZED, mode, *argv],
                env={**env, IMAGE_SWITCH: switch},
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )

        fast = run("plain", "echo", "--text", big)
        failed = run("plain", "echo")  # invalid_params: text is required
        with_atexit = run("atexit", "echo", "--text", "hi")
        switched_off = run("plain", "echo", "--text", "hi", switch="0")
        local = run("plain", "completion", "bash")
    assert (fast.returncode, fast.stdout, fast.stderr) == (0, f"text: {big}\n", "")
    assert (failed.returncode, "finalized" in failed.stderr) == (2, False)
    assert (with_atexit.returncode, "atexit ran" in with_atexit.stderr) == (0, True)
    assert (switched_off.returncode, "finalized" in switched_off.stderr) == (0, True)
    assert (local.returncode, "finalized" in local.stderr) == (0, True)
    assert "complete" in local.stdout


#: What ``venom call`` loads of ours beyond the product CLI's path (less the product's own
#: modules): the family's command line, target, model cache and call, and venom-gen's version.
VENOM_CALL_PATH = frozenset(
    {
        *(VERB_CALL_PATH - {"venom_echo", "venom_echo.__main__", "venom_echo._version"}),
        *("venom_gen.family", "venom_gen.family._main", "venom_gen.family._target"),
        *("venom_gen.family._models", "venom_gen.family._call", "venom_gen._version"),
    }
) - {"venom_echo.product"}


def test_venom_call_is_the_cli_path_plus_the_family_modules() -> None:
    """``venom call`` (the family's client) loads the product CLI's parts and its own five
    modules, never a product, ``ls``'s probing or ``describe``'s help renderer."""
    code, loaded = _modules_of(_VENOM_PROBE, *_VENOM_CALL)
    assert code == 6
    ours = {m for m in loaded if m.split(".")[0].startswith("venom_")}
    assert sorted(ours - VENOM_CALL_PATH) == [], "a new module on venom call's path"
    assert [m for m in ours if m.startswith(("venom_echo", "venom_notes"))] == []


def test_a_real_venom_call_imports_none_of_the_costly_stdlib() -> None:
    """``venom call venom-echo echo`` against a running daemon whose model is cached (the
    second call): connect, hello, the call and its output load none of `COSTLY`."""
    entry = "import sys\nfrom venom_gen.family import main\nsys.exit(main())\n"
    with DaemonProcess("venom_echo.product:PRODUCT") as daemon:
        first, _ = _imported(["-c", entry, *_VENOM_CALL], daemon.env)
        assert first.returncode == 0, first.stderr[-2000:]
        _, bare = _imported(["-c", "pass"], daemon.env)
        proc, loaded = _imported(["-c", entry, *_VENOM_CALL], daemon.env)
    assert (proc.returncode, proc.stdout) == (0, "text: hi\n"), proc.stderr[-2000:]
    assert "venom_proto.sync_client" in loaded
    costly = sorted(name for name in loaded - bare if name.split(".")[0] in COSTLY)
    assert costly == [], f"venom call imports {costly}"


_FREEZE_PROBE = """
import gc, io, sys
from venom_echo.__main__ import main
from venom_gen.cli import main as cli_main
from venom_echo.product import MODEL_PATH
embedded = cli_main(MODEL_PATH, argv=["echo", "--text", "hi"], stdout=io.BytesIO())
frozen_after_embedded = gc.get_freeze_count()
main()
sys.stderr.write(f"\\nMODULES [{frozen_after_embedded}, {gc.get_freeze_count()}]\\n")
"""


def test_the_cli_process_freezes_its_start_up_objects_and_an_embedder_does_not() -> None:
    """The collector's pass over the modules cost ~0.7 ms of every call: they are frozen out
    of its sight by the process's own CLI, never by a caller embedding ``main(argv=...)``."""
    _, counts = _modules_of(_FREEZE_PROBE, "echo", "--text", "hi")
    embedded, own = map(int, counts)
    assert embedded == 0
    assert own > 1000


def test_product_code_and_templates_are_plain_python() -> None:
    products = [ROOT / "packages/venom-echo/src", ROOT / "examples/venom-notes/src"]
    offenders = [
        str(p.relative_to(ROOT))
        for p in [*(f for d in products for f in d.rglob("*.py")), *TEMPLATES.glob("*.tmpl")]
        if IDIOM in p.read_text(encoding="utf-8")
    ]
    assert offenders == []


_DAEMON_PROBE = """
import json, sys, tempfile
from venom_echo.product import PRODUCT
from venom_gen.daemon import App
server = App(PRODUCT, tempfile.mktemp(suffix=".sock", dir="/tmp")).server()
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
"""

_MCP_PROBE = """
import json, sys
from venom_echo.product import MODEL_PATH
from venom_mcp.adapter import Tools
from venom_proto.model_cache import load_model
Tools(load_model(MODEL_PATH))
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
"""


def test_the_daemon_imports_nothing_of_build_time() -> None:
    """``serve`` builds the daemon (registry, shared verbs, SKILL.md) from run-time code alone."""
    code, loaded = _modules_of(_DAEMON_PROBE)
    assert code == 0
    assert "venom_echo.handlers" in loaded  # the product's daemon side, named by reference
    assert [m for m in loaded if m.startswith(BUILD_TIME)] == []
    assert [m for m in loaded if m.startswith(DECLARATIONS)] == []


def test_the_mcp_adapter_imports_nothing_of_build_time() -> None:
    """The catalog is run-time code; click comes with the MCP SDK's own imports (uvicorn)."""
    code, loaded = _modules_of(_MCP_PROBE)
    assert code == 0
    assert "venom_gen.render.catalog" in loaded
    assert [m for m in loaded if m.startswith(("venom_gen.build", "typer"))] == []


def test_a_production_serve_imports_nothing_of_reload() -> None:
    """``serve`` without ``--reload`` loads neither the watcher nor the reload supervisor
    (development only: the ``reload`` extra, rfcs/0002-wire-decisions.md D-W43)."""
    command = product_command("venom_echo.product:PRODUCT")
    with DaemonProcess(
        "venom_echo.product:PRODUCT", command=[command[0], "-X", "importtime", *command[1:]]
    ) as daemon:
        assert daemon.cli("echo", "--text", "hi").returncode == 0
        assert daemon.stop() == 0
        log = daemon.log
    imported = {
        line.rsplit("|", 1)[1].strip()
        for line in log.splitlines()
        if line.startswith("import time:")
    }
    assert "venom_gen.daemon.app" in imported  # the probe really saw the daemon's imports
    assert (
        sorted(m for m in imported if m.startswith(("watchfiles", "venom_gen.local._reload"))) == []
    )
