"""The renderers that run time and build time share: text and JSON made from the normalized model.

`venom_gen.render.catalog` is the MCP catalog (the adapter's ``tools/list``), `.skill` the
SKILL.md (the daemon's ``skill`` verbs) and `.service` the systemd units and launchd plist
(``<tool> service install``); the generators under `venom_gen.build` write the same text to
files. Their private helpers (escaping, type rendering, the model's text views) serve CLI help
and the generators too. This package imports none of its modules, so a caller loads only what
it renders.
"""

__all__: tuple[str, ...] = ()
