"""Output formats. Each module renders a :class:`~torchlint.findings.Report` to a text stream.

Add a format by adding a module with ``render(report, stream, *, options)`` and naming it
in :data:`FORMATS`.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TextIO

from torchlint.findings import Report

FORMATS = {
    "text": "torchlint.output.text",
    "json": "torchlint.output.json_format",
}


@dataclass
class RenderOptions:
    statistics: bool = False
    color: bool = False
    quiet: bool = False
    verbose: bool = False
    #: number of findings an --unsafe-fixes run would additionally fix
    unsafe_fixable: int = 0


def render(report: Report, fmt: str, stream: TextIO, options: RenderOptions) -> None:
    module = importlib.import_module(FORMATS[fmt])
    module.render(report, stream, options=options)
