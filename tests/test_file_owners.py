"""Each file format has one owner module that both writes and reads it, so a format change is
one package's release; the facts every package shares are written once (issue 22).

The owners: the owner token (`venom_proto.owner_token`), the lock beside a socket
(`venom_proto.daemon_lock`), the model cache (`venom_proto.model_cache`), the issued-token
store (`venom_gen.token_store`), every atomic write (`venom_proto.files`), the XDG directories
(`venom_proto.paths`) and the grant vocabulary (`venom_schema.grants`). A file-name constant,
a rename or an ``XDG_`` variable anywhere else in the sources means a second reader or writer.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [*ROOT.glob("packages/*/src"), *ROOT.glob("examples/*/src")]

#: (what, pattern, the only files allowed to hold it, relative to the repository).
OWNED = [
    ("owner token file", r"""["']\.token["']""", ["venom-proto/src/venom_proto/owner_token.py"]),
    ("lock file", r"""["']\.lock["']""", ["venom-proto/src/venom_proto/daemon_lock.py"]),
    (
        "model cache name",
        r"""["']\.model\.json["']""",
        ["venom-proto/src/venom_proto/model_cache.py"],
    ),
    ("model cache member", r"""["']\$cache["']""", ["venom-proto/src/venom_proto/model_cache.py"]),
    ("token store file", r"""["']tokens\.json["']""", ["venom-gen/src/venom_gen/token_store.py"]),
    ("start-up image", r"venom-startup", ["venom-gen/src/venom_gen/startup.py"]),
    (
        "atomic rename",
        r"\bos\.(?:replace|rename)\(|\.rename\(",
        ["venom-proto/src/venom_proto/files.py"],
    ),
    ("fsync", r"\bos\.fsync\(", ["venom-proto/src/venom_proto/files.py"]),
    ("temporary file", r"\bmkstemp\(|NamedTemporaryFile\(", []),
    ("XDG variable", r"""["']XDG_[A-Z_]+["']""", ["venom-proto/src/venom_proto/paths.py"]),
    (
        "grant vocabulary",
        r'"none",\s*"read",\s*"write"',
        ["venom-schema/src/venom_schema/grants.py", "venom-schema/src/venom_schema/model.py"],
    ),
    ("read-only floor", r'[({]\s*"none",\s*"read"\s*[)}]', []),
    (
        "copied helper",
        r"\bdef (?:_compact|_write_all|write_all|write_private)\(",
        ["venom-proto/src/venom_proto/files.py"],
    ),
]


#: The conformance suite reads every format on its own, by design: it checks an implementation
#: against the RFCs from outside (docs/testing.md), so it must not lean on the owners it checks.
INDEPENDENT = ("venom-mcp/src/venom_mcp/conformance/",)


def _sources() -> list[Path]:
    return [
        path
        for src in SOURCES
        for path in sorted(src.rglob("*.py"))
        if not _name(path).startswith(INDEPENDENT)
    ]


def _name(path: Path) -> str:
    relative = path.relative_to(ROOT).as_posix()
    return relative.removeprefix("packages/")


@pytest.mark.parametrize(("what", "pattern", "owners"), OWNED, ids=[o[0] for o in OWNED])
def test_only_the_owner_names_the_file(what: str, pattern: str, owners: list[str]) -> None:
    found = re.compile(pattern)
    holders = sorted(
        _name(path) for path in _sources() if found.search(path.read_text(encoding="utf-8"))
    )
    assert set(holders) <= set(owners), f"{what} outside its owner: {holders}"


def test_every_owner_exists_and_holds_what_it_owns() -> None:
    """The scan above passes vacuously if an owner is renamed: check each one is found."""
    for what, pattern, owners in OWNED:
        for owner in owners:
            path = ROOT / "packages" / owner
            assert path.is_file(), f"{what}: {owner} is gone"
            assert re.search(pattern, path.read_text(encoding="utf-8")), f"{what}: not in {owner}"


def test_the_read_only_floor_is_one_object_wherever_it_is_used() -> None:
    from venom_gen import token_store
    from venom_gen.render import catalog
    from venom_schema.grants import PUBLIC_GRANTS

    assert catalog.READ_ONLY_GRANTS is PUBLIC_GRANTS
    assert token_store._FLOOR is PUBLIC_GRANTS
