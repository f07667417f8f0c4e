"""``denied.grant`` says where the grants came from (rfcs/0005 §3,
rfcs/0004-schema-decisions.md D-S56): the peer default, a token the daemon does not know, an
issued token, and ``$VENOM_ECHO_TOKEN`` by name, through the real CLI and daemon."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest

from venom_gen.testing import DaemonProcess
from venom_proto.owner_token import token_path


@pytest.fixture(scope="module")
def daemon() -> Iterator[DaemonProcess]:
    with DaemonProcess("venom_echo.product:PRODUCT") as running:
        yield running


def _refusal(daemon: DaemonProcess, *args: str, env: dict[str, str] | None = None) -> Any:
    run = daemon.cli(*args, "--json", env=env)
    assert run.returncode == 4, run.stderr
    error = json.loads(run.stdout)["error"]
    assert error["code"] == "denied.grant"
    return error


def test_a_token_from_the_variable_is_named(daemon: DaemonProcess) -> None:
    """The issue's case: ``export VENOM_ECHO_TOKEN=...`` then a local admin call."""
    error = _refusal(daemon, "token.list", env={"VENOM_ECHO_TOKEN": "f" * 64})
    assert error["data"]["identity"] == "unrecognized"
    assert error["data"]["token_variable"] == "VENOM_ECHO_TOKEN"
    assert "VENOM_ECHO_TOKEN" in error["message"]
    assert "unset VENOM_ECHO_TOKEN" in error["message"]
    # Without --json: the same words on stderr.
    run = daemon.cli("token.list", env={"VENOM_ECHO_TOKEN": "f" * 64})
    assert "the token came from VENOM_ECHO_TOKEN" in run.stderr


def test_an_issued_token_is_named_as_the_source(daemon: DaemonProcess) -> None:
    issued = daemon.cli_json("token.issue", "--name", "reader", "--grants", '["read"]', "--json")
    error = _refusal(daemon, "config.set", "--key", "greeting", "--value", '"x"',
                     env={"VENOM_ECHO_TOKEN": issued["token"]})  # fmt: skip
    assert error["data"]["identity"] == "token"
    assert "issued token" in error["message"]
    assert error["data"]["token_variable"] == "VENOM_ECHO_TOKEN"


def test_no_token_is_the_peer_default(daemon: DaemonProcess) -> None:
    path = token_path(daemon.socket)
    with open(path, encoding="ascii") as f:
        saved = f.read()
    os.unlink(path)  # the CLI finds no owner token to present
    try:
        error = _refusal(daemon, "config.set", "--key", "greeting", "--value", '"x"')
    finally:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(saved)
    assert error["data"]["identity"] == "peer"
    assert "token_variable" not in error["data"]
    assert "no token was presented" in error["message"]
    assert "peer default" in error["message"]
