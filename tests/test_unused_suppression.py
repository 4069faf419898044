"""TL900 unused-suppression: opt-in; judges only what the run could have used; --fix removes."""

from __future__ import annotations

import pytest
from support import run_cli, run_json, write

SOURCE = """\
# torchlint: noqa: TL003
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        a = x.sum().item()  # torchlint: ignore[TL001, TL005]
        b = x * 2  # noqa: TL001, E501
        c = x + 1  # torchlint: ignore
        d = x - 1  # noqa: GB0124
        # torchlint: ignore[TL999]
        e = x * 3  # noqa
        f = x * 4  # noqa: TL004  # keep this note
        g = x * 5  # noqa: TL004, TL900
        return a + b + c + d + e + f + g
"""

FIXED = """\
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        a = x.sum().item()  # torchlint: ignore[TL001]
        b = x * 2  # noqa: E501
        c = x + 1  # torchlint: ignore
        d = x - 1  # noqa: GB0124
        e = x * 3  # noqa
        f = x * 4  # keep this note
        g = x * 5  # noqa: TL004, TL900
        return a + b + c + d + e + f + g
"""


def test_off_by_default(project):
    write(project, "m.py", SOURCE)
    assert run_json(["check"]) == (0, run_json(["check"])[1])
    assert run_json(["check"])[1]["findings"] == []


def test_reports_the_unused_codes_it_can_judge_and_nothing_else(project):
    write(project, "m.py", SOURCE)
    code, report = run_json(["check", "--extend-select", "TL900", "--no-dynamic"])
    assert code == 1
    got = [(f["line"], f["column"], f["rule"], f["message"]) for f in report["findings"]]
    assert got == [
        (1, 1, "TL900", "unused suppression: `TL003` silences nothing in this file"),
        (8, 29, "TL900", "unused suppression: `TL005` silences nothing on this line"),
        (9, 20, "TL900", "unused suppression: `TL001` silences nothing on this line"),
        (12, 9, "TL900", "unused suppression: `TL999` is no rule's code"),
        (14, 20, "TL900", "unused suppression: `TL004` silences nothing on this line"),
    ]  # not: the bare ignore and the GB code (dynamo did not run), bare noqa, E501, TL900 kept
    assert {f["severity"] for f in report["findings"]} == {"warning"}
    assert {f["fix"]["applicability"] for f in report["findings"]} == {"safe"}
    out = run_cli(["check", "--extend-select", "TL900", "-q"]).stdout
    assert "Found 5 unused suppressions in 1 file (TL900 × 5)." in out


def test_a_rule_that_is_not_enabled_is_not_judged(project):
    write(project, "m.py", SOURCE)
    _, report = run_json(["check", "--extend-select", "TL900", "--extend-ignore", "TL001,TL003"])
    assert [f["line"] for f in report["findings"]] == [8, 12, 14]
    write(project, "pyproject.toml", '[tool.torchlint]\nper-file-ignores = { "m.py" = ["TL900"] }\n')
    _, report = run_json(["check", "--extend-select", "TL900"])
    assert report["findings"] == []


def test_fix_removes_the_unused_codes_keeping_other_comments_and_is_idempotent(project):
    path = write(project, "m.py", SOURCE)
    result = run_cli(["check", "--extend-select", "TL900", "--fix"])
    assert result.exit_code == 0, result.stdout
    assert "Fixed 5 unused suppressions in 1 file." in result.stderr
    assert path.read_text() == FIXED
    again = run_cli(["check", "--extend-select", "TL900", "--fix"])
    assert again.exit_code == 0 and path.read_text() == FIXED


def test_without_removes_codes_comments_and_lone_comment_lines():
    from torchlint import suppression
    from torchlint.unused_suppression import without

    text = "a = 1  # noqa: TL001, TL002\r\n# torchlint: ignore[TL003]\r\nb = 2  # torchlint: ignore # why\r\n"
    table = suppression.parse(text.splitlines())
    d1, d2, d3 = table.directives
    assert without(text, {d1: {"TL002"}}) == text.replace("TL001, TL002", "TL001")
    assert without(text, {d1: {"TL001", "TL002"}, d2: {"TL003"}, d3: {"*"}}) == "a = 1\r\nb = 2 # why\r\n"


@pytest.mark.dynamo
def test_gb_codes_and_bare_comments_are_judged_only_on_lines_dynamo_traced(project):
    pytest.importorskip("torch")
    write(
        project,
        "m.py",
        """\
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        print("step")  # torchlint: ignore
        y = x + 1  # torchlint: ignore
        return y * 2  # noqa: GB0124


class Unused(nn.Module):
    def forward(self, x):
        return x * 3  # noqa: GB0124
""",
    )
    args = ["check", "--extend-select", "TL900", "--target", "m.py:Net", "--input", "f32[2,4]"]
    code, report = run_json(args)
    got = [(f["line"], f["rule"], f["message"]) for f in report["findings"]]
    assert got == [
        (8, "TL900", "unused suppression: `# torchlint: ignore` silences nothing on this line"),
        (9, "TL900", "unused suppression: `GB0124` silences nothing on this line"),
    ], got  # line 7's break used its comment; Unused was not reached: its comment is not judged
    _, static_only = run_json(args + ["--no-dynamic"])
    assert static_only["findings"] == []  # with --no-dynamic, GB codes and bare comments are not judged
