"""Output formats. Each module renders a :class:`~torchlint.findings.Report` to a text stream.

Add a format by adding a module with ``render(report, stream, *, options)`` and naming it
in :data:`FORMATS`. ``progress`` is the progress bar on stderr.

May import: ``findings``, ``pages``, :mod:`torchlint.rules` (the catalog's names and
summaries, for SARIF), ``files`` (the HTML page reads the source lines it shows) and
``atomic`` (a report written to a file). Never a pass (static, dynamic) or the fixes: a report holds all
an output needs (the code a finding shows is ``Finding.source_line``).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TextIO

from torchlint.findings import Finding, Report

FORMATS = {
    "text": "torchlint.output.text",
    "json": "torchlint.output.json",
    "sarif": "torchlint.output.sarif",
    "github": "torchlint.output.github",
    "html": "torchlint.output.html",
}


@dataclass
class RenderOptions:
    statistics: bool = False
    color: bool = False
    quiet: bool = False
    verbose: bool = False
    #: number of findings an --unsafe-fixes run would additionally fix
    unsafe_fixable: int = 0
    #: --unsafe-fixes was given: unsafe fixes count as fixable
    unsafe_fixes: bool = False


def render(report: Report, fmt: str, stream: TextIO, options: RenderOptions) -> None:
    module = importlib.import_module(FORMATS[fmt])
    module.render(report, stream, options=options)


def write_report(report: Report, fmt: str, path: str, options: RenderOptions) -> None:
    """Render the report to ``path`` atomically (a reader never sees half a report).
    Raises OSError when it cannot be written."""
    import io

    from torchlint.atomic import write_text_atomic

    buf = io.StringIO()
    render(report, fmt, buf, options)
    write_text_atomic(path, buf.getvalue())


#: rule-code prefix of the rules about the comments themselves (TL900 unused-suppression)
SUPPRESSION_PREFIX = "TL9"


def kind_of(finding: Finding) -> str:
    """``break`` (a graph break, potential or confirmed), ``performance`` (a TL1xx warning or a
    CUDA-graph finding) or ``suppression`` (TL9xx: about suppression comments)."""
    if (finding.rule or "").startswith(SUPPRESSION_PREFIX):
        return "suppression"
    return "performance" if finding.severity == "warning" else "break"


def display_code(finding: Finding) -> str:
    """The code a finding is shown under: its rule, else dynamo's GB code, else ``dynamo``."""
    return finding.rule or finding.gb_code or "dynamo"


def location(finding: Finding) -> str:
    """``path:line:column``; in a notebook ``nb.ipynb:cell 3:2:5`` (line and column in the cell)."""
    cell = f"cell {finding.cell}:" if finding.cell is not None else ""
    return f"{finding.path}:{cell}{finding.line}:{finding.column}"


def message_with_fix(finding: Finding) -> str:
    """One self-contained annotation text: the message, then the fix unless it already says it.
    A notebook finding starts with its cell and line (``cell 3, line 2: ...``): annotations
    point at the notebook file, whose own lines are JSON."""
    message = finding.message.strip()
    if finding.cell is not None:
        message = f"cell {finding.cell}, line {finding.line}: {message}"
    fix = (finding.suggestion or "").strip()
    if fix and fix not in message:
        message = f"{message}{'' if message.endswith('.') else '.'} Fix: {fix}"
    return message
