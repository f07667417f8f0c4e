"""The varlink peer: ``python varlink_server.py SOCK``, the python-varlink threading server.

Interface ``org.example.echo`` (``org.example.echo.varlink`` next to this file) with one method
``Echo(text) -> (text)``, served the way the python-varlink README shows: a ``Service``, a
``RequestHandler`` and a ``ThreadingServer`` (one thread per connection).
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))


def main(path: str) -> None:
    varlink: Any = importlib.import_module("varlink")  # untyped; installed by the peers group
    service = varlink.Service(
        vendor="bench", product="echo", version="1", url="", interface_dir=HERE
    )

    @service.interface("org.example.echo")
    class Echo:
        def Echo(self, text: str) -> dict[str, str]:
            return {"text": text}

    class Handler(varlink.RequestHandler):  # type: ignore[misc]
        pass

    Handler.service = service
    if os.path.exists(path):
        os.unlink(path)
    with varlink.ThreadingServer(f"unix:{path}", Handler) as server:
        server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1])
