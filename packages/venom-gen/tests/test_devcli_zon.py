"""`venom-gen zon FILE`: any ZON value as tagged JSON, errors as `file:line:col: message`."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner, Result

from venom_gen.build.devcli.app import app


def invoke(*args: str, stdin: bytes | None = None) -> Result:
    result = CliRunner().invoke(app, list(args), input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_values_without_json_spelling_are_tagged(tmp_path: Path) -> None:
    path = tmp_path / "v.zon"
    path.write_text(
        ".{ .e = .red, .c = 'a', .empty = .{}, .big = 0x1_0000_0000_0000_0000,"
        ' .inf = inf, .nums = .{ 1, -2.5, null, true }, .s = "h\\u{e9}" }\n',
        encoding="utf-8",
    )
    result = invoke("zon", str(path))
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {
        "e": {"enum": "red"},
        "c": {"char": 97},
        "empty": {"empty": True},
        "big": {"int": str(2**64)},
        "inf": {"float": "inf"},
        "nums": [1, -2.5, None, True],
        "s": "hé",
    }
    assert '"s": "hé"' in result.stdout  # UTF-8, not \\u escapes


def test_compact_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "v.zon"
    path.write_text('.{ "a", .b }', encoding="utf-8")
    result = invoke("zon", str(path), "--compact")
    assert result.stdout == '["a", {"enum": "b"}]\n'


def test_scalar_document(tmp_path: Path) -> None:
    path = tmp_path / "v.zon"
    path.write_text("42\n", encoding="utf-8")
    assert invoke("zon", str(path)).stdout == "42\n"


def test_stdin() -> None:
    result = invoke("zon", "-", stdin=b".{ .x = 1 }")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {"x": 1}


def test_syntax_error_is_file_line_col_message(tmp_path: Path) -> None:
    """The error is the ZonError text: file, 1-based line and column, message."""
    path = tmp_path / "bad.zon"
    path.write_text(".{\n    .a = 1,\n    .b = ,\n}\n", encoding="utf-8")
    result = invoke("zon", str(path))
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == f"{path}:3:10: expected a value, found ','\n"


def test_stdin_error_names_stdin() -> None:
    result = invoke("zon", "-", stdin=b".{ .x = }")
    assert result.exit_code == 1
    assert result.stderr.startswith("<stdin>:1:9: ")


def test_invalid_utf8_is_a_zon_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.zon"
    path.write_bytes(b'"\xff"')
    result = invoke("zon", str(path))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{path}:1:")


def test_missing_file(tmp_path: Path) -> None:
    result = invoke("zon", str(tmp_path / "absent.zon"))
    assert result.exit_code == 1
    assert result.stderr == f"venom-gen: {tmp_path / 'absent.zon'}: No such file or directory\n"
