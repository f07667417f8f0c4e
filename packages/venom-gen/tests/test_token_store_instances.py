"""One token store, many instances (rfcs/0005 §7.3, issue 27): the file is the single source
of truth; a change is a read-modify-write under its lock; a crash mid-write leaves it valid."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from venom_gen.token_store import TokenStore, check_token

WAIT = 60.0


@pytest.fixture
def path(tmp_path: Path) -> str:
    return str(tmp_path / "state" / "t" / "tokens.json")


def _stored(path: str) -> dict[str, dict[str, object]]:
    with open(path, "rb") as f:
        return {t["name"]: t for t in json.loads(f.read())["tokens"]}


def test_a_stale_instance_neither_resurrects_nor_drops(path: str) -> None:
    """The finding: an instance that loaded a token active wrote it back after another
    instance revoked it, and dropped what the other issued meanwhile."""
    first = TokenStore(path)
    _, text = first.issue("leaked", ["write"])
    stale = TokenStore(path)  # started while "leaked" was active
    first.revoke("leaked")
    first.issue("other", ["read"])
    stale.issue("mine", ["read"])  # its write merges into the file as it is now
    stored = _stored(path)
    assert stored["leaked"]["revoked"] is not None
    assert set(stored) == {"leaked", "other", "mine"}
    assert check_token(text, path) == "revoked"
    assert "read" not in stale.grants_for(text)  # its snapshot took the write's result


def test_a_refresh_sees_another_instance_s_revocation(path: str) -> None:
    first = TokenStore(path)
    _, text = first.issue("t", ["write"])
    second = TokenStore(path)
    held = second.grants_for(text)
    assert "write" in held
    first.revoke("t")
    assert second.refresh() is True
    assert "write" not in held
    assert getattr(held, "reason", None) == "revoked"
    assert second.refresh() is False  # unchanged bytes: nothing re-parsed


def test_a_revoke_of_a_token_issued_elsewhere_needs_no_refresh(path: str) -> None:
    first = TokenStore(path)
    second = TokenStore(path)
    first.issue("elsewhere", ["read"])
    second.revoke("elsewhere")  # read under the lock, so found
    assert _stored(path)["elsewhere"]["revoked"] is not None


_STORM = textwrap.dedent(
    """
    import sys
    from venom_gen.token_store import TokenStore
    path, me, count, peers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    store = TokenStore(path)
    for j in range(count):
        store.issue(f"p{me}-{j}", ["read"])
    # then revoke the even tokens of the next instance, once they exist
    target = (me + 1) % peers
    for j in range(0, count, 2):
        while True:
            store.refresh()
            if any(e.name == f"p{target}-{j}" for e in store):
                break
        store.revoke(f"p{target}-{j}")
    """
)


@pytest.mark.parametrize("instances", [2, 5])
def test_issue_and_revoke_storms_across_processes_lose_nothing(
    path: str, tmp_path: Path, instances: int
) -> None:
    script = tmp_path / "storm.py"
    script.write_text(_STORM)
    count = 12
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), path, str(i), str(count), str(instances)],
            stderr=subprocess.PIPE,
        )
        for i in range(instances)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=WAIT)
        assert proc.returncode == 0, err.decode()
    stored = _stored(path)
    assert len(stored) == instances * count
    for i in range(instances):
        for j in range(count):
            assert (stored[f"p{i}-{j}"]["revoked"] is not None) == (j % 2 == 0)
    assert sorted(os.listdir(os.path.dirname(path))) == ["tokens.json", "tokens.lock"]


_CRASH = textwrap.dedent(
    """
    import os, sys, time
    from venom_gen.token_store import TokenStore
    path, ready = sys.argv[1], sys.argv[2]
    store = TokenStore(path)
    store.issue("before", ["read"])
    real = os.fsync
    def stuck(fd):
        real(fd)
        open(ready, "w").close()
        time.sleep(60)  # killed here: the new store is written, not yet renamed
    os.fsync = stuck
    store.issue("during", ["read"])
    """
)


def test_a_writer_killed_mid_write_leaves_a_valid_store_and_no_lock(
    path: str, tmp_path: Path
) -> None:
    script = tmp_path / "crash.py"
    script.write_text(_CRASH)
    ready = tmp_path / "ready"
    proc = subprocess.Popen([sys.executable, str(script), path, str(ready)])
    try:
        for _ in range(int(WAIT / 0.01)):
            if ready.exists() or proc.poll() is not None:
                break
            time.sleep(0.01)
        assert ready.exists(), "the writer never reached its fsync"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=WAIT)
    assert set(_stored(path)) == {"before"}  # the old file, whole
    survivor = TokenStore(path)
    assert survivor.problem is None
    survivor.issue("after", ["read"])  # the lock died with its holder
    assert set(_stored(path)) == {"before", "after"}
    survivor.remove_stale()
    assert sorted(os.listdir(os.path.dirname(path))) == ["tokens.json", "tokens.lock"]
