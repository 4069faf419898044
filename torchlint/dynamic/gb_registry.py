"""The graph-break registry of the installed torch: gb_type -> GB code, explanation, hints.

PyTorch ships ``torch/_dynamo/graph_break_registry.json``: a map from a code (``GB0124``)
to one or more versions of a break type (``Gb_type``, ``Explanation``, ``Hints``). It is read
as a plain file, without importing torch, so the static pass and ``torchlint rules`` may use
it too. When the file is missing (old torch, no torch) every lookup returns ``None``.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

REGISTRY_NAME = "graph_break_registry.json"


@dataclass(frozen=True)
class GraphBreakType:
    """One registered kind of graph break."""

    code: str
    gb_type: str
    explanation: str = ""
    hints: tuple[str, ...] = field(default_factory=tuple)


def torch_dir() -> str | None:
    """The installed torch package folder, found without importing torch."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def registry_path() -> str | None:
    """Where the installed torch keeps its graph-break registry, or None."""
    base = torch_dir()
    if base is None:
        return None
    path = os.path.join(base, "_dynamo", REGISTRY_NAME)
    return path if os.path.isfile(path) else None


_PLACEHOLDER = re.compile(r"^_?[a-z_][a-z0-9_]*$")


_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"|\'((?:[^\'\\]|\\.)*)\'')


def _clean(text: str) -> str:
    """Undo the source-code form some entries keep (``"a " "b" + x`` -> ``a b``)."""
    text = text.strip()
    if text[:1] in "\"'":
        parts = [a or b for a, b in _LITERAL.findall(text)]
        if parts:
            text = "".join(parts)
    return text.strip()


def _usable(text: str) -> bool:
    """False for entries that recorded a variable name instead of the text (``_explanation``)."""
    return bool(text) and not _PLACEHOLDER.match(text.strip())


class GraphBreakRegistry:
    """Lookups over one registry file. Build with :func:`load_registry`."""

    def __init__(self, entries: dict[str, list[dict[str, Any]]], path: str | None = None) -> None:
        self.path = path
        self._by_type: dict[str, GraphBreakType] = {}
        known_quoted: dict[str, bool] = {}
        for code, versions in entries.items():
            if not isinstance(versions, list):
                continue
            for version in versions:
                if not isinstance(version, dict):
                    continue
                gb_type = _clean(str(version.get("Gb_type", "")))
                if not _usable(gb_type) and not gb_type[:1].isupper():
                    continue
                explanation = _clean(str(version.get("Explanation", "")))
                hints = tuple(_clean(str(h)) for h in version.get("Hints", []) or [] if _usable(_clean(str(h))))
                raw = str(version.get("Explanation", "")).strip()
                known = self._by_type.get(gb_type)
                # Prefer a version whose text was recorded as plain text, not as source code.
                better = known is None or (
                    _usable(explanation)
                    and (not _usable(known.explanation) or (known_quoted.get(gb_type) and raw[:1] not in "\"'"))
                )
                if better:
                    known_quoted[gb_type] = raw[:1] in "\"'"
                    self._by_type[gb_type] = GraphBreakType(
                        code, gb_type, explanation if _usable(explanation) else "", hints
                    )
        # Longest first, so "Dynamic shape operator (no meta kernel)" wins over its prefix.
        self._types_longest_first = sorted(self._by_type, key=len, reverse=True)

    def __len__(self) -> int:
        return len(self._by_type)

    def __bool__(self) -> bool:
        return True

    def lookup(self, gb_type: str | None) -> GraphBreakType | None:
        """The registered break type named exactly ``gb_type``, or None."""
        if not gb_type:
            return None
        return self._by_type.get(gb_type.strip())

    def find_in_lines(self, lines: Iterable[str]) -> GraphBreakType | None:
        """The first line that is exactly a registered gb_type (dynamo's messages start so)."""
        for line in lines:
            entry = self._by_type.get(line.strip())
            if entry is not None:
                return entry
        return None

    def find_in_text(self, text: str) -> GraphBreakType | None:
        """A registered gb_type in free text: a whole line first, else the longest one contained."""
        entry = self.find_in_lines(text.splitlines())
        if entry is not None:
            return entry
        for gb_type in self._types_longest_first:
            if len(gb_type) >= 12 and gb_type in text:
                return self._by_type[gb_type]
        return None


@functools.lru_cache(maxsize=4)
def load_registry(path: str | None = None) -> GraphBreakRegistry:
    """The registry at ``path`` (default: the installed torch's); empty if it cannot be read."""
    path = path or registry_path()
    if path is None:
        return GraphBreakRegistry({}, None)
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return GraphBreakRegistry({}, path)
    if not isinstance(data, dict):
        return GraphBreakRegistry({}, path)
    return GraphBreakRegistry(data, path)
