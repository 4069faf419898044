"""What plans change, as a tree and as text.

:class:`ApplyPlans` is the libcst transformer that makes the node edits of a set of plans
(each round of :mod:`torchlint.fixes.rounds` applies the chosen plans with it);
:func:`plan_changes` is what one plan alone changes, statement by statement, and
:func:`edits_of` the same as text edits (:class:`~torchlint.findings.Edit`), the fix a
finding carries; :func:`apply_edits` makes such edits, and :func:`parses` says whether the
changed text still parses. Everything here is trees and text in, text out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple, cast

import libcst as cst

from torchlint.analysis.names import dotted
from torchlint.analysis.tree import Span, children, statements_code
from torchlint.findings import Edit
from torchlint.fixes.base import REMOVE, FixContext, Plan


# -- plans applied to the tree ----------------------------------------------------------------
class ApplyPlans(cst.CSTTransformer):
    """Replace planned nodes; drop removed statements but keep their comment lines."""

    def __init__(self, plans: Sequence[Plan], ctx: FixContext) -> None:
        super().__init__()
        self.edits = {node: fn for plan in plans for node, fn in plan.edits.items()}
        imported = set(ctx.imports.aliases.values())
        wanted = {"torch"} if any(p.needs_torch for p in plans) else set()
        wanted.update(name for p in plans for name in p.imports)
        self.imports = sorted(wanted - imported)
        self.placeholders: dict[int, cst.CSTNode] = {}  # by id, kept alive so ids stay unique
        self.ctx = ctx
        ctx.new_guards.clear()
        # Only the edited nodes and their ancestors need a visit; every other subtree is kept.
        self.wanted: set[cst.CSTNode] = set(self.edits)
        for node in self.edits:
            self.wanted.update(ctx.ancestors(node))

    def on_visit(self, node) -> bool:
        return node in self.wanted

    def on_leave(self, original_node, updated_node):
        fn = self.edits.get(original_node)
        if fn is not None:
            result = fn(updated_node)
            if result is REMOVE:
                placeholder = cst.SimpleStatementLine([cst.Pass()], leading_lines=original_node.leading_lines)
                self.placeholders[id(placeholder)] = placeholder
                return placeholder
            return result
        if isinstance(updated_node, cst.IndentedBlock):
            return self._tidy(updated_node, keep_one=True)
        if isinstance(updated_node, cst.Module):
            module = self._tidy(updated_node, keep_one=False)
            for name in self.imports:
                module = _add_import(module, name)
            return module
        return updated_node

    def _removed(self, stmt: cst.CSTNode) -> bool:
        return self.placeholders.get(id(stmt)) is stmt

    def _tidy(self, block, keep_one: bool):
        """Drop removed statements (their comment lines move down); merge adjacent new guards."""
        is_guard = self.ctx.is_new_guard
        if not any(self._removed(s) or is_guard(s) for s in block.body):
            return block
        body: list[cst.BaseStatement] = []
        pending: list[cst.EmptyLine] = []
        for stmt in block.body:
            if self._removed(stmt):
                pending.extend(stmt.leading_lines)
                continue
            if pending:
                stmt = stmt.with_changes(leading_lines=[*pending, *stmt.leading_lines])
                pending = []
            last = body[-1] if body else None
            if (
                isinstance(last, cst.If)  # a new guard is an `if`
                and is_guard(last)
                and isinstance(stmt, cst.If)
                and is_guard(stmt)
                and not stmt.leading_lines
            ):
                merged = last.with_changes(body=last.body.with_changes(body=[*last.body.body, *stmt.body.body]))
                self.ctx.new_guards[id(merged)] = merged
                body[-1] = merged
                continue
            body.append(stmt)
        if not body and keep_one:
            body.append(cst.SimpleStatementLine([cst.Pass()], leading_lines=pending))
        elif pending:
            return block.with_changes(body=body, footer=[*pending, *block.footer])
        return block.with_changes(body=body)


def _is_import_line(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body
    )


def _add_import(module: cst.Module, name: str) -> cst.Module:
    """``import <name>`` before the first top-level import of that module, else (torch) after
    the last import or (a standard-library module) before the first one but ``__future__``'s;
    else after the docstring."""
    body = list(module.body)
    at = 0
    stdlib = name != "torch"
    for i, stmt in enumerate(body):
        if _is_import_line(stmt):
            future = (
                isinstance(first := cast(cst.SimpleStatementLine, stmt).body[0], cst.ImportFrom)
                and (dotted(first.module) if first.module is not None else None) == "__future__"
            )
            if stdlib and not future:
                line = cst.SimpleStatementLine(
                    [cst.Import([cst.ImportAlias(cst.Name(name))])], leading_lines=stmt.leading_lines
                )
                body[i] = stmt.with_changes(leading_lines=())
                body.insert(i, line)
                return module.with_changes(body=body)
            at = i + 1
            small = cast(cst.SimpleStatementLine, stmt).body  # imports only: _is_import_line
            names = [s.module if isinstance(s, cst.ImportFrom) else cast(cst.Import, s).names[0].name for s in small]
            if any(n is not None and (dotted(n) or "").split(".")[0] == name for n in names):
                at = i
                line = cst.SimpleStatementLine(
                    [cst.Import([cst.ImportAlias(cst.Name(name))])], leading_lines=stmt.leading_lines
                )
                body[i] = stmt.with_changes(leading_lines=())
                body.insert(at, line)
                return module.with_changes(body=body)
    if (
        at == 0
        and body
        and isinstance(body[0], cst.SimpleStatementLine)
        and isinstance(body[0].body[0], cst.Expr)
        and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    ):
        at = 1
    line = cst.SimpleStatementLine([cst.Import([cst.ImportAlias(cst.Name(name))])])
    body.insert(at, line)
    return module.with_changes(body=body)


def _compiles(code: str) -> bool | None:
    """Whether Python compiles ``code`` (``None``: it cannot tell, e.g. too deeply nested)."""
    try:
        compile(code, "<torchlint-fix>", "exec", dont_inherit=True)
    except SyntaxError:
        return False
    except (ValueError, RecursionError, MemoryError):
        return None
    return True


def parses(code: str, original: str) -> bool:
    """Python compiles ``code``; when it cannot tell, or did not compile the original either
    (newer syntax than this Python's), libcst must parse it."""
    verdict = _compiles(code)
    if verdict is True:
        return True
    if verdict is False and _compiles(original) is not False:
        return False
    try:
        cst.parse_module(code)
    except Exception:  # noqa: BLE001
        return False
    return True


# -- one plan as text edits --------------------------------------------------------------
class Change(NamedTuple):
    """Part of what one plan does: the old statements ``first``..``last`` (their whole text)
    become ``text``; with no old statements, ``text`` goes before (or after) ``anchor``."""

    first: cst.CSTNode | None
    last: cst.CSTNode | None
    anchor: cst.CSTNode | None
    before: bool
    text: str


def plan_changes(plan: Plan, ctx: FixContext) -> list[Change] | None:
    """What applying ``plan`` alone changes in ``ctx.module``, statement by statement
    (``None`` when the plan cannot be applied). Only the changed statements are generated."""
    module = ctx.module
    try:
        new = module.visit(ApplyPlans([plan], ctx))
    except Exception:  # noqa: BLE001 - a broken edit costs its fix, never the lint
        return None
    out: list[Change] = []
    if new is not module and not _diff_block(module, new, [], module, out):
        out = [Change(module, module, None, True, new.code)]
    return out


def _same(a: Sequence[cst.CSTNode], b: Sequence[cst.CSTNode]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _diff_block(old, new, indent: list[str], module: cst.Module, out: list[Change]) -> bool:
    """Append the changes from block (or module) ``old`` to ``new``; False when they are
    not inside its statements (its header or footer changed): the caller replaces it."""
    if not _same(old.footer, new.footer) or not _same(
        old.header if isinstance(old, cst.Module) else (old.header,),
        new.header if isinstance(new, cst.Module) else (new.header,),
    ):
        return False
    if isinstance(old, cst.Module):
        if (old.default_indent, old.default_newline, old.has_trailing_newline, old.encoding) != (
            new.default_indent,
            new.default_newline,
            new.has_trailing_newline,
            new.encoding,
        ):
            return False
    elif old.indent != new.indent:
        return False
    ob, nb = old.body, new.body
    i = 0
    while i < len(ob) and i < len(nb) and ob[i] is nb[i]:
        i += 1
    j = 0
    while j < min(len(ob), len(nb)) - i and ob[len(ob) - 1 - j] is nb[len(nb) - 1 - j]:
        j += 1
    om, nm = ob[i : len(ob) - j], nb[i : len(nb) - j]
    if not om and not nm:
        return True
    if len(om) == 1 and len(nm) == 1 and _only_body_differs(om[0], nm[0]):
        inner: list[Change] = []
        block = om[0].body
        if _diff_block(
            block, nm[0].body, [*indent, module.default_indent if block.indent is None else block.indent], module, inner
        ):
            out.extend(inner)
            return True
    text = statements_code(nm, indent, module)
    if om:
        out.append(Change(om[0], om[-1], None, True, text))
    elif i < len(ob):
        out.append(Change(None, None, ob[i], True, text))
    elif ob:
        out.append(Change(None, None, ob[-1], False, text))
    else:
        return False
    return True


def _only_body_differs(old: cst.CSTNode, new: cst.CSTNode) -> bool:
    """Compound statements of one kind whose indented bodies are all that differs."""
    old_body, new_body = getattr(old, "body", None), getattr(new, "body", None)
    if (
        type(old) is not type(new)
        or not isinstance(old_body, cst.IndentedBlock)
        or not isinstance(new_body, cst.IndentedBlock)
    ):
        return False
    ko, kn = children(old), children(new)
    return len(ko) == len(kn) and all(a is b or (a is old_body and b is new_body) for a, b in zip(ko, kn))


def change_nodes(changes: Iterable[Change]) -> list[cst.CSTNode]:
    """The old nodes whose whole text range :func:`edits_of` needs."""
    return [n for c in changes for n in (c.first, c.last, c.anchor) if n is not None]


_NEWLINE = re.compile(r"\r\n?|\n")


class Lines:
    """Where each line of a text starts, numbered as the parser numbers them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]

    def offset(self, line: int, column: int) -> int:
        """The offset of 1-based ``line``, 0-based ``column`` (past the end: the text's end)."""
        if line - 1 >= len(self.starts):
            return len(self.text)
        return min(self.starts[line - 1] + column, len(self.text))

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based line and 1-based column of ``offset``."""
        import bisect

        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


def edits_of(changes: Sequence[Change], spans: dict[cst.CSTNode, Span], lines: Lines) -> tuple[Edit, ...]:
    """``changes`` as text edits of ``lines.text`` (``spans``: the whole text range of each
    node of :func:`change_nodes`)."""
    out = []
    for change in changes:
        first, last, anchor = change.first, change.last, change.anchor
        if first is not None and last is not None:
            start, end = spans[first][0], spans[last][1]
        else:
            assert anchor is not None, "a change replaces statements or has an anchor"
            at = spans[anchor][0 if change.before else 1]
            start = end = at
        lo, hi = lines.offset(*start), lines.offset(*end)
        text = change.text
        if end[0] - 1 >= len(lines.starts) and text.endswith(("\n", "\r")):
            text = text[:-2] if text.endswith("\r\n") else text[:-1]  # the file ends without a newline
        out.append(Edit(*lines.position(lo), *lines.position(hi), text))
    return tuple(sorted(out, key=lambda e: (e.line, e.column, e.end_line, e.end_column)))


def edit_range(edit: Edit, lines: Lines) -> tuple[int, int]:
    return lines.offset(edit.line, edit.column - 1), lines.offset(edit.end_line, edit.end_column - 1)


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """``text`` with ``edits`` made (they must not overlap; an edit given twice is made once)."""
    lines = Lines(text)
    ranges = sorted({(*edit_range(e, lines), e.replacement) for e in edits})
    out, at = [], 0
    for lo, hi, replacement in ranges:
        if lo < at:
            raise ValueError("overlapping edits")
        out.append(text[at:lo])
        out.append(replacement)
        at = hi
    out.append(text[at:])
    return "".join(out)
