"""``--format json``: one object, exactly the JSON contract of the design."""

from __future__ import annotations

import json
from typing import TextIO

from torchlint.findings import Report


def render(report: Report, stream: TextIO, *, options) -> None:
    stream.write(json.dumps(report.to_dict(), indent=2))
    stream.write("\n")
