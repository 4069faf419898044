"""Jupyter notebooks: code cells linted as one module, findings on cell lines, fixes written
back to the changed cells only."""

from __future__ import annotations

import json
import shutil

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from support import FIXTURES, run_cli, run_json

from torchlint.static.notebook import parse_notebook, to_module

NOTEBOOK = FIXTURES / "notebook.ipynb"


def write_notebook(path, *sources, markdown_first=True, as_string=False):
    nb = new_notebook()
    cells = [new_markdown_cell("# notes")] if markdown_first else []
    for k, src in enumerate(sources, 1):
        cell = new_code_cell(src, execution_count=k, outputs=[new_output("stream", name="stdout", text=f"out {k}\n")])
        cells.append(cell)
    nb.cells = cells
    text = nbformat.writes(nb)
    path.parent.mkdir(parents=True, exist_ok=True)
    if as_string:  # `source` as one string, which nbformat also accepts
        data = json.loads(text)
        for c in data["cells"]:
            c["source"] = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        text = json.dumps(data, indent=1)
    path.write_text(text, encoding="utf-8")
    return path


HEADER = "import torch\nimport torch.nn as nn\n"
MODEL = "class M(nn.Module):\n    def forward(self, x):\n        return x * x.sum().item()\n"


def test_fixture_findings_name_cell_and_line_in_text_and_json():
    code, data = run_json(["check", str(NOTEBOOK), "--no-dynamic"])
    assert code == 1
    got = [(f["cell"], f["line"], f["column"], f["rule"]) for f in data["findings"]]
    assert got == [(2, 9, 29, "TL001"), (3, 5, 5, "TL004")]
    truth = json.loads((FIXTURES / "expected_breaks.json").read_text())["notebook.ipynb"]["breaks"]
    assert [(b["cell"], b["line"]) for b in truth] == [g[:2] for g in got]
    text = run_cli(["check", str(NOTEBOOK), "--no-dynamic"]).stdout
    assert "notebook.ipynb:cell 2:9:29: TL001" in text
    assert "notebook.ipynb:cell 3:5:5: TL004" in text
    assert "9 |         return self.fc2(h / h.abs().max().item())" in text  # the cell's own line


def test_fixable_findings_in_cells_are_marked_as_in_python_files(tmp_path):
    """`[*]` and the JSON `fix` mark a notebook finding `--fix` would fix, as for a .py file,
    and the fix's edits are on the cell's lines (applied to the cell, they are the fix)."""
    text = run_cli(["check", str(NOTEBOOK), "--no-dynamic"]).stdout
    assert "notebook.ipynb:cell 3:5:5: TL004 [*] tensor-to-string" in text  # print(): a safe fix
    assert "notebook.ipynb:cell 2:9:29: TL001 tensor-item" in text  # .item(): unsafe, unmarked
    assert "[*] 1 fixable with `--fix`." in text
    assert "1 more fixable with `--fix --unsafe-fixes`." in text
    _, data = run_json(["check", str(NOTEBOOK), "--no-dynamic"])
    fixes = {f["rule"]: f.get("fix") for f in data["findings"]}
    assert fixes["TL004"]["applicability"] == "safe" and fixes["TL001"]["applicability"] == "unsafe"
    # the same findings in a .py file are marked alike
    from torchlint.static.notebook import read_notebook

    cells = read_notebook(str(NOTEBOOK)).cells
    (tmp_path / "nb.py").write_text(to_module(read_notebook(str(NOTEBOOK))).text)  # the cells as one module
    py = run_cli(["check", str(tmp_path / "nb.py"), "--no-dynamic"]).stdout
    assert py.count("[*]") == text.count("[*]")

    from torchlint.fixes.fix_files import Marker
    from torchlint.rules import all_rules
    from torchlint.static.static_pass import _lint_notebook

    found = {f.rule: f for f in _lint_notebook(str(NOTEBOOK), all_rules(), Marker()).findings}
    cell = next(c for c in cells if c.number == found["TL004"].cell)
    lines = cell.text.splitlines(True)
    edits = found["TL004"].fix.edits
    assert edits and all(1 <= e.line <= e.end_line <= len(lines) + 1 for e in edits)
    assert lines[found["TL004"].line - 1].strip() == 'print("loss", loss)'


