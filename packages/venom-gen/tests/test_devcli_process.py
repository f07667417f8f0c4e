"""The installed `venom-gen` console script: real exit codes, no tracebacks, exact stdout."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from venom_schema.canonical import digest
from venom_schema.manifest import load_manifest

DEMO = """\
.{
    .format = 1,
    .tool = "demo",
    .summary = "A demo tool",
    .verbs = .{
        .{ .name = "greet", .summary = "Hello", .result = .{ .kind = .string }, .grant = .read },
    },
}
"""


def command() -> list[str]:
    exe = shutil.which("venom-gen", path=str(Path(sys.executable).parent))
    fallback = "from venom_gen.build.devcli import main; main()"
    return [exe] if exe else [sys.executable, "-c", fallback]


def venom_gen(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*command(), *args], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    path = tmp_path / "verbs.zon"
    path.write_text(DEMO, encoding="utf-8")
    return path


def test_digest_via_console_script(demo: Path) -> None:
    proc = venom_gen("digest", str(demo))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == digest(load_manifest(demo)) + "\n"


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("check", "{bad}"), 1),
        (("markdown", "{bad}"), 1),
        (("zon", "{bad}"), 1),
        (("digest", "{missing}"), 1),
        (("skill", "--python", "no.such.module:x"), 1),
        (("man", "{demo}"), 2),
        (("catalog",), 2),
        (("frobnicate",), 2),
    ],
)
def test_failures_exit_without_traceback(
    demo: Path, tmp_path: Path, args: tuple[str, ...], code: int
) -> None:
    bad = tmp_path / "bad.zon"
    bad.write_text(".{ .format = 1, .tool = }", encoding="utf-8")
    paths = {"bad": str(bad), "missing": str(tmp_path / "absent.zon"), "demo": str(demo)}
    proc = venom_gen(*(arg.format(**paths) for arg in args))
    assert proc.returncode == code
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip()
    assert proc.stdout == ""


def test_closed_stdout_is_not_a_traceback(demo: Path) -> None:
    """`venom-gen markdown verbs.zon | head -0`: the reader is gone before the write."""
    proc = subprocess.Popen(
        [*command(), "markdown", str(demo)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None
    proc.stdout.close()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert b"Traceback" not in err
    assert b"Exception ignored" not in err


def test_without_the_dev_extra_the_cli_says_how_to_get_it() -> None:
    """A product's environment has venom-gen without typer: ``venom-gen`` explains, exit 2."""
    code = (
        "import sys\n"
        "sys.modules['typer'] = None  # as if the dev extra were not installed\n"
        "from venom_gen.build.devcli import main\n"
        "main()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 2
    assert "pip install 'venom-gen[dev]'" in proc.stderr
    assert "Traceback" not in proc.stderr
