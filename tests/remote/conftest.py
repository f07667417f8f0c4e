"""The remote-use suite (rfcs/0006): venom-echo behind a real OpenSSH server on 127.0.0.1.

One daemon and one sshd per session keep it fast; tests that revoke or issue tokens use
names of their own. Every test here is marked ``sshd``; the default run includes them.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from integration_kit import Daemon
from remote_kit import SSHD, Sshd, running_remote


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.sshd)


@pytest.fixture(scope="session")
def remote() -> Iterator[tuple[Daemon, Sshd]]:
    """A running daemon and an sshd whose sessions see the daemon's environment."""
    if not (os.access(SSHD, os.X_OK) and shutil.which("ssh")):
        pytest.skip("OpenSSH (openssh-server, openssh-client) is not installed")
    with running_remote() as both:
        yield both
