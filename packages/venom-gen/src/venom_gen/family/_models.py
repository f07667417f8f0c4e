"""A daemon's model, from its ``manifest`` verb (rfcs/0001 §16), checked, and cached by digest.

The model is the canonical JSON text the daemon sends; ``sha256:`` over exactly those bytes
must equal the manifest's ``digest`` and hello's ``schema`` (when it advertises one), else the
model is refused as ``internal.model``. A checked model is kept under
``$XDG_CACHE_HOME/venom/models/<hex digest>.json``: the name is the content's hash, so an entry
never goes stale (a daemon whose model changed advertises another digest), and a call to a
daemon seen before skips the manifest round trip and ``hashlib`` (rfcs/0004 D-S67).

This module is venom's model cache's one owner: it alone writes and reads those files. On the
path of ``venom call``: ``hashlib`` loads only when a model is fetched.
"""

from __future__ import annotations

import os
import stat

from venom_proto import VenomError
from venom_proto.paths import cache_home
from venom_proto.stdjson import std_loads

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from venom_schema.model import Model, Verb

    from ._target import Session

__all__ = ("CACHE_KEEP", "MODEL_LIMIT", "cache_dir", "daemon_model", "find_verb")

#: Models kept in the cache; the least recently written go first.
CACHE_KEEP = 64
#: The largest model text read from the cache (a product's is tens of KiB).
MODEL_LIMIT = 16 * 1024 * 1024
_PREFIX = "sha256:"
_HEX = frozenset("0123456789abcdef")
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def _model_error(message: str, data: dict[str, Any] | None = None) -> VenomError:
    return VenomError("internal.model", message, data)


def cache_dir(environ: Mapping[str, str]) -> str:
    """``$XDG_CACHE_HOME/venom/models`` (else ``~/.cache/venom/models``)."""
    return os.path.join(cache_home(environ), "venom", "models")


def _hex(digest: object) -> str | None:
    """The 64 hex digits of a ``sha256:`` digest, else None (no cache key)."""
    if not isinstance(digest, str) or not digest.startswith(_PREFIX):
        return None
    hexpart = digest[len(_PREFIX) :]
    return hexpart if len(hexpart) == 64 and _HEX.issuperset(hexpart) else None


def _read_cached(path: str) -> bytes | None:
    """The cached text, or None: missing, not a regular file of ours, too large or unreadable.

    A hit is trusted without rehashing: the file was checked when written, the directory is
    the user's own, and the daemon validates every call again whatever the client believed.
    """
    try:
        fd = os.open(path, _READ)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_size > MODEL_LIMIT:
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _decode(data: bytes) -> Any:
    """The model object in ``data``, or None when it is not one."""
    try:
        model: Any = std_loads(data)
    except ValueError:
        return None
    if not isinstance(model, dict) or not isinstance(model.get("verbs"), list):
        return None
    return model


def _store(directory: str, name: str, data: bytes) -> None:
    """Keep a checked model; best effort (a read-only or full disk only costs the next call)."""
    from venom_proto.files import write_atomic

    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        write_atomic(os.path.join(directory, name), data, 0o600)
        _prune(directory)
    except OSError:
        return


def _prune(directory: str) -> None:
    entries = []
    with os.scandir(directory) as found:
        for entry in found:
            if entry.name.endswith(".json") and entry.is_file(follow_symlinks=False):
                entries.append((entry.stat(follow_symlinks=False).st_mtime_ns, entry.path))
    entries.sort()
    for _, path in entries[: max(0, len(entries) - CACHE_KEEP)]:
        try:
            os.unlink(path)
        except OSError:
            continue


def _fetch(session: Session) -> tuple[bytes, str]:
    """Call ``manifest``; return the model text and its digest, both checked."""
    where = session.target.text
    try:
        answer = session.client.call("manifest", {})
    except VenomError as exc:
        if exc.code.startswith(("unsupported", "denied")):
            raise VenomError(
                exc.code, f"{where} does not serve its model (manifest): {exc.message}", exc.data
            ) from None
        raise
    text = answer.get("model") if isinstance(answer, dict) else None
    digest = answer.get("digest") if isinstance(answer, dict) else None
    if not isinstance(text, str) or not isinstance(digest, str):
        raise _model_error(f"{where}: the manifest result is not {{model, digest}} text")
    data = text.encode("utf-8", "surrogatepass")
    import hashlib

    actual = _PREFIX + hashlib.sha256(data).hexdigest()
    if actual != digest:
        raise _model_error(
            f"{where}: the model does not hash to the manifest's digest",
            {"digest": digest, "actual": actual},
        )
    return data, digest


def daemon_model(session: Session, *, use_cache: bool = True) -> tuple[Model, str | None]:
    """The daemon's normalized model and its digest: from the cache when hello's ``schema``
    names a model seen before, else from ``manifest``, checked against ``schema``."""
    schema = session.hello.get("schema")
    key = _hex(schema)
    directory = cache_dir(session.environ)
    name = f"{key}.json"
    if key is not None and use_cache:
        cached = _read_cached(os.path.join(directory, name))
        model: Model | None = None if cached is None else _decode(cached)
        if model is not None:
            return model, str(schema)
    data, digest = _fetch(session)
    if schema is not None and digest != schema:
        raise _model_error(
            f"{session.target.text}: the manifest's digest is not hello's schema",
            {"digest": digest, "schema": schema},
        )
    model = _decode(data)
    if model is None:
        raise _model_error(f"{session.target.text}: the manifest's model is not a model object")
    if key is not None:
        _store(directory, name, data)
    return model, digest


def find_verb(model: Model, name: str) -> Verb:
    """The verb ``name`` of ``model``; ``unsupported.verb`` (exit 10) when it has none."""
    for verb in model["verbs"]:
        if isinstance(verb, dict) and verb.get("name") == name:
            return verb
    raise VenomError("unsupported.verb", f"the daemon has no verb {name!r}", {"verb": name})
