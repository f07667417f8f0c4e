"""Invalid ZON: every rule rejected with a ZonError at an exact place (RFC-0004 §2)."""

from __future__ import annotations

import re

import pytest

from venom_schema.zon import MAX_DEPTH, ZonError, parse_zon

# (source, line, column, a fragment of the message)
INVALID: list[tuple[str, int, int, str]] = [
    # document shape
    ("", 1, 1, "expected a value, found end of file"),
    ("// only a comment\n", 2, 1, "expected a value, found end of file"),
    ("1 2", 1, 3, "expected end of file after the value, found number '2'"),
    ("1\n2", 1, 2, "expected end of file"),  # like Zig: just after the previous token
    ("1;", 1, 2, "found ';'"),
    # numbers
    ("007", 1, 1, "number '007' has a leading zero"),
    ("0_1", 1, 1, "leading zero"),
    ("-0", 1, 2, "integer '-0' is ambiguous"),
    ("-0x0", 1, 2, "'-0' is ambiguous"),
    ("-nan", 1, 1, "expected a number or 'inf' after '-'"),
    ("--1", 1, 1, "expected a number or 'inf' after '-'"),
    ("-.{}", 1, 1, "expected a number or 'inf' after '-'"),
    ("1__0", 1, 3, "repeated digit separator"),
    ("10_", 1, 3, "trailing digit separator"),
    ("0x_1", 1, 3, "expected a digit before the digit separator"),
    ("1_.5", 1, 3, "expected a digit before '.'"),
    ("1._5", 1, 3, "expected a digit before the digit separator"),
    ("1_e5", 1, 3, "expected a digit before the exponent"),
    ("0X10", 1, 2, "base prefix must be lowercase"),
    ("0x", 1, 1, "expected a digit after the base prefix"),
    ("0xp1", 1, 1, "expected a digit after the base prefix"),
    ("0b102", 1, 5, "invalid digit '2' for a binary number"),
    ("0o9", 1, 3, "invalid digit '9' for a octal number"),
    ("1p5", 1, 2, "invalid digit 'p' for a decimal number"),
    ("12abc", 1, 3, "invalid digit 'a'"),
    ("0o1.5", 1, 2, "octal literals cannot have a fraction"),
    ("1e", 1, 2, "expected a digit after 'e'"),
    ("1e+", 1, 3, "expected a digit after '+'"),
    ("1e5e5", 1, 4, "duplicate exponent"),
    ("1e5.5", 1, 4, "unexpected period after the exponent"),
    ("0x1p1a", 1, 6, "invalid digit 'a' in the exponent"),
    ("0x1e+5", 1, 5, "sign '+' must directly follow an exponent mark"),
    ("+1", 1, 1, "expected a value, found '+'"),
    ("0x.p1", 1, 3, "expected a hex digit before the exponent"),  # ZonGen crashes on this
    # identifiers and keywords
    ("foo", 1, 1, "invalid value 'foo'"),
    ("undefined", 1, 1, "write '.undefined' for an enum literal"),
    ("if", 1, 1, "keyword 'if' is not allowed in ZON"),
    (".if", 1, 1, 'write .@"if" to use a keyword as a name'),
    (".{ .enum = 1 }", 1, 4, "found keyword 'enum'"),
    ('.@""', 1, 2, 'a quoted name @"" cannot be empty'),
    ('.{ .@"a\\x00" = 1 }', 1, 5, "cannot contain a NUL character"),
    ('@"x"', 1, 1, 'write .@"x" for an enum literal'),
    ('@import("std")', 1, 1, "builtin calls such as '@import' are not allowed"),
    ("@ 1", 1, 1, "expected a builtin name or '\"' after '@'"),
    # containers
    ("{ .a = 1 }", 1, 1, "structs and tuples are written '.{ ... }'"),
    ("(1)", 1, 1, "parentheses are not allowed"),
    ("[_]u8{ 1 }", 1, 1, "expected a value, found '['"),
    ("T{ .a = 1 }", 1, 2, "expected end of file after the value, found '{'"),
    (".{ .a = 1, 2 }", 1, 12, "expected a field '.name = value' in the struct opened at 1:1"),
    (".{ 1, .a = 2 }", 1, 10, "ZON cannot mix fields with tuple elements"),
    (".{ .a = 1, .a = 2 }", 1, 13, "duplicate field name 'a' (first at 1:5)"),
    ('.{ .a = 1, .@"a" = 2 }', 1, 13, "duplicate field name 'a'"),
    (".{ 1 2 }", 1, 6, "expected ',' or '}' after the tuple element, found number '2'"),
    (".{\n  .a = 1\n  .b = 2\n}", 2, 9, "expected ',' or '}' after the field value, found '.'"),
    (".{ , }", 1, 4, "expected a value, found ','"),
    (".{ 1,, 2 }", 1, 6, "expected a value, found ','"),
    (".{ 1, 2", 1, 8, "found end of file"),
    (".{ 1 } }", 1, 8, "expected end of file after the value, found '}'"),
    (".{ .a = }", 1, 9, "expected a value, found '}'"),
    (".{ .a 1 }", 1, 7, "found number '1'"),
    (".{ .a == 1 }", 1, 7, "found '=='"),
    (".{ .a = 1, b = 2 }", 1, 12, "expected a field '.name = value'"),
    (".{ .a = 1, . = 2 }", 1, 12, "expected a field name after '.', found '='"),
    (".{ .a = 1, .a }", 1, 15, "expected '=' after field name 'a', found '}'"),
    (".a.b", 1, 3, "found '.'"),
    (". 1", 1, 1, "expected a name or '{' after '.'"),
    ('"a" ++ "b"', 1, 5, "found '++'"),
    # comments
    ("/// doc\n1", 1, 1, "doc comments ('///') are not allowed in ZON"),
    ("//! doc\n1", 1, 1, "doc comments ('//!') are not allowed in ZON"),
    ("1\n///", 2, 1, "doc comments"),
    ("// a\ttab\n1", 1, 5, "a tab character is not allowed in a comment"),
    ("// a\rb\n1", 1, 5, "carriage return not followed by a line feed in a comment"),
    ("// a\x7f\n1", 1, 5, "control character U+007F is not allowed in a comment"),
    # strings
    ('"a\tb"', 1, 3, "a tab character is not allowed in a string; use an escape"),
    ('"a\nb"', 1, 3, 'unterminated string: expected " before the end of the line'),
    ('"abc', 1, 5, "unterminated string"),
    ('"a\\\tb"', 1, 4, "a tab character is not allowed in a string"),
    ('"\\q"', 1, 3, "invalid escape sequence '\\q'"),
    ('"\\x4"', 1, 5, "expected a hex digit in '\\x' escape, found the end of the literal"),
    ('"\\xg0"', 1, 4, "expected a hex digit in '\\x' escape, found 'g'"),
    ('"\\u{D800}"', 1, 4, "unicode escape is a surrogate"),
    ('"\\u{110000}"', 1, 10, "unicode escape is larger than U+10FFFF"),
    ('"\\u{}"', 1, 5, "empty unicode escape sequence"),
    ('"\\u0041"', 1, 4, "expected '{' after '\\u', found '0'"),
    ('"\\u{41"', 1, 7, "expected a hex digit or '}', found the end of the literal"),
    ('"ok\\xff"', 1, 4, "string is not valid UTF-8 after decoding '\\x' escapes"),
    ('.{ "\\xc3\\xa9", "\\xc3" }', 1, 17, "not valid UTF-8"),
    ('.@"\\xff"', 1, 4, "not valid UTF-8"),
    # characters
    ("''", 1, 1, "empty character literal"),
    ("'ab'", 1, 3, "a character literal holds exactly one character"),
    ("'\\x41x'", 1, 6, "exactly one character"),
    ("'a", 1, 3, "unterminated character literal"),
    ("'\t'", 1, 2, "a tab character is not allowed in a character literal"),
    ("'\\u{110000}'", 1, 10, "larger than U+10FFFF"),
    # multiline strings
    ("\\\\a\tb\n", 1, 4, "a tab character is not allowed in a multiline string"),
    ("\\\\a\rb\n", 1, 4, "carriage return not followed by a line feed in a multiline string"),
    ("\\a", 1, 1, "expected '\\\\' to start a multiline string line"),
    # raw characters outside literals
    ("1\x00", 1, 2, "control character U+0000 is not allowed here"),
    ("\x01", 1, 1, "control character U+0001"),
    ("#", 1, 1, "character '#' (U+0023) is not allowed here"),
    ("é", 1, 1, "character 'é' (U+00E9)"),
    ("\ufeff\ufeff1", 1, 1, "character U+FEFF is not allowed here"),
    ("x\u00a0", 1, 2, "character U+00A0"),  # syntax errors first, like Zig
    # column counts code points, not bytes
    ('"é😀" 2', 1, 6, "expected end of file"),
    # syntax errors win over literal errors, as in Zig
    (".{ 007, 1 2 }", 1, 11, "found number '2'"),
    ('.{ 007, "\\q" }', 1, 4, "leading zero"),
]


