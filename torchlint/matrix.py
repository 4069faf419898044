"""What breaks on which torch: the measured matrix (``torchlint/data/torch_matrix.json``).

``benchmarks/torch_matrix.py`` runs every rule page's examples, the fixture models and the
skipped-call examples through dynamo on each torch version it is given and writes the data
file; this module reads it, without importing torch, for

* the ``torch-version`` setting: the static pass reports what breaks on that version (rules
  dead there are not run; TL009 keeps the calls that still break there);
* the "Breaks on" line of every rule page (:func:`breaks_on_line`, written by
  :func:`write_breaks_on_lines`, checked by the tests).

A version is named by major.minor (``"2.15"``); ``2.15.0`` and ``2.15.0+cu130`` mean the same.
"""

from __future__ import annotations

import functools
import json
import os
import re
from importlib import resources
from typing import Any

from torchlint.pages import PAGE_FILE

BREAKS_ON = "Breaks on:"
_VERSION = re.compile(r"^\s*(\d+)\.(\d+)(?:\.\d+)?(?:[+.\-\w]*)?\s*$")
#: the torch version the static pass of this process reports for (see :func:`use_version`)
_ACTIVE: str | None = None


@functools.lru_cache(maxsize=1)
def load() -> dict[str, Any]:
    """The committed matrix (``{"versions": {"2.13": {...}, ...}}``)."""
    try:
        text = resources.files("torchlint").joinpath("data/torch_matrix.json").read_text("utf-8")
    except FileNotFoundError:  # before the first measurement: nothing is version-dependent
        return {"versions": {}}
    return json.loads(text)


def _key(version: str) -> list[int]:
    return [int(p) for p in version.split(".")]


def versions() -> list[str]:
    """The measured versions, oldest first (``["2.13", "2.14", "2.15"]``)."""
    return sorted(load()["versions"], key=_key)


def minor(version: str) -> str | None:
    """``"2.15.0+cu130"`` -> ``"2.15"``; None when it is not a version number."""
    m = _VERSION.match(version or "")
    return f"{int(m.group(1))}.{int(m.group(2))}" if m else None


@functools.lru_cache(maxsize=1)
def installed_torch() -> str | None:
    """The installed torch's version, read from its metadata (torch is not imported), once
    a process."""
    import importlib.metadata

    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None


def resolve(setting: str | None, where: str = "torch-version") -> str | None:
    """The matrix version the static pass reports for.

    ``setting`` (config or ``--torch-version``) must be a measured version; without one, the
    installed torch's version (the newest measured one not newer than it, else the oldest),
    else the newest measured version (None when nothing is measured). Raises ``ValueError``
    naming ``where`` for a bad value.
    """
    known = versions()
    if not known:
        if setting is not None:
            raise ValueError(f"{where}: no torch version has been measured yet (run benchmarks/torch_matrix.py)")
        return None
    if setting is not None:
        key = minor(str(setting))
        if key is None:
            raise ValueError(f'{where}: expected a torch version such as "{known[-1]}", got {setting!r}')
        if key not in known:
            raise ValueError(
                f"{where}: torch {key} is not in torchlint's measured matrix (measured: {', '.join(known)})"
            )
        return key
    installed = installed_torch()
    key = minor(installed) if installed else None
    if key is None:
        return known[-1]
    older = [v for v in known if _key(v) <= _key(key)]
    return older[-1] if older else known[0]


def status(code: str, version: str) -> str | None:
    """``live``, ``changed``, ``dead``, ``warning``, ... of a rule on a version; None if unmeasured."""
    entry = load()["versions"].get(version, {}).get("rules", {}).get(code)
    return entry["status"] if entry else None


def dead_rules(version: str) -> set[str]:
    """Graph-break rules whose page example compiles whole on that version."""
    rules = load()["versions"].get(version, {}).get("rules", {})
    return {code for code, e in rules.items() if e["status"] == "dead"}


