"""Manifests loaded from .zon files, including RFC-0004 §1's echo manifest verbatim."""

from __future__ import annotations

from pathlib import Path

import pytest

from venom_schema.canonical import canonical_json
from venom_schema.manifest import ManifestError, load_manifest
from venom_schema.zon import ZonError

HERE = Path(__file__).parent / "manifests"
ECHO_PRODUCT = Path(__file__).parents[2] / "venom-echo" / "src" / "venom_echo" / "verbs.zon"


def test_rfc_echo_manifest_loads() -> None:
    """RFC-0004 §1: the worked example is a valid manifest."""
    model = load_manifest(HERE / "echo.zon")
    echo = next(v for v in model["verbs"] if v["name"] == "echo")
    assert echo["params"][1]["default"] == "plain"
    assert echo["grant"] == "read"
    assert echo["exit"] == {"kind": "standard"}
    assert len(echo["examples"]) == 2


def test_duplicate_choice_from_file() -> None:
    """RFC-0004 §3: choices are unique; the error names the path."""
    with pytest.raises(ManifestError) as info:
        load_manifest(HERE / "duplicate_choice.zon")
    assert info.value.problems == (
        'verbs[echo].params[style].type.choices: duplicate choice "plain"',
    )
    assert str(info.value).startswith(str(HERE / "duplicate_choice.zon") + ": verbs[echo]")


def test_format_two_reads_nothing_else() -> None:
    """RFC-0004 §7: generators reject unsupported versions rather than partially interpreting."""
    with pytest.raises(ManifestError) as info:
        load_manifest(HERE / "format_two.zon")
    assert info.value.problems == (
        "format: unsupported format integer 2; only format 1 is supported",
    )


def test_every_problem_listed_from_file() -> None:
    """RFC-0004 §2-§4, §7: all problems, in discovery order."""
    with pytest.raises(ManifestError) as info:
        load_manifest(HERE / "many_problems.zon")
    assert info.value.problems == (
        "verbs[run].params[level].type.nullable: not allowed under params (RFC-0004 §3)",
        "verbs[run].grant: expected an enum literal (.none, .read, .write, .respond, .files,"
        ' .spawn, .admin), got string "read"',
        'verbs[run]: missing member "item" (required when streams = true)',
        'verbs[run].exit.field: "status" is not a field of the result',
        'verbs[run].params[json]: param name "json" collides with the global flag --json',
        'verbs[ping]: "ping" is a shared verb of the core bundle; products must not declare it',
    )


def test_empty_tuples_from_file() -> None:
    model = load_manifest(HERE / "empty_tuples.zon", bundles=("core",))
    verbs = {v["name"]: v for v in model["verbs"]}
    assert verbs["noop"]["examples"] == [{"params": {}, "result": {}}]
    assert verbs["list"]["examples"] == [{"params": {}, "result": []}]


def test_syntax_error_is_zon_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.zon"
    bad.write_text(".{ .format = 1,, }")
    with pytest.raises(ZonError):
        load_manifest(bad)


@pytest.mark.skipif(not ECHO_PRODUCT.exists(), reason="venom-echo manifest not present")
def test_venom_echo_product_manifest_is_valid() -> None:
    """The product's verbs.zon passes the validator and serializes canonically."""
    model = load_manifest(ECHO_PRODUCT)
    assert canonical_json(model).startswith(b'{"format":1,"summary":')
