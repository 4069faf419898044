"""Helpers for the rule tests: snippets mark what must be flagged with ``# error: TLnnn``.

A snippet is a whole module. The static check runs every graph-break rule on it and compares the
(line, code) pairs found with the marked ones, so a case also proves that no other rule
fires. The dynamo check runs the snippet's first ``nn.Module`` (or ``target``) through the
installed torch and asserts that it breaks exactly on marked lines, and only when some line
is marked: the ground truth the rule claims.
"""

from __future__ import annotations

import importlib.util
import re
import textwrap
import warnings
from collections.abc import Sequence

import pytest

from torchlint.findings import Finding
from torchlint.rules import all_rules
from torchlint.static.lint import lint_file

_MARK = re.compile(r"#\s*error:\s*(TL\d{3}(?:\s*,\s*TL\d{3})*)")

needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None, reason="torch is not installed: dynamo not consulted"
)


def source(snippet: str) -> str:
    return textwrap.dedent(snippet).lstrip("\n")


def marked(snippet: str) -> set[tuple[int, str]]:
    out = set()
    for number, line in enumerate(source(snippet).splitlines(), 1):
        m = _MARK.search(line)
        if m:
            out |= {(number, c.strip()) for c in m.group(1).split(",")}
    return out


def break_rules() -> list[type]:
    """The graph-break rules (TL0xx); the TL1xx performance warnings are tested elsewhere."""
    return [r for r in all_rules() if r.severity == "error"]


def findings(snippet: str, rules: Sequence[type] | None = None, train: bool = False) -> list[Finding]:
    return lint_file(
        "case.py", source(snippet), list(rules) if rules else break_rules(), facts={"train": True} if train else None
    ).findings


def assert_flags_marked(snippet: str, train: bool = False) -> list[Finding]:
    """All graph-break rules together flag exactly the marked (line, code) pairs (``train``:
    the snippet is compiled for training, as its dynamo run is: training-only code counts)."""
    found = findings(snippet, train=train)
    got = {(f.line, f.rule) for f in found}
    want = marked(snippet)
    lines = source(snippet).splitlines()
    missing = "\n".join(f"  missed {c} at {n}: {lines[n - 1].strip()}" for n, c in sorted(want - got))
    extra = "\n".join(f"  extra  {c} at {n}: {lines[n - 1].strip()}" for n, c in sorted(got - want))
    assert got == want, "\n" + missing + ("\n" if missing and extra else "") + extra
    return found


def dynamo_breaks(snippet: str, target: str | None = None, inputs=None, train: bool = False) -> dict[int, str]:
    """Line -> GB code (or reason) of every break dynamo records running the snippet."""
    from torchlint.dynamic.observe import observe_source

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obs, path = observe_source(source(snippet), target, inputs, train=train)
    located = {b.line: (b.gb_code or b.reason) for b in obs.breaks if b.path == path and b.line}
    if not located and obs.breaks:  # seen only by a counter: somewhere, line unknown (0)
        located = {0: obs.breaks[0].gb_code or obs.breaks[0].reason}
    return located


def assert_dynamo_agrees(snippet: str, target: str | None = None, inputs=None, train: bool = False) -> None:
    """Dynamo breaks on marked lines only, and on at least one when any is marked."""
    breaks = dynamo_breaks(snippet, target, inputs, train)
    want = {n for n, _ in marked(snippet)}
    assert set(breaks) <= want, f"dynamo breaks on unmarked lines: {breaks}"
    if want:
        assert breaks, "nothing marked breaks dynamo on the installed torch"


class Case:
    """One snippet; ``dynamo`` holds the oracle's arguments (target, inputs), None to skip it."""

    def __init__(self, snippet: str, dynamo: dict | None = None) -> None:
        self.snippet = snippet
        self.dynamo = dynamo


def static_and_dynamo_tests(cases: dict[str, Case]):
    """The two parametrized tests of a rule test module: static on all cases, dynamo on some."""

    @pytest.mark.parametrize("name", sorted(cases))
    def test_static(name):
        case = cases[name]
        assert_flags_marked(case.snippet, train=bool(case.dynamo and case.dynamo.get("train")))

    @needs_torch
    @pytest.mark.dynamo
    @pytest.mark.parametrize("name", sorted(n for n, c in cases.items() if c.dynamo is not None))
    def test_dynamo_agrees(name):
        case = cases[name]
        assert_dynamo_agrees(case.snippet, **case.dynamo)

    return test_static, test_dynamo_agrees
