"""Values for systemd unit files, escaped for systemd's reader (systemd.unit(5),
systemd.service(5) "Command lines"): the one place unit text is quoted.

systemd reads a unit line by line; in a setting's value it expands ``%`` specifiers (``%%`` is a
literal ``%``), and in a command line it splits words on whitespace, honours ``"..."`` and
``'...'``, unescapes C escapes (``\\\\``, ``\\"``) inside and outside quotes, expands ``$VAR``
(``$$`` is a literal ``$``) and takes an unquoted lone ``;`` as a command separator.
A control character (a newline above all: it would end the setting and start another) or
text that is not UTF-8 is refused with `UnitValueError`, never written: systemd could carry
some of them only through escapes that not every setting unescapes, and a path holding one is
a mistake or an attack.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ("UnitValueError", "exec_line", "exec_word", "unit_text")

#: Characters a command word may hold unquoted (after doubling ``%`` and ``$``).
_PLAIN_WORD = re.compile(r"[A-Za-z0-9/_.,:+=@%$-]+\Z")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_PREFIXES = frozenset("-@:+!")


class UnitValueError(ValueError):
    """A value systemd's unit language cannot express; ``value`` is it, ``reason`` why."""

    def __init__(self, value: str, reason: str) -> None:
        super().__init__(f"{value!r} cannot be written in a systemd unit: {reason}")
        self.value = value
        self.reason = reason


def _check(value: str) -> None:
    if _CONTROL.search(value):
        raise UnitValueError(value, "it holds a newline or another control character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise UnitValueError(value, "it is not valid UTF-8 text") from None


def exec_word(word: str) -> str:
    """``word`` as one word of a command line (``ExecStart=``), read back exactly as given.

    Plain words stay as they are (``/opt/v/bin/tool``); any other is double-quoted with ``\\``
    and ``"`` escaped; ``%`` and ``$`` are doubled everywhere. Raises `UnitValueError`.
    """
    _check(word)
    doubled = word.replace("%", "%%").replace("$", "$$")
    if _PLAIN_WORD.match(doubled) and doubled != ";":
        return doubled
    return '"' + doubled.replace("\\", "\\\\").replace('"', '\\"') + '"'


#: What systemd will not take in an executable's name: quotes and backslashes it refuses even
#: quoted ("Executable name contains special characters": its ``string_is_safe``), and ``$``,
#: which it expands in arguments only (the program "may not be a variable"), so ``$$`` would
#: stay doubled there. Arguments carry all of them.
_UNSAFE_EXECUTABLE = frozenset("'\"\\$")
#: Runs its first argument with the rest: the way to an executable systemd will not name.
_VIA_SH = ("/bin/sh", "-c", 'exec "$0" "$@"')


def exec_line(words: Iterable[str]) -> str:
    """Words joined into one command line, each by `exec_word`.

    An executable whose path holds a quote, a backslash or a ``$`` (``/home/o'brien/...``),
    which systemd will not run by name, runs through ``/bin/sh -c 'exec "$0" "$@"' PATH ...``: the
    path is then an argument, carried exactly, and ``exec`` keeps the process (and so
    ``Type=notify``'s main PID). The first word may not start with ``-``, ``@``, ``:``, ``+``
    or ``!``: systemd reads those as prefixes, quoted or not.
    """
    listed = list(words)
    if listed and listed[0][:1] in _PREFIXES:
        raise UnitValueError(listed[0], "a command starting with - @ : + ! is a systemd prefix")
    if listed and not _UNSAFE_EXECUTABLE.isdisjoint(listed[0]):
        listed = [*_VIA_SH, *listed]
    return " ".join(exec_word(word) for word in listed)


def unit_text(value: str) -> str:
    """Free text for one line (``Description=``): whitespace, newlines included, collapsed to
    single spaces, no trailing backslash (a line continuation), ``%`` doubled."""
    return re.sub(r"\s+", " ", value).strip().rstrip(" \\").replace("%", "%%")