def skipped_calls(version: str) -> set[str] | None:
    """The calls of ``skipped_calls.json`` that break on that version (None: not measured)."""
    entry = load()["versions"].get(version)
    return set(entry["skipped_calls"]) if entry and "skipped_calls" in entry else None


def traced_calls(version: str) -> set[str]:
    """The calls of ``skipped_calls.json`` measured on that version and found traced there
    (a call added since that version was measured is not among them)."""
    entry = load()["versions"].get(version) or {}
    return set(entry.get("trace_rules", {})) - set(entry.get("skipped_calls", []))


#: the matrix's verdicts on TL009's call families other than the listed calls
_FAMILIES = {"logger_methods": "logger_methods_break", "deepcopy": "deepcopy_breaks"}


def still_breaks(version: str, family: str) -> bool:
    """Whether the calls of ``family`` (``"logger_methods"``: ``logger.info(...)`` and the
    rest; ``"deepcopy"``) were measured breaking on that version; True when not measured."""
    entry = load()["versions"].get(version) or {}
    return entry.get(_FAMILIES[family], True) is not False


def use_version(version: str | None) -> None:
    """Make the static pass of this process report for ``version`` (a matrix key or None)."""
    global _ACTIVE
    _ACTIVE = version


def active_version() -> str | None:
    return _ACTIVE


# --------------------------------------------------------------------------- rule pages


def breaks_on_line(code: str, matrix: dict[str, Any] | None = None) -> str:
    """The page line, e.g. ``Breaks on: torch 2.13 yes, 2.14 yes, 2.15 no. Measured ...``
    (a GB code in parentheses where dynamo names the break differently from the oldest version)."""
    data = matrix if matrix is not None else load()
    measured = sorted(data["versions"], key=_key)
    cells = []
    for v in measured:
        entry = data["versions"][v]["rules"].get(code)
        if entry is None:
            cells.append(f"{v} not measured")
        elif entry["status"] == "warning":
            return f"{BREAKS_ON} never (a performance warning, not a graph break)."
        elif entry["status"] in ("live", "changed"):
            cells.append(f"{v} yes" + (f" ({', '.join(entry['gb_codes'])})" if entry["status"] == "changed" else ""))
        elif entry["status"] == "dead":
            cells.append(f"{v} no")
        else:
            cells.append(f"{v} {entry['status']}")
    return f"{BREAKS_ON} torch {', '.join(cells)}. Measured on the example below by `benchmarks/torch_matrix.py`."


def page_with_line(text: str, line: str) -> str:
    """The page text with its "Breaks on" line set: replaced, or added after the summary."""
    lines = text.splitlines()
    for i, existing in enumerate(lines):
        if existing.startswith(BREAKS_ON):
            lines[i] = line
            return "\n".join(lines) + "\n"
    # after the one-line summary paragraph that follows the title (the facts block before it)
    i = next((n for n, existing in enumerate(lines) if existing.startswith("# ")), 0) + 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    while i < len(lines) and lines[i].strip():
        i += 1
    lines[i:i] = ["", line]
    return "\n".join(lines) + "\n"


#: TL009's page carries the skipped-call table between these lines (in "What it does")
TABLE_START = (
    "<!-- skipped calls by torch version: "
    "written by benchmarks/torch_matrix.py from torchlint/data/torch_matrix.json -->"
)
TABLE_END = "<!-- end of the skipped calls by torch version -->"
_FAMILY_ROWS = (
    ("logger_methods_break", "logger methods (`logger.info(...)`, ...)"),
    ("deepcopy_breaks", "`copy.deepcopy` of a tensor or module"),
)


