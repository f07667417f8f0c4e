"""The version of venom-notes.

Written from pyproject.toml by `python -m tools.versions`; edit the version there.
"""

VERSION = "0.2.0"
