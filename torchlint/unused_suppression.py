"""TL900 unused-suppression's check and fix: comments, or codes in them, that silenced nothing.

Like ruff's RUF100 (opt-in: ``--extend-select TL900``). It is not a visitor: it runs after
the merge and the suppression step (:func:`unused_suppressions`), on what they used. A code
is called unused only where this run could have used it:

* a rule code (``TL001``): the static pass ran on the file and the rule is enabled for it
  (a code no rule has, such as ``TL999``, is always reported);
* a GB code, or a bare ``# torchlint: ignore``: the dynamic pass ran and a target traced the
  comment's line (for a file-wide comment: the file) into a graph, so a break there would
  have been found. With ``--no-dynamic`` they are never called unused;
* never: a bare ``# noqa`` or another tool's code (``# noqa: E501``), and TL900 itself.

The fix (safe: comments only) removes the unused codes, or the whole comment when none is
left, or the whole line when the comment was alone on it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Callable

from torchlint import suppression
from torchlint.files import source_lines
from torchlint.findings import Edit, Finding, Fix, Report
from torchlint.rules.tl900_unused_suppression import UnusedSuppression
from torchlint.suppression import ALL, FILE, IGNORE, NOQA, Directive, Table, split_lines

_RULE_CODE = re.compile(r"^TL\d{3}$")
_GB_CODE = re.compile(r"^GB\d{4}$")


def _render(d: Directive, keep: Sequence[str], original: str) -> str:
    """The comment ``d`` holding only the codes ``keep`` (non-empty)."""
    codes = ", ".join(keep)
    if d.kind == IGNORE:
        return f"# torchlint: ignore[{codes}]"
    if d.kind == FILE or "torchlint" in original.lower():
        return f"# torchlint: noqa: {codes}"
    return f"# noqa: {codes}"


def without(text: str, removals: dict[Directive, set[str]]) -> str:
    """``text`` with the codes ``removals[d]`` (``{"*"}``: the whole comment) taken out of each
    comment ``d``."""
    lines = split_lines(text)
    drop: set[int] = set()
    for d, codes in sorted(removals.items(), key=lambda kv: (kv[0].line, -kv[0].start)):
        content, end = lines[d.line - 1]
        original = content[d.start : d.end]
        keep = [] if "*" in codes else [c for c in d.written if c not in codes]
        before, after = content[: d.start], content[d.end :]
        if keep:
            content = before + _render(d, keep, original) + after
        elif not before.strip() and not after.strip():
            drop.add(d.line - 1)
        else:
            before = before.rstrip()
            content = before + (after if before else after.lstrip())
        lines[d.line - 1] = (content, end)
    return "".join(c + e for i, (c, e) in enumerate(lines) if i not in drop)


def _unused_in(
    table: Table,
    used: set[tuple[Directive, str]],
    *,
    judge_rule: Callable[[str], bool],
    known: set[str],
    reached: Callable[[Directive], bool],
) -> list[tuple[Directive, set[str], str]]:
    """(comment, unused codes ({"*"} for a bare one), why) for each comment with unused codes."""
    out = []
    for d in table.directives:
        if "TL900" in d.codes:
            continue  # a comment that names TL900 is kept on purpose
        if d.codes is ALL:
            if d.kind == NOQA:
                continue  # a bare noqa comment may be another tool's
            if judge_rule("*") and reached(d) and (d, "*") not in used:
                where = "in this file" if d.kind == FILE else "on this line"
                out.append((d, {"*"}, f"`{table_text(d)}` silences nothing {where}"))
            continue
        unused, words = set(), []
        for code in d.written:
            if _RULE_CODE.match(code):
                if code not in known:
                    unused.add(code)
                    words.append(f"`{code}` is no rule's code")
                elif judge_rule(code) and (d, code) not in used:
                    unused.add(code)
                    words.append(f"`{code}` silences nothing {'in this file' if d.kind == FILE else 'on this line'}")
            elif _GB_CODE.match(code) and reached(d) and (d, code) not in used:
                unused.add(code)
                words.append(f"`{code}` silences nothing {'in this file' if d.kind == FILE else 'on this line'}")
        if unused:
            out.append((d, unused, "; ".join(words)))
    return out


def table_text(d: Directive) -> str:
    return {IGNORE: "# torchlint: ignore", FILE: "# torchlint: noqa", NOQA: "# noqa"}[d.kind]


def unused_suppressions(
    report: Report,
    files: Iterable[str],
    usage: suppression.Usage,
    read: Callable[[str], str | None],
    *,
    static_ran: bool,
    enabled: Callable[[str, str], bool],
) -> list[Finding]:
    """TL900 findings for the comments of ``files`` that silenced nothing this run could have
    found. ``usage``: what :func:`torchlint.suppression.apply_tracking` used; ``read(path)``:
    a file's text (None if unreadable); ``enabled(code, path)``: the rule is on for the file."""
    from torchlint.config import rule_codes

    known = set(rule_codes())
    out: list[Finding] = []
    for path in files:
        text = read(path)
        if not text or ("noqa" not in text.lower() and "torchlint" not in text.lower()):
            continue
        table, used = usage.get(path, (None, set()))
        if table is None:
            table = suppression.parse(source_lines(text))
        if not table.directives:
            continue
        traced = [t.traced.get(path, set()) for t in report.targets] if report.dynamic_ran else []

        # both are called before the loop moves on; the defaults bind this file's values
        def reached(d: Directive, traced: list[set[int]] = traced) -> bool:
            if d.kind == FILE:
                return any(traced)
            return any(d.line in lines for lines in traced)

        def judge_rule(code: str, path: str = path) -> bool:
            if code == "*":  # a bare comment: both passes must have had their chance
                return static_ran and report.dynamic_ran
            return static_ran and enabled(code, path)

        found = _unused_in(table, used, judge_rule=judge_rule, known=known, reached=reached)
        for d, codes, why in found:
            if any("TL900" in x.codes and (x.kind == FILE or x.line == d.line) for x in table.directives):
                continue  # a noqa comment naming TL900 (on the line, or file-wide) keeps it; a bare one does not
            out.append(
                Finding(
                    rule=UnusedSuppression.code,
                    name=UnusedSuppression.name,
                    path=path,
                    line=d.line,
                    column=d.start + 1,
                    end_line=d.line,
                    end_column=d.end + 1,
                    message=f"unused suppression: {why}",
                    suggestion=UnusedSuppression.suggestion,
                    severity="warning",
                    fix=Fix("safe", "remove the unused suppression", (_edit(text, d, codes),)),
                    source_line=source_lines(text)[d.line - 1],
                )
            )
    return out


