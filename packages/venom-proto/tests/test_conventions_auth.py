"""The one rule for a client's ``hello.auth`` (rfcs/0005 §3, rfcs/0006 §4), shared by the CLI,
the typed clients, doctor and the MCP adapter."""

from __future__ import annotations

import os
from pathlib import Path

from venom_proto.conventions import client_auth, env_token_auth
from venom_proto.owner_token import token_path

TOKEN = "ab" * 32


def _local_socket(tmp_path: Path) -> str:
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    sock = str(run / "venom-echo.sock")
    with open(os.open(token_path(sock), os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write(TOKEN + "\n")
    return sock


def test_the_environment_token_wins_over_the_owner_token(tmp_path: Path) -> None:
    sock = _local_socket(tmp_path)
    env = {"VENOM_ECHO_TOKEN": " issued \n"}
    assert client_auth("venom-echo", sock, env) == {"token": "issued"}


def test_a_local_socket_falls_back_to_the_owner_token(tmp_path: Path) -> None:
    assert client_auth("venom-echo", _local_socket(tmp_path), {}) == {"token": TOKEN}


def test_a_local_socket_without_a_token_file_is_unknown(tmp_path: Path) -> None:
    assert client_auth("venom-echo", str(tmp_path / "venom-echo.sock"), {}) is None


def test_a_remote_socket_never_reads_a_local_file() -> None:
    url = "ssh://host/run/venom-echo.sock"
    assert client_auth("venom-echo", url, {}) is None
    assert client_auth("venom-echo", url, {"VENOM_ECHO_TOKEN": "t"}) == {"token": "t"}


def test_a_blank_variable_counts_as_unset() -> None:
    assert env_token_auth("venom-echo", {"VENOM_ECHO_TOKEN": "  "}) is None
