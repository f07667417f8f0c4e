"""The RFC conformance matrix (rfcs/conformance-matrix.md) is complete and honest.

Every row names tests that exist, every MUST-level requirement is covered (or says why not),
IDs are unique, exceptions carry their reason, and every section the black-box suite claims to
check with ``@pytest.mark.rfc`` has rows in the matrix.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RFCS = ROOT / "rfcs"
MATRIX = RFCS / "conformance-matrix.md"
#: The black-box suite, shipped in venom-mcp (`venom_mcp.conformance`): its checks' node ids
#: are paths from the repository root like any other test's.
CONFORMANCE = ROOT / "packages" / "venom-mcp" / "src" / "venom_mcp" / "conformance" / "_checks"

#: Matrix ID prefix per RFC.
PREFIX = {"RFC-0002": "W", "RFC-0004": "S"}
STATUSES = frozenset({"covered", "partial", "divergence", "n/a", "gap"})
#: Levels whose rows must be covered, partial, a divergence or n/a: never a gap.
STRICT_LEVELS = frozenset({"MUST", "MUST NOT", "REQ"})
LEVELS = STRICT_LEVELS | {"SHOULD", "SHOULD NOT"}

HEADER = ["ID", "§", "Level", "Requirement (short)", "Tests", "Status"]
_ID = re.compile(r"^([WS])-([0-9.]+|AC)-([0-9]+)$")
_DECISION_LINK = re.compile(
    r"\]\((0002-wire-decisions\.md|0004-schema-decisions\.md)#(d-[ws][0-9]+)\)"
)
_FOOTNOTE = re.compile(r"\[\^([a-z0-9-]+)\]")


@dataclass(frozen=True)
class Row:
    """One requirement row of the matrix."""

    line: int
    id: str
    section: str
    level: str
    requirement: str
    tests: tuple[str, ...]
    status: str
    detail: str  # the status cell after its first word: reason, link or footnote

    def __str__(self) -> str:
        return f"{self.id} (line {self.line})"


def _split_cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _status(cell: str) -> tuple[str, str]:
    if cell.startswith("n/a"):
        return "n/a", cell[3:].lstrip(":").strip()
    word, _, rest = cell.partition(" ")
    return word, rest.strip()


@cache
def rows() -> tuple[Row, ...]:
    """Every requirement row, in file order."""
    found = []
    in_table = False
    for number, line in enumerate(MATRIX.read_text(encoding="utf-8").splitlines(), 1):
        if _split_cells(line) == HEADER:
            in_table = True
        in_table = in_table and line.startswith("|")
        if not in_table or not _ID.match(_split_cells(line)[0]):
            continue
        cells = _split_cells(line)
        if len(cells) != len(HEADER):  # ValueError, so the xfail below cannot hide it
            raise ValueError(f"{MATRIX.name} line {number}: {len(cells)} cells, not 6")
        rid, section, level, requirement, tests, status_cell = cells
        names = tuple(t.strip().strip("`") for t in tests.split("<br>") if t.strip())
        status, detail = _status(status_cell)
        found.append(Row(number, rid, section, level, requirement, names, status, detail))
    return tuple(found)


@cache
def _defined_tests(path: Path) -> dict[str, bool]:
    """``name`` or ``Class::name`` of every function in a test file -> whether it is xfail."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: dict[str, bool] = {}
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)

    def add(name: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        found[name] = any("xfail" in ast.unparse(d) for d in node.decorator_list)

    for node in tree.body:
        if isinstance(node, functions):
            add(node.name, node)
        elif isinstance(node, ast.ClassDef):
            for inner in node.body:
                if isinstance(inner, functions):
                    add(f"{node.name}::{inner.name}", inner)
    return found


def _rfc_markers() -> set[tuple[str, str, str]]:
    """(file, RFC id, section) for every ``pytest.mark.rfc("RFC-000x §s")`` in the suite."""
    marks = set()
    for path in sorted(CONFORMANCE.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "rfc"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                continue
            rfc, _, section = node.args[0].value.partition(" ")
            marks.add((path.name, rfc, section.removeprefix("§")))
    return marks


def test_matrix_has_both_tables() -> None:
    ids = [row.id for row in rows()]
    assert sum(i.startswith("W-") for i in ids) >= 60
    assert sum(i.startswith("S-") for i in ids) >= 60


def test_ids_are_unique_and_match_their_section() -> None:
    """(c) no ID appears twice; the ID's section is the row's § column."""
    seen: dict[str, int] = {}
    problems = []
    for row in rows():
        if row.id in seen:
            problems.append(f"{row}: duplicate of line {seen[row.id]}")
        seen[row.id] = row.line
        match = _ID.match(row.id)
        assert match is not None
        if match.group(2) != row.section:
            problems.append(f"{row}: § column says {row.section!r}")
    assert not problems, "\n".join(problems)


def test_levels_and_statuses_are_known() -> None:
    problems = [f"{r}: level {r.level!r}" for r in rows() if r.level not in LEVELS]
    problems += [f"{r}: status {r.status!r}" for r in rows() if r.status not in STATUSES]
    problems += [
        f"{r}: {r.status} but names no test"
        for r in rows()
        if r.status in {"covered", "partial"} and not r.tests
    ]
    assert not problems, "\n".join(problems)


def test_named_tests_exist() -> None:
    """(a) every node id names an existing test file and a function defined in it (not xfail)."""
    problems = []
    for row in rows():
        for node_id in row.tests:
            file, sep, name = node_id.partition("::")
            path = ROOT / file
            if not sep or "[" in name:
                problems.append(f"{row}: {node_id!r} is not file::function")
            elif not path.is_file():
                problems.append(f"{row}: no file {file}")
            elif name not in _defined_tests(path):
                problems.append(f"{row}: {file} defines no {name}")
            elif _defined_tests(path)[name]:
                problems.append(f"{row}: {node_id} is xfail, so it covers nothing")
    assert not problems, "\n".join(problems)


def test_exceptions_carry_their_reason() -> None:
    """(d) n/a says why; a divergence links an existing decision; partial has a footnote."""
    text = MATRIX.read_text(encoding="utf-8")
    problems = []
    for row in rows():
        if row.status == "n/a" and len(row.detail) < 10:
            problems.append(f"{row}: n/a without a reason")
        elif row.status == "divergence":
            link = _DECISION_LINK.search(row.detail)
            if link is None:
                problems.append(f"{row}: divergence without a decision link")
            elif f'id="{link.group(2)}"' not in (RFCS / link.group(1)).read_text("utf-8"):
                problems.append(f"{row}: {link.group(1)} has no anchor {link.group(2)}")
        elif row.status == "partial":
            note = _FOOTNOTE.search(row.detail)
            if note is None:
                problems.append(f"{row}: partial without a footnote")
            elif f"[^{note.group(1)}]:" not in text:
                problems.append(f"{row}: footnote [^{note.group(1)}] is not defined")
    assert not problems, "\n".join(problems)


def test_no_must_level_gaps() -> None:
    """(b) every MUST, MUST NOT and REQ row is covered, partial, a divergence or n/a."""
    gaps = [
        f"{r} {r.level}: {r.requirement}"
        for r in rows()
        if r.level in STRICT_LEVELS and r.status == "gap"
    ]
    assert not gaps, "requirements without a test:\n" + "\n".join(gaps)


def test_every_conformance_marker_section_has_rows() -> None:
    """Each ``@pytest.mark.rfc`` section of the suite's checks appears in the § column."""
    sections = {(row.id[0], row.section) for row in rows()}
    marks = _rfc_markers()
    assert marks, f"no @pytest.mark.rfc markers found in {CONFORMANCE}"
    missing = [
        f"{file}: {rfc} §{section}"
        for file, rfc, section in sorted(marks)
        if (PREFIX.get(rfc, "?"), section) not in sections
    ]
    assert not missing, "sections without matrix rows:\n" + "\n".join(missing)
