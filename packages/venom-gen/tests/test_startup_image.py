"""The start-up image (venom_gen.startup, rfcs/0004 D-S76) on a scratch package: what it holds,
when it is written, read and ignored, and that its modules are the modules an import makes.

Every case runs in a fresh interpreter (`_run`), since the image works on ``sys.modules``.
"""

from __future__ import annotations

import json
import marshal
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from venom_gen import startup

#: The scratch package: a lazy top-level package, a package whose ``__init__`` imports its own
#: modules (completed after them, as ``venom_gen.cli``), relative and absolute imports,
#: ``__future__``, a module that fails when asked to, and a data file.
FILES = {
    "pkg/__init__.py": "VALUE = 1\n",
    "pkg/eager/__init__.py": (
        "from __future__ import annotations\n"
        "from ._a import A\n"
        "from ._b import B\n"
        "from pkg.eager import _a as again\n"
        "assert again is _a\n"
    ),
    "pkg/eager/_a.py": "A = 'a'\n",
    "pkg/eager/_b.py": "from ._a import A\nB = A + 'b'\n",
    "pkg/mod.py": (
        "import pkg\nfrom pkg.eager import B\ndef where() -> str:\n    return __name__ + ':' + B\n"
    ),
    "pkg/fails.py": "import os\nif os.environ.get('PKG_FAIL'):\n    raise RuntimeError('boom')\n",
    "pkg/data.json": '{"verbs": [1, 2, 3]}\n',
}
MODULES = ("pkg.eager", "pkg.mod", "pkg.fails")

#: One run: open the session as `venom_gen.startup.run_product` does, import, load the data
#: file, tell the session what ran, close it; print what a test needs to see.
DRIVER = """
import importlib, inspect, json, os, sys
root, dispatch, status = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, root)
import pkg  # as run_product imports the product's package before it opens the session
from venom_gen import startup
session = startup._open_session(os.path.join(root, "pkg"), os.environ)
failure = None
for name in __MODULES__:
    try:
        importlib.import_module(name)
    except RuntimeError as exc:
        failure = [name, str(exc), name in sys.modules]
reads = []
def read(path):
    reads.append(path)
    with open(path) as f:
        return json.load(f)
data = session.load(os.path.join(root, "pkg", "data.json"), read)
data["verbs"].append("changed by the caller")
if dispatch != "none":
    session.dispatch(dispatch)
wrote = session.close(status)
mod = sys.modules["pkg.mod"]
attrs = {}
for name in sorted(n for n in sys.modules if n == "pkg" or n.startswith("pkg.")):
    m = sys.modules[name]
    spec = m.__spec__
    parent, _, child = name.rpartition(".")
    attrs[name] = {
        "file": m.__file__, "package": m.__package__, "path": getattr(m, "__path__", None),
        "spec": [spec.name, spec.origin, spec.has_location, spec.parent,
                 spec.submodule_search_locations, type(spec.loader).__name__],
        "loader": type(m.__loader__).__name__, "loader_is_spec's": m.__loader__ is spec.loader,
        "bound": parent == "" or getattr(sys.modules[parent], child, None) is m,
    }
print(json.dumps({
    "installed": [n for n in session.installed if n.startswith("pkg")],
    "future": "__future__" in session.installed, "wrote": wrote, "reads": len(reads), "data": data,
    "attrs": attrs, "where": mod.where(), "source": inspect.getsource(mod.where),
    "reloaded": importlib.reload(mod).where(), "failure": failure,
    "recorder_left": any(type(f).__name__ == "_Recorder" for f in sys.meta_path),
}))
""".replace("__MODULES__", repr(MODULES))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for name, text in FILES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def _image(root: Path) -> Path:
    path = startup._image_path(str(root / "pkg"))
    assert path is not None
    return Path(path)


