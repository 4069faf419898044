"""The rule pages (``docs/rules/TLnnn-name.md``): find them, split them into sections and examples.

A page is the one home of its rule's words. Besides the prose it holds, in a comment block at
its top (``<!-- rule ... -->``, not shown when the page is rendered or printed), the lines a
finding carries: the rule's one-line ``summary`` (``torchlint rules``), the finding's
``message`` and ``suggestion``, ``fix`` (``safe``, ``unsafe`` or ``none``: the automatic fix
a rule offers) and, for warnings, ``severity``. Its name is in its file name and the GB codes
it predicts are the list of its "GB codes" section. :class:`torchlint.rules.base.Rule` reads
them when a rule class is defined (:func:`rule_facts`); the rule module holds the code only.

Pages ship inside the package as ``torchlint.rule_pages`` (pyproject maps the repository's
``docs/rules/`` folder there), so ``torchlint rule TL001`` works from a wheel too.

May import: the standard library only (the rules read it while they are defined).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from importlib.abc import Traversable

SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety", "GB codes")
_FENCE = re.compile(r"```python\n(.*?)```", re.DOTALL)
_DIRECTIVE = re.compile(r"<!--\s*dynamo:(.*?)-->", re.DOTALL)
_ERROR = re.compile(r"#\s*error:\s*(TL\d{3}(?:\s*,\s*TL\d{3})*)")
#: a page's file name: its rule's code and name
PAGE_FILE = re.compile(r"(TL\d{3})-([a-z0-9-]+)\.md$")
_FACTS = re.compile(r"\A<!-- rule\n(.*?)\n-->\n", re.DOTALL)
_GB_ITEM = re.compile(r"^- `(GB\d{4})`", re.MULTILINE)
#: the keys of the facts block; ``severity`` may be left out (a graph break: ``error``)
FACT_KEYS = ("summary", "message", "suggestion", "fix", "severity")
_FIXES = {"safe": "safe", "unsafe": "unsafe", "none": None}
_SEVERITIES = ("error", "warning")


class PageError(ValueError):
    """A rule page whose facts block is missing or malformed (the message names the file)."""


@dataclass(frozen=True)
class RuleFacts:
    """What a rule's code reads of its page."""

    name: str
    summary: str
    message: str
    suggestion: str
    #: "safe", "unsafe" or None when the rule offers no automatic fix (the page's ``fix``)
    fix_applicability: str | None
    severity: str
    gb_codes: tuple[str, ...]


@dataclass
class Example:
    code: str
    #: line -> codes marked `# error: TLnnn` on it
    marked: dict[int, set[str]] = field(default_factory=dict)
    #: from an optional `<!-- dynamo: target=Net inputs=f32[4,8];i64[4] -->` before the block
    target: str | None = None
    inputs: list[str] | None = None


@dataclass
class Page:
    code: str
    name: str
    #: the page as printed and rendered: the facts block left out
    text: str
    sections: dict[str, str]
    facts: RuleFacts | None = None

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


def _split(text: str) -> dict[str, str]:
    sections: dict[str, str] = {}
    current = None
    buf: list[str] = []
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


def entries() -> list[Traversable]:
    """The page files as installed (``docs/rules`` in a checkout), by file name."""
    root = resources.files("torchlint.rule_pages")
    return [e for e in sorted(root.iterdir(), key=lambda e: e.name) if PAGE_FILE.match(e.name)]


def _files() -> Iterator[tuple[str, str, str, str]]:
    """(file name, code, name, text) of every page, by file name."""
    for entry in entries():
        m = PAGE_FILE.match(entry.name)
        if m is not None:  # always: entries() lists the names that match
            yield entry.name, m.group(1), m.group(2), entry.read_text("utf-8")


def split_facts(file: str, text: str) -> tuple[dict[str, str], str]:
    """The facts block of a page's text, as key -> value, and the text without it."""
    m = _FACTS.match(text)
    if m is None:
        raise PageError(
            f"{file}: the page does not start with its facts block (`<!-- rule`, `key: value` lines, `-->`)"
        )
    facts: dict[str, str] = {}
    for number, line in enumerate(m.group(1).splitlines(), 2):
        key, sep, value = line.partition(": ")
        if not sep or key not in FACT_KEYS or not value.strip():
            raise PageError(
                f"{file}:{number}: expected `key: value` with a key of {', '.join(FACT_KEYS)}, got {line!r}"
            )
        if key in facts:
            raise PageError(f"{file}:{number}: `{key}` is given twice")
        facts[key] = value.strip()
    return facts, text[m.end() :]


def _facts(file: str, name: str, block: dict[str, str], sections: dict[str, str]) -> RuleFacts:
    missing = [k for k in FACT_KEYS if k not in block and k != "severity"]
    if missing:
        raise PageError(f"{file}: the facts block lacks {', '.join(missing)}")
    if block["fix"] not in _FIXES:
        raise PageError(f"{file}: `fix` is one of safe, unsafe, none; got {block['fix']!r}")
    severity = block.get("severity", "error")
    if severity not in _SEVERITIES:
        raise PageError(f"{file}: `severity` is error or warning; got {severity!r}")
    if "GB codes" not in sections:
        raise PageError(f"{file}: the page has no `## GB codes` section")
    return RuleFacts(
        name,
        block["summary"],
        block["message"],
        block["suggestion"],
        _FIXES[block["fix"]],
        severity,
        tuple(_GB_ITEM.findall(sections["GB codes"])),
    )


def pages() -> dict[str, Page]:
    """Every page, by rule code."""
    out = {}
    for file, code, name, text in _files():
        block, text = split_facts(file, text)
        sections = _split(text)
        out[code] = Page(code, name, text, sections, _facts(file, name, block, sections))
    return out


def rule_facts(code: str) -> RuleFacts | None:
    """What rule ``code``'s page says of it, or None when it has no page."""
    return _all_facts().get(code)


@functools.cache
def _all_facts() -> dict[str, RuleFacts]:
    """Every page's facts, by rule code: read once per process (the rules are defined once;
    the pages are package data)."""
    return {code: p.facts for code, p in pages().items() if p.facts is not None}


def page(code: str) -> Page | None:
    return pages().get(code.upper())
