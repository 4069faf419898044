"""Targets inside packages (relative imports, src layout) and keyword inputs, as real projects
declare them: ``pkg/model.py:Net`` and ``pkg.model:Net``, from the project root and from a
parent folder; breaks land on the project's lines."""

import os
import shutil

import pytest

from torchlint.dynamic.specs import KeywordSpec, SpecError, parse_input, parse_input_set
from torchlint.dynamic.targets import find_module_file, make_target, package_of, target_from_config

PROJECT = os.path.join(os.path.dirname(__file__), "projects", "tagger")
#: where the two breaks of Tagger are: the print in the attention layer, the .item() in forward
BREAKS = {("src/mypkg/layers/attention.py", 17), ("src/mypkg/model.py", 19)}


@pytest.fixture
def tagger(tmp_path):
    """A copy of the project in ``<tmp>/parent/tagger`` (nothing written into the repo)."""
    dest = tmp_path / "parent" / "tagger"
    shutil.copytree(PROJECT, dest, ignore=shutil.ignore_patterns("__pycache__", ".torchlint_cache"))
    return dest


# --------------------------------------------------------------------------- parsing (no torch)


def test_package_of_walks_up_init_files(tagger):
    src = str(tagger / "src")
    assert package_of(str(tagger / "src/mypkg/layers/attention.py")) == (src, ["mypkg", "layers", "attention"])
    assert package_of(str(tagger / "src/mypkg/__init__.py")) == (src, ["mypkg"])
    lone = tagger / "script.py"
    lone.write_text("x = 1\n")
    assert package_of(str(lone)) == (str(tagger), ["script"])


def test_a_dotted_target_is_found_under_the_base_its_src_and_the_search_folders(tagger):
    model = str(tagger / "src/mypkg/model.py")
    assert find_module_file("mypkg.model", [str(tagger / "src")]) == model
    assert find_module_file("mypkg.layers", [str(tagger / "src")]) == str(tagger / "src/mypkg/layers/__init__.py")
    assert find_module_file("mypkg.nothing", [str(tagger / "src")]) is None
    # from the project root: found through src/
    spec = target_from_config(
        {"target": "mypkg.model:build(labels=3)", "input": ["input_ids=i64[2,8]:0..1000"]}, base_dir=str(tagger)
    )
    assert spec.ref.path == model and spec.ref.kwargs_dict == {"labels": 3}
    assert spec.name == "mypkg.model:build(labels=3)"  # reports name it as declared
    # from a parent folder: found through a search folder (the config's folder, a linted package)
    spec = target_from_config(
        {"target": "mypkg.model:Tagger", "inputs-from": "mypkg.model:example_inputs"},
        base_dir=str(tagger.parent),
        search=[str(tagger)],
    )
    assert spec.ref.path == model and spec.inputs_from.path == model
    # found nowhere: left as declared, for the worker to import as an installed module
    spec = target_from_config({"target": "nosuchpkg.model:Net", "input": ["f32[2]"]}, base_dir=str(tagger))
    assert spec.ref.path == "nosuchpkg.model"


def test_keyword_input_specs():
    assert parse_input("input_ids=i64[2,16]:3..1000") == KeywordSpec("input_ids", parse_input("i64[2,16]:3..1000"))
    call = parse_input_set("f32[2,4]; input_ids = i64[2,16]:0..1000; attention_mask=i64[2,16]:1..2")
    assert [str(s) for s in call] == ["f32[2,4]", "input_ids=i64[2,16]:0..1000", "attention_mask=i64[2,16]:1..2"]
    with pytest.raises(SpecError, match="positional argument 'f32\\[2\\]' after a keyword"):
        parse_input_set("x=f32[2];f32[2]")
    with pytest.raises(SpecError, match="'x' given twice"):
        parse_input_set("x=f32[2];x=f32[3]")
    with pytest.raises(SpecError, match="after a keyword"):
        make_target("m.py:Net", ["x=f32[2]", "f32[2]"])
    spec = make_target("m.py:Net", ["f32[2]", "mask=bool[2]"], ["a=f32[1];b=3"])
    assert spec.to_wire()["input_sets"] == [["f32[2]", "mask=bool[2]"], ["a=f32[1]", "b=3"]]
    with pytest.raises(SpecError, match="empty argument"):
        parse_input("x=")


# --------------------------------------------------------------------------- running

torch_needed = pytest.mark.dynamo


def _run(worker, cwd, target, **table):
    from torchlint.dynamic.target_pass import run_dynamic

    files = []
    for root, _dirs, names in os.walk(cwd):
        files += [os.path.relpath(os.path.join(root, n), cwd) for n in names if n.endswith(".py")]
    return run_dynamic([dict(table, target=target)], cwd=str(cwd), user_files=files, cli=True, worker=worker)


@torch_needed
@pytest.mark.parametrize("where", ["root", "parent"])
@pytest.mark.parametrize("form", ["path", "dotted"])
def test_a_target_inside_a_package_loads_and_its_breaks_are_project_lines(worker, tagger, where, form):
    pytest.importorskip("torch")
    cwd = tagger if where == "root" else tagger.parent
    prefix = "" if where == "root" else "tagger/"
    module = f"{prefix}src/mypkg/model.py" if form == "path" else "mypkg.model"
    results, findings, errors, _ = _run(
        worker, cwd, f"{module}:Tagger", input=["input_ids=i64[2,8]:0..1000", "attention_mask=i64[2,8]:1..2"]
    )
    assert errors == [] and results[0].error is None
    assert results[0].graph_breaks == 2
    # explain() lists 3 break reasons (the print is hit in the caller's frame and again in the
    # layer's own): 3 hits at 2 sites
    assert results[0].graph_break_hits == 3
    assert {(f.path, f.line) for f in findings} == {(prefix + p, n) for p, n in BREAKS}


