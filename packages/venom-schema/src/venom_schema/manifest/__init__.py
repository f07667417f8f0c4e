"""Manifest model and validator (RFC-0004 §§2-4, 7), standard bundles and the Python API.

``load_manifest(path)`` and ``validate_manifest(raw, source=...)`` return the normalized model
of docs/architecture.md with the standard bundles merged; both raise :class:`ManifestError`.
The bundles are data (``venom_schema/bundles/*.zon``): ``BUNDLES`` (bundle name -> its verbs'
wire names) and ``SHARED_NAMES`` (wire name -> bundle) read them on first use (PEP 562).
"""

from collections.abc import Mapping

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
from venom_schema.manifest._bundles import DEFAULT_BUNDLES, bundles_by_name, shared_names
from venom_schema.manifest._errors import ManifestError
from venom_schema.manifest._manifest import Manifest
from venom_schema.manifest._validate_root import load_manifest, validate_manifest
from venom_schema.manifest._validate_verbs import GRANTS

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

# Named so mypy treats it as typing.TYPE_CHECKING.
TYPE_CHECKING = False
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
