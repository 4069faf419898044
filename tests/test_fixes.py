"""Automatic fixes: before/after snapshots, idempotence, same numbers, no more breaks, CLI contract.

Snapshots live in tests/fixes/: ``X.in.py`` is fixed with ``--unsafe-fixes`` and must give
exactly ``X.out.py``. Each snapshot but ``nofix`` defines ``build()`` and ``example_inputs()``
(a list of argument tuples): the fixed model must compute the same outputs and gradients as
the original, and dynamo must no longer break on it.
"""
from __future__ import annotations

import json
from pathlib import Path

import libcst as cst
import pytest
from support import run_cli, write

from torchlint.fixes import fixer_for
from torchlint.fixes.apply import fix_source, mark_fixable, plan_source
from torchlint.fixes.base import Plan
from torchlint.rules import all_rules

FIXES = Path(__file__).resolve().parent / "fixes"
SNAPSHOTS = sorted(p.name[: -len(".in.py")] for p in FIXES.glob("*.in.py"))
RUNNABLE = [n for n in SNAPSHOTS if n != "nofix"]


def _fix(text: str, path: str = "snippet.py", unsafe: bool = True):
    return fix_source(text, path, all_rules(), unsafe=unsafe)


def _pair(name: str):
    return (FIXES / f"{name}.in.py").read_text(), (FIXES / f"{name}.out.py").read_text()


# -- snapshots (static, fast) -----------------------------------------------------------------
def test_every_snapshot_has_both_halves():
    assert {"guard", "drop_item", "where", "gather", "hoist_module", "graph_break"} <= set(SNAPSHOTS)
    for name in SNAPSHOTS:
        assert (FIXES / f"{name}.out.py").is_file(), f"{name}.in.py has no {name}.out.py"


@pytest.mark.parametrize("name", SNAPSHOTS)
def test_fix_gives_the_snapshot(name):
    before, after = _pair(name)
    outcome = _fix(before, f"{name}.py")
    assert outcome.new == after
    assert bool(outcome.applied) == (name != "nofix")
    cst.parse_module(outcome.new)
    compile(outcome.new, name, "exec")


@pytest.mark.parametrize("name", SNAPSHOTS)
def test_a_second_fix_changes_nothing(name):
    _, after = _pair(name)
    again = _fix(after, f"{name}.py")
    assert again.new == after and not again.applied


@pytest.mark.parametrize("name", RUNNABLE)
def test_fixed_snapshot_has_no_static_finding_left(name):
    from torchlint.static.engine import lint_source

    from torchlint.static.run import select_rules
    from torchlint.config import Settings

    rules = select_rules(Settings().enabled_rules([r.code for r in all_rules()]))  # graph breaks
    before, after = _pair(name)
    assert lint_source(before, "x.py", rules)
    assert [(f.rule, f.line) for f in lint_source(after, "x.py", rules)] == []


def test_safe_run_applies_only_safe_fixes():
    before, _ = _pair("guard")
    outcome = _fix(before, unsafe=False)
    assert {a.applicability for a in outcome.applied} == {"safe"}
    assert "    torch.manual_seed(7)" in outcome.new.replace("        torch.manual_seed", "    torch.manual_seed")
    assert 'self.stats["norm"] = str(h.norm())\n\n' in outcome.new  # the unsafe guard is not made
    assert outcome.new.count("is_compiling()") == 3


def test_guard_uses_the_files_own_name_for_torch():
    src = "import torch as th\n\n\n@th.compile\ndef f(x):\n    print(x)\n    return x + 1\n"
    new = _fix(src).new
    assert "if not th.compiler.is_compiling():\n        print(x)" in new
    assert new.count("import") == 1


def test_where_leaves_elif_chains_and_loops_alone():
    before, after = _pair("nofix")
    assert before == after


def test_fix_descriptions_say_what_changes():
    before, _ = _pair("hoist_module")
    outcome = _fix(before)
    text = " ".join(a.description for a in outcome.applied)
    assert "random generator" in text and "initialisation is unchanged" in text and "state dict" in text


# -- numerics: the fixed model computes the same --------------------------------------------
def _load(path: Path):
    from torchlint.dynamic.load import load_module_from_path

    return load_module_from_path(str(path))