def _edit(text: str, d: Directive, codes: set[str]) -> Edit:
    """The fix of one comment as an edit of its line (the whole line, ending included, when
    the comment goes and nothing else was on it); :func:`without` applies them."""
    lines = split_lines(text)
    content, ending = lines[d.line - 1]
    new = split_lines(without(content + ending, {Directive(1, d.start, d.end, d.kind, d.codes, d.written): codes}))
    if not new and d.line < len(lines):
        return Edit(d.line, 1, d.line + 1, 1, "")
    return Edit(d.line, 1, d.line, len(content) + 1, new[0][0] if new else "")


def fixed_texts(findings: Iterable[Finding], read: Callable[[str], str | None]) -> dict[str, str]:
    """path -> its text with every TL900 finding's comment fixed at once."""
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        if f.rule == UnusedSuppression.code and f.fix is not None:
            by_path.setdefault(f.path, []).append(f)
    out = {}
    for path, found in by_path.items():
        text = read(path)
        if text is None:
            continue
        table = suppression.parse(source_lines(text))
        removals: dict[Directive, set[str]] = {}
        for f in found:
            d = next((d for d in table.directives if d.line == f.line and d.start == f.column - 1), None)
            if d is not None:
                removals[d] = _codes_of(f, d)
        if removals:
            out[path] = without(text, removals)
    return out


def _codes_of(f: Finding, d: Directive) -> set[str]:
    """The codes a TL900 finding reports unused in comment ``d`` (read back from its message)."""
    if d.codes is ALL:
        return {"*"}
    named = set(re.findall(r"`((?:TL|GB)\d+)`", f.message))
    return named & set(d.written) or {"*"}


def fix_unused(report: Report) -> tuple[int, int]:
    """``--fix``: take the unused suppressions (TL900 findings with a fix) out of their
    comments, one atomic write per file. The fixed findings leave the report; a file that
    cannot be written is an error in it. Returns (findings fixed, files written)."""
    fixable = [f for f in report.findings if f.rule == UnusedSuppression.code and f.fix is not None]
    if not fixable:
        return 0, 0
    from torchlint.atomic import write_text_atomic
    from torchlint.files import FileProblem, read_source
    from torchlint.findings import FileError

    def read(path: str) -> str | None:
        try:
            return read_source(path)
        except FileProblem:
            return None

    written = set()
    for path, text in fixed_texts(fixable, read).items():
        try:
            write_text_atomic(path, text)
        except OSError as exc:
            report.errors.append(FileError(path, f"cannot write the fixed file: {exc.strerror or exc}"))
            continue
        written.add(path)
    done = [f for f in fixable if f.path in written]
    report.findings = [f for f in report.findings if not (f.rule == UnusedSuppression.code and f.path in written)]
    return len(done), len(written)
