"""venom-echo's product module is plain data: it names its daemon side, imports none of it."""

from __future__ import annotations

import subprocess
import sys


def test_declaring_a_product_imports_nothing_it_names() -> None:
    """The product module is on every CLI call's path: naming the handlers costs nothing."""
    code = (
        "import sys\n"
        "from venom_echo.product import PRODUCT\n"
        "assert 'venom_echo.handlers' not in sys.modules\n"
        "assert 'venom_mcp' not in sys.modules\n"
        "assert 'venom_gen.daemon' not in sys.modules\n"
        "assert PRODUCT.local_verb('mcp').__module__.startswith('venom_mcp')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
