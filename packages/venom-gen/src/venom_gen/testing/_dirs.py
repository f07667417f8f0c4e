"""`PrivateDirs`: a short private root holding a test's runtime, config, data and home."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from venom_proto.conventions import env_var

__all__ = ("PrivateDirs",)

#: A root this long still leaves room for ``run/venom/<a 32-byte tool>.sock`` in ``sun_path``.
_SHORT = 48


def _short_base() -> str:
    base = tempfile.gettempdir()
    return base if len(os.fsencode(base)) <= _SHORT else "/tmp"


class PrivateDirs:
    """A fresh ``0700`` directory with ``run`` (``XDG_RUNTIME_DIR``), ``config``, ``data``,
    ``state``, ``cache`` and ``home`` inside, under ``$TMPDIR`` if that is short, else ``/tmp``
    (a socket path must fit ``sun_path``, about 100 bytes). `remove` deletes it all.
    """

    def __init__(self, prefix: str = "vt") -> None:
        self.root = Path(tempfile.mkdtemp(prefix=prefix, dir=_short_base()))
        self.runtime = self.root / "run"
        self.runtime.mkdir(mode=0o700)
        for name in ("config", "data", "state", "cache", "home"):
            (self.root / name).mkdir(mode=0o700)

    def env(self, tool: str, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """``base`` (default: ``os.environ``) pointed at these directories, with ``tool``'s
        own overrides (``<TOOL>_SOCKET``, ``<TOOL>_CONFIG``) removed."""
        env = dict(os.environ if base is None else base)
        env.update(
            XDG_RUNTIME_DIR=str(self.runtime),
            XDG_CONFIG_HOME=str(self.root / "config"),
            XDG_DATA_HOME=str(self.root / "data"),
            XDG_STATE_HOME=str(self.root / "state"),
            XDG_CACHE_HOME=str(self.root / "cache"),
            HOME=str(self.root / "home"),
        )
        for name in ("SOCKET", "CONFIG"):
            env.pop(env_var(tool, name), None)
        return env

    def remove(self) -> None:
        """Delete the root and everything in it; idempotent."""
        shutil.rmtree(self.root, ignore_errors=True)

    def __repr__(self) -> str:
        return f"PrivateDirs({str(self.root)!r})"
