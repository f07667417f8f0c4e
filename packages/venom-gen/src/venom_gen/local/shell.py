"""The local commands every product binary has for the user's shell: ``completion <shell>``,
``man`` and ``man install`` (rfcs/0001 §9, §10).

They serve the product's committed generated files (``generated/completions/``,
``generated/man/`` beside the model), so what they print is exactly what the generators wrote
and the build-time renderers stay out of the run time. Imported only when one of them runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from venom_gen.cli import flag_value
from venom_gen.cli._output import Output
from venom_proto import VenomError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from venom_gen.product import Product

__all__ = (
    "COMPLETION_FILES",
    "default_man_dir",
    "run_completion_bash",
    "run_completion_fish",
    "run_completion_zsh",
    "run_man",
    "run_man_install",
)

#: The generated completion script of each shell, under ``generated/completions/``.
COMPLETION_FILES: dict[str, str] = {"bash": "{tool}.bash", "zsh": "_{tool}", "fish": "{tool}.fish"}


def _generated(product: Product) -> Path:
    return Path(product.model_path).parent / "generated"


def _read(path: Path) -> str:
    try:
        return path.read_text("utf-8")
    except FileNotFoundError:
        raise VenomError(
            "failed.not_generated",
            f"no generated file at {path}: the product was built without it (run venom-gen all)",
            {"path": str(path)},
        ) from None


def _output(product: Product, rest: list[str]) -> Output:
    return Output(product.tool, json="--json" in rest, stdout=sys.stdout.buffer, stderr=sys.stderr)


def _completion(product: Product, shell: str, rest: list[str]) -> int:
    """``<tool> completion <shell>``: the generated script (``{"content"}`` with --json)."""
    out = _output(product, rest)
    path = _generated(product) / "completions" / COMPLETION_FILES[shell].format(tool=product.tool)
    try:
        content = _read(path)
    except VenomError as exc:
        return out.error(exc)
    if out.json:
        out.value({"content": content})
    else:
        out.text(content)
    return 0


def run_completion_bash(product: Product, rest: list[str]) -> int:
    """``<tool> completion bash``."""
    return _completion(product, "bash", rest)


def run_completion_zsh(product: Product, rest: list[str]) -> int:
    """``<tool> completion zsh``."""
    return _completion(product, "zsh", rest)


def run_completion_fish(product: Product, rest: list[str]) -> int:
    """``<tool> completion fish``."""
    return _completion(product, "fish", rest)


def _pages(product: Product) -> Path:
    pages = _generated(product) / "man"
    if not (pages / f"{product.tool}.1").is_file():
        raise VenomError(
            "failed.not_generated",
            f"no generated man pages in {pages} (run venom-gen all)",
            {"path": str(pages)},
        )
    return pages


def run_man(product: Product, rest: list[str]) -> int:
    """``<tool> man [--page NAME]``: the page's roff source; on a terminal, shown by ``man``."""
    out = _output(product, rest)
    asked = flag_value(rest, "--page") or product.tool
    name = asked if asked.endswith(".1") else asked + ".1"
    try:
        pages = _pages(product)
        path = pages / name
        if os.sep in name or name.startswith(".") or not path.is_file():
            known = sorted(p.stem for p in pages.glob("*.1"))
            raise VenomError(
                "not_found.page",
                f"no man page {asked!r}; pages: {', '.join(known)}",
                {"page": asked},
            )
        content = _read(path)
    except VenomError as exc:
        return out.error(exc)
    if out.json:
        out.value({"page": name, "content": content})
        return 0
    viewer = shutil.which("man")
    if viewer is not None and sys.stdout.isatty():
        return subprocess.call([viewer, "-l", str(path)])
    out.text(content)
    return 0


def default_man_dir(environ: Mapping[str, str]) -> Path:
    """``$XDG_DATA_HOME/man/man1``, else ``~/.local/share/man/man1`` (man-db searches it)."""
    from venom_proto.paths import data_home

    return Path(data_home(environ)) / "man" / "man1"


def _install(pages: Path, target: Path) -> tuple[int, int]:
    # The atomic writer the daemon uses too: never a half-written page, never through a link, and no
    # temporary file left behind when a write fails.
    from venom_proto.files import write_atomic

    sources = sorted(pages.glob("*.1"))
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _write_error(target, exc) from None
    written = 0
    for source in sources:
        destination = target / source.name
        data = source.read_bytes()
        try:
            unchanged = destination.is_file() and not destination.is_symlink()
            if unchanged and destination.read_bytes() == data:
                continue
            write_atomic(destination, data, 0o644, prefix=f".{destination.name}.")
        except OSError as exc:
            raise _write_error(destination, exc) from None
        written += 1
    return len(sources), written


def _write_error(path: Path, exc: OSError) -> VenomError:
    reason = exc.strerror or str(exc)
    return VenomError(
        "failed.write", f"cannot write {path}: {reason}", {"path": str(path), "reason": reason}
    )


def run_man_install(
    product: Product, rest: list[str], environ: Mapping[str, str] = os.environ
) -> int:
    """``<tool> man install [--dir DIR]``: copy every page into DIR (default: see above)."""
    out = _output(product, rest)
    given = flag_value(rest, "--dir")
    try:
        if given is not None and not os.path.isabs(given):
            raise VenomError(
                "invalid_params.relative_path",
                f"--dir {given!r} is not an absolute path",
                {"param": "dir"},
            )
        target = Path(given) if given is not None else default_man_dir(environ)
        count, written = _install(_pages(product), target)
    except VenomError as exc:
        return out.error(exc)
    if out.json:
        out.value({"dir": str(target), "pages": count, "written": written})
        return 0
    out.text(f"{product.tool}: {count} man pages in {target} ({written} written)")
    if target.name == "man1":
        out.note(f"'man {product.tool}' finds them once {target.parent} is on man's search path.")
    else:
        out.note(f"man looks in man1/ directories: install into {target / 'man1'} for 'man'.")
    return 0
