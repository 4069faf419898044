"""Inline suppression comments, read from the source lines (not from parent nodes).

``# torchlint: ignore[TL001, TL005]``, bare ``# torchlint: ignore`` and ``# noqa: TL001``
(or bare ``# noqa``) silence findings on that line; a finding spanning several lines is
silenced by a comment on any of them. A comment alone on its line, ``# torchlint: noqa``
(every finding) or ``# torchlint: noqa: TL001, TL004`` (those codes), silences the whole
file, as ruff's ``# ruff: noqa`` (after code on a line, it silences that line only). A code is a
rule code or a dynamo GB code. Applied once, after static and dynamic findings merge;
:func:`apply_tracking` also says which comments and codes silenced something (for TL900
unused-suppression).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Callable

from torchlint.findings import Finding

ALL: frozenset[str] = frozenset({"*"})
_TORCHLINT = re.compile(r"#\s*torchlint:\s*ignore(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)
_NOQA = re.compile(r"#\s*(?:torchlint:\s*)?noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_FILE = re.compile(
    r"^\s*#\s*torchlint:\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?\s*$", re.IGNORECASE
)

#: the kinds of comment: ``torchlint: ignore[...]``, a bare ``noqa`` or one naming codes,
#: ``torchlint: noqa`` (file-wide)
IGNORE, NOQA, FILE = "ignore", "noqa", "file"


@dataclass(frozen=True)
class Directive:
    """One suppression comment: where it is (1-based line, 0-based columns of the comment
    text, end exclusive), its kind and its codes (:data:`ALL` when bare)."""

    line: int
    start: int
    end: int
    kind: str
    codes: frozenset[str]
    #: the codes as written, in order (for removing one of them)
    written: tuple[str, ...] = ()


class Table(dict[int, frozenset[str]]):
    """Line number (1-based) -> codes suppressed there (``ALL`` for every code); ``file``
    holds the codes suppressed in the whole file and ``directives`` every comment."""

    def __init__(self) -> None:
        super().__init__()
        self.file: frozenset[str] = frozenset()
        self.directives: list[Directive] = []


def _codes(text: str | None) -> tuple[frozenset[str], tuple[str, ...]]:
    if text is None or not text.strip():
        return ALL, ()
    written = tuple(c.strip().upper() for c in re.split(r"[\s,]+", text) if c.strip())
    return frozenset(written), written


def _union(a: frozenset[str], b: frozenset[str]) -> frozenset[str]:
    return ALL if a is ALL or b is ALL else a | b


def parse(lines: Iterable[str]) -> Table:
    """The suppression comments of a file's lines."""
    out = Table()
    for number, line in enumerate(lines, 1):
        if "#" not in line:
            continue
        m = _FILE.match(line)
        if m:
            codes, written = _codes(m.group("codes"))
            out.file = _union(out.file, codes)
            start = line.index("#")
            out.directives.append(Directive(number, start, len(line.rstrip()), FILE, codes, written))
            continue
        codes = frozenset()
        for kind, regex in ((IGNORE, _TORCHLINT), (NOQA, _NOQA)):
            for m in regex.finditer(line):
                found, written = _codes(m.group("codes"))
                codes = _union(codes, found)
                out.directives.append(Directive(number, m.start(), m.end(), kind, found, written))
        if codes:
            out[number] = codes
    out.directives.sort(key=lambda d: (d.line, d.start))
    return out


def _matches(codes: frozenset[str], finding: Finding) -> str | None:
    """The code of ``codes`` that silences ``finding`` ("*" for a bare comment), or None."""
    if codes is ALL or "*" in codes:
        return "*"
    for code in (finding.rule, finding.gb_code):
        if code and code in codes:
            return code
    return None


def matching(finding: Finding, table: Table) -> list[tuple[Directive, str]]:
    """Every (comment, code) that silences ``finding``: on one of its lines, or file-wide."""
    out = []
    for d in table.directives:
        on_line = d.kind != FILE and finding.line <= d.line <= max(finding.line, finding.end_line)
        if on_line or d.kind == FILE:
            code = _matches(d.codes, finding)
            if code is not None:
                out.append((d, code))
    return out


def is_suppressed(finding: Finding, table: dict[int, frozenset[str]]) -> bool:
    if isinstance(table, Table) and table.file and _matches(table.file, finding):
        return True
    for line in range(finding.line, max(finding.line, finding.end_line) + 1):
        codes = table.get(line)
        if codes is not None and _matches(codes, finding):
            return True
    return False