def _tensors(value):
    import torch

    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors(v)


def _align_hoisted(original, fixed, torch) -> None:
    """Give the hoisted layers the weights the original's forward draws under the same seed."""
    old = dict(original.named_children())
    torch.manual_seed(1)
    for name, child in fixed.named_children():
        if name not in old:
            child.reset_parameters()


@pytest.mark.parametrize("name", RUNNABLE)
def test_fixed_code_computes_the_same_outputs_and_gradients(name):
    torch = pytest.importorskip("torch", reason="torch is needed to run the snapshots")
    original_mod, fixed_mod = _load(FIXES / f"{name}.in.py"), _load(FIXES / f"{name}.out.py")
    for args in original_mod.example_inputs():
        torch.manual_seed(0)
        original = original_mod.build()
        torch.manual_seed(0)
        fixed = fixed_mod.build()
        params0 = dict(original.named_parameters()) if isinstance(original, torch.nn.Module) else {}
        params1 = dict(fixed.named_parameters()) if isinstance(fixed, torch.nn.Module) else {}
        for key, value in params0.items():  # initialisation unchanged (reproducible)
            assert torch.equal(value, params1[key]), f"{name}: {key} initialised differently"
        if name == "hoist_module":
            _align_hoisted(original, fixed, torch)
        outs = []
        for model, params in ((original, params0), (fixed, params1)):
            for p in params.values():
                p.grad = None
            torch.manual_seed(1)
            out = model(*[a.clone() for a in args])
            tensors = list(_tensors(out))
            loss = sum(t.float().sum() for t in tensors if t.requires_grad)
            if torch.is_tensor(loss):
                loss.backward()
            outs.append((tensors, {k: p.grad for k, p in params.items()}))
        (t0, g0), (t1, g1) = outs
        assert len(t0) == len(t1)
        for a, b in zip(t0, t1):
            assert a.shape == b.shape and a.dtype == b.dtype
            torch.testing.assert_close(a, b, rtol=1e-6, atol=1e-6)
        for key, grad in g0.items():
            if grad is not None:  # `.item()` cut the gradient in the original; the fix lets it flow
                torch.testing.assert_close(grad, g1[key], rtol=1e-6, atol=1e-6)
    if name == "drop_item":
        assert g0["scale"] is None and g1["scale"] is not None


# -- dynamo: the breaks are gone --------------------------------------------------------------
@pytest.mark.dynamo
@pytest.mark.parametrize("name", RUNNABLE)
def test_dynamo_no_longer_breaks_on_the_fixed_code(name):
    torch = pytest.importorskip("torch", reason="torch is needed to run dynamo")
    from torchlint.dynamic.observe import observe

    lines = {}
    for half in ("in", "out"):
        path = FIXES / f"{name}.{half}.py"
        mod = _load(path)
        args = mod.example_inputs()[0]
        torch.manual_seed(0)
        obs = observe(mod.build(), [args], user_files={str(path)})
        lines[half] = sorted(obs.break_lines(str(path)))
    assert lines["in"], f"{name}.in.py should break dynamo"
    assert lines["out"] == [], f"{name}.out.py still breaks at {lines['out']}"


# -- the CLI contract -------------------------------------------------------------------------
MIXED = '''
import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x):
        print(x.shape)
        torch._dynamo.graph_break()
        return x * 2
'''


def test_diff_prints_the_change_writes_nothing_and_exits_1(project):
    path = write(project, "m.py", MIXED)
    before = path.read_text()
    result = run_cli(["check", "m.py", "--diff"])
    assert result.exit_code == 1
    assert result.stdout.startswith("--- a/m.py\n+++ b/m.py\n")
    assert "+        if not torch.compiler.is_compiling():" in result.stdout
    assert "graph_break" not in "".join(l for l in result.stdout.splitlines() if l.startswith("-"))
    assert "Would fix 1 finding in 1 file." in result.stderr
    assert path.read_text() == before


