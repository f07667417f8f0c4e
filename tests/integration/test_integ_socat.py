"""The socket through socat and jq, as docs/wire-protocol.md shows it (RFC-0002 §1)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from integration_kit import Daemon

pytestmark = pytest.mark.skipif(
    shutil.which("socat") is None or shutil.which("jq") is None, reason="needs socat and jq"
)


def shell(d: Daemon, script: str) -> str:
    out = subprocess.run(
        ["bash", "-c", script],
        env={**d.env, "SOCK": d.socket},
        capture_output=True,
        text=True,
        timeout=20,
        check=True,
    )
    return out.stdout


@pytest.mark.covers("socket", "hello", "echo")
def test_overview_session(daemon: Daemon) -> None:
    """RFC-0002 §1: the printf | socat session, line for line."""
    out = shell(
        daemon,
        """printf '%s\\n' \\
'{"id":1,"verb":"hello","params":{"proto":[1],"client":{"name":"socat","version":"0"}}}' \\
'{"id":2,"verb":"echo","params":{"text":"hi"}}' \\
'{"id":3,"verb":"echo","params":{}}' \\
| socat -t 5 - UNIX-CONNECT:"$SOCK"
""",
    ).splitlines()
    hello = json.loads(out[0])
    assert hello["ok"]["server"]["name"] == "venom-echo"
    assert hello["ok"]["caps"] == ["cancel"]
    assert out[1:] == [
        '{"id":2,"ok":{"text":"hi"}}',
        '{"id":3,"error":{"code":"invalid_params.missing","message":"missing required param '
        '\'text\'","data":{"param":"text"}}}',
    ]


@pytest.mark.covers("socket", "echo")
def test_pipelined_requests_matched_by_id_with_jq(daemon: Daemon) -> None:
    """docs/wire-protocol.md: pipelined requests, replies matched by id with jq."""
    out = shell(
        daemon,
        """for i in 1 2 3; do
  printf '{"id":%d,"verb":"echo","params":{"text":"t%d"}}\\n' "$i" "$i"
done | socat -t 5 - UNIX-CONNECT:"$SOCK" | jq -c 'select(.ok) | {id, text: .ok.text}' | sort
""",
    )
    assert out.splitlines() == [
        '{"id":1,"text":"t1"}',
        '{"id":2,"text":"t2"}',
        '{"id":3,"text":"t3"}',
    ]


@pytest.mark.covers("socket", "events", "cancel")
def test_stream_and_cancel_recipe(daemon: Daemon) -> None:
    """docs/wire-protocol.md: a stream, then cancel; cancelled then null, in that order."""
    out = shell(
        daemon,
        """{ echo '{"id":0,"verb":"hello","params":{"proto":[1],"caps":["cancel"]}}'
  echo '{"id":7,"verb":"echo.repeat","params":{"text":"x","count":100,"interval_ms":100}}'
  sleep 0.35
  echo '{"id":8,"verb":"cancel","params":{"id":7}}'
  sleep 0.3; } | socat -t 5 - UNIX-CONNECT:"$SOCK"
""",
    ).splitlines()
    tail = [json.loads(x) for x in out if '"item"' not in x][1:]
    assert tail == [
        {"id": 7, "error": {"code": "cancelled", "message": "cancelled by client"}},
        {"id": 8, "ok": None},
    ]
