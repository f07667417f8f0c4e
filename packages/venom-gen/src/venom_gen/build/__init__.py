"""Build time: the generators, the ``venom-gen`` developer CLI and the product scaffold.

Nothing here runs in a product: a daemon, its CLI and its MCP server import only the run-time
modules of venom-gen (`venom_gen.product`, `.binary`, `.cli`, `.daemon`, `.catalog`, `.skill`),
and the import-linter contract in pyproject.toml keeps it so. The developer CLI needs the
``dev`` extra (``pip install 'venom-gen[dev]'``: typer); the generators need nothing beyond
venom-gen's own dependencies.
"""

__all__: tuple[str, ...] = ()
