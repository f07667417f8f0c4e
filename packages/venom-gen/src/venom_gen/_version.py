"""The version of venom-gen.

Written from pyproject.toml by `python -m tools.versions`; edit the version there.
"""

VERSION = "0.2.0"
