"""Files the daemon reads and writes, against hostile paths (rfcs/0001 §4, §6).

Classes of input: whatever can sit at a path (FIFO, device, socket, symlink, directory, sparse
or growing file), hostile bytes inside a config file, hostile ``config.set`` values, and
writers killed half-way (stale temporary files).
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import socket
import stat
import threading
import time
import tomllib
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest

from venom_gen.daemon.config import MAX_VALUE_DEPTH, ConfigStore
from venom_gen.daemon.files import MAX_CONFIG_BYTES
from venom_gen.daemon.skill import SkillVerbs
from venom_proto import VenomError
from venom_proto.files import FileRefused, read_regular, write_atomic
from venom_schema.model import Descriptor

NO_CALL: Any = None
DESC: Descriptor = {
    "kind": "object",
    "fields": [
        {"name": "name", "summary": "n", "type": {"kind": "string"}, "required": False},
        {
            "name": "tags",
            "summary": "t",
            "type": {"kind": "array", "items": {"kind": "string"}},
            "required": False,
        },
    ],
}


def run(verb: Coroutine[Any, Any, dict[str, Any]]) -> dict[str, Any]:
    return asyncio.run(asyncio.wait_for(verb, 30))


@pytest.fixture
def cfg_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("TOOL_CONFIG", raising=False)
    d = tmp_path / "tool"
    d.mkdir()
    return d


# -- what can sit at a path -------------------------------------------------------------------


def _fifo(p: Path) -> None:
    os.mkfifo(p)


def _dev_zero(p: Path) -> None:
    os.symlink("/dev/zero", p)


def _symlink(p: Path) -> None:
    target = p.parent / "elsewhere.toml"
    target.write_text('name = "x"\n')
    os.symlink(target, p)


def _directory(p: Path) -> None:
    p.mkdir()


def _sparse(p: Path) -> None:
    with open(p, "wb") as f:
        f.truncate(1 << 30)  # 1 GiB of nothing: the 2 GB of RSS and 11 s stall


def _socket(p: Path) -> None:
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(p))
    s.close()


def _too_big(p: Path) -> None:
    p.write_bytes(b"#" * (MAX_CONFIG_BYTES + 1))


HOSTILE_FILES: dict[str, Callable[[Path], None]] = {
    "fifo": _fifo,
    "dev_zero_link": _dev_zero,
    "symlink": _symlink,
    "directory": _directory,
    "sparse_1gib": _sparse,
    "unix_socket": _socket,
    "over_the_cap": _too_big,
}


@pytest.mark.parametrize("kind", sorted(HOSTILE_FILES))
def test_read_regular_refuses_everything_but_a_small_regular_file(
    tmp_path: Path, kind: str
) -> None:
    path = tmp_path / "f"
    HOSTILE_FILES[kind](path)
    start = time.monotonic()
    with pytest.raises(FileRefused):
        read_regular(path, MAX_CONFIG_BYTES)
    assert time.monotonic() - start < 5, "the refusal must not wait for the file"


def test_read_regular_reads_up_to_the_limit_and_not_past_it(tmp_path: Path) -> None:
    path = tmp_path / "f"
    assert read_regular(path, 10) is None
    path.write_bytes(b"x" * 10)
    assert read_regular(path, 10) == b"x" * 10
    path.write_bytes(b"x" * 11)
    with pytest.raises(FileRefused, match="11 bytes; the limit is 10"):
        read_regular(path, 10)


@pytest.mark.parametrize("kind", sorted(HOSTILE_FILES))
def test_config_verbs_answer_a_hostile_config_file_with_specified_errors(
    cfg_dir: Path, kind: str
) -> None:
    """config.check reports it, config.reload keeps the old configuration, config.set writes
    nothing, and start-up refuses: the classes rfcs/0001 §6 names, never ``internal``."""
    store = ConfigStore("tool", DESC)
    path = cfg_dir / "config.toml"
    HOSTILE_FILES[kind](path)
    report = run(store.check(NO_CALL, {}))
    assert (report["valid"], report["exit"]) == (False, 1)
    assert report["errors"][0]["key"] == ""
    assert str(path) in report["errors"][0]["message"]
    with pytest.raises(VenomError) as reload:
        run(store.reload(NO_CALL, {}))
    assert reload.value.code == "failed.config_invalid"
    with pytest.raises(VenomError) as set_:
        run(store.set(NO_CALL, {"key": "name", "value": "y"}))
    assert set_.value.code == "invalid_params.config"
    with pytest.raises(VenomError) as start:
        ConfigStore("tool", DESC)
    assert start.value.code == "failed.config_invalid"


def test_a_fifo_config_does_not_hold_the_event_loop(cfg_dir: Path) -> None:
    """The issue's freeze: config.check on a FIFO nobody writes to, with a ticker alongside."""
    store = ConfigStore("tool", DESC)
    os.mkfifo(cfg_dir / "config.toml")

    async def scenario() -> tuple[dict[str, Any], int]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.001)

        task = asyncio.create_task(ticker())
        report = await asyncio.wait_for(store.check(NO_CALL, {}), 10)
        await asyncio.sleep(0.01)
        task.cancel()
        return report, ticks

    report, ticks = asyncio.run(scenario())
    assert "FIFO" in report["errors"][0]["message"]
    assert ticks > 1


