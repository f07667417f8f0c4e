"""The shared ``skill`` and ``skill.install`` verbs (RFC-0004 §6, rfcs/0001-shared-verbs.md).

``skill.install`` touches the file system only in a worker thread. What is already at
``<dir>/SKILL.md`` is inspected without following a symlink or opening a FIFO for good, and it is
read only when its size equals the skill's, so no file there can stall or bloat the daemon.
"""

from __future__ import annotations

import os
import stat
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from venom_proto import VenomError
from venom_proto.files import FileRefused, read_regular, remove_stale, write_atomic
from venom_schema.model import JsonObject, Model

from .files import FileWorkers

if TYPE_CHECKING:
    from venom_proto import Call

__all__ = ("TEMP_PREFIX", "SkillVerbs")

#: Temporary files of `write_atomic` beside SKILL.md: ``.SKILL.<hex>.tmp``.
TEMP_PREFIX = ".SKILL."


class SkillVerbs:
    """Serves the SKILL.md rendered once from the model: the exact text ``skill`` prints."""

    def __init__(self, model: Model) -> None:
        from venom_gen.render.skill import render_skill

        self.content = render_skill(model)
        self._data = self.content.encode("utf-8")
        self._workers = FileWorkers()

    def skill(self, call: Call, params: JsonObject) -> JsonObject:
        """``skill``: ``{"content": "<SKILL.md>"}``."""
        return {"content": self.content}

    async def install(self, call: Call, params: JsonObject) -> JsonObject:
        """``skill.install``: write SKILL.md into ``dir``; idempotent, refuses to clobber."""
        directory = params["dir"]
        if not os.path.isabs(directory):
            raise VenomError(
                "invalid_params.relative_path",
                f"dir must be an absolute path, got {directory!r}",
                {"param": "dir"},
            )
        if "\0" in directory:
            raise VenomError(
                "invalid_params.path", "dir contains a NUL character", {"param": "dir"}
            )
        target = Path(directory) / "SKILL.md"
        return await self._workers.run(partial(self._install, target, params["force"]))

    def _install(self, target: Path, force: bool) -> JsonObject:
        """The file work of ``skill.install``. Blocks."""
        existing = self._existing(target)
        if existing is True:
            return {"path": str(target), "written": False}
        if existing is not None and not force:
            raise VenomError(
                "conflict.skill_exists",
                f"{target} exists {existing}; pass --force=true to replace it",
                {"path": str(target)},
            )
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            remove_stale(target.parent, TEMP_PREFIX, legacy_suffix="")
            write_atomic(target, self._data, 0o644, prefix=TEMP_PREFIX)
        except OSError as exc:
            raise _write_failed(target, exc) from exc
        return {"path": str(target), "written": True}

    def _existing(self, target: Path) -> bool | str | None:
        """True if ``target`` holds exactly the skill, None if absent, else what it is."""
        try:
            st = os.lstat(target)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _write_failed(target, exc) from exc
        if stat.S_ISLNK(st.st_mode):
            return "as a symbolic link"
        if not stat.S_ISREG(st.st_mode):
            return "and is not a regular file"
        if st.st_size != len(self._data):
            return "with other content"
        try:
            data = read_regular(target, len(self._data))
        except FileRefused:
            return "with other content"
        except OSError as exc:
            raise _write_failed(target, exc) from exc
        if data is None:
            return None  # removed meanwhile
        return True if data == self._data else "with other content"


def _write_failed(target: Path, exc: OSError) -> VenomError:
    reason = exc.strerror or str(exc)
    return VenomError(
        "failed.write", f"cannot write {target}: {reason}", {"path": str(target), "reason": reason}
    )
