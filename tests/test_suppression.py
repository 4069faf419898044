"""Suppression comments are read from source lines and applied once, after merging."""

from __future__ import annotations

from torchlint import suppression
from torchlint.findings import Finding


def finding(line, rule="TL001", end_line=None):
    return Finding(
        rule=rule,
        name="x",
        path="m.py",
        line=line,
        column=1,
        end_line=end_line or line,
        end_column=2,
        message="m",
        suggestion="s",
    )


def test_parse_forms():
    table = suppression.parse(
        [
            "a = x.item()  # torchlint: ignore[TL001]",
            "b = 1  # torchlint: ignore[TL001, TL005]",
            "c = 2  # torchlint: ignore",
            "d = 3  # noqa: TL004",
            "e = 4  # noqa",
            "f = 5  # a comment that mentions noqa-like words: ignore",
            "g = '# torchlint: ignore'",  # inside a string, still on the line: honoured like ruff
        ]
    )
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
    f = Finding(
        rule=None,
        name="dynamo",
        path="m.py",
        line=1,
        column=1,
        end_line=1,
        end_column=1,
        message="m",
        suggestion="s",
        source="dynamic",
        gb_code="GB0124",
    )
    assert suppression.apply([f], lambda p: ["x  # noqa: GB0124"]) == []
    assert suppression.apply([f], lambda p: ["x  # torchlint: ignore"]) == []
    assert suppression.apply([f], lambda p: None) == [f]


def test_file_level_noqa_silences_the_whole_file_or_the_codes_it_names():
    lines = ["# torchlint: noqa: TL001, TL004", "a = x.item()", "b = y.item()  # noqa: TL005"]
    table = suppression.parse(lines)
    assert table.file == {"TL001", "TL004"} and 1 not in table
    kept = suppression.apply(
        [finding(2), finding(3), finding(3, rule="TL005"), finding(2, rule="TL008")], lambda p: lines
    )
    assert [(f.line, f.rule) for f in kept] == [(2, "TL008")]
    bare = ["import torch", "  # torchlint: noqa  ", "a = x.item()"]
    assert suppression.parse(bare).file is suppression.ALL
    assert suppression.apply([finding(3), finding(1, rule=None)], lambda p: bare) == []


def test_file_level_form_after_code_silences_its_line_only():
    lines = ["a = x.item()  # torchlint: noqa", "b = y.item()"]
    table = suppression.parse(lines)
    assert table.file == frozenset() and table[1] is suppression.ALL
    assert [f.line for f in suppression.apply([finding(1), finding(2)], lambda p: lines)] == [2]


def test_a_confirmed_finding_is_silenced_by_its_rule_or_its_gb_code():
    f = Finding(
        rule="TL001",
        name="x",
        path="m.py",
        line=1,
        column=1,
        end_line=1,
        end_column=1,
        message="m",
        suggestion="s",
        source="both",
        gb_code="GB0124",
    )
    assert suppression.apply([f], lambda p: ["x  # noqa: GB0124"]) == []
    assert suppression.apply([f], lambda p: ["x  # torchlint: ignore[TL001]"]) == []


def test_file_level_noqa_end_to_end(project):
    from support import run_json, write

    model = """
    # torchlint: noqa: TL004
    import torch
    from torch import nn


    class Net(nn.Module):
        def forward(self, x):
            print(x)
            return x * x.sum().item()
    """
    write(project, "a.py", model)
    write(project, "b.py", model.replace("# torchlint: noqa: TL004", "# torchlint: noqa"))
    _, report = run_json(["check"])
    assert [(f["path"], f["rule"]) for f in report["findings"]] == [("a.py", "TL001")]
