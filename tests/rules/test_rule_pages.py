"""Every rule has a page, and every page's examples are proven: by the rule and by dynamo.

For each rule page (``rules/TLnnn-name.md``):

* the rule, run alone, flags exactly the lines marked ``# error: TLnnn`` in the *Example*
  block, with that code, and nothing in the *Use instead* block;
* where torch is installed, dynamo on the installed torch breaks the bad block at (a subset
  of) the marked lines, with GB codes the rule declares, and compiles the good block with no
  break at all.

Each block goes through dynamo once (the observations are cached for the session).
"""

from __future__ import annotations

import importlib.util
import re

import pytest

from torchlint.pages import SECTIONS, Example, pages
from torchlint.rules import all_rules, rules_by_code
from torchlint.static.lint import lint_file

PAGES = pages()
RULES = rules_by_code()
CODES = sorted(RULES)
#: rules that report where another rule's break spreads (TL021: the caller of a method that
#: breaks): their examples mark that break too, with its own rule's code
SPREADING = {"TL021"}
HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed: pages not checked against dynamo")
# The examples warn and time on purpose; dynamo also warns about what it cannot trace.
quiet = pytest.mark.filterwarnings("ignore::UserWarning")


def test_every_rule_has_a_page_and_every_page_a_rule():
    assert sorted(PAGES) == CODES, "rules without a page, or pages without a rule"


def test_codes_and_names_are_unique():
    rules = all_rules()
    assert len({r.code for r in rules}) == len(rules)
    assert len({r.name for r in rules}) == len(rules)


@pytest.mark.parametrize("code", CODES)
def test_page_shape(code):
    page, rule = PAGES[code], RULES[code]
    assert page.name == rule.name, f"page file is named {page.name}, the rule is {rule.name}"
    lines = page.text.splitlines()
    assert lines[0] == f"# {code}: {rule.name}"
    summary = [line for line in lines[1:] if line.strip()][0]
    assert not summary.startswith("#"), "a one-line summary follows the title"
    headings = [line[3:].strip() for line in lines if line.startswith("## ")]
    assert headings == list(SECTIONS)
    assert all(page.sections[s].strip() for s in SECTIONS), "an empty section"
    assert page.bad.code.strip() and page.good.code.strip()
    assert page.bad.marked, "the bad example marks no line with `# error:`"
    assert not page.good.marked, "the good example must not mark lines"
    marks = {c for codes in page.bad.marked.values() for c in codes}
    assert marks == {code} or (code in SPREADING and code in marks)
    listed = re.findall(r"GB\d{4}", page.sections["GB codes"])
    assert sorted(listed) == sorted(rule.gb_codes), "a GB code named in the section but not as an item of its list"


def _static_lines(code: str, example: Example) -> dict[int, set[str]]:
    found: dict[int, set[str]] = {}
    if code == "TL900":  # not a visitor: it judges the comments after the whole run
        return _unused_suppression_lines(example)
    if code in SPREADING:  # not a visitor: it reads every file's findings after the run
        return _checked_lines(example, code)
    for f in lint_file(f"{code}_example.py", example.code, [RULES[code]]).findings:
        found.setdefault(f.line, set()).add(f.rule)
    return found


def _checked_lines(example: Example, code: str) -> dict[int, set[str]]:
    """The lines ``torchlint check`` flags in the example, by code (the graph-break rules)."""
    import os
    import tempfile

    import torchlint

    found: dict[int, set[str]] = {}
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, f"{code}_example.py")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(example.code)
        config = os.path.join(folder, "torchlint.toml")  # defaults, whatever pyproject is above
        open(config, "w").close()
        for f in torchlint.check([path], select=["TL0"], config=config).findings:
            found.setdefault(f.line, set()).add(f.rule or "")
    return found


def _unused_suppression_lines(example: Example) -> dict[int, set[str]]:
    import os
    import tempfile

    import torchlint

    found: dict[int, set[str]] = {}
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "TL900_example.py")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(example.code)
        config = os.path.join(folder, "torchlint.toml")  # defaults, whatever pyproject is above
        open(config, "w").close()
        for f in torchlint.check([path], select=["TL0", "TL900"], config=config).findings:
            if f.rule == "TL900":
                found.setdefault(f.line, set()).add(f.rule)
    return found


@pytest.mark.parametrize("code", CODES)
def test_rule_flags_exactly_the_marked_lines(code):
    bad = PAGES[code].bad
    assert _static_lines(code, bad) == bad.marked


@pytest.mark.parametrize("code", CODES)
def test_rule_is_silent_on_the_fix(code):
    assert _static_lines(code, PAGES[code].good) == {}


# --------------------------------------------------------------------------- dynamo

_OBSERVED: dict[tuple[str, str], tuple[set[int], set[str]]] = {}


def observed(code: str, which: str) -> tuple[set[int], set[str]]:
    """(break lines, GB codes) of one page block on the installed torch, computed once."""
    key = (code, which)
    if key not in _OBSERVED:
        from torchlint.dynamic.observe import observe_source

        example = PAGES[code].bad if which == "bad" else PAGES[code].good
        obs, path = observe_source(example.code, example.target, example.inputs)
        _OBSERVED[key] = (obs.break_lines(path), {b.gb_code or b.reason for b in obs.breaks})
    return _OBSERVED[key]


@needs_torch
@quiet
@pytest.mark.dynamo
@pytest.mark.parametrize("code", CODES)
def test_dynamo_breaks_on_the_bad_example_where_marked(code):
    if RULES[code].severity == "warning":
        pytest.skip(f"{code} is a warning, not a graph break (its page says so)")
    lines, _ = observed(code, "bad")
    marked = set(PAGES[code].bad.marked)
    assert lines, f"dynamo does not break on {code}'s example: the rule is not live on this torch"
    assert lines <= marked, f"dynamo breaks on unmarked lines {sorted(lines - marked)}"


@needs_torch
@quiet
@pytest.mark.dynamo
@pytest.mark.parametrize("code", CODES)
def test_dynamo_reports_the_rules_gb_codes(code):
    _, gb = observed(code, "bad")
    declared = set(RULES[code].gb_codes)
    if code in SPREADING:  # the break it spreads from is another rule's, with that rule's codes
        others = {c for codes in PAGES[code].bad.marked.values() for c in codes} - {code}
        declared |= {gb_code for other in others for gb_code in RULES[other].gb_codes}
    assert gb <= declared, f"dynamo reported {sorted(gb)}, the rule declares {RULES[code].gb_codes}"


@needs_torch
@quiet
@pytest.mark.dynamo
@pytest.mark.parametrize("code", CODES)
def test_dynamo_compiles_the_fix_without_a_break(code):
    lines, gb = observed(code, "good")
    assert not gb, f"dynamo breaks on {code}'s fix at lines {sorted(lines)}: {sorted(gb)}"
