"""Parse successive versions of one file, re-parsing only the top-level statements that changed.

An editor sends a whole new version of the buffer at every pause in typing, and most of it is
the same text as before. :class:`IncrementalParser` cuts the source into *chunks* at the
top-level statements (CPython's ``ast`` says where they start and end; the pass computes that
tree anyway, :func:`torchlint.static.limits.syntax_tree`) and keeps each chunk's libcst nodes
from the previous version: a chunk whose text is unchanged reuses its nodes, a changed one is
parsed on its own, and the pieces make one :class:`libcst.Module`.

The result is the tree :func:`libcst.parse_module` would build for the whole text (a test
compares them node for node over real files and random edits). That holds because a cut is
made only where the parser's assignment of lines to nodes cannot cross it: between two
statements separated by nothing but empty lines (libcst gives those to the next statement;
a comment or a whitespace-only line there may belong to the previous block's footer, so no
cut is made before it). Whatever the chunks cannot settle -- an indentation or line ending in
a chunk unlike the file's (libcst stores those relative to the file's default), a syntax
error, a file with no statements -- is a whole parse.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import libcst as cst

from torchlint.analysis.tree import Span, spans_of, spans_within
from torchlint.static.limits import parse

if TYPE_CHECKING:  # pragma: no cover
    from torchlint.rules.base import Rule
    from torchlint.static.lint import FileResult

#: (is the file's first chunk, is its last chunk, chunk text)
_Key = tuple[bool, bool, str]


class _Chunk:
    __slots__ = ("statements", "header", "footer", "indent", "newline", "trailing", "indented", "lines", "spans")

    def __init__(self, module: cst.Module, first: bool) -> None:
        body = list(module.body)
        if not first and body and module.header:
            # the empty lines above a statement are its own in a whole parse
            body[0] = body[0].with_changes(leading_lines=[*module.header, *body[0].leading_lines])
        self.statements: Sequence[cst.SimpleStatementLine | cst.BaseCompoundStatement] = body
        self.header = module.header if first else ()
        self.footer = module.footer
        self.indent = module.default_indent
        self.newline = module.default_newline
        self.trailing = module.has_trailing_newline
        self.indented = any(_has_block(s) for s in body)
        #: line breaks in the chunk's text; the syntactic range of each of its nodes, counted
        #: from the chunk's first line (computed when first asked for, then kept with the nodes)
        self.lines = 0
        self.spans: dict[cst.CSTNode, Span] | None = None


def _has_block(stmt: cst.CSTNode) -> bool:
    """Whether the statement holds an indented block (an INDENT token, whose width libcst
    stores relative to the module's default indentation)."""
    for name in ("body", "orelse", "finalbody"):
        part = getattr(stmt, name, None)
        if isinstance(part, cst.IndentedBlock):
            return True
        if isinstance(part, (cst.Else, cst.Finally, cst.If)) and _has_block(part):
            return True
    for handler in getattr(stmt, "handlers", ()) or ():
        if isinstance(handler.body, cst.IndentedBlock):
            return True
    cases = getattr(stmt, "cases", None)
    if cases:  # a match statement's cases sit in an indented block of their own
        return True
    return False


def chunk_bounds(source: str, tree: ast.Module) -> list[tuple[int, int]] | None:
    """Character ranges ``[start, end)`` covering ``source``, one for each run of top-level
    statements that can be parsed apart from its neighbours; None when there is nothing to cut."""
    lines = _LINE.findall(source)
    if lines and not lines[-1]:
        lines.pop()  # the empty match at the end
    if not tree.body or not lines:
        return None
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    # (first line, last line), 1-based, of each top-level statement; one line's statements join
    spans: list[list[int]] = []
    for stmt in tree.body:
        first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])
        last = stmt.end_lineno or stmt.lineno
        if spans and first <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], last)
        else:
            spans.append([first, last])
    if len(spans) < 2 or spans[-1][1] > len(lines):
        return None
    cuts = [0]
    for (_, prev_last), (first, _) in zip(spans, spans[1:]):
        gap = lines[prev_last : first - 1]
        if all(line in ("\n", "\r\n", "\r") for line in gap) and not _continues(lines[prev_last - 1]):
            cuts.append(starts[prev_last])
    if len(cuts) < 2:
        return None
    cuts.append(len(source))
    return list(zip(cuts, cuts[1:]))


#: a line as Python's parser counts them (``str.splitlines`` also breaks at form feeds & co.)
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")
_BREAK = re.compile(r"\r\n|\r|\n")


def _continues(line: str) -> bool:
    """A line ending in a backslash continues onto the next (rare at a statement's end)."""
    return line.rstrip("\r\n").endswith("\\")


