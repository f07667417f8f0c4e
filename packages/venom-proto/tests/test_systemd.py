"""`venom_proto.systemd`: the LISTEN_* parsing, sd_notify datagrams, journal log lines."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import tempfile
from collections.abc import Iterator

import pytest

from venom_proto import VenomError
from venom_proto.systemd import JournalFormatter, journal_stream_matches, listen_fds, notify


def test_no_activation_without_listen_pid_or_listen_fds() -> None:
    assert listen_fds({}) == []
    env = {"LISTEN_PID": str(os.getpid())}
    assert listen_fds(env) == []
    assert env == {}


def test_variables_meant_for_another_process_are_ignored_and_unset() -> None:
    env = {"LISTEN_PID": str(os.getpid() + 1), "LISTEN_FDS": "1", "LISTEN_FDNAMES": "x"}
    assert listen_fds(env) == []
    assert env == {}  # children never see them


@contextlib.contextmanager
def descriptor_3(replacement: int | None) -> Iterator[None]:
    """Put ``replacement`` (or nothing) at descriptor 3 for the duration, then restore it."""
    try:
        saved: int | None = os.dup(3)
    except OSError:
        saved = None
    try:
        if replacement is None:
            with contextlib.suppress(OSError):
                os.close(3)
        else:
            os.dup2(replacement, 3)
        yield
    finally:
        if saved is None:
            with contextlib.suppress(OSError):
                os.close(3)
        else:
            os.dup2(saved, 3)
            os.close(saved)


def test_passed_descriptors_are_named_and_made_close_on_exec() -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as a, descriptor_3(a.fileno()):
        os.set_inheritable(3, True)
        env = {"LISTEN_PID": str(os.getpid()), "LISTEN_FDS": "1", "LISTEN_FDNAMES": "venom"}
        assert listen_fds(env) == [(3, "venom")]
        assert not os.get_inheritable(3)
        assert env == {}


def test_a_descriptor_that_is_not_open_is_an_activation_error() -> None:
    env = {"LISTEN_PID": str(os.getpid()), "LISTEN_FDS": "1"}
    with descriptor_3(None), pytest.raises(VenomError) as info:
        listen_fds(env)
    assert info.value.code == "failed.activation"


@pytest.mark.parametrize(
    "env",
    [
        {"LISTEN_PID": "x", "LISTEN_FDS": "1"},
        {"LISTEN_PID": "{pid}", "LISTEN_FDS": "-1"},
        {"LISTEN_PID": "{pid}", "LISTEN_FDS": "65"},
        {"LISTEN_PID": "{pid}", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "one"},
    ],
)
def test_malformed_variables_are_a_clear_activation_error(env: dict[str, str]) -> None:
    env = {k: v.format(pid=os.getpid()) for k, v in env.items()}
    with pytest.raises(VenomError) as info:
        listen_fds(env, unset=False)
    assert info.value.code == "failed.activation"
    assert env  # unset=False leaves them


def test_notify_sends_one_datagram_to_a_path_and_an_abstract_address() -> None:
    path = tempfile.mktemp(prefix="vnu", dir="/tmp")
    abstract = f"venom-unit-{os.getpid()}"
    with (
        socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as by_path,
        socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as by_name,
    ):
        by_path.bind(path)
        by_name.bind(b"\0" + abstract.encode())
        by_path.settimeout(5)
        by_name.settimeout(5)
        try:
            assert notify("READY=1\nSTATUS=up", {"NOTIFY_SOCKET": path})
            assert by_path.recv(100) == b"READY=1\nSTATUS=up"
            assert notify("STOPPING=1", {"NOTIFY_SOCKET": "@" + abstract})
            assert by_name.recv(100) == b"STOPPING=1"
        finally:
            os.unlink(path)


@pytest.mark.parametrize("value", ["", "relative/path", "vsock:2:1", "/nonexistent/notify"])
def test_notify_without_a_listener_is_false_not_an_error(value: str) -> None:
    assert notify("READY=1", {"NOTIFY_SOCKET": value}) is False


def test_journal_stream_must_name_this_very_descriptor() -> None:
    with tempfile.TemporaryFile() as f:
        st = os.fstat(f.fileno())
        here = f"{st.st_dev}:{st.st_ino}"
        assert journal_stream_matches({"JOURNAL_STREAM": here}, f.fileno())
        assert not journal_stream_matches({"JOURNAL_STREAM": f"{st.st_dev}:1"}, f.fileno())
        assert not journal_stream_matches({"JOURNAL_STREAM": "garbage"}, f.fileno())
        assert not journal_stream_matches({}, f.fileno())


@pytest.mark.parametrize(
    ("level", "prefix"),
    [
        (logging.DEBUG, "<7>"),
        (logging.INFO, "<6>"),
        (logging.WARNING, "<4>"),
        (logging.ERROR, "<3>"),
        (logging.CRITICAL, "<2>"),
    ],
)
def test_journal_lines_carry_the_priority_and_no_timestamp(level: int, prefix: str) -> None:
    record = logging.makeLogRecord(
        {"name": "venom-echo", "levelno": level, "msg": "one\ntwo", "created": 0}
    )
    assert JournalFormatter().format(record) == f"{prefix}venom-echo: one\n{prefix}two"
