"""Issued tokens (rfcs/0005 §7): the store on disk, issue rules, live grants, the bridge check."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest

from venom_gen import token_store
from venom_gen.token_store import ISSUABLE_GRANTS, TokenStore, check_token, store_path
from venom_proto import VenomError
from venom_proto.model_cache import load_model
from venom_schema.grants import GRANTS, PUBLIC_GRANTS, check_grant

ECHO_MODEL = Path(__file__).parents[2] / "venom-echo/src/venom_echo/verbs.model.json"


@pytest.fixture
def store(tmp_path: Path) -> TokenStore:
    return TokenStore(str(tmp_path / "state" / "t" / "tokens.json"))


def test_store_path_follows_xdg_state_home(tmp_path: Path) -> None:
    assert store_path("t", {"XDG_STATE_HOME": str(tmp_path)}) == str(tmp_path / "t/tokens.json")
    assert store_path("t", {}).endswith("/.local/state/t/tokens.json")


def test_issue_stores_a_hash_in_a_0600_file(store: TokenStore) -> None:
    entry, text = store.issue("ci", ["write"])
    assert text.startswith(f"vt1_{entry.id}_")
    assert len(text) == 4 + 12 + 1 + 64
    raw = Path(store.path).read_bytes()
    assert text.encode() not in raw
    assert text.rsplit("_", 1)[1].encode() not in raw
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(store.path)).st_mode) == 0o700
    assert [e.name for e in TokenStore(store.path)] == ["ci"]  # survives a restart
    assert not [p for p in os.listdir(os.path.dirname(store.path)) if p.endswith(".tmp")]


def test_grants_are_exactly_the_chosen_ones(store: TokenStore) -> None:
    _, text = store.issue("w", ["write"])
    held = store.grants_for(text)
    assert "write" in held
    assert "read" in held
    assert "none" in held
    for other in ("files", "spawn", "respond", "admin"):
        assert other not in held


@pytest.mark.parametrize(
    ("name", "grants", "expires", "code"),
    [
        ("Bad Name", ["read"], None, "invalid_params.name"),
        ("ok", ["admin"], None, "invalid_params.grant"),
        ("ok", ["read", "root"], None, "invalid_params.grant"),
        ("ok", ["read"], 0, "invalid_params.expires_in"),
    ],
)
def test_issue_refuses(
    store: TokenStore, name: str, grants: list[str], expires: int | None, code: str
) -> None:
    with pytest.raises(VenomError) as info:
        store.issue(name, grants, expires)
    assert info.value.code == code


def test_names_are_unique_among_active_tokens(store: TokenStore) -> None:
    store.issue("n", ["read"])
    with pytest.raises(VenomError) as info:
        store.issue("n", ["read"])
    assert info.value.code == "conflict.token_exists"
    store.revoke("n")
    store.issue("n", ["read"])  # revoking frees the name
    with pytest.raises(VenomError) as missing:
        store.revoke("nope")
    assert missing.value.code == "not_found.token"


def test_revoke_and_expiry_apply_to_live_grants(store: TokenStore) -> None:
    _, text = store.issue("r", ["write"])
    held = store.grants_for(text)
    assert "write" in held
    store.revoke("r")
    assert "write" not in held
    assert "read" not in held  # nothing: the daemon closes its connection (rfcs/0006 §2.4)
    with pytest.raises(VenomError) as info:
        check_grant("write", held, "config.set")
    assert (info.value.data or {})["token"] == "revoked"
    assert "revoked" in info.value.message
    entry, soon = store.issue("e", ["write"], 1)
    live = store.grants_for(soon)
    assert "write" in live
    entry.expires = int(time.time()) - 1
    assert "write" not in live
    with pytest.raises(VenomError) as expired:
        check_grant("write", live, "config.set")
    assert (expired.value.data or {})["token"] == "expired"


def test_wrong_secrets_and_shapes_hold_the_floor(store: TokenStore) -> None:
    entry, text = store.issue("x", ["write"])
    wrong = f"vt1_{entry.id}_{'0' * 64}"
    for candidate in (wrong, "vt1_", "vt1_zz", text + "0"):
        held = store.grants_for(candidate)
        assert "write" not in held
        with pytest.raises(VenomError) as info:
            check_grant("write", held, "v")
        assert (info.value.data or {})["token"] == "unknown"


def test_check_token_reads_the_file_afresh(store: TokenStore) -> None:
    _, text = store.issue("b", ["read"])
    assert check_token(text, store.path) == "active"
    store.revoke("b")
    assert check_token(text, store.path) == "revoked"
    _, later = store.issue("c", ["read"], 10)
    assert check_token(later, store.path, now=time.time() + 11) == "expired"
    assert check_token("vt1_" + "0" * 12 + "_" + "0" * 64, store.path) == "unknown"
    assert check_token(42, store.path) == "unknown"


def test_a_store_others_could_write_is_not_trusted(store: TokenStore) -> None:
    _, text = store.issue("m", ["read"])
    os.chmod(store.path, 0o644)
    assert check_token(text, store.path) == "unknown"
    reloaded = TokenStore(store.path)
    assert list(reloaded) == []
    assert reloaded.problem is not None
    assert "mode 644" in reloaded.problem
    os.chmod(store.path, 0o600)
    link = store.path + ".link"
    os.symlink(store.path, link)
    assert check_token(text, link) == "unknown"


def test_list_view_has_no_secret(store: TokenStore) -> None:
    _, text = store.issue("v", ["files"], 60)
    (view,) = [e.describe() for e in store]
    assert set(view) == {"name", "id", "grants", "created", "expires", "state"}
    assert view["grants"] == ["files", "read"]
    assert text not in json.dumps(view)


def test_other_token_texts_hold_the_floor_with_no_reason(store: TokenStore) -> None:
    """Only an issued token's text (``vt1_``) can be unknown; a wrong owner token is not one."""
    held = store.grants_for("0" * 64)
    assert held is PUBLIC_GRANTS
    assert getattr(held, "reason", None) is None


def test_the_store_takes_its_vocabulary_from_the_policy() -> None:
    """The floor is the policy's; the issuable grants match what ``token.issue`` accepts."""
    assert token_store._FLOOR is PUBLIC_GRANTS
    assert set(ISSUABLE_GRANTS) == set(GRANTS) - {"none", "admin"}
    (issue,) = [v for v in load_model(ECHO_MODEL)["verbs"] if v["name"] == "token.issue"]
    (grants,) = [f for f in issue["params"] if f["name"] == "grants"]
    assert grants["summary"].endswith(": " + ", ".join(ISSUABLE_GRANTS))


def test_the_writer_and_the_reader_are_one_module(store: TokenStore) -> None:
    """The store file's one owner writes it (`TokenStore.issue`, `.revoke`) and reads it
    (`check_token`, `TokenStore` at load); a round trip keeps every entry."""
    owners = {TokenStore.issue.__module__, check_token.__module__, store_path.__module__}
    assert owners == {token_store.__name__}
    entry, text = store.issue("round", ["files"], 60)
    again = TokenStore(store.path)
    assert [e.to_record() for e in again] == [entry.to_record()]
    assert check_token(text, store.path) == "active"
