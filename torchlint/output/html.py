"""``--format html``: one self-contained page (inline CSS and JS, no network) drawn from the Report.

The page embeds the ``--format json`` document unchanged (``Report.to_dict()``) and, beside it,
what that document does not carry: the source lines the page shows, the fixes as diffs, the
rule pages of the rules found and the gate's verdict. Both travel as JSON inside
``<script type="application/json">`` with ``<``, ``>`` and ``&`` written as ``\\u003c`` etc., so
no text from a linted file can close the tag; the script builds the DOM with ``textContent``
only, and a Content-Security-Policy allows no request and no script but the page's own (by hash).
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import json
import re
from typing import Any, TextIO

from torchlint import pages
from torchlint.files import FileProblem, read_source, source_lines
from torchlint.findings import Report
from torchlint.output import cause_words, cost_words, fix_first, frames_words, measured_words, ranked, target_words
from torchlint.output.html_page import CSS, SCRIPT

#: lines of context shown around a finding
CONTEXT = 2


def _safe_json(data: Any) -> str:
    """JSON that can sit inside a ``<script>`` element: no ``<``, ``>`` or ``&`` characters."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _wanted_lines(report: Report) -> dict[str, set[int]]:
    """path -> the line numbers the page shows: finding excerpts and each graph map's span."""
    wanted: dict[str, set[int]] = {}
    for f in report.findings:
        wanted.setdefault(f.path, set()).update(range(max(1, f.line - CONTEXT), f.end_line + CONTEXT + 1))
    for t in report.targets:
        spans: dict[str, list[int]] = {}
        for graph in t.graph_lines:
            for g in graph:
                spans.setdefault(g["path"], []).extend(g["lines"])
        for f in report.findings:
            if t.target in f.target_names() and f.path in spans:
                spans[f.path].append(f.line)
        for path, lines in spans.items():
            if lines:
                wanted.setdefault(path, set()).update(range(max(1, min(lines) - 3), max(lines) + 2))
    return wanted


def _sources(report: Report) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for path, numbers in _wanted_lines(report).items():
        try:
            lines = source_lines(read_source(path))
        except (FileProblem, OSError):
            continue
        out[path] = {str(n): lines[n - 1] for n in sorted(numbers) if 1 <= n <= len(lines)}
    return out


def _edited(text: str, edits) -> str:
    """``text`` with one fix's edits made (1-based lines and columns, end exclusive)."""
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]

    def offset(line: int, column: int) -> int:
        return len(text) if line > len(starts) else min(starts[line - 1] + column - 1, len(text))

    out, at = [], 0
    for e in sorted(edits, key=lambda e: (e.line, e.column)):
        lo, hi = offset(e.line, e.column), offset(e.end_line, e.end_column)
        out += [text[at:lo], e.replacement]
        at = max(at, hi)
    return "".join(out) + text[at:]


def _diffs(report: Report) -> dict[str, str]:
    """finding index -> the fix as a unified diff (where the finding has a fix)."""
    out: dict[str, str] = {}
    for i, f in enumerate(report.findings):
        if f.fix is None or f.cell is not None:  # a notebook's edits are on its cell's lines, not the file's
            continue
        try:
            old = read_source(f.path)
        except (FileProblem, OSError):
            continue
        diff = difflib.unified_diff(
            old.splitlines(keepends=True),
            _edited(old, f.fix.edits).splitlines(keepends=True),
            f"a/{f.path}",
            f"b/{f.path}",
            n=2,
        )
        out[str(i)] = "".join(diff)
    return out


def _rule_pages(report: Report) -> dict[str, str]:
    codes = {f.rule for f in report.findings if f.rule}
    out = {}
    for code in sorted(codes):
        page = pages.page(code)
        if page is not None:
            out[code] = page.text
    return out


def _costs(report: Report) -> dict[str, Any]:
    """The measured findings in the text report's words: the one to fix first, the next four
    (by index into the findings), and what was measured of each."""
    order = ranked(report.findings)
    index = {id(f): i for i, f in enumerate(report.findings)}
    return {
        "first": fix_first(order),
        "ranked": [{"finding": index[id(f)], "where": f"{f.path}:{f.line}", "words": cost_words(f)} for f in order[:5]],
        "more": max(len(order) - 5, 0),
        "measured": {
            str(i): measured_words(f)
            for i, f in enumerate(report.findings)
            if f.cost_ms is not None or f.occurrence_ms is not None or f.per_1000_calls is not None
        },
    }


def extras(report: Report) -> dict[str, Any]:
    """What the page shows beyond the JSON document."""
    return {
        "sources": _sources(report),
        "diffs": _diffs(report),
        "pages": _rule_pages(report),
        "dynamic_ran": report.dynamic_ran,
        "gate_failures": list(report.gate_failures),
        "gate_notes": list(report.gate_notes),
        "costs": _costs(report),
        # each target's counts and recompile causes in the words of the other formats
        "targets": [
            {
                "words": target_words(t),
                "causes": [cause_words(c, report.findings) for c in t.recompile_causes],
                "frames": [frames_words(c) for c in t.recompile_causes],
            }
            for t in report.targets
        ],
    }


def _csp(script: str) -> str:
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        f"default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )


def page(report: Report) -> str:
    """The whole HTML document."""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_csp(SCRIPT)}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        "<title>torchlint report</title>\n"
        f"<style>{CSS}</style>\n</head>\n<body>\n"
        "<noscript>This report draws itself with JavaScript; the data is in the "
        "<code>report</code> script element (the <code>--format json</code> document).</noscript>\n"
        f'<script type="application/json" id="report">{_safe_json(report.to_dict())}</script>\n'
        f'<script type="application/json" id="extras">{_safe_json(extras(report))}</script>\n'
        f"<script>{SCRIPT}</script>\n</body>\n</html>\n"
    )


def render(report: Report, stream: TextIO, *, options) -> None:
    stream.write(page(report))
