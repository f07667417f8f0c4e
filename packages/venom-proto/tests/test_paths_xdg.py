"""The XDG directories, resolved in one place (`venom_proto.paths`) for every package."""

from __future__ import annotations

import os

import pytest

from venom_proto.paths import (
    beside_socket,
    cache_home,
    config_home,
    data_home,
    default_runtime_dir,
    state_home,
    xdg_runtime_dir,
)

HOMES = [
    (config_home, "XDG_CONFIG_HOME", "/h/.config"),
    (data_home, "XDG_DATA_HOME", "/h/.local/share"),
    (state_home, "XDG_STATE_HOME", "/h/.local/state"),
    (cache_home, "XDG_CACHE_HOME", "/h/.cache"),
]


@pytest.mark.parametrize(("resolve", "variable", "fallback"), HOMES)
def test_an_absolute_variable_wins_anything_else_falls_back_under_home(
    resolve: object, variable: str, fallback: str
) -> None:
    assert callable(resolve)
    assert resolve({variable: "/x", "HOME": "/h"}) == "/x"
    assert resolve({"HOME": "/h"}) == fallback
    assert resolve({variable: "", "HOME": "/h"}) == fallback
    assert resolve({variable: "relative", "HOME": "/h"}) == fallback  # the XDG spec: ignored


@pytest.mark.parametrize(("resolve", "variable", "fallback"), HOMES)
def test_without_home_the_users_home_directory_is_used(
    resolve: object, variable: str, fallback: str
) -> None:
    assert callable(resolve)
    expected = fallback.replace("/h", os.path.expanduser("~"), 1)
    assert resolve({}) == expected


def test_the_runtime_dir_of_rfc_0002() -> None:
    uid = os.getuid()
    assert xdg_runtime_dir({"XDG_RUNTIME_DIR": "/run/user/1"}) == "/run/user/1"
    assert xdg_runtime_dir({"XDG_RUNTIME_DIR": ""}) is None
    assert default_runtime_dir({"XDG_RUNTIME_DIR": "/run/user/1"}) == "/run/user/1/venom"
    assert default_runtime_dir({"TMPDIR": "/t"}) == f"/t/venom-{uid}"


@pytest.mark.parametrize(
    ("sock", "suffix", "path"),
    [("/r/a.sock", ".lock", "/r/a.lock"), ("/r/a", ".token", "/r/a.token")],
)
def test_files_beside_a_socket(sock: str, suffix: str, path: str) -> None:
    assert beside_socket(sock, suffix) == path