def test_python_files_carry_no_cell_key(tmp_path):
    (tmp_path / "m.py").write_text(HEADER + MODEL)
    _, data = run_json(["check", str(tmp_path / "m.py"), "--no-dynamic"])
    assert data["findings"] and all("cell" not in f for f in data["findings"])


def test_fix_rewrites_exactly_the_cells_with_breaks(tmp_path):
    nb = tmp_path / "notebook.ipynb"
    shutil.copy(NOTEBOOK, nb)
    before_raw = nb.read_text()
    before = json.loads(before_raw)
    result = run_cli(["check", str(nb), "--no-dynamic", "--fix", "--unsafe-fixes"])
    assert result.exit_code == 0, result.output
    after_raw = nb.read_text()
    after = json.loads(after_raw)
    assert after["metadata"] == before["metadata"]
    assert {k: v for k, v in after.items() if k != "cells"} == {k: v for k, v in before.items() if k != "cells"}
    code_cells = [i for i, c in enumerate(before["cells"]) if c["cell_type"] == "code"]
    changed = {code_cells[1], code_cells[2]}  # code cells 2 and 3: the two breaks
    assert len(after["cells"]) == len(before["cells"])
    for i, (old, new) in enumerate(zip(before["cells"], after["cells"])):
        if i in changed:
            assert old["source"] != new["source"]
            assert {k: v for k, v in old.items() if k != "source"} == {k: v for k, v in new.items() if k != "source"}
        else:
            assert old == new
    assert "".join(after["cells"][code_cells[1]]["source"]).endswith("return self.fc2(h / h.abs().max())")
    assert '    if not torch.compiler.is_compiling():\n        print("loss", loss)\n' in "".join(
        after["cells"][code_cells[2]]["source"]
    )
    # byte for byte outside the two rewritten `source` values
    nb_before, nb_after = parse_notebook("a", before_raw), parse_notebook("b", after_raw)
    spans_before = [c.span for c in nb_before.cells]
    spans_after = [c.span for c in nb_after.cells]
    assert before_raw[: spans_before[1][0]] == after_raw[: spans_after[1][0]]
    assert before_raw[spans_before[1][1] : spans_before[2][0]] == after_raw[spans_after[1][1] : spans_after[2][0]]
    assert before_raw[spans_before[2][1] :] == after_raw[spans_after[2][1] :]
    nbformat.validate(nbformat.reads(after_raw, as_version=4))
    _, data = run_json(["check", str(nb), "--no-dynamic"])
    assert data["findings"] == []


def test_safe_fix_alone_leaves_the_unsafe_cell(tmp_path):
    nb = tmp_path / "n.ipynb"
    shutil.copy(NOTEBOOK, nb)
    before = json.loads(nb.read_text())
    run_cli(["check", str(nb), "--no-dynamic", "--fix"])
    after = json.loads(nb.read_text())
    code = [i for i, c in enumerate(before["cells"]) if c["cell_type"] == "code"]
    assert after["cells"][code[1]] == before["cells"][code[1]]  # TL001's fix is unsafe
    assert after["cells"][code[2]] != before["cells"][code[2]]


def test_diff_names_cells_and_writes_nothing(tmp_path):
    nb = tmp_path / "n.ipynb"
    shutil.copy(NOTEBOOK, nb)
    raw = nb.read_text()
    result = run_cli(["check", str(nb), "--no-dynamic", "--diff"])
    assert result.exit_code == 1
    assert "+    if not torch.compiler.is_compiling():" in result.stdout
    assert "\n # %% cell 4\n" in result.stdout  # the cells as a `# %%` script
    assert nb.read_text() == raw


