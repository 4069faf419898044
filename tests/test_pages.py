"""The rule pages as the home of each rule's words: the facts block at a page's top is read
into the rule's class, left out of the page as printed, and a malformed one is refused with
the file named."""

from __future__ import annotations

import re

import pytest

from torchlint import pages
from torchlint.rules import all_rules
from torchlint.rules.base import Rule

PAGE = """<!-- rule
summary: one line
message: what is wrong; what to do
suggestion: The fix in words.
fix: unsafe
-->
# TL999: made-up

A made-up rule.

## GB codes
- `GB0124` Unsupported Tensor.item() call
- `GB0007` Attempted to call function marked as skipped (a note naming GB1234 in passing)
"""


def _facts(text: str) -> pages.RuleFacts:
    block, rest = pages.split_facts("TL999-made-up.md", text)
    return pages._facts("TL999-made-up.md", "made-up", block, pages._split(rest))


def test_the_facts_block_gives_the_rules_words_and_is_left_out_of_the_text():
    block, rest = pages.split_facts("TL999-made-up.md", PAGE)
    assert rest.startswith("# TL999: made-up\n") and "<!--" not in rest
    facts = _facts(PAGE)
    assert (facts.summary, facts.message, facts.suggestion) == (
        "one line",
        "what is wrong; what to do",
        "The fix in words.",
    )
    assert facts.fix_applicability == "unsafe" and facts.severity == "error"
    assert facts.gb_codes == ("GB0124", "GB0007")  # the list items, in the page's order, not codes named in prose
    assert _facts(PAGE.replace("fix: unsafe", "fix: none\nseverity: warning")).fix_applicability is None
    assert _facts(PAGE.replace("fix: unsafe", "fix: safe\nseverity: warning")).severity == "warning"


@pytest.mark.parametrize(
    "text, problem",
    [
        (PAGE.split("-->\n", 1)[1], "does not start with its facts block"),
        (PAGE.replace("fix: unsafe", "fix: maybe"), "`fix` is one of safe, unsafe, none"),
        (PAGE.replace("fix: unsafe\n", ""), "lacks fix"),
        (PAGE.replace("summary: one line", "summary: one line\nsummary: again"), ":3: `summary` is given twice"),
        (PAGE.replace("summary: one line", "sumary: one line"), ":2: expected `key: value`"),
        (PAGE.replace("message: what is wrong; what to do", "message:"), ":3: expected `key: value`"),
        (PAGE.replace("fix: unsafe", "fix: safe\nseverity: fatal"), "`severity` is error or warning"),
        (PAGE.replace("## GB codes", "## Codes"), "no `## GB codes` section"),
    ],
)
def test_a_malformed_facts_block_is_refused_naming_the_file_and_line(text, problem):
    with pytest.raises(pages.PageError) as caught:
        _facts(text)
    assert str(caught.value).startswith("TL999-made-up.md") and problem in str(caught.value)


def test_every_shipped_page_has_a_well_formed_facts_block_and_prints_without_it():
    shipped = pages.pages()
    assert shipped and all(p.facts is not None for p in shipped.values())
    for code, page in shipped.items():
        assert page.text.startswith(f"# {code}: {page.name}\n")
        assert not re.search(r"^(summary|message|suggestion|fix|severity): ", page.text, re.MULTILINE)


def test_each_rule_class_carries_its_pages_words():
    for rule in all_rules():
        facts = pages.rule_facts(rule.code)
        assert facts is not None
        assert (
            rule.name,
            rule.summary,
            rule.message,
            rule.suggestion,
            rule.gb_codes,
            rule.fix_applicability,
            rule.severity,
        ) == (
            facts.name,
            facts.summary,
            facts.message,
            facts.suggestion,
            facts.gb_codes,
            facts.fix_applicability,
            facts.severity,
        )


def test_a_rule_that_declares_its_words_in_code_or_has_no_page_is_refused():
    with pytest.raises(RuntimeError, match="declares message: a rule's words are in its page"):
        type("Declares", (Rule,), {"code": "TL998", "message": "a second home"})
    with pytest.raises(RuntimeError, match=r"rule TL998 \(Pageless\) has no page docs/rules/TL998-<name>.md"):
        type("Pageless", (Rule,), {"code": "TL998"})