@torch_needed
def test_factories_and_inputs_from_in_a_package_and_keyword_input_sets(worker, tagger):
    pytest.importorskip("torch")
    results, findings, errors, _ = _run(
        worker,
        tagger.parent,
        "mypkg.model:build(labels=3)",
        **{
            "inputs-from": "tagger/src/mypkg/model.py:example_inputs",
            "input-sets": ["input_ids=i64[2,16]:0..1000;attention_mask=i64[2,16]:1..2"],
        },
    )
    assert errors == [] and results[0].error is None
    assert {(f.path, f.line) for f in findings} == {("tagger/" + p, n) for p, n in BREAKS}
    assert results[0].recompiles >= 1  # the second call's length 16 against the first's 8


@torch_needed
def test_an_unknown_dotted_target_says_where_it_looked(worker, tagger):
    pytest.importorskip("torch")
    results, _findings, errors, _ = _run(worker, tagger, "nosuchpkg.model:Net", input=["f32[2]"])
    assert "no such file or module: nosuchpkg.model" in results[0].error
    assert len(errors) == 1


@torch_needed
def test_a_break_site_is_never_torch_or_torchlint():
    """Innermost frame in the linted files; else the library line (a model installed in
    site-packages); never ``torchlint/dynamic/observe.py``'s ``compiled(*args)`` nor torch."""
    pytest.importorskip("torch")
    from torchlint.dynamic import observe as o

    ours = (os.path.join(o._OWN_DIR, "dynamic", "observe.py"), 300)
    torch_frame = (os.path.join(o._TORCH_DIR, "nn", "modules", "module.py"), 1700)
    library = (os.path.join(sorted(o._SITE_DIRS)[0], "somelib", "modeling.py"), 12)
    user = (os.path.abspath("model.py"), 40)
    assert o.site_frame([ours, user, library, torch_frame], {user[0]}) == user
    assert o.site_frame([ours, library, torch_frame], {user[0]}) == library
    assert o.site_frame([ours, library, torch_frame], None) == library
    assert o.site_frame([ours, torch_frame], {user[0]}) is None


@torch_needed
def test_explain_calls_take_keyword_arguments_per_call(tagger):
    pytest.importorskip("torch")
    import sys

    import torch

    import torchlint

    sys.path.insert(0, str(tagger / "src"))
    try:
        from mypkg.model import Tagger

        ids = torch.randint(0, 1000, (2, 8))
        report = torchlint.explain(
            Tagger(),
            calls=[
                ((ids,), {"attention_mask": torch.ones(2, 8, dtype=torch.long)}),
                {"input_ids": torch.randint(0, 1000, (2, 16))},
            ],
            files=[str(p) for p in (tagger / "src").rglob("*.py")],
        )
    finally:
        sys.path.remove(str(tagger / "src"))
        for name in [n for n in sys.modules if n == "mypkg" or n.startswith("mypkg.")]:
            del sys.modules[name]
    assert report.graph_breaks == 2 and report.recompiles >= 1
    assert {(os.path.basename(f.path), f.line) for f in report.findings} == {("attention.py", 17), ("model.py", 19)}


@torch_needed
@pytest.mark.parametrize("static", [True, False])
def test_a_dynamic_only_break_carries_only_the_rule_that_flags_its_line(models_dir, monkeypatch, static):
    pytest.importorskip("torch")
    import io
    from types import SimpleNamespace

    import torchlint
    from torchlint.output.text import render
    from torchlint.rules import all_rules
    from torchlint.static.static_pass import rules_on_lines

    monkeypatch.chdir(models_dir)
    report = torchlint.check(
        ["hidden_breaks.py"], static=static, targets=[{"target": "hidden_breaks.py:Net", "input": ["f32[2,8]"]}]
    )
    assert report.errors == []
    got = {f.line: (f.rule, f.gb_code) for f in report.findings}
    assert got == {8: ("TL004", "GB0059"), 13: ("TL003", "GB0109"), 18: ("TL002", "GB0124"), 23: ("TL016", "GB0033")}
    assert all(f.source == "dynamic" for f in report.findings)
    flagged = rules_on_lines({"hidden_breaks.py": set(got)}, all_rules())
    for f in report.findings:  # the bar: no rule code whose rule would not flag that line
        assert f.rule is None or f.rule in flagged[(f.path, f.line)]
    equal = next(f for f in report.findings if f.line == 23)
    assert equal.reason == "Data dependent operator" and ".item()" not in equal.suggestion
    out = io.StringIO()
    render(
        report,
        out,
        options=SimpleNamespace(color=False, quiet=False, statistics=False, unsafe_fixable=0, unsafe_fixes=False),
    )
    text = out.getvalue()
    assert "found by dynamo, TL004 flags this line" in text and "found by dynamo, TL016 flags this line" in text


SHAPE_BUG = """import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(16, 4))

    def forward(self, x):
        h = x * 2
        return h @ self.w
"""


@torch_needed
def test_a_crash_shows_the_users_error_not_dynamos_wrapper(worker, tmp_path):
    pytest.importorskip("torch")
    (tmp_path / "crash.py").write_text(SHAPE_BUG)
    results, _findings, errors, _ = _run(worker, tmp_path, "crash.py:Net", input=["f32[2,8]"])
    error = results[0].error
    assert error == (
        "raised RuntimeError: a and b must have same reduction dim, but got [2, 8] X [16, 4]. (at crash.py:12)"
    )
    assert "fake tensor" not in errors[0].message
    assert "Traceback" in results[0].traceback and "TorchRuntimeError" in results[0].traceback