HOSTILE_TOML = {
    "deep_arrays": "name = " + "[" * 5000,
    "deep_closed_arrays": "tags = " + "[" * 3000 + "]" * 3000,
    "deep_inline_tables": "name = " + "{a = " * 3000,
    "long_header": "[" + ".".join(["a"] * 20000) + "]\n",
    "long_comment": "#" * 500_000 + "\nname = 5\n",
    "not_utf8": "name = '\xff'",
    "nul": "name = 'a\x00'",
}


@pytest.mark.parametrize("kind", sorted(HOSTILE_TOML))
def test_hostile_toml_content_is_reported_not_internal(cfg_dir: Path, kind: str) -> None:
    text = HOSTILE_TOML[kind]
    data = text.encode("latin-1") if kind == "not_utf8" else text.encode()
    (cfg_dir / "config.toml").write_bytes(data)
    with pytest.raises(VenomError) as info:
        ConfigStore("tool", DESC)
    assert info.value.code == "failed.config_invalid"
    store_dir = cfg_dir / "config.toml"
    store_dir.write_text("")
    store = ConfigStore("tool", DESC)
    store_dir.write_bytes(data)
    assert run(store.check(NO_CALL, {}))["valid"] is False


# -- hostile values ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "[" * 5000,  # the reported RecursionError
        "{" * 5000,
        '{"a":' * 5000,
        "[" * (MAX_VALUE_DEPTH + 1) + "]" * (MAX_VALUE_DEPTH + 1),  # valid JSON, too deep
        "x[" * 3000,
    ],
)
def test_deep_values_are_invalid_params_config(cfg_dir: Path, value: str) -> None:
    store = ConfigStore("tool", DESC)
    with pytest.raises(VenomError) as info:
        run(store.set(NO_CALL, {"key": "name", "value": value}))
    assert info.value.code == "invalid_params.config"
    assert "nests more than 64 levels" in info.value.message
    assert not (cfg_dir / "config.toml").exists()


@pytest.mark.parametrize(
    ("value", "stored"),
    [
        ('"' + "[" * 5000 + '"', "[" * 5000),  # quoted: a string of brackets
        ("[" * MAX_VALUE_DEPTH, "[" * MAX_VALUE_DEPTH),  # within the limit, not JSON: a string
        ("[" * 10 + "]" * 10, None),  # JSON nested arrays: a type error, not a depth error
    ],
)
def test_brackets_inside_strings_or_within_the_limit_are_read_as_the_rfc_says(
    cfg_dir: Path, value: str, stored: str | None
) -> None:
    store = ConfigStore("tool", DESC)
    if stored is None:
        with pytest.raises(VenomError, match="name") as info:
            run(store.set(NO_CALL, {"key": "name", "value": value}))
        assert info.value.code == "invalid_params.config"
        assert "levels deep" not in info.value.message
    else:
        run(store.set(NO_CALL, {"key": "name", "value": value}))
        assert tomllib.loads((cfg_dir / "config.toml").read_text())["name"] == stored


