"""The rule pages (``docs/rules/TLnnn-name.md``): find them, split them into sections and examples.

Pages ship inside the package as ``torchlint.rule_pages`` (pyproject maps the repository's
``docs/rules/`` folder there), so ``torchlint rule TL001`` works from a wheel too.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Dict, List, Optional, Set

SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety", "GB codes")
_FENCE = re.compile(r"```python\n(.*?)```", re.DOTALL)
_DIRECTIVE = re.compile(r"<!--\s*dynamo:(.*?)-->", re.DOTALL)
_ERROR = re.compile(r"#\s*error:\s*(TL\d{3}(?:\s*,\s*TL\d{3})*)")


@dataclass
class Example:
    code: str
    #: line -> codes marked `# error: TLnnn` on it
    marked: Dict[int, Set[str]] = field(default_factory=dict)
    #: from an optional `<!-- dynamo: target=Net inputs=f32[4,8];i64[4] -->` before the block
    target: Optional[str] = None
    inputs: Optional[List[str]] = None


@dataclass
class Page:
    code: str
    name: str
    text: str
    sections: Dict[str, str]

    @property
    def bad(self) -> Example:
        return _example(self.sections.get("Example", ""))

    @property
    def good(self) -> Example:
        return _example(self.sections.get("Use instead", ""))


def _example(section: str) -> Example:
    m = _FENCE.search(section)
    code = m.group(1) if m else ""
    ex = Example(code=code)
    for number, line in enumerate(code.splitlines(), 1):
        em = _ERROR.search(line)
        if em:
            ex.marked[number] = {c.strip() for c in em.group(1).split(",")}
    d = _DIRECTIVE.search(section)
    if d:
        for part in d.group(1).split():
            key, _, value = part.partition("=")
            if key == "target":
                ex.target = value
            elif key == "inputs":
                ex.inputs = value.split(";") if value else []
    return ex


def _split(text: str) -> Dict[str, str]:
    sections: Dict[str, str] = {}
    current = None
    buf: List[str] = []
    for line in text.splitlines():
        if line.startswith("## "):
            if current is not None:
                sections[current] = "\n".join(buf).strip("\n")
            current, buf = line[3:].strip(), []
        elif current is not None:
            buf.append(line)
    if current is not None:
        sections[current] = "\n".join(buf).strip("\n")
    return sections


def pages() -> Dict[str, Page]:
    """Every page, by rule code."""
    out = {}
    root = resources.files("torchlint.rule_pages")
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        m = re.match(r"(TL\d{3})-([a-z0-9-]+)\.md$", entry.name)
        if not m:
            continue
        text = entry.read_text("utf-8")
        out[m.group(1)] = Page(m.group(1), m.group(2), text, _split(text))
    return out


def page(code: str) -> Optional[Page]:
    return pages().get(code.upper())
