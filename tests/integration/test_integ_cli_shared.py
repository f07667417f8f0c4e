"""The shared verbs through the generated CLI: events, skill, doctor (rfcs/0001, 0003)."""

from __future__ import annotations

import json
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest
from integration_kit import TIMEOUT, Daemon
from integration_kit import json_line as _json
from integration_kit import ndjson as _ndjson


@pytest.mark.covers("cli", "events", "echo")
def test_events_replay_with_cursor_and_no_follow(daemon: Daemon) -> None:
    """rfcs/0003 §1-§4: cursor replay, type globs, follow=false ends; NDJSON without the ok."""
    assert daemon.cli("echo", "--text", "cli-events-marker").returncode == 0
    r = daemon.cli(
        "events", "--cursor", "0", "--types", '["echo.echo*"]', "--follow=false", "--json"
    )
    assert r.returncode == 0
    items = _ndjson(r.stdout)
    assert items, "the replay must hold the echo just made"
    assert all(item["type"] == "echo.echoed" for item in items)
    assert [i["seq"] for i in items] == sorted({i["seq"] for i in items})
    assert {"text": "cli-events-marker"} in [json.loads(i["data"]) for i in items]
    assert set(items[-1]) == {"seq", "type", "time", "data"}


@pytest.mark.covers("cli", "events")
def test_events_without_cursor_replays_nothing(daemon: Daemon) -> None:
    """rfcs/0003 §1: without cursor only later events are sent; follow=false then ends."""
    r = daemon.cli("events", "--follow=false", "--json")
    assert (r.returncode, r.stdout) == (0, "")


@pytest.mark.covers("cli", "events")
def test_events_bad_glob(daemon: Daemon) -> None:
    """rfcs/0003 §1: a glob outside [a-z0-9_.*] is invalid_params.pattern naming types.N."""
    r = daemon.cli("events", "--types", '["ok","BAD"]', "--follow=false", "--json")
    assert r.returncode == 2
    assert _json(r.stdout)["error"]["code"] == "invalid_params.pattern"
    assert _json(r.stdout)["error"]["data"] == {"param": "types.1"}


@pytest.mark.covers("cli", "skill")
def test_skill_human_prints_only_content(daemon: Daemon) -> None:
    """RFC-0004 §6: skill --json is {"content": ...}; human output prints only content."""
    as_json = daemon.cli("skill", "--json")
    human = daemon.cli("skill")
    assert as_json.returncode == human.returncode == 0
    payload = _json(as_json.stdout)
    assert list(payload) == ["content"]
    assert payload["content"].startswith("---\nname: venom-echo\n")
    assert human.stdout == payload["content"]


@pytest.mark.covers("cli", "skill.install", "skill")
def test_skill_install_idempotent_and_conflict(daemon: Daemon, tmp_path: Path) -> None:
    """rfcs/0001 §4: writes SKILL.md, second call written=false, other bytes need --force."""
    content = _json(daemon.cli("skill", "--json").stdout)["content"]
    target = tmp_path / "skills" / "echo"
    path = str(target / "SKILL.md")
    first = daemon.cli("skill", "install", "--dir", str(target), "--json")
    assert (first.returncode, _json(first.stdout)) == (0, {"path": path, "written": True})
    assert (target / "SKILL.md").read_text(encoding="utf-8") == content
    second = daemon.cli("skill.install", "--dir", str(target), "--json")
    assert (second.returncode, _json(second.stdout)) == (0, {"path": path, "written": False})
    (target / "SKILL.md").write_text("mine\n", encoding="utf-8")
    clash = daemon.cli("skill", "install", "--dir", str(target), "--json")
    assert clash.returncode == 5
    assert _json(clash.stdout)["error"]["code"] == "conflict.skill_exists"
    assert (target / "SKILL.md").read_text(encoding="utf-8") == "mine\n"
    forced = daemon.cli("skill", "install", "--dir", str(target), "--force=true", "--json")
    assert (forced.returncode, _json(forced.stdout)) == (0, {"path": path, "written": True})
    assert (target / "SKILL.md").read_text(encoding="utf-8") == content


