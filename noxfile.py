"""Nox sessions: per-package tests, lint, types, integration, conformance, bench."""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = [
    "tests",
    "lint",
    "types",
    "isolation",
    "integration",
    "conformance",
    "release-check",
    "docs",
]

PACKAGES = ("venom-proto", "venom-schema", "venom-gen", "venom-mcp", "venom-echo")
EXAMPLES = ("venom-notes",)
PYTHON = "3.11"


def sync(session: nox.Session, *args: str) -> None:
    """Install the locked workspace (or part of it) into the session's venv."""
    env = {"UV_PROJECT_ENVIRONMENT": session.virtualenv.location}
    session.run_install("uv", "sync", "--locked", *args, env=env, external=True)


def pytest(session: nox.Session, *paths: str) -> None:
    args = session.posargs or []
    session.run("pytest", *paths, *args)


@nox.session(python=PYTHON)
@nox.parametrize("package", PACKAGES)
def test(session: nox.Session, package: str) -> None:
    """One package's own tests, in the full workspace environment."""
    sync(session, "--all-packages")
    pytest(session, f"packages/{package}/tests")


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """Every package's tests plus the workspace tests, in one run."""
    sync(session, "--all-packages")
    pytest(
        session,
        "tests",
        "--ignore=tests/integration",
        "--ignore=tests/conformance",
        "--ignore=tests/mcp_conformance",
        *(f"packages/{p}/tests" for p in PACKAGES),
        *(f"examples/{e}/tests" for e in EXAMPLES),
    )


def release_check_run(session: nox.Session, *args: str) -> None:
    """``python -m tools.release_check ARGS`` with the release tools of the lock."""
    sync(session, "--only-group", "release")
    # Beside the session's venv (.nox/), so each checkout has its own; not session.create_tmp(),
    # which would point TMPDIR, and so every test's tmp_path, into the checkout.
    out = Path(session.virtualenv.location).resolve().parent / f"{session.name}.scratch"
    session.run(
        "python", "-m", "tools.release_check", "--out", str(out), *args,
        *(["--", *session.posargs] if session.posargs else []),
        env={"PYTHONPATH": os.getcwd()},
    )  # fmt: skip


@nox.session(python=PYTHON)
def isolation(session: nox.Session) -> None:
    """venom-proto's built wheel, installed alone (not editable), passes venom-proto's tests."""
    release_check_run(session, "--package", "venom-proto", "--no-lowest")