def test_magics_and_a_syntax_error_cell(tmp_path):
    nb = write_notebook(
        tmp_path / "magic.ipynb",
        "%load_ext autoreload\n%autoreload 2\n" + HEADER + "files = !ls\n",
        "def broken(:\n    pass\n",
        "%%timeit\nthis is not python at all\n",
        "class M(nn.Module):\n    def forward(self, x):\n        for i in range(3):\n"
        "            %time y = x.sum()\n            x = x * x.sum().item()\n        return x\n",
        "torch.compile(M())",
    )
    result = run_cli(["check", str(nb), "--no-dynamic"])
    lines = [ln for ln in result.stdout.splitlines() if "error:" in ln]
    assert lines == [f"{nb}: error: cell 2: syntax error at line 1, column 12: invalid syntax"]
    assert result.exit_code == 2
    _, data = run_json(["check", str(nb), "--no-dynamic"])
    got = [(f["cell"], f["line"], f["rule"]) for f in data["findings"]]
    # cells after the broken one are still checked; a magic inside a block shifts no line
    assert got == [(4, 5, "TL001")]
    assert len(data["errors"]) == 1


def test_magic_lines_become_placeholders_of_equal_count():
    raw = nbformat.writes(new_notebook(cells=[new_code_cell("%pip install x\nx = 1\n!ls\ny = %env\nz?\n")]))
    nb = parse_notebook("m.ipynb", raw)
    module = to_module(nb)
    body = module.text.splitlines()[1:]
    assert len(body) == 5
    assert body[1] == "x = 1" and all(line.strip().startswith("pass") for line in body[0:1] + body[2:])


def test_suppression_comments_work_in_cells(tmp_path):
    nb = write_notebook(
        tmp_path / "s.ipynb",
        HEADER,
        "class M(nn.Module):\n    def forward(self, x):\n"
        "        a = x * x.sum().item()  # torchlint: ignore[TL001]\n"
        "        return a * x.mean().item()  # noqa: TL004\n",
    )
    _, data = run_json(["check", str(nb), "--no-dynamic"])
    assert [(f["cell"], f["line"], f["rule"]) for f in data["findings"]] == [(2, 4, "TL001")]


def test_string_sources_and_folders(tmp_path):
    write_notebook(tmp_path / "sub" / "s.ipynb", HEADER + MODEL, as_string=True)
    write_notebook(tmp_path / ".ipynb_checkpoints" / "s-checkpoint.ipynb", HEADER + MODEL)
    _, data = run_json(["check", str(tmp_path), "--no-dynamic"])
    assert [(f["path"].rsplit("/", 1)[-1], f["cell"], f["line"]) for f in data["findings"]] == [("s.ipynb", 1, 5)]
    nb = tmp_path / "sub" / "s.ipynb"
    run_cli(["check", str(nb), "--no-dynamic", "--fix", "--unsafe-fixes"])
    data = json.loads(nb.read_text())
    assert isinstance(data["cells"][1]["source"], str)
    assert data["cells"][1]["source"].endswith("return x * x.sum()\n")


def test_sarif_and_github_point_at_the_notebook():
    sarif = json.loads(run_cli(["check", str(NOTEBOOK), "--no-dynamic", "--format", "sarif"]).stdout)
    results = sarif["runs"][0]["results"]
    assert [r["properties"]["cell"] for r in results] == [2, 3]
    loc = results[0]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"].endswith("notebook.ipynb") and "region" not in loc
    assert results[0]["message"]["text"].startswith("cell 2, line 9: ")
    gh = run_cli(["check", str(NOTEBOOK), "--no-dynamic", "--format", "github"]).stdout.splitlines()
    assert gh[0].startswith("::error file=") and "notebook.ipynb,title=TL001" in gh[0]
    assert "::cell 2, line 9: " in gh[0]


@pytest.mark.parametrize(
    "content, reason",
    [
        ("{not json", "not a notebook (invalid JSON"),
        ('{"metadata": {}}', 'not a notebook (invalid JSON: no "cells" list)'),
    ],
)
def test_bad_notebooks_are_one_line_errors(tmp_path, content, reason):
    (tmp_path / "bad.ipynb").write_text(content)
    write_notebook(tmp_path / "good.ipynb", HEADER + MODEL)
    code, data = run_json(["check", str(tmp_path), "--no-dynamic"])
    assert code == 2
    assert [e["message"] for e in data["errors"]][0].startswith(reason)
    assert [f["path"].rsplit("/", 1)[-1] for f in data["findings"]] == ["good.ipynb"]


def test_pre_commit_hook_covers_notebooks():
    hooks = (FIXTURES.parent / ".pre-commit-hooks.yaml").read_text()
    assert "types_or: [python, jupyter]" in hooks
