"""Shell completion scripts for bash, zsh and fish, all from one command tree (RFC-0004 §6).

The scripts never contact the daemon or run handlers: they complete command tokens (canonical
and dotted), options, enum values and boolean literals from tables generated into the script,
and files only for ``--socket``.
"""

from __future__ import annotations

from venom_gen.build.completions.bash import render_bash
from venom_gen.build.completions.fish import render_fish
from venom_gen.build.completions.zsh import render_zsh

__all__ = ("render_bash", "render_fish", "render_zsh")
