"""A daemon running an older schema, explained (rfcs/0004 D-S49): the real CLI of a newer
build against a real daemon of an older one. An ``unsupported`` or ``invalid_params`` error
gets a one-line hint on stderr; ``--json`` keeps the exact RFC payload; ``doctor`` prints the
compat summary between the two models."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator

import pytest

from venom_gen.cli._call import drift_hint
from venom_gen.testing import DaemonProcess, PrivateDirs, product_command
from venom_proto import VenomError
from venom_schema.model_cache import compile_model

OLD = """\
.{
    .format = 1,
    .tool = "venom-drift",
    .summary = "Schema drift, on purpose",
    .verbs = .{
        .{
            .name = "kv.get",
            .summary = "Read a key",
            .params = .{ .{ .name = "key", .summary = "Key", .type = .{ .kind = .string } } },
            .result = .{ .kind = .string },
            .grant = .read,
        },
    },
}
"""
#: The newer build: an optional param on kv.get and a new verb kv.count.
NEW = OLD.replace(
    '.{ .name = "key", .summary = "Key", .type = .{ .kind = .string } } },',
    """.{ .name = "key", .summary = "Key", .type = .{ .kind = .string } },
                .{ .name = "exact", .summary = "Exact", .type = .{ .kind = .boolean } },
            },""",
).replace(
    "    },\n}\n",
    """        .{ .name = "kv.count", .summary = "Count keys", .result = .{ .kind = .integer },
           .grant = .read },
    },
}
""",
)

#: Both builds as products; only the old one serves, so only kv.get has a handler.
PRODUCTS = """\
from venom_gen import Product

def handlers(app):
    return {"kv.get": lambda call, params: "v"}

OLD = Product(tool="venom-drift", version="1.0.0", model_path=OLD_MODEL, handlers="drift:handlers")
NEW = Product(tool="venom-drift", version="1.1.0", model_path=NEW_MODEL, handlers="drift:handlers")
"""


@pytest.fixture
def old_daemon(venom_dirs: PrivateDirs) -> Iterator[DaemonProcess]:
    """The old build serving; its ``command`` is the new build's CLI."""
    root = venom_dirs.root / "drift"
    root.mkdir()
    for name, text in (("old", OLD), ("new", NEW)):
        (root / f"{name}.zon").write_text(text, encoding="utf-8")
        compile_model(root / f"{name}.zon")
    source = PRODUCTS
    for name in ("old", "new"):
        source = source.replace(f"{name.upper()}_MODEL", repr(str(root / f"{name}.model.json")))
    (root / "drift.py").write_text(source, encoding="utf-8")
    path = os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH")) if p)
    with DaemonProcess(
        "drift:OLD",
        tool="venom-drift",
        dirs=venom_dirs,
        env={**os.environ, "PYTHONPATH": path},
        command=product_command("drift:NEW"),
        argv=[*product_command("drift:OLD"), "serve"],
    ) as daemon:
        yield daemon


HINT = re.compile(
    r"hint: the daemon runs schema sha256:[0-9a-f]{12}, this CLI was built for"
    r" sha256:[0-9a-f]{12}: restart the daemon to serve this build, or upgrade the CLI"
    r" \('venom-drift doctor' compares them\)"
)


def test_an_unknown_verb_from_an_older_daemon_gets_the_hint(old_daemon: DaemonProcess) -> None:
    run = old_daemon.cli("kv.count")
    assert run.returncode == 10
    first, hint = run.stderr.splitlines()
    assert first == "venom-drift: unknown verb 'kv.count'"
    assert HINT.fullmatch(hint), hint
    assert run.stdout == ""


def test_an_unknown_param_gets_the_hint(old_daemon: DaemonProcess) -> None:
    run = old_daemon.cli("kv.get", "--key", "k", "--exact=true")
    assert run.returncode == 2
    assert run.stderr.splitlines()[0].startswith("venom-drift: ")
    assert HINT.fullmatch(run.stderr.splitlines()[1])


def test_json_keeps_the_exact_rfc_payload(old_daemon: DaemonProcess) -> None:
    run = old_daemon.cli("kv.count", "--json")
    assert run.returncode == 10
    assert json.loads(run.stdout) == {
        "error": {
            "code": "unsupported.verb",
            "message": "unknown verb 'kv.count'",
            "data": {"verb": "kv.count"},
        }
    }
    assert run.stderr == ""


def test_a_call_that_works_gets_no_hint(old_daemon: DaemonProcess) -> None:
    run = old_daemon.cli("kv.get", "--key", "k")
    assert (run.returncode, run.stdout, run.stderr) == (0, "v\n", "")


def test_doctor_prints_the_compat_summary(old_daemon: DaemonProcess) -> None:
    run = old_daemon.cli("doctor", "--json")
    checks = {c["name"]: c for c in json.loads(run.stdout)["checks"]}
    assert checks["schema"]["status"] == "warn"
    compat = checks["compat"]
    assert compat["status"] == "warn"
    assert compat["message"].startswith(
        "the daemon lacks kv.count; this CLI lacks none; breaking for this CLI: 2 change(s),"
        " first breaking: kv.count: verb removed (or renamed)"
    )
    assert "restart the daemon" in compat["hint"]
    human = old_daemon.cli("doctor").stdout
    assert "compat" in human
    assert "the daemon lacks kv.count" in human


@pytest.mark.parametrize(
    ("code", "daemon", "own", "hinted"),
    [
        ("unsupported.verb", "sha256:a", "sha256:b", True),
        ("invalid_params.unknown", "sha256:a", "sha256:b", True),
        ("unsupported.verb", "sha256:a", "sha256:a", False),
        ("unsupported.verb", None, "sha256:b", False),
        ("failed", "sha256:a", "sha256:b", False),
        ("denied.grant", "sha256:a", "sha256:b", False),
    ],
)
def test_the_hint_only_for_drift_and_those_classes(
    code: str, daemon: str | None, own: str, hinted: bool
) -> None:
    hint = drift_hint(VenomError(code, "x"), daemon, own, "t")
    assert (hint is not None) is hinted
