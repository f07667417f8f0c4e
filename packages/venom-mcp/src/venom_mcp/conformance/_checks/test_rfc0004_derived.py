"""RFC-0004 checks generated from the target's own model: one set per declared verb and param.

Nothing here names a product verb: the cases come from ``manifest`` (or ``--model``), so the same
module holds any daemon to its own declaration.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from venom_mcp.conformance._kit import TIMEOUT, Daemon, exchange, not_applicable
from venom_mcp.conformance._model import (
    TargetModel,
    bad_values,
    cli_text,
    cli_words,
    current,
    digest,
    flag,
    malformed_cli,
    mcp_name,
    object_schema,
    output_schema,
    valid_value,
)

# --- the cases, from the model ------------------------------------------------------------------


def _required(verb: dict[str, Any]) -> dict[str, Any]:
    return {p["name"]: valid_value(p["type"]) for p in verb.get("params", []) if p.get("required")}


def validation_cases(verb: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], str, str]]:
    """(label, params, expected code, expected data.param) from each param's descriptor."""
    base = _required(verb)
    for p in verb.get("params", []):
        name = p["name"]
        if p.get("required"):
            params = dict(base)
            del params[name]
            yield f"missing-{name}", params, "invalid_params.missing", name
        for label, value, suffix in bad_values(p["type"]):
            yield f"{label}-{name}", {**base, name: value}, f"invalid_params.{suffix}", name
        kind = p["type"]["kind"]
        if kind == "object":
            inner = {**valid_value(p["type"]), "zz_unknown": 1}
            yield (
                f"unknown-in-{name}",
                {**base, name: inner},
                "invalid_params.unknown",
                (f"{name}.zz_unknown"),
            )
        if kind == "array":
            items = p["type"]["items"]
            bad = {"string": 1}.get(items["kind"], "x")
            yield (
                f"item-{name}",
                {**base, name: [valid_value(items), bad]},
                ("invalid_params.type"),
                f"{name}.1",
            )
    yield "unknown", {**base, "zz_unknown": 1}, "invalid_params.unknown", "zz_unknown"


def usage_cases(verb: dict[str, Any]) -> Iterator[tuple[str, list[str]]]:
    """(label, argv after the command words) that RFC-0004 §4 makes usage errors (exit 2)."""
    base: list[str] = []
    for name, value in _required(verb).items():
        base.append(f"{flag(name)}={cli_text(value)}")
    yield "unknown-flag", [*base, "--zz-not-a-param=1"]
    yield "dash-dash-token", [*base, "--", "extra"]
    params = verb.get("params", [])
    if params:
        p = params[0]
        value = f"{flag(p['name'])}={cli_text(valid_value(p['type']))}"
        rest = [a for a in base if not a.startswith(flag(p["name"]) + "=")]
        yield f"repeated-{p['name']}", [*rest, value, value]
    for p in params:
        bad = malformed_cli(p["type"])
        if bad is not None:
            rest = [a for a in base if not a.startswith(flag(p["name"]) + "=")]
            yield f"malformed-{p['name']}", [*rest, f"{flag(p['name'])}={bad}"]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    m = current()
    names = metafunc.fixturenames
    if "cli_verb" in names:
        verbs = m.cli_verbs()
        metafunc.parametrize("cli_verb", verbs, ids=[v["name"] for v in verbs])
    if "usage" in names:
        cases = [(v, argv) for v in m.daemon_verbs() for _, argv in usage_cases(v)]
        ids = [f"{v['name']}-{label}" for v in m.daemon_verbs() for label, _ in usage_cases(v)]
        metafunc.parametrize("usage", cases, ids=ids)
    if "validation" in names:
        vcases = [(v, *c[1:]) for v in m.product_verbs() for c in validation_cases(v)]
        ids = [f"{v['name']}-{c[0]}" for v in m.product_verbs() for c in validation_cases(v)]
        metafunc.parametrize("validation", vcases, ids=ids)
    if "mcp_verb" in names:
        verbs = m.mcp_verbs()
        metafunc.parametrize("mcp_verb", verbs, ids=[v["name"] for v in verbs])


# --- RFC-0004 §7: the digest ---------------------------------------------------------------------


@pytest.mark.rfc("RFC-0004 §7")
def test_digest_is_recomputed_from_the_model(daemon: Daemon, model: TargetModel) -> None:
    """RFC-0004 §7: hello.schema is sha256 over the suite's own canonical JSON of the model."""
    hello = json.loads(exchange(daemon, b'{"id":1,"verb":"hello","params":{"proto":[1]}}')[0])
    schema = hello["ok"].get("schema")
    if schema is None:
        not_applicable("the daemon advertises no schema digest (optional)")
    assert digest(model.raw) == schema
    assert [v["name"] for v in model.raw["verbs"]] == sorted(v["name"] for v in model.raw["verbs"])


