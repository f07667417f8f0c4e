"""The agent-contract bundle (RFC-0004 §7) as designed in ``rfcs/0001-shared-verbs.md``.

``serve`` and ``mcp`` are local bootstrap verbs; the rest are ordinary daemon verbs.
"""

from __future__ import annotations

from typing import Final

from venom_schema.manifest._builder import (
    Array,
    Boolean,
    Error,
    ExitResult,
    Field,
    Integer,
    Object,
    String,
    Verb,
)
from venom_schema.manifest._validate_verbs import GRANTS

__all__ = ("AGENT",)

_CHECK = Object(
    [
        Field("name", "Check name, e.g. socket or schema", String(), required=True),
        Field("status", "Outcome", String(choices=["ok", "warn", "fail"]), required=True),
        Field("message", "What was found", String(), required=True),
        Field("hint", "What to do about it; present unless status is ok", String()),
    ]
)
_EXIT = Field(
    "exit", "Exit status: 0, or 1 when the check failed", Integer(min=0, max=1), required=True
)
_PROBLEM = Object(
    [
        Field(
            "key",
            "Dotted key of the offending value; empty for the whole file",
            String(),
            required=True,
        ),
        Field("message", "What is wrong", String(), required=True),
    ]
)
_CONFIG_PATH = Field("path", "Absolute path of the configuration file", String(), required=True)
_ERRORS = Field("errors", "Problems found", Array(_PROBLEM), required=True)
_FAILED_WRITE = Error(
    "failed.write",
    "The file could not be written (full disk, read-only file system, permissions)",
    Object(
        [
            Field("path", "The target file", String(), required=True),
            Field("reason", "The operating system error", String(), required=True),
        ]
    ),
)
_KEY_VALUE = Object(
    [
        Field("key", "The dotted key; empty for the whole configuration", String(), required=True),
        Field("value", "The effective value as compact JSON text", String(), required=True),
    ]
)

#: The agent-contract verbs, in declaration order.
AGENT: Final = (
    Verb(
        name="serve",
        summary="Run the daemon in the foreground until stopped",
        result=Object(),
        errors=[
            Error("conflict.already_running", "Another daemon holds the lock"),
            Error("conflict.not_a_socket", "The socket path exists and is not a socket"),
            Error(
                "failed.config_invalid",
                "The configuration file does not validate",
                Object([_CONFIG_PATH, _ERRORS]),
            ),
        ],
        grant="admin",
        shared="agent",
        dispatch="local",
    ),
    Verb(
        name="mcp",
        summary="Run the MCP stdio adapter for this tool",
        params=[
            Field(
                "max_grant",
                "Expose only verbs needing at most this grant",
                String(choices=list(GRANTS)),
            ),
        ],
        result=Object(),
        grant="none",
        shared="agent",
        dispatch="local",
    ),
    Verb(
        name="skill",
        summary="Print the generated SKILL.md",
        result=Object([Field("content", "The complete SKILL.md text", String(), required=True)]),
        grant="none",
        shared="agent",
    ),
    Verb(
        name="skill.install",
        summary="Write the generated SKILL.md into a directory",
        params=[
            Field("dir", "Absolute target directory; created if missing", String(), required=True),
            Field("force", "Replace a different existing SKILL.md", Boolean(), default=False),
        ],
        result=Object(
            [
                Field("path", "Absolute path of the SKILL.md file", String(), required=True),
                Field(
                    "written",
                    "False when the file already had this content",
                    Boolean(),
                    required=True,
                ),
            ]
        ),
        errors=[
            Error("invalid_params.relative_path", "dir is not an absolute path"),
            Error(
                "invalid_params.path",
                "dir cannot name a file: it contains a NUL character",
                Object([Field("param", "The parameter, dir", String(), required=True)]),
            ),
            Error(
                "conflict.skill_exists",
                "Something other than this SKILL.md is there (another file, a link, a"
                " directory) and force is false",
                Object([Field("path", "The existing file", String(), required=True)]),
            ),
            _FAILED_WRITE,
        ],
        grant="files",
        shared="agent",
    ),
    Verb(
        name="doctor",
        summary="Run health checks and report each with a hint",
        result=Object(
            [
                Field(
                    "status",
                    "Worst status of all checks",
                    String(choices=["ok", "warn", "fail"]),
                    required=True,
                ),
                _EXIT,
                Field("checks", "Checks in the order they ran", Array(_CHECK), required=True),
            ]
        ),
        grant="read",
        exit=ExitResult("exit"),
        shared="agent",
    ),
    Verb(
        name="config.get",
        summary="Read an effective configuration value",
        params=[Field("key", "Dotted key; absent for the whole configuration", String())],
        result=_KEY_VALUE,
        errors=[
            Error(
                "not_found.config_key",
                "The key is not in the configuration schema",
                Object([Field("key", "The key", String(), required=True)]),
            )
        ],
        grant="read",
        shared="agent",
    ),
    Verb(
        name="config.set",
        summary="Set a value in the configuration file and apply it",
        params=[
            Field("key", "Dotted key", String(), required=True),
            Field(
                "value",
                "JSON value; text that is not JSON is taken as a string",
                String(),
                required=True,
            ),
        ],
        result=_KEY_VALUE,
        errors=[
            Error(
                "not_found.config_key",
                "The key is not in the configuration schema",
                Object([Field("key", "The key", String(), required=True)]),
            ),
            Error(
                "invalid_params.config",
                "The file would not validate, could not be read (not a regular file, over"
                " 1 MiB) or the value nests over 64 levels; nothing was written",
                Object([_ERRORS]),
            ),
            _FAILED_WRITE,
        ],
        grant="write",
        shared="agent",
    ),
    Verb(
        name="config.check",
        summary="Validate the configuration file without applying it",
        result=Object(
            [
                _CONFIG_PATH,
                Field("valid", "True when the file validates", Boolean(), required=True),
                _EXIT,
                Field("errors", "Problems found, empty when valid", Array(_PROBLEM), required=True),
            ]
        ),
        grant="read",
        exit=ExitResult("exit"),
        shared="agent",
    ),
    Verb(
        name="config.reload",
        summary="Apply the configuration file, or keep the old one if it is invalid",
        result=Object(
            [
                _CONFIG_PATH,
                Field(
                    "changed",
                    "Dotted keys whose effective value changed",
                    Array(String()),
                    required=True,
                ),
            ]
        ),
        errors=[
            Error(
                "failed.config_invalid",
                "The file does not validate; the old one stays",
                Object([_CONFIG_PATH, _ERRORS]),
            ),
        ],
        grant="write",
        shared="agent",
    ),
    Verb(
        name="config.schema",
        summary="Return the configuration schema as JSON Schema",
        result=Object(
            [Field("schema", "JSON Schema (2020-12) as compact JSON text", String(), required=True)]
        ),
        grant="read",
        shared="agent",
    ),
    # `manifest` (i17): the daemon's own normalized model, so a client or the conformance suite
    # derives its checks from what the daemon declares (rfcs/0001-shared-verbs.md §8).
    Verb(
        name="manifest",
        summary="Return the normalized verb model as canonical JSON text, with its digest",
        result=Object(
            [
                Field(
                    "model",
                    "Canonical JSON text of the normalized model (RFC-0004 §7)",
                    String(),
                    required=True,
                ),
                Field(
                    "digest",
                    "sha256: digest of that text; equals hello's schema",
                    String(),
                    required=True,
                ),
            ]
        ),
        grant="read",
        shared="agent",
    ),
)