def _run(
    root: Path,
    dispatch: str = "daemon",
    status: int = 0,
    *,
    flags: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> dict[str, Any]:
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE",)}
    environ.pop(startup.ENV, None)
    environ.update(env or {})
    proc = subprocess.run(
        [sys.executable, *flags, "-c", DRIVER, str(root), dispatch, str(status)],
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


ALL = ["pkg.eager._a", "pkg.eager._b", "pkg.eager", "pkg.mod", "pkg.fails"]


def test_a_daemon_call_writes_the_image_and_the_next_run_imports_from_it(root: Path) -> None:
    first = _run(root)
    assert (first["installed"], first["wrote"], first["reads"]) == ([], True, 1)
    assert _image(root).is_file()
    second = _run(root)
    # In the order the imports completed: a package's own modules before its __init__.
    assert second["installed"] == ALL
    assert second["future"]  # stdlib source modules too: a "from __future__" import loads one
    assert (second["wrote"], second["reads"]) == (False, 0)  # the data came from the image
    # The modules are the modules an ordinary import makes (``__cached__`` aside).
    assert second["attrs"] == first["attrs"]
    assert second["where"] == first["where"] == "pkg.mod:ab"
    assert second["source"] == first["source"]
    assert second["reloaded"] == "pkg.mod:ab"
    assert second["attrs"]["pkg.eager"]["path"] == [str(root / "pkg" / "eager")]
    assert second["attrs"]["pkg.mod"]["spec"][5] == "SourceFileLoader"
    assert not first["recorder_left"]
    assert not second["recorder_left"]


def test_the_image_holds_the_data_as_read_not_as_the_caller_changed_it(root: Path) -> None:
    _run(root)
    second = _run(root)
    assert second["data"] == {"verbs": [1, 2, 3, "changed by the caller"]}
    third = _run(root)
    assert third["reads"] == 0
    assert third["data"]["verbs"].count("changed by the caller") == 1


@pytest.mark.parametrize(
    "change",
    ["source text", "source mtime", "data file", "sys.path", "optimize"],
)
def test_a_changed_world_means_ordinary_imports_and_a_new_image(root: Path, change: str) -> None:
    _run(root)
    flags: tuple[str, ...] = ()
    env: dict[str, str] = {}
    a = root / "pkg/eager/_a.py"
    if change == "source text":
        a.write_text("A = 'A'\n")  # same size: the mtime tells
    elif change == "source mtime":
        st = a.stat()
        os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    elif change == "data file":
        (root / "pkg/data.json").write_text('{"verbs": [4]}\n')
    elif change == "sys.path":
        env["PYTHONPATH"] = str(root / "elsewhere")
    elif change == "optimize":
        flags = ("-O",)
    after = _run(root, flags=flags, env=env)
    assert after["installed"] == []
    assert after["wrote"] is True
    if change == "data file":
        assert after["data"]["verbs"][0] == 4
    again = _run(root, flags=flags, env=env)
    assert again["installed"] == ALL
    if change == "source text":
        # Compiled from the source: the .pyc, checked to the whole second, may lag behind.
        assert again["where"] == "pkg.mod:Ab"


@pytest.mark.parametrize(
    ("dispatch", "status"),
    [("none", 0), ("local", 0), ("daemon", 2), ("daemon", 6)],
    ids=["help or a usage error", "a local verb", "usage error after all", "a failed call"],
)
def test_only_a_successful_daemon_call_writes_the_image(
    root: Path, dispatch: str, status: int
) -> None:
    result = _run(root, dispatch, status)
    assert result["wrote"] is False
    assert not _image(root).exists()
    assert not list((root / "pkg/__pycache__").glob("*.tmp"))


def test_modules_the_image_lacks_are_added_by_a_later_call(root: Path) -> None:
    _run(root)
    (root / "pkg/extra.py").write_text("X = 1\n")
    image = _image(root)
    header, entries, data = marshal.loads(image.read_bytes())
    # An image of an earlier call that did not need pkg.fails (another output mode, say).
    image.write_bytes(marshal.dumps((header, [e for e in entries if e[0] != "pkg.fails"], data)))
    grown = _run(root)
    assert grown["installed"] == [n for n in ALL if n != "pkg.fails"]
    assert grown["wrote"] is True
    assert _run(root)["installed"] == ALL


def test_no_image_without_bytecode_writing_or_with_the_switch_off(root: Path) -> None:
    assert _run(root, flags=("-B",))["wrote"] is False
    assert not _image(root).exists()
    assert _run(root, env={startup.ENV: "0"})["wrote"] is False
    assert not _image(root).exists()
    _run(root)
    off = _run(root, env={startup.ENV: "0"})
    assert (off["installed"], off["reads"]) == ([], 1)


@pytest.mark.parametrize(
    "damage",
    [
        "garbage",
        "truncated",
        "empty",
        "group-writable",
        "another user's",
        "a symbolic link",
        "a directory",
        "a fifo",
        "huge",
    ],
)
def test_a_damaged_or_foreign_image_is_ignored_and_replaced(root: Path, damage: str) -> None:
    _run(root)
    image = _image(root)
    blob = image.read_bytes()
    if damage == "garbage":
        image.write_bytes(b"\x00not marshal\xff" * 100)
    elif damage == "truncated":
        image.write_bytes(blob[: len(blob) // 2])
    elif damage == "empty":
        image.write_bytes(b"")
    elif damage == "group-writable":
        image.chmod(0o664)
    elif damage == "another user's":
        if os.geteuid() != 0:
            pytest.skip("only root can give a file to another user")
        os.chown(image, 54321, -1)
    elif damage == "a symbolic link":
        real = image.with_name("elsewhere.image")
        image.rename(real)
        image.symlink_to(real.name)
    elif damage == "a directory":
        image.unlink()
        image.mkdir()
    elif damage == "a fifo":
        image.unlink()
        os.mkfifo(image)
    elif damage == "huge":
        with image.open("ab") as f:
            f.truncate(startup._MAX_SIZE + 1)
    result = _run(root)
    assert result["installed"] == []
    assert result["where"] == "pkg.mod:ab"
    if damage == "a directory":
        assert result["wrote"] is False  # the rename cannot replace it: imports stay ordinary
    else:
        assert result["wrote"] is True
        assert stat.S_IMODE(image.stat().st_mode) == 0o644
        assert _run(root)["installed"] == ALL


def test_a_module_that_fails_in_the_image_fails_where_an_import_would(root: Path) -> None:
    _run(root)
    result = _run(root, env={"PKG_FAIL": "1"})
    # The modules before it ran from the image; the failing one and those after it were left
    # to the import system, which raised where the driver imported it, as it always would.
    assert result["installed"] == ["pkg.eager._a", "pkg.eager._b", "pkg.eager", "pkg.mod"]
    assert result["failure"] == ["pkg.fails", "boom", False]
    assert _run(root)["installed"] == ALL  # the image itself was fine


def test_an_unwritable_cache_costs_speed_only(root: Path) -> None:
    (root / "pkg/__pycache__").write_text("a file where the directory would be\n")
    result = _run(root)
    assert (result["installed"], result["wrote"], result["where"]) == ([], False, "pkg.mod:ab")


def test_the_image_follows_pythonpycacheprefix(root: Path, tmp_path_factory: Any) -> None:
    prefix = tmp_path_factory.mktemp("prefix")
    _run(root, env={"PYTHONPYCACHEPREFIX": str(prefix)})
    images = list(prefix.rglob("venom-startup.*.image"))
    assert len(images) == 1
    assert not _image(root).exists()
    assert _run(root, env={"PYTHONPYCACHEPREFIX": str(prefix)})["installed"] == ALL
