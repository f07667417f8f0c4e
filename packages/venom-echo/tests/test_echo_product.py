"""venom-echo's product module is plain data: it names its daemon side, imports none of it."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest


def test_declaring_a_product_imports_nothing_it_names() -> None:
    """The product module is on every CLI call's path: naming the handlers costs nothing."""
    code = (
        "import sys\n"
        "from venom_echo.product import PRODUCT\n"
        "assert 'venom_echo.handlers' not in sys.modules\n"
        "assert 'venom_mcp' not in sys.modules\n"
        "assert 'venom_gen.daemon' not in sys.modules\n"
        "assert PRODUCT.local_verb('mcp').__module__ == 'venom_echo._mcp'\n"
        "assert 'venom_mcp' in sys.modules  # only once the verb is resolved\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


@pytest.mark.skipif(
    "VENOM_RELEASE_MODULES" not in os.environ,
    reason="meaningful only with venom-echo's wheel installed alone (nox -s release-check)",
)
def test_installed_alone_the_product_has_no_build_time_dependencies() -> None:
    """What venom-echo installs runs it: venom-gen comes without its dev extra (typer, and
    shellingham with it; click comes with the MCP SDK's own dependencies)."""
    for name in ("typer", "shellingham"):
        assert importlib.util.find_spec(name) is None, f"{name} is installed with venom-echo"
    assert importlib.util.find_spec("venom_gen.build") is not None  # the modules ship, unused