@nox.session(name="release-check", python=PYTHON)
def release_check(session: nox.Session) -> None:
    """Every package's API against its snapshot (api/), each built, its metadata checked, its
    wheel tested alone and at lowest versions.

    ``-- ARGS`` go to each package's pytest run; ``python -m tools.release_check --help``
    chooses packages (see docs/releasing.md).
    """
    release_check_run(session)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check over the whole tree."""
    sync(session, "--all-packages")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python=PYTHON)
def types(session: nox.Session) -> None:
    """mypy --strict over every package, its tests, the benches and this noxfile."""
    sync(session, "--all-packages")
    session.run("mypy", "noxfile.py", "bench", "tools", *(f"packages/{p}/src" for p in PACKAGES))
    # One run per test tree: each has its own conftest module.
    tests = [str(p) for p in Path("tests").glob("*.py")]
    for target in (
        tests,
        *([f"tests/{d}"] for d in ("conformance", "integration", "fuzz", "soak", "remote")),
        ["tests/mcp_conformance"],
    ):
        session.run("mypy", *target)
    for package in PACKAGES:
        session.run("mypy", f"packages/{package}/tests")
    for example in EXAMPLES:
        session.run("mypy", f"examples/{example}/src", f"examples/{example}/tests")


@nox.session(python=PYTHON)
def docs(session: nox.Session) -> None:
    """The documentation site with the API reference, built with every warning an error."""
    sync(session, "--all-packages", "--group", "docs")
    env = {"PYTHONPATH": os.getcwd(), "NO_MKDOCS_2_WARNING": "1"}
    session.run("python", "-m", "tools.api_pages", "--check", env=env)
    session.run("mkdocs", "build", "--strict", "--site-dir", "build/site", env=env)
    session.run("python", "-m", "tools.api_pages", "--verify-site", "build/site", env=env)


@nox.session(python=PYTHON)
def integration(session: nox.Session) -> None:
    """Boot venom-echo for real and drive it over the socket, the CLI and MCP."""
    sync(session, "--all-packages")
    pytest(session, "tests/integration")


@nox.session(python=PYTHON)
def conformance(session: nox.Session) -> None:
    """The black-box RFC conformance suite as shipped (`venom-conformance`, venom-mcp's
    `conformance` extra); `-- --cli CMD [--daemon CMD]` checks another daemon.

    Without options it checks venom-echo, then venom-notes, each writing its summary per RFC
    section to `.nox/conformance-TOOL.json`.
    """
    sync(session, "--all-packages")
    if session.posargs:
        session.run("venom-conformance", *session.posargs)
        return
    for cli, generated in (
        ("venom-echo", "packages/venom-echo/src/venom_echo/generated"),
        ("venom-notes", "examples/venom-notes/src/venom_notes/generated"),
    ):
        report = Path(session.virtualenv.location).resolve().parent / f"conformance-{cli}.json"
        session.run(
            "venom-conformance", "--cli", cli, "--generated", generated,
            "--report-json", str(report),
        )  # fmt: skip


@nox.session(name="mcp-conformance", python=PYTHON)
def mcp_conformance(session: nox.Session) -> None:
    """The official MCP conformance suite's applicable scenarios against ``venom-echo mcp``.

    Not in the default set: the suite (npm) is installed on first use, from the network.
    """
    sync(session, "--all-packages")
    pytest(session, "tests/mcp_conformance", "-p", "no:cacheprovider")


MUTANTS = (
    "socket_env_ignored",
    "digest_not_rfc",
    "cli_skips_runtime_dir_check",
    "stream_two_finals",
    "stream_item_after_final",
    "max_frame_not_applied_in",
    "max_frame_not_applied_to_results",
    "no_close_at_shutdown",
    "mcp_no_upstream_cancel",
    "mcp_no_default_insertion",
    "cli_repeated_flag_last_wins",
    "mcp_catalog_drops_defaults",
    "caps_not_intersected",
    "max_frame_not_applied_in_binary",
    "foreign_uid_served",
    "mcp_unknown_tool_is_tool_error",
    "cli_stream_json_prints_final_ok",
)


#: The survivors of issue 28 (rules every daemon keeps), also run on a freshly scaffolded daemon.
ANY_DAEMON_MUTANTS = (
    "caps_not_intersected",
    "max_frame_not_applied_in_binary",
    "foreign_uid_served",
    "mcp_unknown_tool_is_tool_error",
    "cli_stream_json_prints_final_ok",
)


@nox.session(python=PYTHON)
def mutation(session: nox.Session) -> None:
    """The conformance suite against deliberately broken daemons; prints the kill ratio.

    Each mutant (tests/conformance/mutants/sitecustomize.py) breaks one MUST of venom-echo,
    venom-notes or a daemon `venom-gen new` scaffolds here (the any-daemon mutants) at run time;
    a mutant is killed when the shipped suite (`venom-conformance`) fails against it.
    """
    sync(session, "--all-packages")
    mutants = session.posargs or MUTANTS
    scratch = Path(session.virtualenv.location).resolve().parent / "mutation.scratch"
    shutil.rmtree(scratch, ignore_errors=True)
    session.run(
        "venom-gen", "new", "venom-kv", "--dest", str(scratch / "venom-kv"), "--standalone",
        silent=True,
    )  # fmt: skip
    python = str(Path(session.virtualenv.location) / "bin" / "python")
    scaffolded = ["--cli", shlex.join([python, "-m", "venom_kv"]), "--tool", "venom-kv"]
    targets = (
        ("venom-echo", ["--cli", "venom-echo"], "", mutants),
        ("venom-notes", ["--cli", "venom-notes"], "", mutants),
        ("venom-kv", scaffolded, f"{scratch / 'venom-kv' / 'src'}{os.pathsep}",
         [m for m in mutants if m in ANY_DAEMON_MUTANTS]),
    )  # fmt: skip
    survivors: list[str] = []
    runs = 0
    for name, target, path, chosen in targets:
        for mutant in chosen:
            runs += 1
            env = {"PYTHONPATH": f"{path}tests/conformance/mutants", "VENOM_MUTANT": mutant}
            out = session.run(
                "venom-conformance", *target, "-x", "-q", "-rf",
                env=env, silent=True, success_codes=[0, 1, 2, 3, 4],
            )  # fmt: skip
            lines = str(out).splitlines()
            failed = [line.split()[1] for line in lines if line.startswith("FAILED ")]
            if failed:
                session.log(f"killed: {name} / {mutant} by {failed[0]}")
            else:
                # A mutant that broke start-up, or that no check caught, is no kill.
                survivors.append(f"{name} / {mutant}")
                session.log(f"SURVIVED: {name} / {mutant}: {lines[-1:]}")
    session.log(f"mutation: {runs - len(survivors)} of {runs} mutants killed")
    if survivors:
        session.error("survived: " + ", ".join(survivors))


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Benchmarks against baselines started in the same run; prints ratios."""
    sync(session, "--all-packages")
    session.run("python", "-m", "bench", *session.posargs, env={"PYTHONPATH": os.getcwd()})