def test_diff_exits_0_when_there_is_nothing_to_fix(project):
    write(project, "m.py", "import torch\n\n\n@torch.compile\ndef f(x):\n    return x.tolist()\n")
    result = run_cli(["check", "m.py", "--diff", "--unsafe-fixes"])
    assert result.exit_code == 0 and result.stdout == ""


def test_fix_applies_safe_fixes_and_exits_1_while_findings_remain(project):
    path = write(project, "m.py", MIXED)
    result = run_cli(["check", "m.py", "--fix"])
    assert result.exit_code == 1
    text = path.read_text()
    assert "if not torch.compiler.is_compiling():\n            print(x.shape)" in text
    assert "torch._dynamo.graph_break()" in text  # unsafe: left for --unsafe-fixes
    assert "Fixed 1 finding in 1 file." in result.stderr
    assert "TL011" in result.stdout and "TL004" not in result.stdout
    assert "1 more fixable with `--fix --unsafe-fixes`." in result.stdout


def test_unsafe_fixes_clear_the_file_exit_0_and_a_second_run_changes_nothing(project):
    path = write(project, "m.py", MIXED)
    result = run_cli(["check", "m.py", "--fix", "--unsafe-fixes"])
    assert result.exit_code == 0, result.stdout
    assert "All clear" in result.stdout
    fixed = path.read_text()
    assert "graph_break" not in fixed
    again = run_cli(["check", "m.py", "--fix", "--unsafe-fixes"])
    assert again.exit_code == 0 and path.read_text() == fixed and "Fixed" not in again.stderr


def test_suppressed_and_ignored_findings_are_not_fixed(project):
    src = MIXED.replace("print(x.shape)", "print(x.shape)  # torchlint: ignore[TL004]")
    path = write(project, "m.py", src)
    assert run_cli(["check", "m.py", "--fix", "--unsafe-fixes", "--ignore", "TL011"]).exit_code == 0
    assert path.read_text() == write(project, "expected.py", src).read_text()


def test_text_report_marks_safe_fixes_and_counts_unsafe_ones(project):
    write(project, "m.py", MIXED)
    out = run_cli(["check", "m.py"]).stdout
    assert "TL004 [*] tensor-to-string" in out
    assert "TL011 explicit-graph-break" in out  # unsafe: no mark by default
    assert "[*] 1 fixable with `--fix`." in out
    assert "1 more fixable with `--fix --unsafe-fixes`." in out
    unsafe = run_cli(["check", "m.py", "--unsafe-fixes"]).stdout
    assert "TL011 [*] explicit-graph-break" in unsafe
    assert "[*] 2 fixable with `--fix --unsafe-fixes`." in unsafe and "more fixable" not in unsafe


def test_json_report_names_each_fix(project):
    write(project, "m.py", MIXED)
    data = json.loads(run_cli(["check", "m.py", "--format", "json"]).stdout)
    fixes = {f["rule"]: f.get("fix") for f in data["findings"]}
    assert fixes["TL004"]["applicability"] == "safe"
    assert fixes["TL011"]["applicability"] == "unsafe"
    assert "is_compiling" in fixes["TL004"]["description"]


def test_fix_needs_the_static_pass(project):
    write(project, "m.py", MIXED)
    result = run_cli(["check", "m.py", "--fix", "--no-static", "--target", "m.py:Net"])
    assert result.exit_code == 2 and "--fix and --diff need the static pass" in result.stderr


def test_a_fix_that_would_not_parse_is_never_written(project, monkeypatch):
    path = write(project, "m.py", MIXED)
    before = path.read_text()
    fixer = fixer_for("TL004")

    def broken(node, rule, ctx):  # `break` outside a loop: libcst prints it, Python rejects it
        stmt = ctx.statement_of(node)
        return Plan("TL004", node, {stmt: lambda updated: cst.SimpleStatementLine([cst.Break()])},
                    "safe", "broken on purpose")

    def crashing(node, rule, ctx):
        raise RuntimeError("a bug in a fixer")

    for plan in (broken, crashing):
        monkeypatch.setattr(fixer, "plan", plan)
        result = run_cli(["check", "m.py", "--fix"])
        assert result.exit_code == 1, result.stderr
        assert "TL004" in result.stdout
        assert path.read_text() == before


