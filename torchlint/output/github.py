"""``--format github``: GitHub Actions workflow commands, one annotation per line.

    ::error file=model.py,line=12,col=13,endLine=12,endColumn=27,title=TL001 tensor-item::...

Breaks are ``::error``, performance warnings (TL1xx) ``::warning``; files or targets that
could not be checked are ``::error`` lines too, gate verdicts ``::error``/``::notice`` lines
without a file, and each dynamo target gets a ``::notice`` with its counts. Values are
escaped as workflow commands require: ``%``, CR and LF everywhere, and ``:`` and ``,``
inside properties.
"""

from __future__ import annotations

from typing import TextIO

from torchlint.findings import Report
from torchlint.output import display_code, message_with_fix, mode_words, target_words


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, message: str, properties: dict[str, object] | None = None) -> str:
    """One workflow command line, e.g. ``::error file=a.py,line=3::text``."""
    props = ",".join(f"{k}={escape_property(str(v))}" for k, v in (properties or {}).items() if v is not None)
    return f"::{kind}{' ' + props if props else ''}::{escape_data(message)}"


def render(report: Report, stream: TextIO, *, options) -> None:
    for f in report.findings:
        kind = "warning" if f.severity == "warning" else "error"
        where = {"line": f.line, "col": f.column, "endLine": f.end_line, "endColumn": f.end_column}
        if f.cell is not None:  # the notebook's own lines are JSON: the message names cell and line
            where = {}
        stream.write(
            command(
                kind,
                message_with_fix(f),
                {
                    "file": f.path,
                    **where,
                    "title": f"{display_code(f)} {f.name}" + (f" ({mode_words(f)})" if f.mode else ""),
                },
            )
            + "\n"
        )
    for e in report.errors:
        stream.write(command("error", e.message, {"file": e.path, "title": "torchlint error"}) + "\n")
    for t in report.targets:
        if t.error is None:
            stream.write(command("notice", f"{t.target}: {target_words(t)}", {"title": "torchlint dynamo"}) + "\n")
    for line in report.gate_failures:
        stream.write(command("error", line, {"title": "torchlint gate"}) + "\n")
    for line in report.gate_notes:
        stream.write(command("notice", line, {"title": "torchlint gate"}) + "\n")
