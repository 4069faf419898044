"""The README's copy-paste snippets, by name: the fenced block after `<!-- snippet: NAME -->`.

Tests run them as users would paste them, so the README cannot drift from what works.
"""
from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def snippet(name: str) -> str:
    text = README.read_text("utf-8")
    m = re.search(r"<!--\s*snippet:\s*" + re.escape(name) + r"\s*-->\s*\n```[a-z]*\n(.*?)```", text, re.S)
    if m is None:
        raise LookupError(f"README.md has no snippet {name!r}")
    return m.group(1)
