"""Checks of this toolkit's shared bundles (rfcs/0001, rfcs/0003, rfcs/0005).

They hold a daemon to the agent-contract and events bundles' own designs, so each runs only when
the model declares the bundle; a daemon built otherwise reports them as not applicable.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from venom_mcp.conformance._kit import Daemon, exchange, hello_line


@pytest.mark.bundles("agent")
@pytest.mark.rfc("RFC-0002 §7.2")
def test_denied_exit_4_for_a_caller_without_the_owner_grant(daemon: Daemon) -> None:
    """RFC-0002 §7.2 / rfcs/0005: a caller without the owner token's write grant gets denied (4)."""
    alias_dir = Path(daemon.root) / "alias"
    alias_dir.mkdir(mode=0o700, exist_ok=True)
    alias = alias_dir / "x.sock"
    if not alias.exists():
        os.symlink(daemon.socket, alias)  # same daemon, but no owner token beside this path
    r = daemon.cli("config", "set", "--key", "log_level", "--value", "debug", "--json",
                   "--socket", str(alias))  # fmt: skip
    assert r.returncode == 4
    assert json.loads(r.stdout)["error"]["code"] == "denied.grant"


BUNDLE_PARAMS = [
    pytest.param(
        b'{"id":8,"verb":"config.get","params":{"key":1}}', "invalid_params.type",
        marks=pytest.mark.bundles("agent"), id="config.get-type",
    ),
    pytest.param(
        b'{"id":8,"verb":"config.get","params":{"key":"a","x":1}}', "invalid_params.unknown",
        marks=pytest.mark.bundles("agent"), id="config.get-unknown",
    ),
    pytest.param(
        b'{"id":8,"verb":"events","params":{"cursor":-1}}', "invalid_params.range",
        marks=pytest.mark.bundles("events"), id="events-range",
    ),
]  # fmt: skip


@pytest.mark.rfc("RFC-0002 §4.6")
@pytest.mark.parametrize(("line", "code"), BUNDLE_PARAMS)
def test_bundle_params_are_validated(daemon: Daemon, line: bytes, code: str) -> None:
    """RFC-0002 §4.6: the bundles' declared params are validated; the connection stays usable."""
    out = [json.loads(x) for x in exchange(daemon, line, b'{"id":"after","verb":"ping"}')]
    errors = [r for r in out if "error" in r]
    assert [(e["id"], e["error"]["code"]) for e in errors] == [(8, code)]
    assert {"id": "after", "ok": {}} in out


@pytest.mark.bundles("events")
@pytest.mark.rfc("RFC-0002 §4.4")
def test_endless_subscription_ends_with_cancelled(daemon: Daemon) -> None:
    """RFC-0002 §4.4 / rfcs/0003: a following subscription ends only when cancelled."""
    with daemon.connect() as s:
        s.send_lines(
            hello_line(caps=["cancel"]),
            b'{"id":"sub","verb":"events","params":{"types":["no.such.type"],"follow":true}}',
        )
        s.lines(1)
        time.sleep(0.1)
        s.send_lines(b'{"id":"c","verb":"cancel","params":{"id":"sub"}}')
        replies = s.until_id("c")
    assert [(r["id"], r.get("error", {}).get("code")) for r in replies] == [
        ("sub", "cancelled"),
        ("c", None),
    ]
    assert replies[-1] == {"id": "c", "ok": None}
