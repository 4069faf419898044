"""--add-noqa: a `# torchlint: ignore[CODE]` for every finding, atomic, idempotent."""

from __future__ import annotations

import ast

from support import run_cli, run_json, write

SOURCE = """\
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        print(x)  # a note
        s = x.sum().item()  # torchlint: ignore[TL005]
        t = torch.stack([x.sum().item(),
                         x.max().item()])
        u = x.sum().item() + len(\"\"\"two
lines\"\"\")
        return x * s * t * u\r
"""


def test_adds_one_comment_per_finding_line_keeping_comments_and_is_idempotent(project):
    path = write(project, "m.py", SOURCE)
    path.write_bytes(SOURCE.encode())  # keep the one CRLF line ending
    result = run_cli(["check", "--add-noqa"])
    assert result.exit_code == 0
    assert result.stderr == (
        "Added 4 suppression comments in 1 file. 1 finding left: no line of it can take a comment.\n"
    )
    text = path.read_bytes().decode()
    lines = text.split("\n")
    assert lines[6] == "        print(x)  # a note  # torchlint: ignore[TL004]"
    assert lines[7] == "        s = x.sum().item()  # torchlint: ignore[TL005, TL001]"
    assert lines[8] == "        t = torch.stack([x.sum().item(),  # torchlint: ignore[TL001]"
    assert lines[9] == "                         x.max().item()])  # torchlint: ignore[TL001]"
    assert lines[10] == '        u = x.sum().item() + len("""two'  # inside a string: left alone
    assert lines[12] == "        return x * s * t * u\r"
    ast.parse(text)
    code, report = run_json(["check"])
    assert [(f["line"], f["rule"]) for f in report["findings"]] == [(11, "TL001")]
    again = run_cli(["check", "--add-noqa"])
    assert again.exit_code == 0 and again.stderr.startswith("Added 0 suppression comments.")
    assert path.read_bytes().decode() == text


def test_add_noqa_excludes_fix_and_reports_unreadable_files(project):
    write(project, "m.py", SOURCE)
    assert run_cli(["check", "--add-noqa", "--fix"]).exit_code == 2
    write(project, "bad.py", "import torch\nx = (\n")
    result = run_cli(["check", "--add-noqa"])
    assert result.exit_code == 2 and "bad.py: syntax error" in result.stderr
    assert "# torchlint: ignore[TL004]" in (project / "m.py").read_text()  # the others still done


def test_add_comments_uses_the_gb_code_of_a_break_no_rule_predicted():
    from torchlint.findings import Finding
    from torchlint.suppression import add_comments

    brk = Finding(
        rule=None,
        name="graph-break",
        path="m.py",
        line=1,
        column=1,
        end_line=1,
        end_column=2,
        message="m",
        suggestion="s",
        source="dynamic",
        gb_code="GB0124",
    )
    assert add_comments("y = f(x)\n", [brk]) == ("y = f(x)  # torchlint: ignore[GB0124]\n", 1, 0)
