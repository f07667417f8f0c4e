"""Property tests of the one ``ssh://`` grammar (rfcs/0006 §3, issue 27).

Any text is either a target whose parts are exactly the URL's, or ``invalid_params.usage``;
never another exception, and never a host or user ssh or a shell would read as more than a
name.
"""

from __future__ import annotations

import ipaddress
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venom_proto import VenomError
from venom_proto.ssh import SshTarget, parse_ssh_url, ssh_argv

SAFE = set(string.ascii_letters + string.digits + "._-")
SHELL = "$`;|&()<>'\"\\ \t\n*?[]{}!#~%="

_label = st.from_regex(r"[A-Za-z_]([A-Za-z0-9_-]{0,10}[A-Za-z0-9_])?", fullmatch=True)
host_names = st.lists(_label, min_size=1, max_size=4).map(".".join)
ipv4 = st.ip_addresses(v=4).map(str)
ipv6 = st.ip_addresses(v=6).map(lambda a: f"[{a}]")
users = st.from_regex(r"[A-Za-z0-9_.][A-Za-z0-9_.-]{0,20}", fullmatch=True)
paths = st.text(st.characters(min_codepoint=0x20, blacklist_characters="\x7f"), max_size=30).map(
    lambda p: "/" + p
)


def _render(host: str, user: str | None, port: int | None, path: str | None) -> str:
    return (
        "ssh://"
        + (f"{user}@" if user else "")
        + host
        + (f":{port}" if port is not None else "")
        + (path or "")
    )


@given(
    host=st.one_of(host_names, ipv4, ipv6),
    user=st.none() | users,
    port=st.none() | st.integers(1, 65535),
    path=st.none() | paths,
)
@settings(max_examples=400, deadline=None)
def test_every_url_of_the_grammar_parses_back_to_its_parts(
    host: str, user: str | None, port: int | None, path: str | None
) -> None:
    url = _render(host, user, port, path)
    target = parse_ssh_url(url)
    bare = host[1:-1] if host.startswith("[") else host
    want_path = path if path not in (None, "/") else None
    assert target == SshTarget(url, bare, user, port, want_path)
    argv = ssh_argv(target, "t", connect_timeout=None, environ={})
    assert argv[argv.index("--") + 1] == bare


@given(st.text(max_size=40))
@settings(max_examples=1500, deadline=None)
def test_any_text_is_a_target_or_a_usage_error(rest: str) -> None:
    url = "ssh://" + rest
    try:
        target = parse_ssh_url(url)
    except VenomError as exc:
        refusal = (exc.code, exc.exit_code, exc.data)
        target = None
    if target is None:
        assert refusal == ("invalid_params.usage", 2, {"socket": url})
        return
    if ":" in target.host:  # IPv6: its zone is plain characters
        ipaddress.IPv6Address(target.host.partition("%")[0])
    assert set(target.host) <= SAFE | {":", "%"}
    assert not target.host.startswith("-")
    assert target.user is None or (set(target.user) <= SAFE and target.user[0] != "-")
    assert target.port is None or 1 <= target.port <= 65535
    assert target.path is None or all(c >= " " and c != "\x7f" for c in target.path)


@given(
    st.sampled_from(["", "a", "h.example"]),
    st.text(SHELL, min_size=1, max_size=5),
    st.sampled_from(["", "b", ".org"]),
)
@settings(max_examples=500, deadline=None)
def test_shell_and_option_characters_in_a_host_or_user_are_refused(
    before: str, hostile: str, after: str
) -> None:
    for url in (
        f"ssh://{before}{hostile}{after}",
        f"ssh://{before}{hostile}{after}@h",
        f"ssh://-{before}{after}",
    ):
        with pytest.raises(VenomError) as info:
            parse_ssh_url(url)
        assert info.value.code == "invalid_params.usage"
