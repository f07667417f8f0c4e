"""The token store's file I/O: off the event loop, serialized, and safe against what sits at
the path (rfcs/0006 §"Token store I/O", rfcs/0005 §7.3)."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from venom_gen.daemon.tokens import TokenVerbs
from venom_gen.token_store import MAX_STORE_BYTES, TEMP_PREFIX, check_token
from venom_proto import VenomError

NO_CALL: Any = None


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    d = tmp_path / "tool"
    d.mkdir(mode=0o700)
    return d


def issue(name: str) -> dict[str, Any]:
    return {"name": name, "grants": ["read"], "expires_in": None}


def stored_names(path: Path) -> list[str]:
    return sorted(t["name"] for t in json.loads(path.read_bytes())["tokens"])


def test_a_slow_store_write_does_not_hold_the_event_loop(
    state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the store's fsync is held, the loop keeps ticking and other verbs answer (from
    the snapshot: the change is in it once written)."""
    verbs = TokenVerbs("tool")
    release = threading.Event()
    entered = threading.Event()
    real_fsync = os.fsync

    def slow_fsync(fd: int) -> None:
        entered.set()
        release.wait(10)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", slow_fsync)  # files.py calls os.fsync

    async def scenario() -> tuple[int, dict[str, Any], dict[str, Any]]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.001)

        tick_task = asyncio.create_task(ticker())
        pending = asyncio.create_task(verbs.issue(NO_CALL, issue("ci")))
        while not entered.is_set():
            await asyncio.sleep(0.001)
        before = ticks
        await asyncio.sleep(0.05)
        during = ticks - before
        listed = {"tokens": [e.describe() for e in verbs.store]}  # the loop is free to read
        release.set()
        result = await asyncio.wait_for(pending, 10)
        tick_task.cancel()
        return during, listed, result

    during, listed, result = asyncio.run(scenario())
    assert during > 5
    assert listed == {"tokens": []}  # not in the snapshot until it is in the file
    assert result["token"].startswith("vt1_")
    assert stored_names(state / "tokens.json") == ["ci"]


def test_parallel_issues_and_revokes_are_all_stored(state: Path) -> None:
    verbs = TokenVerbs("tool")
    n = 40

    async def scenario() -> None:
        await asyncio.gather(*(verbs.issue(NO_CALL, issue(f"t{i}")) for i in range(n)))
        await asyncio.gather(
            *(verbs.revoke(NO_CALL, {"name": f"t{i}"}) for i in range(0, n, 2)),
            *(verbs.issue(NO_CALL, issue(f"u{i}")) for i in range(n)),
        )

    asyncio.run(asyncio.wait_for(scenario(), 60))
    document = json.loads((state / "tokens.json").read_bytes())
    by_name = {t["name"]: t for t in document["tokens"]}
    assert sorted(by_name) == sorted([f"t{i}" for i in range(n)] + [f"u{i}" for i in range(n)])
    assert all((by_name[f"t{i}"]["revoked"] is not None) == (i % 2 == 0) for i in range(n))
    st = os.stat(state / "tokens.json")
    assert stat.S_IMODE(st.st_mode) == 0o600
    # no temporary file left; the lock file stays (removing it would race its next taker)
    assert sorted(p.name for p in state.iterdir()) == ["tokens.json", "tokens.lock"]


def _fifo(p: Path) -> None:
    os.mkfifo(p, 0o600)


def _symlink(p: Path) -> None:
    target = p.parent / "elsewhere.json"
    target.write_text('{"version": 1, "tokens": []}')
    os.chmod(target, 0o600)
    p.symlink_to(target)


def _huge(p: Path) -> None:
    with open(p, "wb") as f:
        f.truncate(64 * 1024**3)  # sparse: 64 GiB claimed, nothing on disk
    os.chmod(p, 0o600)


@pytest.mark.parametrize("make", [_fifo, _symlink, _huge], ids=["fifo", "symlink", "huge"])
def test_a_hostile_store_is_ignored_at_once_and_replaced_by_the_next_issue(
    state: Path, make: Any
) -> None:
    path = state / "tokens.json"
    make(path)
    started = time.monotonic()
    verbs = TokenVerbs("tool")
    assert time.monotonic() - started < 2
    assert verbs.store.problem is not None
    assert check_token("vt1_" + "0" * 12 + "_" + "0" * 64, str(path)) == "unknown"
    assert asyncio.run(verbs.list(NO_CALL, {})) == {"tokens": []}
    asyncio.run(asyncio.wait_for(verbs.issue(NO_CALL, issue("ci")), 10))
    st = os.lstat(path)
    assert stat.S_ISREG(st.st_mode)
    assert stat.S_IMODE(st.st_mode) == 0o600
    assert stored_names(path) == ["ci"]
    if make is _symlink:  # the rename replaced the link; its target was not written through
        assert json.loads((state / "elsewhere.json").read_text())["tokens"] == []


def test_an_unwritable_store_path_is_failed_write_and_nothing_is_kept(state: Path) -> None:
    (state / "tokens.json").mkdir()
    verbs = TokenVerbs("tool")
    with pytest.raises(VenomError) as err:
        asyncio.run(asyncio.wait_for(verbs.issue(NO_CALL, issue("ci")), 10))
    assert err.value.code == "failed.write"
    assert (err.value.data or {})["path"] == str(state / "tokens.json")
    assert asyncio.run(verbs.list(NO_CALL, {})) == {"tokens": []}
    assert sorted(p.name for p in state.iterdir()) == ["tokens.json", "tokens.lock"]


def test_start_up_removes_temporary_files_killed_writers_left(state: Path) -> None:
    stale = state / f"{TEMP_PREFIX}{'a' * 16}.tmp"
    stale.write_bytes(b"partial")
    keep = state / "notes.tmp"
    keep.write_bytes(b"not ours")
    TokenVerbs("tool")
    assert not stale.exists()
    assert keep.exists()


def test_the_size_cap_is_the_documented_one(state: Path) -> None:
    path = state / "tokens.json"
    path.write_bytes(b" " * (MAX_STORE_BYTES + 1))
    os.chmod(path, 0o600)
    assert "limit" in (TokenVerbs("tool").store.problem or "")
