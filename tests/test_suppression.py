"""Suppression comments are read from source lines and applied once, after merging."""
from __future__ import annotations

from torchlint.findings import Finding
from torchlint import suppression


def finding(line, rule="TL001", end_line=None):
    return Finding(rule=rule, name="x", path="m.py", line=line, column=1, end_line=end_line or line,
                   end_column=2, message="m", suggestion="s")


def test_parse_forms():
    table = suppression.parse([
        "a = x.item()  # torchlint: ignore[TL001]",
        "b = 1  # torchlint: ignore[TL001, TL005]",
        "c = 2  # torchlint: ignore",
        "d = 3  # noqa: TL004",
        "e = 4  # noqa",
        "f = 5  # a comment that mentions noqa-like words: ignore",
        "g = '# torchlint: ignore'",  # inside a string, still on the line: honoured like ruff
    ])
    assert table[1] == {"TL001"}
    assert table[2] == {"TL001", "TL005"}
    assert table[3] is suppression.ALL
    assert table[4] == {"TL004"}
    assert table[5] is suppression.ALL
    assert 6 not in table


def test_apply_matches_code_and_multiline_spans():
    lines = [
        "x = (a.item()  # torchlint: ignore[TL001]",
        "     + b)",
        "y = c.item()  # noqa: TL005",
        "z = foo(",
        "    d)  # torchlint: ignore",
    ]
    findings = [finding(1), finding(3), finding(4, end_line=5), finding(2, rule=None)]
    kept = suppression.apply(findings, lambda path: lines)
    assert [(f.line, f.rule) for f in kept] == [(3, "TL001"), (2, None)]


def test_dynamic_findings_suppressed_by_gb_code():
    f = Finding(rule=None, name="dynamo", path="m.py", line=1, column=1, end_line=1, end_column=1,
                message="m", suggestion="s", source="dynamic", gb_code="GB0124")
    assert suppression.apply([f], lambda p: ["x  # noqa: GB0124"]) == []
    assert suppression.apply([f], lambda p: ["x  # torchlint: ignore"]) == []
    assert suppression.apply([f], lambda p: None) == [f]
