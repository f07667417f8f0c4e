"""``ssh://`` socket URLs and the ssh command line (rfcs/0006 §3)."""

from __future__ import annotations

import pytest

from venom_proto import VenomError
from venom_proto.ssh import SshTarget, parse_ssh_url, remote_tool, ssh_argv, token_auth


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("ssh://h", SshTarget("ssh://h", "h")),
        ("ssh://u@h:2222", SshTarget("ssh://u@h:2222", "h", "u", 2222)),
        ("ssh://h/run/x/t.sock", SshTarget("ssh://h/run/x/t.sock", "h", path="/run/x/t.sock")),
        ("ssh://[::1]:22/s", SshTarget("ssh://[::1]:22/s", "::1", None, 22, "/s")),
        ("ssh://a.b_c-d@h", SshTarget("ssh://a.b_c-d@h", "h", "a.b_c-d")),
        ("ssh://10.0.0.1:22", SshTarget("ssh://10.0.0.1:22", "10.0.0.1", port=22)),
        ("ssh://[fe80::1%eth0]", SshTarget("ssh://[fe80::1%eth0]", "fe80::1%eth0")),
        ("ssh://my_alias", SshTarget("ssh://my_alias", "my_alias")),
    ],
)
def test_parse(url: str, target: SshTarget) -> None:
    assert parse_ssh_url(url) == target


@pytest.mark.parametrize(
    "url",
    [
        "ssh://",
        "ssh://-oProxyCommand=x",
        "ssh://-l@h",
        "ssh://h:0",
        "ssh://h:70000",
        "ssh://h:",
        "ssh://h:x",
        "ssh://[::1",
        "ssh://h h",
        "ssh://@h",
        "http://h",
        # issue 27: what a ProxyCommand %h or an older ssh would run, and non-ASCII digits
        "ssh://host:\u00b2",
        "ssh://host:\u0662\u0662",
        "ssh://$(touch${IFS}x)",
        "ssh://h`id`",
        "ssh://h;id",
        "ssh://h|id",
        "ssh://h&id",
        "ssh://h>x",
        "ssh://'h'",
        "ssh://h\\x",
        "ssh://$(id)@h",
        "ssh://u;id@h",
        "ssh://a@b@h",
        "ssh://h\u0131",
        "ssh://-h",
        "ssh://h-.x",
        "ssh://1.2.3",
        "ssh://256.1.1.1",
        "ssh://010.1.1.1",
        "ssh://[::1]x",
        "ssh://[::g]",
        "ssh://[1.2.3.4]",
        "ssh://[::1%$(id)]",
        "ssh://h/a\nb",
        "ssh://h/a\x00b",
        "ssh://h:+22",
        "ssh://h:022222",
    ],
)
def test_malformed_urls_are_usage_errors(url: str) -> None:
    with pytest.raises(VenomError) as info:
        parse_ssh_url(url)
    assert (info.value.code, info.value.exit_code) == ("invalid_params.usage", 2)


def test_argv_never_lets_the_url_pass_options() -> None:
    target = parse_ssh_url("ssh://me@host:2200/tmp/a b;rm -rf ~/venom-echo.sock")
    argv = ssh_argv(target, "venom-echo", connect_timeout=2.5, environ={})
    assert argv[:6] == ["ssh", "-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout=3"]
    assert argv[6:] == [
        "-p", "2200", "-l", "me", "--", "host", "venom-echo", "bridge",
        "--socket", "'/tmp/a b;rm -rf ~/venom-echo.sock'",
    ]  # fmt: skip
    custom = ssh_argv(
        target, "t", connect_timeout=None, environ={"VENOM_SSH_COMMAND": "x -F 'c f'"}
    )
    assert custom[:3] == ["x", "-F", "c f"]
    assert "ConnectTimeout=10" in custom


def test_remote_tool_and_token() -> None:
    assert remote_tool(parse_ssh_url("ssh://h/run/venom-echo.sock"), None) == "venom-echo"
    assert remote_tool(parse_ssh_url("ssh://h"), "venom-notes") == "venom-notes"
    with pytest.raises(VenomError):
        remote_tool(parse_ssh_url("ssh://h"), None)
    assert token_auth("venom-echo", {"VENOM_ECHO_TOKEN": " t \n"}) == {"token": "t"}
    assert token_auth("venom-echo", {}) is None


def test_missing_ssh_binary_is_unavailable_ssh(monkeypatch: pytest.MonkeyPatch) -> None:
    from venom_proto.sync_client import SyncClient

    monkeypatch.setenv("VENOM_SSH_COMMAND", "/nonexistent/ssh")
    with pytest.raises(VenomError) as info:
        SyncClient("ssh://h/x/venom-echo.sock", client_name="t", client_version="0")
    assert (info.value.code, info.value.exit_code) == ("unavailable.ssh", 6)
    assert (info.value.data or {})["command"] == "/nonexistent/ssh"


def test_a_target_built_by_hand_is_checked_before_ssh_runs() -> None:
    """The grammar holds whoever built the target: `ssh_argv` refuses what parsing would."""
    for bad in (
        SshTarget("x", "$(id)"),
        SshTarget("x", "-oProxyCommand=id"),
        SshTarget("x", "h", user="-l"),
        SshTarget("x", "h", port=0),
        SshTarget("x", "h", path="relative"),
    ):
        with pytest.raises(VenomError) as info:
            ssh_argv(bad, "t", connect_timeout=None, environ={})
        assert info.value.code == "invalid_params.usage"