@pytest.mark.covers("cli", "skill.install")
def test_skill_install_relative_dir(daemon: Daemon) -> None:
    """rfcs/0001 §4: a relative dir is invalid_params.relative_path, exit 2."""
    r = daemon.cli("skill", "install", "--dir", "relative/dir", "--json")
    assert r.returncode == 2
    assert _json(r.stdout)["error"]["code"] == "invalid_params.relative_path"


@pytest.mark.covers("cli", "doctor")
def test_doctor_healthy_exits_0(daemon: Daemon) -> None:
    """rfcs/0001 §5: no failed check means exit 0 and exit field 0."""
    r = daemon.cli("doctor", "--json")
    assert r.returncode == 0
    report = _json(r.stdout)
    assert (report["status"], report["exit"]) == ("ok", 0)
    assert all(c["status"] == "ok" for c in report["checks"])
    assert {"runtime_dir", "daemon", "schema"} <= {c["name"] for c in report["checks"]}


@pytest.mark.covers("cli", "doctor")
def test_doctor_client_side_check_names(daemon: Daemon) -> None:
    """rfcs/0001 §5: the CLI MUST add runtime_dir, socket_path, daemon and schema checks."""
    r = daemon.cli("doctor", "--json")
    checks = {c["name"]: c for c in _json(r.stdout)["checks"]}
    assert {"runtime_dir", "socket_path", "daemon", "schema"} <= set(checks)
    assert checks["daemon"]["status"] == "ok"
    assert checks["schema"]["status"] == "ok"


@pytest.mark.covers("cli", "doctor")
def test_doctor_with_daemon_down_reports_and_exits_1(own_daemon: Daemon) -> None:
    """rfcs/0001 §5: unreachable daemon: the CLI's own checks only, exit 1 instead of 6."""
    own_daemon.stop()
    r = own_daemon.cli("doctor", "--json")
    assert r.returncode == 1
    report = _json(r.stdout)
    daemon_check = next(c for c in report["checks"] if c["name"] == "daemon")
    assert daemon_check["status"] == "fail"
    assert "serve" in daemon_check["hint"]
    assert report["status"] == "fail"
    assert report["exit"] == 1


@pytest.mark.covers("cli", "ping")
def test_daemon_down_is_not_running_exit_6(own_daemon: Daemon) -> None:
    """RFC-0002 §7.3: no daemon is unavailable.not_running with data.socket, exit 6."""
    own_daemon.stop()
    r = own_daemon.cli("ping", "--json")
    assert r.returncode == 6
    err = _json(r.stdout)["error"]
    assert (err["code"], err["data"]) == ("unavailable.not_running", {"socket": own_daemon.socket})
    human = own_daemon.cli("doctor")
    assert human.returncode == 1
    assert "serve" in human.stdout + human.stderr


@pytest.mark.covers("cli", "events", "echo")
def test_events_follow_until_ctrl_c(daemon: Daemon) -> None:
    """rfcs/0003 §4; RFC-0002 §7.3: a live NDJSON item, then Ctrl-C ends with cancelled, exit 8."""
    proc = subprocess.Popen(
        [daemon.command[0], "events", "--types", '["echo.echoed"]', "--follow=true", "--json"],
        env=daemon.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + TIMEOUT
        line = b""
        # Echo until the subscription (whose start we cannot observe) sees one.
        while not line and time.monotonic() < deadline:
            assert daemon.cli("echo", "--text", "follow-me").returncode == 0
            if select.select([proc.stdout], [], [], 0.2)[0]:
                line = proc.stdout.readline()
        item = json.loads(line)
        assert (item["type"], json.loads(item["data"])) == ("echo.echoed", {"text": "follow-me"})
        proc.send_signal(signal.SIGINT)
        out, _err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(TIMEOUT)
    assert proc.returncode == 8
    last = json.loads(out.decode().splitlines()[-1])
    assert last["error"]["code"] == "cancelled"