def _descriptors(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        if "kind" in value:
            yield value
        for v in value.values():
            yield from _descriptors(v)
    elif isinstance(value, list):
        for v in value:
            yield from _descriptors(v)


@pytest.mark.rfc("RFC-0004 §7")
def test_model_is_normalized(model: TargetModel) -> None:
    """RFC-0004 §7: defaults expanded, verbs sorted, nullable present only when true."""
    for verb in model.raw["verbs"]:
        for member in ("params", "errors", "streams", "exit", "examples", "grant", "result"):
            assert member in verb, (verb["name"], member)
        for p in verb["params"]:
            assert isinstance(p.get("required"), bool), (verb["name"], p["name"])
    assert all(d.get("nullable", True) is True for d in _descriptors(model.raw["verbs"]))


# --- RFC-0004 §4: the CLI ------------------------------------------------------------------------


@pytest.mark.rfc("RFC-0004 §4")
def test_cli_spellings_and_help(daemon: Daemon, cli_verb: dict[str, Any]) -> None:
    """RFC-0004 §4: the spaced and the dotted spelling reach one command; --help --json wraps it."""
    wire = cli_verb["name"]
    spaced = daemon.cli(*cli_words(wire), "--help")
    assert spaced.returncode == 0, spaced.stderr
    assert spaced.stdout.strip()
    if "." in wire or "_" in wire:
        dotted = daemon.cli(wire, "--help")
        assert dotted.returncode == 0, dotted.stderr
        assert dotted.stdout == spaced.stdout
    wrapped = daemon.cli(*cli_words(wire), "--help", "--json")
    assert wrapped.returncode == 0, wrapped.stderr
    assert json.loads(wrapped.stdout) == {"help": spaced.stdout.rstrip("\n")} or json.loads(
        wrapped.stdout
    ) == {"help": spaced.stdout}
    for p in cli_verb.get("params", []):
        assert flag(p["name"]) in spaced.stdout


@pytest.mark.rfc("RFC-0004 §4")
def test_usage_errors_exit_2_with_the_json_wrapper(
    daemon: Daemon, usage: tuple[dict[str, Any], list[str]]
) -> None:
    """RFC-0004 §4: unknown and repeated flags, a token after --, a malformed value: exit 2."""
    verb, argv = usage
    r = daemon.cli("--json", *cli_words(verb["name"]), *argv)  # before --, which ends options
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert json.loads(r.stdout)["error"]["code"].startswith("invalid_params")


# --- RFC-0004 §3: validation at the daemon -------------------------------------------------------


@pytest.mark.rfc("RFC-0004 §3")
def test_daemon_validates_params(
    daemon: Daemon, validation: tuple[dict[str, Any], dict[str, Any], str, str]
) -> None:
    """RFC-0004 §3: missing, wrong type, out of range or choice, unknown: code and data.param."""
    verb, params, code, param = validation
    line = json.dumps({"id": 2, "verb": verb["name"], "params": params}).encode()
    with daemon.connect() as c:
        c.send_lines(daemon.owner_hello(), line)
        c.until_id(0)
        reply = c.until_id(2)[-1]
    if reply.get("error", {}).get("code") == "denied.grant":
        not_applicable(f"the suite holds no {verb['grant']} grant (--auth)")
    assert reply.get("error", {}).get("code") == code, reply
    assert reply["error"].get("data", {}).get("param") == param


# --- RFC-0004 §5: MCP ----------------------------------------------------------------------------


def _mcp(d: Daemon, job: Any) -> Any:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def main() -> Any:
        params = StdioServerParameters(
            command=d.target.cli[0], args=[*d.target.cli[1:], "mcp"], env=d.env
        )
        with anyio.fail_after(TIMEOUT * 3):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                return await job(s)

    return anyio.run(main)


@pytest.fixture(scope="module")
def mcp_tools(daemon: Daemon) -> dict[str, dict[str, Any]]:
    async def job(s: Any) -> dict[str, dict[str, Any]]:
        listed = await s.list_tools()
        return {t.name: t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools}

    result: dict[str, dict[str, Any]] = _mcp(daemon, job)
    return result


@pytest.mark.rfc("RFC-0004 §5")
def test_mcp_catalog_has_exactly_the_remote_verbs(
    model: TargetModel, mcp_tools: dict[str, dict[str, Any]]
) -> None:
    """RFC-0004 §5/§7: every daemon verb is a tool by its encoded name; local and core are not."""
    assert sorted(mcp_tools) == sorted(mcp_name(v["name"]) for v in model.mcp_verbs())


@pytest.mark.rfc("RFC-0004 §5")
def test_mcp_catalog_entry_is_derived(
    mcp_verb: dict[str, Any], mcp_tools: dict[str, dict[str, Any]]
) -> None:
    """RFC-0004 §5: description from summary, inputSchema from params, the wrapped output."""
    tool = mcp_tools.get(mcp_name(mcp_verb["name"]))
    assert tool is not None
    assert tool["description"].startswith(mcp_verb["summary"])
    if mcp_verb.get("streams"):
        assert "1024" in tool["description"]  # the limits MUST appear in the description
    assert tool["inputSchema"] == object_schema(mcp_verb.get("params", []))
    assert tool["outputSchema"] == output_schema(mcp_verb)


@pytest.mark.rfc("RFC-0004 §5")
def test_mcp_validates_params_with_the_daemons_codes(daemon: Daemon, model: TargetModel) -> None:
    """RFC-0004 §3/§5: a bad argument is isError with the Venom code verbatim, for every case."""
    cases = [(v, *c[1:]) for v in model.product_verbs() for c in validation_cases(v)]
    if not cases:
        not_applicable("the model declares no params")

    async def job(s: Any) -> list[tuple[str, str, Any]]:
        got: list[tuple[str, str, Any]] = []
        for verb, params, code, _ in cases:
            r = (await s.call_tool(mcp_name(verb["name"]), params)).model_dump(by_alias=True)
            text = r["content"][0]["text"] if r["isError"] and r["content"] else "{}"
            err = json.loads(text).get("error", {}).get("code")
            got.append((verb["name"], code, err))
        return got

    results = _mcp(daemon, job)
    # The grant is checked before params (RFC-0004 §2): a denied verb shows nothing of them.
    checked = [r for r in results if r[2] != "denied.grant"]
    if not checked:
        not_applicable("the adapter holds no grant for any verb with params")
    wrong = [(name, want, got) for name, want, got in checked if want != got]
    assert not wrong