def test_a_value_making_the_file_too_big_writes_nothing(cfg_dir: Path) -> None:
    store = ConfigStore("tool", DESC)
    run(store.set(NO_CALL, {"key": "name", "value": "small"}))
    before = (cfg_dir / "config.toml").read_bytes()
    with pytest.raises(VenomError) as info:
        run(store.set(NO_CALL, {"key": "name", "value": "\x01" * (MAX_CONFIG_BYTES // 6 + 1)}))
    assert info.value.code == "invalid_params.config"
    assert "nothing was written" in info.value.message
    assert (cfg_dir / "config.toml").read_bytes() == before


# -- the TOML editor is linear ----------------------------------------------------------------


@pytest.mark.parametrize("filler", ["#", '"', "'", "=", "[", " ", "\\", "# '\""])
def test_editing_costs_a_fixed_number_of_parses_whatever_a_line_holds(
    cfg_dir: Path, monkeypatch: pytest.MonkeyPatch, filler: str
) -> None:
    """A stored value of 24,000 ``#`` made every later config.set re-parse its line once per
    ``#`` (18 s). Count the parses: they must not grow with the line."""
    counts = []
    real = tomllib.loads
    for n in (100, 24_000):
        store = ConfigStore("tool", DESC)
        run(store.set(NO_CALL, {"key": "name", "value": json.dumps(filler * n)}))
        calls = 0

        def counting(text: str) -> dict[str, Any]:
            nonlocal calls
            calls += 1
            return real(text)

        monkeypatch.setattr(tomllib, "loads", counting)
        start = time.process_time()
        run(store.set(NO_CALL, {"key": "tags", "value": '["x"]'}))
        cpu = time.process_time() - start
        monkeypatch.setattr(tomllib, "loads", real)
        counts.append(calls)
        assert tomllib.loads((cfg_dir / "config.toml").read_text()) == {
            "name": filler * n,
            "tags": ["x"],
        }
        (cfg_dir / "config.toml").unlink()
    assert counts[0] == counts[1], counts
    assert cpu < 2.0


def test_comments_survive_next_to_hostile_values(cfg_dir: Path) -> None:
    path = cfg_dir / "config.toml"
    path.write_text('# top\nname = "a # not a comment"  # real comment\n')
    store = ConfigStore("tool", DESC)
    run(store.set(NO_CALL, {"key": "name", "value": "b#c"}))
    assert path.read_text() == '# top\nname = "b#c"  # real comment\n'


# -- temporary files --------------------------------------------------------------------------


@pytest.fixture
def stale(cfg_dir: Path) -> Iterator[dict[str, Path]]:
    """Temporary files a killed writer leaves, and look-alikes that must stay."""
    old = time.time() - 3600
    made = {
        "ours": cfg_dir / ".config.0123456789abcdef.tmp",
        "legacy_old": cfg_dir / ".config.ab_cd123.tmp",
        "legacy_new": cfg_dir / ".config.zz_cd123.tmp",
        "locked": cfg_dir / ".config.fedcba9876543210.tmp",
        "user_file": cfg_dir / ".config.toml.bak",
        "link": cfg_dir / ".config.1111111111111111.tmp",
    }
    for name, path in made.items():
        if name == "link":
            os.symlink(cfg_dir / "nowhere", path)
        else:
            path.write_bytes(b"half a config")
    os.utime(made["legacy_old"], (old, old))
    fd = os.open(made["locked"], os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a live writer
    try:
        yield made
    finally:
        os.close(fd)


def _left(stale: dict[str, Path]) -> set[str]:
    return {name for name, path in stale.items() if os.path.lexists(path)}


def test_start_up_removes_what_killed_writers_left(stale: dict[str, Path]) -> None:
    ConfigStore("tool", DESC)
    assert _left(stale) == {"legacy_new", "locked", "user_file", "link"}


def test_the_next_write_removes_them_too(cfg_dir: Path, stale: dict[str, Path]) -> None:
    store = ConfigStore("tool", DESC)
    stale["ours"].write_bytes(b"left by another daemon sharing the file, since killed")
    run(store.set(NO_CALL, {"key": "name", "value": "v"}))
    assert _left(stale) == {"legacy_new", "locked", "user_file", "link"}


def test_writes_leave_no_temporary_file_and_mode_0600(cfg_dir: Path) -> None:
    store = ConfigStore("tool", DESC)
    for i in range(20):
        run(store.set(NO_CALL, {"key": "name", "value": f"v{i}"}))
    assert sorted(p.name for p in cfg_dir.iterdir()) == ["config.toml"]
    assert stat.S_IMODE(os.stat(cfg_dir / "config.toml").st_mode) == 0o600


# -- skill.install ----------------------------------------------------------------------------


@pytest.fixture
def skill() -> SkillVerbs:
    return SkillVerbs({"format": 1, "tool": "t", "summary": "s", "verbs": []})


def install(skill: SkillVerbs, directory: str, force: bool = False) -> dict[str, Any]:
    return run(skill.install(NO_CALL, {"dir": directory, "force": force}))


@pytest.mark.parametrize("kind", ["fifo", "dev_zero_link", "symlink", "sparse_1gib", "unix_socket"])
def test_skill_install_over_anything_else_is_a_conflict_and_force_replaces_it(
    tmp_path: Path, skill: SkillVerbs, kind: str
) -> None:
    target = tmp_path / "SKILL.md"
    HOSTILE_FILES[kind](target)
    with pytest.raises(VenomError) as info:
        install(skill, str(tmp_path))
    assert info.value.code == "conflict.skill_exists"
    assert install(skill, str(tmp_path), force=True) == {"path": str(target), "written": True}
    assert not target.is_symlink()
    assert target.read_text() == skill.content
    if kind == "symlink":
        assert (tmp_path / "elsewhere.toml").read_text() == 'name = "x"\n'  # not written through
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".SKILL.")) == []


def test_skill_install_over_a_directory_is_failed_write_with_force(
    tmp_path: Path, skill: SkillVerbs
) -> None:
    (tmp_path / "SKILL.md").mkdir()
    with pytest.raises(VenomError) as info:
        install(skill, str(tmp_path))
    assert info.value.code == "conflict.skill_exists"
    with pytest.raises(VenomError) as forced:
        install(skill, str(tmp_path), force=True)
    assert forced.value.code == "failed.write"


@pytest.mark.parametrize("directory", ["/tmp/a\0b", "/\0", "/tmp/x/\0/y"])
def test_skill_install_dir_with_nul_is_invalid_params_path(
    skill: SkillVerbs, directory: str
) -> None:
    with pytest.raises(VenomError) as info:
        install(skill, directory)
    assert (info.value.code, info.value.data) == ("invalid_params.path", {"param": "dir"})


@pytest.mark.parametrize("directory", ["/" + "a" * 5000, "/dev/null/sub", "/proc/self/nope"])
def test_skill_install_unusable_dirs_are_failed_write(skill: SkillVerbs, directory: str) -> None:
    with pytest.raises(VenomError) as info:
        install(skill, directory)
    assert info.value.code == "failed.write"


def test_a_cancelled_config_set_still_applies_what_it_wrote(
    cfg_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server cancels a call with Task.cancel(); a write already under way completes and
    the daemon applies it, so the file and the effective configuration never disagree."""
    store = ConfigStore("tool", DESC)
    started = threading.Event()
    real = write_atomic

    def slow(*args: Any, **kwargs: Any) -> None:
        started.set()
        time.sleep(0.2)
        real(*args, **kwargs)

    monkeypatch.setattr("venom_gen.daemon.config.write_atomic", slow)

    async def scenario() -> None:
        task = asyncio.create_task(store.set(NO_CALL, {"key": "name", "value": "late"}))
        while not started.is_set():
            await asyncio.sleep(0.005)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        for _ in range(200):
            if store.effective.get("name") == "late":
                return
            await asyncio.sleep(0.01)

    asyncio.run(scenario())
    assert tomllib.loads((cfg_dir / "config.toml").read_text()) == {"name": "late"}
    assert store.effective["name"] == "late"
