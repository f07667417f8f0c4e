"""Manifest model and validator (RFC-0004 §§2-4, 7), standard bundles and the Python API.

``load_manifest(path)`` and ``validate_manifest(raw, source=...)`` return the normalized model
of docs/architecture.md with the standard bundles merged; both raise :class:`ManifestError`.
"""

from venom_schema.grants import GRANTS
from venom_schema.manifest._builder import (
    MISSING,
    Array,
    Boolean,
    Error,
    Example,
    ExitResult,
    Field,
    Integer,
    Null,
    Number,
    Object,
    String,
    TypeDesc,
    Verb,
)
from venom_schema.manifest._bundles import BUNDLES, DEFAULT_BUNDLES, SHARED_NAMES
from venom_schema.manifest._errors import ManifestError
from venom_schema.manifest._manifest import Manifest
from venom_schema.manifest._validate_root import load_manifest, validate_manifest

__all__ = (
    "BUNDLES",
    "DEFAULT_BUNDLES",
    "GRANTS",
    "MISSING",
    "SHARED_NAMES",
    "Array",
    "Boolean",
    "Error",
    "Example",
    "ExitResult",
    "Field",
    "Integer",
    "Manifest",
    "ManifestError",
    "Null",
    "Number",
    "Object",
    "String",
    "TypeDesc",
    "Verb",
    "load_manifest",
    "validate_manifest",
)
