"""Manifest model and validator (RFC-0004 §§2-4, 7) and the standard bundles.

``load_manifest(path)`` and ``validate_manifest(raw, source=...)`` return the normalized model
of docs/architecture.md with the standard bundles merged; both raise :class:`ManifestError`.
Verbs declared in Python go through the same validator: `venom_schema.declare`. The bundles
are data (``venom_schema/bundles/*.zon``): ``BUNDLES`` (bundle name -> its verbs' wire names)
and ``SHARED_NAMES`` (wire name -> bundle) read them on first use (PEP 562).
"""

from collections.abc import Mapping
from typing import TYPE_CHECKING

from venom_schema.grants import GRANTS
from venom_schema.manifest._bundles import DEFAULT_BUNDLES, bundles_by_name, shared_names
from venom_schema.manifest._errors import ManifestError
from venom_schema.manifest._validate_root import load_manifest, validate_manifest

__all__ = (
    "BUNDLES",
    "DEFAULT_BUNDLES",
    "GRANTS",
    "SHARED_NAMES",
    "ManifestError",
    "load_manifest",
    "validate_manifest",
)

if TYPE_CHECKING:
    #: Bundle name -> the wire names of its verbs, in declaration order.
    BUNDLES: Mapping[str, tuple[str, ...]]
    #: Shared wire name -> the bundle that declares it.
    SHARED_NAMES: Mapping[str, str]


def __getattr__(name: str) -> object:
    # The bundle files are parsed on first use, not when the validator is imported.
    if name == "BUNDLES":
        return bundles_by_name()
    if name == "SHARED_NAMES":
        return shared_names()
    raise AttributeError(f"module 'venom_schema.manifest' has no attribute {name!r}")
