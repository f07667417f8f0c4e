"""The agent-contract bundle (RFC-0004 §7) as designed in ``rfcs/0001-shared-verbs.md``.

``serve`` and ``mcp`` are local bootstrap verbs, ``completion.*``, ``man`` and ``man.install``
local commands for the user's shell; the rest are ordinary daemon verbs.
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
_NOT_GENERATED = Error(
    "failed.not_generated",
    "The product was built without this generated file (run venom-gen all)",
    Object([Field("path", "Where the file was looked for", String(), required=True)]),
)
_KEY_VALUE = Object(
    [
        Field("key", "The dotted key; empty for the whole configuration", String(), required=True),
        Field("value", "The effective value as compact JSON text", String(), required=True),
    ]
)

# The issued-token verbs' shared pieces (rfcs/0005 §7).
_ISSUABLE = ("read", "write", "respond", "files", "spawn")
_TOKEN_NAME = Object([Field("name", "The token name", String(), required=True)])
_TOKEN_FIELDS = (
    Field("name", "The token's name", String(), required=True),
    Field("id", "The token's public id, part of its text", String(), required=True),
    Field("grants", "Grants it holds besides none", Array(String()), required=True),
    Field("created", "When it was issued (RFC 3339 UTC)", String(), required=True),
    Field("expires", "When it expires (RFC 3339 UTC); absent: never", String()),
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
        name="mcp.config",
        summary="Print the MCP host configuration entry for this tool, or merge it into a file",
        params=[
            Field(
                "format",
                "mcpServers (Claude Desktop, Claude Code's .mcp.json, Cursor) or vscode"
                " (VS Code's servers)",
                String(choices=["mcpServers", "vscode"]),
                default="mcpServers",
            ),
            Field(
                "max_grant",
                "The --max-grant the host starts the adapter with",
                String(choices=list(GRANTS)),
            ),
            Field("name", "The server's name in the configuration; default the tool", String()),
            Field(
                "write",
                "Merge the entry into this JSON file, keeping every other entry",
                String(),
            ),
        ],
        result=Object(
            [
                Field(
                    "config",
                    "The configuration document with this one server, as JSON text",
                    String(),
                    required=True,
                ),
                Field("path", "The file written, with --write", String()),
            ]
        ),
        errors=[
            Error(
                "invalid_params.config_file",
                "The file to merge into is not a JSON object with an object of servers",
                Object(
                    [
                        Field("path", "The file", String(), required=True),
                        Field("reason", "What is wrong with it", String(), required=True),
                    ]
                ),
            ),
            _FAILED_WRITE,
        ],
        grant="files",
        shared="agent",
        dispatch="local",
    ),
    Verb(
        name="service.install",
        summary="Install the systemd user units (or launchd agent) that start the daemon",
        params=[
            Field(
                "manager",
                "systemd or launchd; default launchd on macOS, else systemd",
                String(choices=["systemd", "launchd"]),
            ),
            Field(
                "dir",
                "Absolute target directory; default ~/.config/systemd/user or"
                " ~/Library/LaunchAgents",
                String(),
            ),
            Field("force", "Replace different existing files", Boolean(), default=False),
        ],
        result=Object(
            [
                Field("paths", "The files, absolute", Array(String()), required=True),
                Field(
                    "written",
                    "False when every file already had this content",
                    Boolean(),
                    required=True,
                ),
                Field("next", "The command that starts it", String(), required=True),
            ]
        ),
        errors=[
            Error("invalid_params.relative_path", "dir is not an absolute path"),
            Error(
                "conflict.service_exists",
                "A different file is there and force is false",
                Object([Field("path", "The existing file", String(), required=True)]),
            ),
            _FAILED_WRITE,
        ],
        grant="files",
        shared="agent",
        dispatch="local",
    ),
    Verb(
        name="shutdown",
        summary="Stop the daemon cleanly, as SIGTERM does",
        result=Object(
            [
                Field(
                    "pid",
                    "The daemon's process id; it exits once its shutdown sequence ends",
                    Integer(min=1),
                    required=True,
                ),
            ]
        ),
        grant="admin",
        shared="agent",
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
    # Local commands for the user's shell and man (rfcs/0001 §9, §10).
    *(
        Verb(
            name=f"completion.{shell}",
            summary=f"Print the {shell} completion script",
            result=Object([Field("content", "The script", String(), required=True)]),
            errors=[_NOT_GENERATED],
            grant="none",
            shared="agent",
            dispatch="local",
        )
        for shell in ("bash", "zsh", "fish")
    ),
    Verb(
        name="man",
        summary="Print a man page (roff); on a terminal, show it with man",
        params=[
            Field(
                "page",
                "The page, e.g. the tool name plus -config-get; default the tool's own page",
                String(),
            ),
        ],
        result=Object(
            [
                Field("page", "The page's file name", String(), required=True),
                Field("content", "The page as roff source", String(), required=True),
            ]
        ),
        errors=[
            Error(
                "not_found.page",
                "No man page of that name",
                Object([Field("page", "The page asked for", String(), required=True)]),
            ),
            _NOT_GENERATED,
        ],
        grant="none",
        shared="agent",
        dispatch="local",
    ),
    Verb(
        name="man.install",
        summary="Install the man pages where man finds them",
        params=[
            Field(
                "dir",
                "Absolute target directory; default $XDG_DATA_HOME/man/man1, else"
                " ~/.local/share/man/man1",
                String(),
            ),
        ],
        result=Object(
            [
                Field("dir", "The directory the pages are in", String(), required=True),
                Field("pages", "How many pages there are", Integer(min=0), required=True),
                Field(
                    "written",
                    "How many were new or changed (the rest already had this content)",
                    Integer(min=0),
                    required=True,
                ),
            ]
        ),
        errors=[
            Error("invalid_params.relative_path", "dir is not an absolute path"),
            _NOT_GENERATED,
            _FAILED_WRITE,
        ],
        grant="files",
        shared="agent",
        dispatch="local",
    ),
    # Remote use (rfcs/0006, rfcs/0001 §15): the bridge and the issued-token verbs.
    Verb(
        name="bridge",
        summary="Connect stdin and stdout to the daemon's socket, for remote clients over ssh",
        result=Object(),
        errors=[
            Error(
                "denied.auth",
                "The first message is not a hello with a valid token; nothing reached the daemon",
                Object([Field("reason", "Why the hello was refused", String(), required=True)]),
            ),
        ],
        grant="none",
        shared="agent",
        dispatch="local",
    ),
    Verb(
        name="token.issue",
        summary="Issue a named token holding the chosen grants; shown once",
        params=[
            Field("name", "Token name: 1-64 of a-z 0-9 . _ -", String(), required=True),
            Field(
                "grants",
                "Grants the token holds besides read",
                Array(String(choices=list(_ISSUABLE))),
                required=True,
            ),
            Field(
                "expires_in",
                "Seconds until the token expires; never when omitted",
                Integer(min=1, max=315_360_000),
            ),
        ],
        result=Object(
            [
                *_TOKEN_FIELDS,
                Field("token", "The token text; it is not shown again", String(), required=True),
            ]
        ),
        errors=[
            Error("conflict.token_exists", "An active token already has this name", _TOKEN_NAME),
            Error("unavailable.too_many_tokens", "The store holds the most active tokens it can"),
            _FAILED_WRITE,
        ],
        grant="admin",
        shared="agent",
    ),
    Verb(
        name="token.list",
        summary="List issued tokens without their secrets",
        result=Object(
            [
                Field(
                    "tokens",
                    "Issued tokens, oldest first",
                    Array(
                        Object(
                            [
                                *_TOKEN_FIELDS,
                                Field(
                                    "state",
                                    "Whether the token counts now",
                                    String(choices=["active", "expired", "revoked"]),
                                    required=True,
                                ),
                                Field("revoked", "When it was revoked (RFC 3339 UTC)", String()),
                            ]
                        )
                    ),
                    required=True,
                ),
            ]
        ),
        grant="admin",
        shared="agent",
    ),
    Verb(
        name="token.revoke",
        summary="Revoke an issued token; open connections lose its grants at once",
        params=[Field("name", "Name of the active token to revoke", String(), required=True)],
        result=Object(
            [
                Field("name", "The token's name", String(), required=True),
                Field("id", "The token's public id", String(), required=True),
                Field("revoked", "When it was revoked (RFC 3339 UTC)", String(), required=True),
            ]
        ),
        errors=[
            Error("not_found.token", "No active token has this name", _TOKEN_NAME),
            _FAILED_WRITE,
        ],
        grant="admin",
        shared="agent",
    ),
    # `manifest`: the daemon's own normalized model, so a client or the conformance suite
    # derives its checks from what the daemon declares (rfcs/0001-shared-verbs.md §16).
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