@pytest.mark.parametrize(
    ("source", "line", "col", "fragment"), INVALID, ids=[c[0][:30] for c in INVALID]
)
def test_invalid_document_error_position_and_message(
    source: str, line: int, col: int, fragment: str
) -> None:
    """RFC-0004 §2: the manifest MUST be static ZON data; anything else is rejected precisely."""
    with pytest.raises(ZonError) as caught:
        parse_zon(source, "verbs.zon")
    error = caught.value
    assert (error.line, error.col) == (line, col), str(error)
    assert fragment in error.message
    assert str(error) == f"verbs.zon:{line}:{col}: {error.message}"


def test_default_filename() -> None:
    with pytest.raises(ZonError, match=r"^<input>:1:1: "):
        parse_zon("")


def test_invalid_utf8_bytes_are_rejected_with_position() -> None:
    """RFC-0004 §2: strings MUST be valid UTF-8 (and so must the whole source)."""
    with pytest.raises(ZonError) as caught:
        parse_zon(b'.{\n  "ok",\n  "b\xffd",\n}')
    assert (caught.value.line, caught.value.col) == (3, 5)
    assert "invalid UTF-8 (byte 0xFF)" in caught.value.message


def test_lone_surrogate_in_str_input_is_rejected() -> None:
    with pytest.raises(ZonError, match=re.escape("lone surrogate U+D800")):
        parse_zon('"\ud800"')


def test_bom_is_not_counted_in_columns() -> None:
    with pytest.raises(ZonError) as caught:
        parse_zon(b"\xef\xbb\xbf1 2")
    assert (caught.value.line, caught.value.col) == (1, 3)


def test_nesting_limit_is_an_error_not_a_recursion_error() -> None:
    parse_zon(".{" * MAX_DEPTH + "}" * MAX_DEPTH)
    deep = ".{" * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1)
    with pytest.raises(ZonError, match=f"nesting deeper than {MAX_DEPTH} levels"):
        parse_zon(deep)
    with pytest.raises(ZonError):
        parse_zon(".{" * 100_000)


def test_error_attributes() -> None:
    error = ZonError("f.zon", 3, 7, "boom")
    assert (error.filename, error.line, error.col, error.message) == ("f.zon", 3, 7, "boom")
    assert str(error) == "f.zon:3:7: boom"
    assert isinstance(error, ValueError)
