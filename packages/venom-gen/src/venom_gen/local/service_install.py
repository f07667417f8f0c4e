"""``<tool> service install``: write the service manager files for the running binary.

The committed ``generated/service/`` files assume ``~/.local/bin/<tool>``; this writes the same
files (`venom_gen.render.service`) with the absolute command that runs this very binary, where the
user's service manager reads them (rfcs/0001 §14, docs/service.md).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from venom_gen.local._args import parsed, print_json, refuse
from venom_gen.local.mcp_config import self_command
from venom_gen.render.service import (
    PlistValueError,
    UnitValueError,
    launchd_label,
    service_files,
)
from venom_proto import VenomError
from venom_proto.paths import config_home

if TYPE_CHECKING:
    from venom_gen.product import Product
    from venom_schema.model import Model

__all__ = ("install_service", "run_service_install")


def _default_dir(manager: str, environ: Mapping[str, str]) -> Path:
    home = Path(environ.get("HOME") or os.path.expanduser("~"))
    if manager == "launchd":
        return home / "Library" / "LaunchAgents"
    return Path(config_home(environ)) / "systemd" / "user"


def _next_step(model: Model, manager: str, directory: Path) -> str:
    tool = model["tool"]
    if manager == "launchd":
        plist = directory / f"{launchd_label(model)}.plist"
        return f'launchctl bootstrap "gui/$(id -u)" {plist}'
    return f"systemctl --user daemon-reload && systemctl --user enable --now {tool}.socket"


def install_service(
    model: Model,
    command: list[str],
    *,
    manager: str,
    directory: Path,
    force: bool = False,
) -> dict[str, Any]:
    """Write ``manager``'s files for ``command`` into ``directory``; the verb's result.

    Nothing is written unless every file is new, already identical, or ``force`` is given
    (``conflict.service_exists``); each file is replaced atomically, mode 0644. A command the
    unit or plist language cannot carry unchanged is ``invalid_params.command`` (exit 2).
    """
    from venom_proto.files import FileRefused, read_regular, write_atomic

    try:
        files = service_files(model, command)
    except (UnitValueError, PlistValueError) as exc:
        # Refused, never written: a newline in the path would inject directives (issue 27).
        raise VenomError(
            "invalid_params.command",
            f"cannot write a service file for {exc.value!r}: {exc.reason}; "
            "install the tool under a path without control characters",
            {"command": exc.value, "reason": exc.reason},
        ) from None
    wanted = {
        name: text
        for name, text in files.items()
        if name.endswith(".plist") == (manager == "launchd")
    }
    todo: dict[Path, bytes] = {}
    for name, text in wanted.items():
        path = directory / name
        data = text.encode("utf-8")
        try:
            existing = read_regular(path, 1024 * 1024)
        except (FileRefused, OSError):
            existing = b""  # something else is there: never the same content
        if existing == data:
            continue
        if existing is not None and not force:
            raise VenomError(
                "conflict.service_exists",
                f"{path} exists with other content; pass --force=true to replace it",
                {"path": str(path)},
            )
        todo[path] = data
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for path, data in todo.items():
            write_atomic(path, data, 0o644, prefix=f".{path.name}.")
    except OSError as exc:
        reason = exc.strerror or str(exc)
        where = str(getattr(exc, "filename", None) or directory)
        raise VenomError(
            "failed.write", f"cannot write {where}: {reason}", {"path": where, "reason": reason}
        ) from None
    return {
        "paths": [str(directory / name) for name in wanted],
        "written": bool(todo),
        "next": _next_step(model, manager, directory),
    }


def run_service_install(
    product: Product, rest: list[str], environ: Mapping[str, str] = os.environ
) -> int:
    """``<tool> service install [--manager M] [--dir DIR] [--force]``."""
    tool = product.tool
    model, invocation = parsed(product, "service.install", rest)
    params = invocation.params
    manager = str(params.get("manager") or ("launchd" if sys.platform == "darwin" else "systemd"))
    try:
        given = params.get("dir")
        if given is not None and not os.path.isabs(str(given)):
            raise VenomError(
                "invalid_params.relative_path", f"--dir must be absolute, not {given!r}"
            )
        directory = Path(str(given)) if given is not None else _default_dir(manager, environ)
        result = install_service(
            model,
            self_command(tool),
            manager=manager,
            directory=directory,
            force=bool(params.get("force", False)),
        )
    except VenomError as err:
        return refuse(tool, err, json_mode=invocation.json)
    if invocation.json:
        print_json(result)
        return 0
    verb = "wrote" if result["written"] else "unchanged:"
    for path in result["paths"]:
        sys.stdout.write(f"{verb} {path}\n")
    sys.stdout.write(f"start it with: {result['next']}\n")
    return 0