def test_fix_keeps_the_files_encoding_bom_and_line_endings(project):
    src = "# -*- coding: latin-1 -*-\r\nimport torch\r\n\r\n\r\n@torch.compile\r\ndef f(x):\r\n    print('caf\xe9', x)\r\n    return x\r\n"
    path = project / "m.py"
    path.write_bytes(src.encode("latin-1"))
    bom = project / "b.py"
    bom.write_bytes(b"\xef\xbb\xbf" + MIXED.encode("utf-8"))
    assert run_cli(["check", ".", "--fix"]).exit_code == 1  # the graph_break remains
    data = path.read_bytes()
    assert b"caf\xe9" in data and b"\r\n        print(" in data and b"\n\n" not in data.replace(b"\r\n", b"")
    assert bom.read_bytes().startswith(b"\xef\xbb\xbf") and b"is_compiling" in bom.read_bytes()


def test_removed_statements_keep_their_comment_lines_and_blocks_stay_valid():
    src = ("import torch\n\n\n@torch.compile\ndef f(x):\n    if x.shape[0] > 1:\n"
           "        # bisecting\n        torch._dynamo.graph_break()\n    return x\n")
    new = _fix(src).new
    assert new.endswith("    if x.shape[0] > 1:\n        # bisecting\n        pass\n    return x\n")


def test_marked_fix_holds_what_the_fix_run_would_write(project):
    write(project, "m.py", MIXED)
    from torchlint.static.engine import lint_source

    findings = lint_source((project / "m.py").read_text(), "m.py", all_rules())
    mark_fixable(findings, all_rules(), cwd=str(project))
    by_rule = {f.rule: f.fix for f in findings}
    # a safe fix holds the text `--fix` writes; an unsafe one what `--fix --unsafe-fixes` writes
    assert "graph_break" in by_rule["TL004"].new_source and "is_compiling" in by_rule["TL004"].new_source
    assert "graph_break" not in by_rule["TL011"].new_source and "is_compiling" in by_rule["TL011"].new_source


def test_plans_respect_noqa():
    src = MIXED.replace("torch._dynamo.graph_break()", "torch._dynamo.graph_break()  # noqa: TL011")
    planned = plan_source(src, "m.py", all_rules(), unsafe=True)
    assert [p.code for p in planned.plans] == ["TL004"]


def test_rules_list_says_which_rules_have_fixes():
    out = run_cli(["rules"]).stdout
    line = {l.split()[0]: l for l in out.splitlines() if l.startswith("TL")}
    assert "fix (unsafe)" in line["TL005"] and " fix " in line["TL004"]
    assert "fix" not in line["TL008"].split("dynamic-output-shape")[1].split("`")[0]


def test_every_rule_that_declares_a_fix_has_one():
    for rule in all_rules():
        if rule.fix_applicability is not None:
            assert rule.fix_applicability in ("safe", "unsafe")
            assert fixer_for(rule.code) is not None, f"{rule.code} declares a fix nobody implements"


def test_host_sync_statements_are_guarded_safely():
    """`torch.cuda.synchronize()` is a skipped call (TL009): the guard keeps eager behaviour."""
    from torchlint.rules import get_rule

    src = ("import torch\n\n\n@torch.compile\ndef step(x):\n    y = x * 2\n"
           "    torch.cuda.synchronize()\n    return y\n")
    outcome = fix_source(src, "s.py", [get_rule("TL009")], unsafe=False)
    assert "    if not torch.compiler.is_compiling():\n        torch.cuda.synchronize()\n" in outcome.new
    assert [a.applicability for a in outcome.applied] == ["safe"]


def test_hoist_declines_when_init_may_return_early_or_the_size_changes_after_init():
    src = '''
import torch.nn as nn


class B(nn.Module):
    def __init__(self, d=4):
        super().__init__()
        if d > 8:
            return

    def forward(self, x):
        return nn.Linear(4, 4)(x)


class C(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = 3

    def forward(self, x):
        self.w = 4
        return nn.Linear(self.w, 4)(x)
'''
    from torchlint.static.engine import lint_source

    assert [f.rule for f in lint_source(src, "m.py", all_rules())] == ["TL007", "TL007"]
    assert _fix(src).new == src