def skipped_calls_table(matrix: dict[str, Any] | None = None) -> str:
    """The markdown table of TL009's page: per measured version, which calls of
    ``skipped_calls.json`` break (flagged with that ``torch-version``) and which dynamo traces
    there (not flagged); calls that break on every version are counted, not listed."""
    data = matrix if matrix is not None else load()
    measured = sorted(data["versions"], key=_key)
    entries = [data["versions"][v] for v in measured]
    names = sorted({n for e in entries for n in e.get("trace_rules", {})})

    def cell(entry: dict[str, Any], name: str) -> str:
        if name not in entry.get("trace_rules", {}):
            return "not measured"
        return "breaks" if name in entry.get("skipped_calls", []) else "traced"

    rows = [(f"`{n}`", [cell(e, n) for e in entries]) for n in names]
    moving = [r for r in rows if any(c != "breaks" for c in r[1])]
    moving += [
        (words, ["breaks" if e.get(key, True) is not False else "traced" for e in entries])
        for key, words in _FAMILY_ROWS
    ]
    out = [
        TABLE_START,
        "",
        "| call | " + " | ".join(f"torch {v}" for v in measured) + " |",
        "|---|" + "---|" * len(measured),
    ]
    out += [f"| {name} | " + " | ".join(cells) + " |" for name, cells in moving]
    steady = len(rows) - sum(1 for r in rows if any(c != "breaks" for c in r[1]))
    out += [
        "",
        f"The other {steady} calls of the list break on every measured version; a call with no "
        "runnable example (`input()`, a GPU-only call) is taken to break.",
        "",
        TABLE_END,
    ]
    return "\n".join(out)


def page_with_table(text: str, table: str) -> str:
    """The page text with the skipped-call table set: replaced, or added at the end of its
    "What it does" section."""
    if TABLE_START in text and TABLE_END in text:
        head, rest = text.split(TABLE_START, 1)
        return head + table + rest.split(TABLE_END, 1)[1]
    lines = text.splitlines()
    start = lines.index("## What it does")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("## "))
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    lines[end:end] = ["", table]
    return "\n".join(lines) + "\n"


def write_breaks_on_lines(matrix: dict[str, Any] | None = None, folder: str | None = None) -> int:
    """Set the "Breaks on" line of every page in ``folder`` (default docs/rules) and TL009's
    skipped-call table; returns how many pages changed."""
    from torchlint.atomic import write_text_atomic

    folder = folder or str(resources.files("torchlint.rule_pages"))
    changed = 0
    for name in sorted(os.listdir(folder)):
        m = PAGE_FILE.match(name)
        if not m or m.group(1).startswith("TL9"):  # TL9xx judge comments: nothing of torch's to measure
            continue
        path = os.path.join(folder, name)
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        new = page_with_line(text, breaks_on_line(m.group(1), matrix))
        if m.group(1) == "TL009":
            new = page_with_table(new, skipped_calls_table(matrix))
        if new != text:
            write_text_atomic(path, new)
            changed += 1
    return changed


# --------------------------------------------------------------------------- the dynamic pass

PARSERS = {
    "log_records": "graph-break log records",
    "gb_registry": "GB registry",
    "recompile_reasons": "recompile reasons",
    "cudagraph_messages": "CUDA-graph messages",
}


def support_notes(torch_version: str | None) -> list[str]:
    """One line per version-dependent parser of the dynamic pass not verified on the torch
    that ran it (``torch_version`` as the worker reports it); none when all are."""
    key = minor(torch_version or "")
    if key is None:
        return []
    entry = load()["versions"].get(key)
    known = versions()
    if entry is None:
        if not known:
            return []
        return [
            f"torch {torch_version} is not a verified version (verified: {', '.join(known)}): "
            "its graph-break log, GB registry, recompile and CUDA-graph messages were not checked, "
            "so counts and reasons may be incomplete"
        ]
    notes = []
    for key_name, words in PARSERS.items():
        status = str(entry.get("parsers", {}).get(key_name, ""))
        if status.startswith("not supported"):
            notes.append(
                f"torch {torch_version}: the {words} parser does not support this version "
                f"({status.split(':', 1)[-1].strip()})"
            )
    return notes
