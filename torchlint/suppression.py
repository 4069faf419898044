"""Inline suppression comments, read from the source lines (not from parent nodes).

``# torchlint: ignore[TL001, TL005]``, bare ``# torchlint: ignore`` and ``# noqa: TL001``
(or bare ``# noqa``) silence findings on that line; a finding spanning several lines is
silenced by a comment on any of them. Applied once, after static and dynamic findings merge.
"""
from __future__ import annotations

import re
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional

from torchlint.findings import Finding

ALL: FrozenSet[str] = frozenset({"*"})
_TORCHLINT = re.compile(r"#\s*torchlint:\s*ignore(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)


def _codes(text: Optional[str]) -> FrozenSet[str]:
    if text is None or not text.strip():
        return ALL
    return frozenset(c.strip().upper() for c in re.split(r"[\s,]+", text) if c.strip())


def parse(lines: Iterable[str]) -> Dict[int, FrozenSet[str]]:
    """Line number (1-based) -> codes suppressed there (``ALL`` for every code)."""
    out: Dict[int, FrozenSet[str]] = {}
    for number, line in enumerate(lines, 1):
        if "#" not in line:
            continue
        codes: FrozenSet[str] = frozenset()
        for regex in (_TORCHLINT, _NOQA):
            for m in regex.finditer(line):
                found = _codes(m.group("codes"))
                codes = ALL if found is ALL or codes is ALL else codes | found
        if codes:
            out[number] = codes
    return out


def is_suppressed(finding: Finding, table: Dict[int, FrozenSet[str]]) -> bool:
    code = finding.rule or finding.gb_code or ""
    for line in range(finding.line, max(finding.line, finding.end_line) + 1):
        codes = table.get(line)
        if codes is not None and (codes is ALL or "*" in codes or code in codes):
            return True
    return False


def apply(findings: List[Finding], lines_of: Callable[[str], Optional[List[str]]]) -> List[Finding]:
    """Drop suppressed findings; ``lines_of(path)`` gives a file's lines (None if unreadable)."""
    tables: Dict[str, Dict[int, FrozenSet[str]]] = {}
    kept = []
    for f in findings:
        if f.path not in tables:
            lines = lines_of(f.path)
            tables[f.path] = parse(lines) if lines else {}
        if not is_suppressed(f, tables[f.path]):
            kept.append(f)
    return kept