@nox.session(python=PYTHON)
def fuzz(session: nox.Session) -> None:
    """Every fuzzer, long: FUZZ_EXAMPLES inputs in total (default 1,000,000; CI runs 100,000)."""
    sync(session, "--all-packages")
    n = os.environ.get("FUZZ_EXAMPLES", "1000000")
    session.run(
        "pytest", "tests/fuzz", "-q", "--timeout=1800", *session.posargs,
        env={"FUZZ_EXAMPLES": n},
    )  # fmt: skip


@nox.session(python=PYTHON)
def soak(session: nox.Session) -> None:
    """Load and fault scenarios at full size against a real venom-echo (tmpfs needs root)."""
    sync(session, "--all-packages")
    session.run(
        "pytest", "tests/soak", "-q", "--timeout=900", *session.posargs,
        env={"SOAK_SCALE": "full"},
    )  # fmt: skip


@nox.session(python=PYTHON)
def generate(session: nox.Session) -> None:
    """Regenerate every derived file of venom-echo and venom-notes (`venom-gen generate`), the
    version modules and the man-page links (`-- --check` compares instead)."""
    sync(session, "--all-packages")
    session.run("python", "-m", "tools.versions", *session.posargs, env={"PYTHONPATH": os.getcwd()})
    # Each product names its declaration or manifest in [tool.venom]; one command remakes (or,
    # with --check, compares) every file derived from it.
    for product in ("packages/venom-echo", "examples/venom-notes"):
        session.run("venom-gen", "generate", "--project", product, *session.posargs)
    # The wheels' man pages (share/man/man1, for `man` in a venv: rfcs/0001 §10) are links to
    # the generated ones, so each page is committed once.
    session.run(
        "python", "-m", "tools.man_links", *session.posargs, env={"PYTHONPATH": os.getcwd()}
    )


@nox.session(python=PYTHON)
def dist(session: nox.Session) -> None:
    """Every package's wheel (the five and venom-notes) into dist/, built as released
    (`--no-sources`): a find-links directory for `uv tool install --find-links dist venom-echo`
    and for standalone projects (docs/releasing.md)."""
    out = Path(session.posargs[0] if session.posargs else "dist")
    session.run(
        "uv", "build", "--all-packages", "--no-sources", "--wheel", "--out-dir", str(out),
        external=True,
    )  # fmt: skip
    session.log(
        f"wheels in {out.resolve()}: " + " ".join(sorted(p.name for p in out.glob("*.whl")))
    )


@nox.session(name="bench-peers", python=PYTHON)
def bench_peers(session: nox.Session) -> None:
    """venom-echo vs gRPC, varlink, JSON-RPC, the MCP SDK server and socat (needs socat)."""
    sync(session, "--all-packages", "--group", "peers")
    session.run("python", "-m", "bench.bench_peers", env={"PYTHONPATH": os.getcwd()})


@nox.session(name="bench-remote", python=PYTHON)
def bench_remote(session: nox.Session) -> None:
    """The same client on the local socket and through ssh + bridge (needs OpenSSH), one run."""
    sync(session, "--all-packages")
    session.run("python", "-m", "bench.bench_remote", env={"PYTHONPATH": os.getcwd()})


@nox.session(name="zon-oracle", python=PYTHON)
def zon_oracle(session: nox.Session) -> None:
    """Compare the ZON reader with the real Zig compiler on a corpus plus generated inputs."""
    sync(session, "--all-packages", "--group", "oracle")
    pytest(session, "packages/venom-schema/tests/oracle", "-p", "no:cacheprovider")