def _first_indent(source: str) -> str | None:
    """The file's default indentation as libcst detects it: its first INDENT token's."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.INDENT:
                return tok.string
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    return "    "  # libcst's default when nothing is indented


def _first_newline(source: str) -> str:
    at = next((i for i, ch in enumerate(source) if ch in "\r\n"), -1)
    if at < 0:
        return "\n"
    return "\r\n" if source.startswith("\r\n", at) else source[at]


class IncrementalParser:
    """libcst trees for successive versions of one file (see the module's docstring).

    ``parse(source, tree)`` takes the file's ``ast`` tree (None: parse it whole). Only the
    chunks of the last version are kept. Not thread-safe: one file's versions one at a time.
    """

    def __init__(self) -> None:
        self._chunks: dict[_Key, list[_Chunk]] = {}
        self._last: list[_Chunk] = []
        self._module: cst.Module | None = None
        #: chunks reused / parsed by the last call (for tests and the benchmark)
        self.reused = 0
        self.parsed = 0

    def lint(
        self,
        path: str,
        source: str,
        rule_classes: Sequence[type[Rule]],
        *,
        facts: dict | None = None,
        syntax: tuple[str | None, ast.Module | None] | None = None,
    ) -> FileResult:
        """:func:`~torchlint.static.lint.lint_file` of this version of the file, its tree built
        from the last version's where the statements did not change (``syntax``:
        :func:`~torchlint.static.limits.syntax_tree` of ``source``, when the caller has it)."""
        from torchlint.static.lint import _lint_file

        return _lint_file(path, source, rule_classes, facts=facts, parser=self, syntax=syntax)

    def parse(self, source: str, tree: ast.Module | None) -> cst.Module:
        bounds = chunk_bounds(source, tree) if tree is not None else None
        module = self._assemble(source, bounds) if bounds is not None else None
        if module is None:
            self._chunks, self._last, self._module = {}, [], None
            self.reused, self.parsed = 0, 1
            return parse(source)
        return module

    def _assemble(self, source: str, bounds: list[tuple[int, int]]) -> cst.Module | None:
        old = self._chunks
        new: dict[_Key, list[_Chunk]] = {}
        chunks: list[_Chunk] = []
        reused = parsed = 0
        for n, (lo, hi) in enumerate(bounds):
            key = (n == 0, n == len(bounds) - 1, source[lo:hi])
            pool = old.get(key)
            if pool:
                chunk = pool.pop()  # each version's nodes are distinct objects, even for equal text
                reused += 1
            else:
                try:
                    chunk = _Chunk(parse(key[2]), first=key[0])
                except Exception:  # noqa: BLE001 - the whole parse words the problem
                    return None
                parsed += 1
                chunk.lines = len(_BREAK.findall(key[2]))
            if chunk.footer and not key[1]:
                return None  # lines after the last statement of a middle chunk: cut wrongly
            new.setdefault(key, []).append(chunk)
            chunks.append(chunk)
        indent: str | None = None
        if any(c.indented for c in chunks):
            indent = _first_indent(source)
            if indent is None or any(c.indented and c.indent != indent for c in chunks):
                return None
        newline = _first_newline(source)
        if any(c.newline != newline for c in chunks):
            return None
        self._chunks = new
        self.reused, self.parsed = reused, parsed
        self._last = chunks
        self._module = cst.Module(
            body=[s for c in chunks for s in c.statements],
            header=chunks[0].header,
            footer=chunks[-1].footer,
            encoding="utf-8",
            default_indent=indent or "    ",
            default_newline=newline,
            has_trailing_newline=chunks[-1].trailing,
        )
        return self._module

    def spans_of(
        self, module: cst.Module, nodes: Iterable[cst.CSTNode], whole: Iterable[cst.CSTNode]
    ) -> tuple[dict[cst.CSTNode, Span], dict[cst.CSTNode, Span]]:
        """:func:`torchlint.analysis.tree.spans_of`, from each chunk's ranges: a chunk reused
        from the last version keeps them, so only the changed statements are generated again."""
        whole = list(whole)
        if module is not self._module or whole:
            return spans_of(module, nodes, whole)
        wanted = set(nodes)
        out: dict[cst.CSTNode, Span] = {}
        first = 1
        for chunk in self._last:
            if not wanted:
                break
            if chunk.spans is None:
                chunk.spans = spans_within(module, [*chunk.header, *chunk.statements])
            spans = chunk.spans
            found = [n for n in wanted if n in spans]
            shift = first - 1
            for node in found:
                (l1, c1), (l2, c2) = spans[node]
                out[node] = ((l1 + shift, c1), (l2 + shift, c2))
            wanted.difference_update(found)
            first += chunk.lines
        return out, {}
