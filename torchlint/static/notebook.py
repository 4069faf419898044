"""Jupyter notebooks: their code cells as one Python module, and fixes written back to cells.

A notebook is read with the standard library's :mod:`json` (nothing else is needed). Its
code cells, in order, become one module: each cell starts with a marker comment line, and
lines Python cannot parse are replaced, one for one, by ``pass`` placeholder lines at the
same indentation, so no line moves:

- IPython line magics (``%time f()``, ``x = %env``), shell lines (``!pip ...``,
  ``files = !ls``) and help lines (``obj?``);
- a cell magic cell (``%%timeit``, ``%%bash``): the whole cell;
- a cell with a syntax error: the whole cell, reported once as ``cell N: syntax error ...``
  while the other cells are still checked.

Findings are mapped back to ``(cell, line in cell)``; cells are numbered among the code
cells, from 1, as ruff numbers them. A fix is applied to the module, split at the markers,
the placeholders are put back, and only the ``source`` of the cells whose text changed is
rewritten in the file's JSON text: outputs, metadata, key order and indentation of the rest
of the file stay byte for byte.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import warnings
from dataclasses import dataclass, field

from torchlint.files import FileProblem, source_lines
from torchlint.findings import Fix

SUFFIX = ".ipynb"

_MARKER = "# %% torchlint cell {}"
_MARKER_RE = re.compile(r"^# %% torchlint cell (\d+)$")
_PLACEHOLDER = "pass  # torchlint-opaque-{}"
_PLACEHOLDER_RE = re.compile(r"^[ \t]*pass  # torchlint-opaque-(\d+)$")
# `%magic`, `!shell`, `%%cell`, and assignments from them: `x = %env`, `out = !ls`
_MAGIC = re.compile(r"^[ \t]*(?:[%!]|[A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*[ \t]*=[ \t]*[%!])")
_HELP = re.compile(r"^[ \t]*[?]*[A-Za-z_][\w.]*[?]{1,2}[ \t]*$")
_TOP_LEVEL_AWAIT = getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0)


def is_notebook(path: str) -> bool:
    return path.endswith(SUFFIX)


@dataclass
class Cell:
    number: int  # among code cells, from 1
    text: str  # "".join(source)
    #: where the cell's ``source`` value lies in the file's text: [start, end)
    span: tuple[int, int]
    source_is_list: bool


@dataclass
class Notebook:
    path: str
    raw: str
    cells: list[Cell]


@dataclass
class Module:
    """The code cells as one module, and where each of its lines came from."""

    text: str
    #: module line (1-based) -> (cell number, line in the cell); marker lines are absent
    where: dict[int, tuple[int, int]]
    #: cell number -> its lines
    lines: dict[int, list[str]]
    #: placeholder id -> the original line it stands for
    opaque: list[str] = field(default_factory=list)
    #: (cell number, message) for cells that could not be parsed
    problems: list[tuple[int, str]] = field(default_factory=list)


# -- reading -----------------------------------------------------------------------------
def read_notebook(path: str, data: bytes | None = None) -> Notebook:
    """The notebook's code cells; raises :class:`FileProblem` with a one-line reason."""
    if data is None:
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise FileProblem(f"cannot read: {exc.strerror or exc}") from None
    try:
        raw = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileProblem(f"notebook is not UTF-8 (byte {exc.start}: {exc.reason})") from None
    return parse_notebook(path, raw)


