"""The documentation's copy-paste snippets, by name: the fenced block after `<!-- snippet: NAME -->`
in README.md or a page under docs/.

Tests run them as users would paste them, so the docs cannot drift from what works. A snippet
shown on several pages (the README's two commands, again in Getting started) must read the same
on each.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
_SNIPPET = re.compile(r"<!--\s*snippet:\s*([\w-]+)\s*-->\s*\n```[a-z]*\n(.*?)```", re.S)


def doc_files() -> list[Path]:
    """README.md and every page of the docs site."""
    return [README, *sorted((REPO / "docs").rglob("*.md"))]


def all_snippets() -> dict[str, list[tuple[Path, str]]]:
    """Every snippet by name: where it is and its text."""
    found: dict[str, list[tuple[Path, str]]] = {}
    for path in doc_files():
        for m in _SNIPPET.finditer(path.read_text("utf-8")):
            found.setdefault(m.group(1), []).append((path, m.group(2)))
    return found


def snippet(name: str) -> str:
    copies = all_snippets().get(name)
    if not copies:
        raise LookupError(f"no page has a snippet {name!r}")
    texts = {text for _, text in copies}
    if len(texts) > 1:
        where = ", ".join(str(p.relative_to(REPO)) for p, _ in copies)
        raise LookupError(f"snippet {name!r} differs between {where}")
    return copies[0][1]
