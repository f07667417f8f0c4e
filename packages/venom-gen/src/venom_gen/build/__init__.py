"""Build time: the generators, the ``venom-gen`` developer CLI and the product scaffold.

Nothing here runs in a product: a daemon, its CLI and its MCP server import only the run-time
modules of venom-gen (`venom_gen.product`, `.binary`, `.cli`, `.local`, `.daemon`, `.render`),
and the import-linter contract in pyproject.toml keeps it so; the generators take the text
they share with the run time from `venom_gen.render`. The developer CLI needs the
``dev`` extra (``pip install 'venom-gen[dev]'``: typer); the generators need nothing beyond
venom-gen's own dependencies.
"""

__all__: tuple[str, ...] = ()