#: path -> (its comments, the (comment, code) pairs that silenced a finding)
Usage = dict[str, tuple[Table, set[tuple[Directive, str]]]]


def apply_tracking(findings: list[Finding], lines_of: Callable[[str], list[str] | None]) -> tuple[list[Finding], Usage]:
    """Drop suppressed findings, and say which comments silenced which codes per file;
    ``lines_of(path)`` gives a file's lines (None if unreadable)."""
    usage: Usage = {}
    kept = []
    for f in findings:
        if f.path not in usage:
            lines = lines_of(f.path)
            usage[f.path] = (parse(lines) if lines else Table(), set())
        table, used = usage[f.path]
        hits = matching(f, table) if table.directives else []
        used.update(hits)
        if not hits:
            kept.append(f)
    return kept, usage


def apply(findings: list[Finding], lines_of: Callable[[str], list[str] | None]) -> list[Finding]:
    """Drop suppressed findings; ``lines_of(path)`` gives a file's lines (None if unreadable)."""
    return apply_tracking(findings, lines_of)[0]


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")


def split_lines(text: str) -> list[tuple[str, str]]:
    """(content, line ending) of each line, numbered as :func:`torchlint.files.source_lines`."""
    out = []
    for m in _LINE.finditer(text):
        chunk = m.group(0)
        if chunk:
            content = chunk.rstrip("\r\n")
            out.append((content, chunk[len(content) :]))
    return out


def _comment_lines(text: str) -> set[int] | None:
    """Lines whose end may take a comment: they end a logical line or an implicitly continued
    one (not inside a multi-line string, not after a backslash). None if it cannot tokenize."""
    import io
    import tokenize

    out: set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT):
                out.add(tok.start[0])
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    return out


def add_comments(text: str, findings: Iterable[Finding]) -> tuple[str, int, int]:
    """``text`` with ``# torchlint: ignore[CODE]`` added for each finding (its rule, else its
    GB code) on the first of its lines that can take a comment: into the line's
    ``# torchlint: ignore[...]`` when it has one, else at the end (other comments kept).
    Returns (new text, codes added, findings no line could take)."""
    allowed = _comment_lines(text)
    lines = split_lines(text)
    wanted: dict[int, list[str]] = {}
    skipped = 0
    for f in findings:
        code = f.rule or f.gb_code
        span = range(f.line, max(f.line, f.end_line) + 1)
        line = next((n for n in span if allowed is not None and n in allowed and n <= len(lines)), None)
        if code is None or line is None:
            skipped += 1
            continue
        codes = wanted.setdefault(line, [])
        if code not in codes:
            codes.append(code)
    added = 0
    for number, codes in wanted.items():
        content, end = lines[number - 1]
        existing = next((m for m in _TORCHLINT.finditer(content) if m.group("codes") is not None), None)
        if existing is not None:
            have = list(_codes(existing.group("codes"))[1])
            new = [c for c in codes if c not in have]
            if new:
                comment = f"# torchlint: ignore[{', '.join(have + new)}]"
                content = content[: existing.start()] + comment + content[existing.end() :]
        else:
            new = codes
            content = f"{content.rstrip()}  # torchlint: ignore[{', '.join(codes)}]"
        added += len(new)
        lines[number - 1] = (content, end)
    return "".join(c + e for c, e in lines), added, skipped


@dataclass
class AddedComments:
    """What :func:`add_noqa` did: codes added, files written, findings no line could take,
    and (path, one-line problem) for each file it could not read or write."""

    added: int = 0
    files: int = 0
    skipped: int = 0
    errors: list[tuple[str, str]] = dataclasses.field(default_factory=list)


def add_noqa(findings: Iterable[Finding]) -> AddedComments:
    """``--add-noqa``: a suppression comment for every finding (not TL900's, which are about
    the comments themselves), one atomic write per file."""
    from torchlint.atomic import write_text_atomic
    from torchlint.files import FileProblem, read_source

    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        if f.rule != "TL900":
            by_path.setdefault(f.path, []).append(f)
    done = AddedComments()
    for path, found in sorted(by_path.items()):
        try:
            text = read_source(path)
        except FileProblem as exc:
            done.errors.append((path, str(exc)))
            continue
        new, n, missed = add_comments(text, found)
        done.skipped += missed
        if n:
            try:
                write_text_atomic(path, new)
            except OSError as exc:
                done.errors.append((path, f"cannot write: {exc.strerror or exc}"))
                continue
            done.added, done.files = done.added + n, done.files + 1
    return done
