"""The shared ``skill`` and ``skill.install`` verbs (RFC-0004 §6, rfcs/0001-shared-verbs.md)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from venom_proto import VenomError
from venom_proto._server import Call

__all__ = ("SkillVerbs",)


class SkillVerbs:
    """Serves the SKILL.md rendered once from the model: the exact text ``skill`` prints."""

    def __init__(self, model: Mapping[str, Any]) -> None:
        from venom_gen.skill import render_skill

        self.content = render_skill(model)

    def skill(self, call: Call, params: dict[str, Any]) -> dict[str, Any]:
        """``skill``: ``{"content": "<SKILL.md>"}``."""
        return {"content": self.content}

    def install(self, call: Call, params: dict[str, Any]) -> dict[str, Any]:
        """``skill.install``: write SKILL.md into ``dir``; idempotent, refuses to clobber."""
        directory = params["dir"]
        if not os.path.isabs(directory):
            raise VenomError(
                "invalid_params.relative_path",
                f"dir must be an absolute path, got {directory!r}",
                {"param": "dir"},
            )
        target = Path(directory) / "SKILL.md"
        data = self.content.encode("utf-8")
        try:
            existing: bytes | None = target.read_bytes()
        except FileNotFoundError:
            existing = None
        except OSError as exc:
            raise _write_failed(target, exc) from exc
        if existing == data:
            return {"path": str(target), "written": False}
        if existing is not None and not params["force"]:
            raise VenomError(
                "conflict.skill_exists",
                f"{target} exists with other content; pass --force=true to replace it",
                {"path": str(target)},
            )
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".SKILL.", dir=target.parent)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
                os.chmod(tmp, 0o644)
                os.replace(tmp, target)
            finally:
                Path(tmp).unlink(missing_ok=True)
        except OSError as exc:
            raise _write_failed(target, exc) from exc
        return {"path": str(target), "written": True}


def _write_failed(target: Path, exc: OSError) -> VenomError:
    reason = exc.strerror or str(exc)
    return VenomError(
        "failed.write", f"cannot write {target}: {reason}", {"path": str(target), "reason": reason}
    )