def parse_notebook(path: str, raw: str) -> Notebook:
    try:
        cells = list(_scan_cells(raw))
    except (ValueError, IndexError, TypeError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise FileProblem(f"not a notebook (invalid JSON: {msg})") from None
    return Notebook(path, raw, cells)


_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _skip(raw: str, i: int) -> int:
    m = _WS.match(raw, i)
    return m.end() if m is not None else i  # always a match: the pattern matches ""


def _expect(raw: str, i: int, char: str) -> int:
    i = _skip(raw, i)
    if raw[i : i + 1] != char:
        raise ValueError(f"expected {char!r} at character {i}")
    return i + 1


def _members(raw: str, i: int):
    """(key, value start, value end) of the JSON object at ``raw[i]``; the last item's end
    is the object's end."""
    i = _expect(raw, i, "{")
    i = _skip(raw, i)
    if raw[i : i + 1] == "}":
        return
    while True:
        key, i = json.decoder.scanstring(raw, _expect(raw, i, '"'))  # type: ignore[attr-defined]
        i = _skip(raw, _expect(raw, i, ":"))
        _, end = _DECODER.raw_decode(raw, i)
        yield key, i, end
        i = _skip(raw, end)
        if raw[i : i + 1] == "}":
            return
        i = _expect(raw, i, ",")


def _scan_cells(raw: str):
    top = _skip(raw, 0)
    found = False
    for key, start, _end in _members(raw, top):
        if key != "cells":
            continue
        found = True
        i = _expect(raw, start, "[")
        i = _skip(raw, i)
        number = 0
        while raw[i : i + 1] != "]":
            cell_type = None
            source = None
            span = (0, 0)
            _, cell_end = _DECODER.raw_decode(raw, i)
            for ckey, cstart, cend in _members(raw, i):
                if ckey == "cell_type":
                    cell_type = json.loads(raw[cstart:cend])
                elif ckey == "source":
                    source = json.loads(raw[cstart:cend])
                    span = (cstart, cend)
            if cell_type == "code":
                number += 1
                if isinstance(source, list) and all(isinstance(s, str) for s in source):
                    yield Cell(number, "".join(source), span, True)
                elif isinstance(source, str):
                    yield Cell(number, source, span, False)
                else:
                    raise ValueError(f"code cell {number} has no source")
            i = _skip(raw, cell_end)
            if raw[i : i + 1] == ",":
                i = _skip(raw, i + 1)
            elif raw[i : i + 1] != "]":
                raise ValueError(f"expected ',' or ']' at character {i}")
    if not found:
        raise ValueError('no "cells" list')


# -- the module ----------------------------------------------------------------------------
def _parse_problem(text: str) -> str | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<cell>", "exec", flags=ast.PyCF_ONLY_AST | _TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError as err:
        col = f", column {err.offset}" if err.offset else ""
        return f"syntax error at line {err.lineno}{col}: {err.msg}"
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"cannot parse: {type(exc).__name__}"
    return None


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def to_module(nb: Notebook) -> Module:
    out: list[str] = []
    where: dict[int, tuple[int, int]] = {}
    module = Module("", where, {})

    def opaque(line: str, indent: str = "") -> str:
        module.opaque.append(line)
        return indent + _PLACEHOLDER.format(len(module.opaque) - 1)

    for cell in nb.cells:
        lines = source_lines(cell.text)
        module.lines[cell.number] = lines
        out.append(_MARKER.format(cell.number))
        if lines and lines[0].lstrip().startswith("%%"):
            body = [opaque(line) for line in lines]
        else:
            body = []
            continued = False
            for line in lines:
                if continued or _MAGIC.match(line) or _HELP.match(line):
                    body.append(opaque(line, _indent(line) if not continued else ""))
                    continued = line.endswith("\\")
                else:
                    body.append(line)
            problem = _parse_problem("\n".join(body) + "\n")
            if problem is not None:
                module.problems.append((cell.number, problem))
                del module.opaque[len(module.opaque) - sum(1 for b in body if _PLACEHOLDER_RE.match(b)) :]
                body = [opaque(line) for line in lines]
        for k, line in enumerate(body, 1):
            out.append(line)
            where[len(out)] = (cell.number, k)
    module.text = "\n".join(out) + "\n"
    return module


def map_findings(findings, module: Module) -> list:
    """Findings on module lines -> findings on cell lines (``cell`` set); others dropped."""
    kept = []
    for f in findings:
        start = module.where.get(f.line)
        if start is None:
            continue
        cell, line = start
        end = module.where.get(f.end_line)
        end_line = end[1] if end is not None and end[0] == cell else line
        f.line, f.end_line, f.cell = line, end_line, cell
        lines = module.lines[cell]
        f.source_line = lines[line - 1] if 0 < line <= len(lines) else None
        if f.fix is not None:
            f.fix = _fix_in_cell(f.fix, module, cell)
        kept.append(f)
    return kept


def _fix_in_cell(fix: Fix, module: Module, cell: int) -> Fix | None:
    """The fix with its edits on the cell's lines, as the finding is (None if it reaches
    outside the cell: ``--fix`` would not make it)."""
    edits = []
    for e in fix.edits:
        start = module.where.get(e.line)
        end = module.where.get(e.end_line)
        if end is None and e.end_column == 1:  # up to the end of the cell's last line
            before = module.where.get(e.end_line - 1)
            end = (before[0], before[1] + 1) if before is not None else None
        if start is None or end is None or start[0] != cell or end[0] != cell:
            return None
        edits.append(dataclasses.replace(e, line=start[1], end_line=end[1]))
    return dataclasses.replace(fix, edits=tuple(edits))


def cell_lines(path: str) -> dict[int, list[str]]:
    """Cell number -> its lines (for suppression comments); empty if unreadable."""
    try:
        return {c.number: source_lines(c.text) for c in read_notebook(path).cells}
    except FileProblem:
        return {}


# -- writing fixes back ------------------------------------------------------------------
class CellsMoved(Exception):
    """A fix moved code across cell boundaries; the notebook is left as it was."""


def split_module(text: str, module: Module, nb: Notebook) -> dict[int, str]:
    """Cell number -> the cell's new text, from a (fixed) module text."""
    numbers = [c.number for c in nb.cells]
    seen: list[int] = []
    parts: dict[int, list[str]] = {}
    current: int | None = None
    for line in source_lines(text):
        m = _MARKER_RE.match(line)
        if m:
            current = int(m.group(1))
            seen.append(current)
            parts[current] = []
            continue
        if current is None:
            if line.strip():
                raise CellsMoved("a fix wrote code before the first cell")
            continue
        p = _PLACEHOLDER_RE.match(line)
        parts[current].append(module.opaque[int(p.group(1))] if p else line)
    if seen != numbers:
        raise CellsMoved("a fix moved code across cells")
    new = {}
    for cell in nb.cells:
        body = "\n".join(parts[cell.number])
        if cell.text.endswith(("\n", "\r")) or (body and not parts[cell.number]):
            body += "\n"
        new[cell.number] = body
    return new


def _source_json(old: str, text: str, as_list: bool) -> str:
    """``text`` as a cell's ``source`` value, laid out like ``old`` (the value it replaces)."""
    if not as_list:
        return json.dumps(text, ensure_ascii=False)
    lines = text.splitlines(True)
    if not lines:
        return "[]"
    m = re.match(r"\[(\s*)", old)
    sep = m.group(1) if m and m.group(1) else ""
    close = re.search(r"(\s*)\]$", old)
    tail = close.group(1) if close else ""
    if old.strip() == "[]":  # no layout to copy: nbformat's own
        sep, tail = "\n", "\n"
    return "[" + sep + ("," + sep).join(json.dumps(s, ensure_ascii=False) for s in lines) + tail + "]"


def rewrite(nb: Notebook, new_texts: dict[int, str]) -> str:
    """The file's text with the ``source`` of each changed cell replaced, nothing else."""
    out = []
    at = 0
    for cell in nb.cells:
        text = new_texts.get(cell.number, cell.text)
        if text == cell.text:
            continue
        start, end = cell.span
        out.append(nb.raw[at:start])
        out.append(_source_json(nb.raw[start:end], text, cell.source_is_list))
        at = end
    out.append(nb.raw[at:])
    return "".join(out)


def fix_notebook(path: str, fix):
    """(outcome, new file text or None) where ``fix(text)`` fixes the cells' module text (a
    :class:`~torchlint.fixes.base.FixOutcome`); the outcome's ``old``/``new`` become the
    cells as a script (for diffs); ``None`` when nothing changed."""
    nb = read_notebook(path)
    module = to_module(nb)
    outcome = fix(module.text)
    if not outcome.changed:
        return outcome, None
    new_texts = split_module(outcome.new, module, nb)
    for a in outcome.applied:  # positions on cell lines, like the findings
        found = module.where.get(a.line)
        if found is not None:
            a.line = found[1]
    outcome.old = _readable(nb, {c.number: c.text for c in nb.cells})
    outcome.new = _readable(nb, new_texts)
    return outcome, rewrite(nb, new_texts)


def _readable(nb: Notebook, texts: dict[int, str]) -> str:
    """The cells as a ``# %%``-separated script, for ``--diff``."""
    parts = []
    for cell in nb.cells:
        body = texts[cell.number]
        parts.append(f"# %% cell {cell.number}\n" + body + ("" if body.endswith("\n") or not body else "\n"))
    return "".join(parts)
