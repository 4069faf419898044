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
from torchlint.fixes.base import Plan
from torchlint.fixes.edits import apply_edits
from torchlint.fixes.fix_files import Marker
from torchlint.fixes.rounds import FixOptions, apply_plans, fix_source, plan_source
from torchlint.rules import all_rules

FIXES = Path(__file__).resolve().parent  # the snapshots sit beside this file
SNAPSHOTS = sorted(p.name[: -len(".in.py")] for p in FIXES.glob("*.in.py"))
RUNNABLE = [n for n in SNAPSHOTS if n != "nofix"]
#: snapshots whose fix leaves one break by design, at the line named (shared mask: one `nonzero`)
ONE_BREAK_LEFT = {"mask_index": "keep_idx = keep.nonzero(as_tuple=True)"}


def _fix(text: str, path: str = "snippet.py", unsafe: bool = True):
    return fix_source(text, path, FixOptions(all_rules(), unsafe=unsafe))


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
    from torchlint.config import Settings
    from torchlint.rules import enabled_rules
    from torchlint.static.lint import lint_file

    rules = enabled_rules(Settings())  # graph breaks
    before, after = _pair(name)
    assert lint_file("x.py", before, rules).findings
    left = [after.splitlines()[f.line - 1].strip() for f in lint_file("x.py", after, rules).findings]
    assert left == ([ONE_BREAK_LEFT[name]] if name in ONE_BREAK_LEFT else [])


def test_safe_run_applies_only_safe_fixes():
    before, _ = _pair("guard")
    outcome = _fix(before, unsafe=False)
    assert {a.applicability for a in outcome.applied} == {"safe"}
    assert "    torch.manual_seed(7)" in outcome.new.replace("        torch.manual_seed", "    torch.manual_seed")
    assert 'self.stats["norm"] = str(h.norm())\n\n' in outcome.new  # the unsafe guard is not made
    assert outcome.new.count("is_compiling()") == 3


def test_a_tensor_method_statement_is_guarded_only_as_an_unsafe_fix():
    """``y.retain_grad()`` guarded would no longer run in compiled training: never a safe fix."""
    from torchlint.config import Settings
    from torchlint.rules import enabled_rules
    from torchlint.static.lint import lint_file

    src = (
        "import torch\nfrom torch import nn\n\n\nclass Net(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.proj = nn.Linear(4, 4)\n\n"
        "    def forward(self, x):\n        y = self.proj(x)\n        y.retain_grad()\n        return y.sum()\n"
    )
    assert lint_file("x.py", src, enabled_rules(Settings()), facts={"train": True}).findings  # flagged ...
    trained = {"train": True}
    assert fix_source(src, "x.py", FixOptions(all_rules(), unsafe=False, facts=trained)).new == src  # ... not by --fix
    outcome = fix_source(src, "x.py", FixOptions(all_rules(), unsafe=True, facts=trained))
    assert [a.applicability for a in outcome.applied] == ["unsafe"]
    assert "if not torch.compiler.is_compiling():\n            y.retain_grad()" in outcome.new


def test_guard_uses_the_files_own_name_for_torch():
    src = "import torch as th\n\n\n@th.compile\ndef f(x):\n    print(x)\n    return x + 1\n"
    new = _fix(src).new
    assert "if not th.compiler.is_compiling():\n        print(x)" in new
    assert new.count("import") == 1


def test_where_leaves_a_chain_with_a_returning_arm_and_loops_alone():
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


@pytest.mark.dynamo
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
        if name.startswith("hoist"):
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
            torch.testing.assert_close(a, b, rtol=1e-6, atol=1e-6, equal_nan=True)
        for key, grad in g0.items():
            if grad is not None:  # `.item()` cut the gradient in the original; the fix lets it flow
                torch.testing.assert_close(grad, g1[key], rtol=1e-6, atol=1e-6, equal_nan=True)
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
    if name in ONE_BREAK_LEFT:
        assert len(lines["in"]) > 1
        text = (FIXES / f"{name}.out.py").read_text().splitlines()
        assert [text[n - 1].strip() for n in lines["out"]] == [ONE_BREAK_LEFT[name]]
        return
    assert lines["out"] == [], f"{name}.out.py still breaks at {lines['out']}"


# -- the CLI contract -------------------------------------------------------------------------
MIXED = """
import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x):
        print(x.shape)
        torch._dynamo.graph_break()
        return x * 2
"""


def test_diff_prints_the_change_writes_nothing_and_exits_1(project):
    path = write(project, "m.py", MIXED)
    before = path.read_text()
    result = run_cli(["check", "m.py", "--diff"])
    assert result.exit_code == 1
    assert result.stdout.startswith("--- a/m.py\n+++ b/m.py\n")
    assert "+        if not torch.compiler.is_compiling():" in result.stdout
    assert "graph_break" not in "".join(x for x in result.stdout.splitlines() if x.startswith("-"))
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
        return Plan(
            "TL004", node, {stmt: lambda updated: cst.SimpleStatementLine([cst.Break()])}, "safe", "broken on purpose"
        )

    def crashing(node, rule, ctx):
        raise RuntimeError("a bug in a fixer")

    for plan in (broken, crashing):
        monkeypatch.setattr(fixer, "plan", plan)
        result = run_cli(["check", "m.py", "--fix"])
        assert result.exit_code == 1, result.stderr
        assert "TL004" in result.stdout
        assert path.read_text() == before


def test_fix_keeps_the_files_encoding_bom_and_line_endings(project):
    src = (
        "# -*- coding: latin-1 -*-\r\nimport torch\r\n\r\n\r\n"
        "@torch.compile\r\ndef f(x):\r\n    print('caf\xe9', x)\r\n    return x\r\n"
    )
    path = project / "m.py"
    path.write_bytes(src.encode("latin-1"))
    bom = project / "b.py"
    bom.write_bytes(b"\xef\xbb\xbf" + MIXED.encode("utf-8"))
    assert run_cli(["check", ".", "--fix"]).exit_code == 1  # the graph_break remains
    data = path.read_bytes()
    assert b"caf\xe9" in data and b"\r\n        print(" in data and b"\n\n" not in data.replace(b"\r\n", b"")
    assert bom.read_bytes().startswith(b"\xef\xbb\xbf") and b"is_compiling" in bom.read_bytes()


def test_removed_statements_keep_their_comment_lines_and_blocks_stay_valid():
    src = (
        "import torch\n\n\n@torch.compile\ndef f(x):\n    if x.shape[0] > 1:\n"
        "        # bisecting\n        torch._dynamo.graph_break()\n    return x\n"
    )
    new = _fix(src).new
    assert new.endswith("    if x.shape[0] > 1:\n        # bisecting\n        pass\n    return x\n")


def test_marked_fix_holds_the_edits_of_that_fix_alone():
    from torchlint.static.lint import lint_file

    findings = lint_file("m.py", MIXED, all_rules(), fixes=Marker()).findings
    by_rule = {f.rule: f.fix for f in findings}
    guarded, removed = apply_edits(MIXED, by_rule["TL004"].edits), apply_edits(MIXED, by_rule["TL011"].edits)
    assert by_rule["TL004"].applicability == "safe" and by_rule["TL011"].applicability == "unsafe"
    assert "graph_break" in guarded and "is_compiling" in guarded
    assert "graph_break" not in removed and "is_compiling" not in removed
    assert all(e.line >= 8 for e in by_rule["TL004"].edits + by_rule["TL011"].edits)  # not the whole file


@pytest.mark.parametrize("name", SNAPSHOTS)
def test_marked_edits_are_what_applying_the_plan_alone_writes(name):
    """The text edits a finding carries give, byte for byte, the file libcst writes when
    that one fix is applied (comment lines, indentation, ``import torch`` and all)."""
    from torchlint.static.lint import lint_file

    before, _ = _pair(name)
    for text in (before, before.rstrip("\n"), before.replace("\n", "\r\n")):
        planned = plan_source(text, "x.py", FixOptions(all_rules(), unsafe=True))
        alone = {planned.keys[id(p)]: apply_plans(planned, [p]) for p in planned.plans} if planned else {}
        findings = lint_file("x.py", text, all_rules(), fixes=Marker()).findings
        marked = {(f.rule, f.line, f.column): f.fix for f in findings if f.fix is not None}
        assert set(marked) == {k for k, (new, used) in alone.items() if used and new != text}
        for key, fix in marked.items():
            assert apply_edits(text, fix.edits) == alone[key][0], key


def test_plans_respect_noqa():
    src = MIXED.replace("torch._dynamo.graph_break()", "torch._dynamo.graph_break()  # noqa: TL011")
    planned = plan_source(src, "m.py", FixOptions(all_rules(), unsafe=True))
    assert [p.code for p in planned.plans] == ["TL004"]


def test_rules_list_says_which_rules_have_fixes():
    out = run_cli(["rules"]).stdout
    line = {x.split()[0]: x for x in out.splitlines() if x.startswith("TL")}
    assert "fix (unsafe)" in line["TL005"] and " fix " in line["TL004"]
    assert "fix" not in line["TL010"].split("autograd-in-region")[1].split("`")[0]


def test_every_rule_that_declares_a_fix_has_one():
    for rule in all_rules():
        if rule.fix_applicability is not None:
            assert rule.fix_applicability in ("safe", "unsafe")
            if getattr(rule, "fixes_comments", False):  # TL900: edits comments after the merge
                continue  # (tests/test_unused_suppression.py proves its fix)
            assert fixer_for(rule.code) is not None, f"{rule.code} declares a fix nobody implements"


def test_host_sync_statements_are_guarded_safely():
    """`torch.cuda.synchronize()` is a skipped call (TL009): the guard keeps eager behaviour."""
    from torchlint.rules import get_rule

    src = "import torch\n\n\n@torch.compile\ndef step(x):\n    y = x * 2\n    torch.cuda.synchronize()\n    return y\n"
    outcome = fix_source(src, "s.py", FixOptions([get_rule("TL009")], unsafe=False))
    assert "    if not torch.compiler.is_compiling():\n        torch.cuda.synchronize()\n" in outcome.new
    assert [a.applicability for a in outcome.applied] == ["safe"]


def test_hoist_declines_when_init_may_return_early_or_the_size_changes_after_init():
    src = """
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
"""
    from torchlint.static.lint import lint_file

    assert [f.rule for f in lint_file("m.py", src, all_rules()).findings] == ["TL007", "TL007"]
    assert _fix(src).new == src


# -- a model not in the repo: a `.tolist()` row pick and a print ------------------------------
HELD_OUT = """
import torch
import torch.nn as nn


class RowPicker(nn.Module):
    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        h = self.proj(x)
        print("h", h.shape)
        cols = idx.tolist()
        out = torch.stack([h[i, c] for i, c in enumerate(cols)])
        return out.tanh()
"""


@pytest.mark.dynamo
def test_held_out_row_pick_model_goes_from_two_breaks_to_none(project):
    torch = pytest.importorskip("torch", reason="torch is needed to run dynamo")
    from torchlint.dynamic.observe import observe

    path = write(project, "picker.py", HELD_OUT)
    result = run_cli(["check", "picker.py", "--fix", "--unsafe-fixes"])
    assert result.exit_code == 0, result.stdout
    fixed = path.read_text()
    assert ".tolist()" not in fixed and "is_compiling()" in fixed
    again = run_cli(["check", "picker.py", "--fix", "--unsafe-fixes"])
    assert path.read_text() == fixed and "Fixed" not in again.stderr
    original = write(project, "original.py", HELD_OUT)

    x, idx = torch.randn(6, 16), torch.tensor([3, 0, 15, 3, 7, 1])
    results = {}
    for name, file in (("in", original), ("out", path)):
        mod = _load(file)
        torch.manual_seed(0)
        model = mod.RowPicker()
        xs = x.clone().requires_grad_(True)
        out = model(xs, idx)
        out.sum().backward()
        grads = [xs.grad] + [p.grad for p in model.parameters()]
        torch.manual_seed(0)
        obs = observe(mod.RowPicker(), [(x, idx)], user_files={str(file)})
        results[name] = (out.detach(), grads, obs.graph_breaks)
    (o0, g0, b0), (o1, g1, b1) = results["in"], results["out"]
    assert (b0, b1) == (2, 0)
    torch.testing.assert_close(o0, o1, rtol=0, atol=0)
    for a, b in zip(g0, g1):
        torch.testing.assert_close(a, b, rtol=1e-6, atol=1e-7)


# -- cases each new fix must decline (the rewrite would change results) -----------------------
def _declines(src: str, code: str) -> None:
    """``code`` still reports on ``src`` and no fix changes it."""
    from torchlint.static.lint import lint_file

    assert code in [f.rule for f in lint_file("m.py", src, all_rules()).findings]
    assert _fix(src).new == src


TOLIST_MUTATED = """
import torch


@torch.compile
def pick(h, idx):
    cols = idx.tolist()
    idx.add_(1)
    return torch.stack([h[i, c] for i, c in enumerate(cols)])
"""


@pytest.mark.dynamo
def test_tolist_pick_declines_when_the_index_changes_in_between_or_the_list_is_kept():
    torch = pytest.importorskip("torch")
    _declines(TOLIST_MUTATED, "TL003")
    # the rewrite would read the changed tensor: proof that it would differ
    h, idx = torch.randn(3, 4), torch.tensor([0, 1, 2])
    cols = idx.tolist()
    idx2 = idx.clone().add_(1)
    before = torch.stack([h[i, c] for i, c in enumerate(cols)])
    after = h[torch.arange(idx2.shape[0]), idx2]
    assert not torch.equal(before, after)
    kept = TOLIST_MUTATED.replace("    idx.add_(1)\n", "").replace(
        "return torch.stack([h[i, c] for i, c in enumerate(cols)])",
        "return torch.stack([h[i, c] for i, c in enumerate(cols)]), cols",
    )
    _declines(kept, "TL003")  # the list is returned: it must stay
    filtered = TOLIST_MUTATED.replace("    idx.add_(1)\n", "").replace(
        "enumerate(cols)])", "enumerate(cols) if c > 0])"
    )
    _declines(filtered, "TL003")  # a filter drops rows: no one-op form keeps their count


MASK_INT = """
import torch


@torch.compile
def pick(scores, boxes, flags):
    keep = (scores > 0.5) & flags
    return scores[keep], boxes[keep]
"""


@pytest.mark.dynamo
def test_mask_positions_decline_for_an_integer_mask_and_for_a_store():
    torch = pytest.importorskip("torch")
    src = MASK_INT.replace("keep = (scores > 0.5) & flags", "keep = scores > 0.5")
    assert "nonzero(as_tuple=True)" in _fix(src).new  # the boolean form is fixed
    # `flags` may be an integer tensor: then `keep` is one too, `x[keep]` gathers rows 0/1 and
    # the positions would pick something else
    _declines(MASK_INT, "TL008")
    scores, flags = torch.tensor([0.9, 0.1, 0.7]), torch.tensor([1, 1, 0])
    keep = (scores > 0.5) & flags
    assert not torch.equal(scores[keep], scores[keep.nonzero(as_tuple=True)])
    stored = src.replace("return scores[keep], boxes[keep]", "boxes[keep] = 0\n    return scores[keep], boxes")
    _declines(stored, "TL008")  # only one pick left besides a store: nothing to share


TIMING_KEPT = """
import time

import torch


@torch.compile
def step(x):
    t0 = time.perf_counter()
    y = x * 2
    return y, time.perf_counter() - t0
"""


def test_timing_guard_declines_when_the_time_is_returned_and_is_safe_only_for_logging():
    _declines(TIMING_KEPT, "TL009")  # guarded, `t0` would be missing when the value is returned
    before, _ = _pair("guard_timing")
    outcome = _fix(before, unsafe=False)
    assert [(a.line, a.applicability) for a in outcome.applied] == [(21, "safe")]
    assert "        self._record(time.time() - start)\n" in outcome.new  # the unsafe one stays
    text = " ".join(a.description for a in _fix(before).applied)
    assert "no longer call `self._record`" in text and "only logged" in text


HOIST_REBOUND = """
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.wide = nn.Linear(dim, 2 * dim)

    def forward(self, x):
        h = self.norm(x)
        x = self.wide(h)
        out = nn.Linear(x.shape[-1], 4)
        return out(x)
"""


def test_hoist_declines_when_the_input_is_rebound_after_the_layer_that_pins_its_size():
    _declines(HOIST_REBOUND, "TL007")  # `x` is 2 * dim wide by then, not dim
    unconditional = HOIST_REBOUND.replace("        x = self.wide(h)\n", "")
    assert "self.out = nn.Linear(dim, 4)" in _fix(unconditional).new
    conditional = unconditional.replace("        h = self.norm(x)\n", "        h = self.norm(x) if x.ndim > 1 else x\n")
    _declines(conditional, "TL007")  # the LayerNorm may not have run


def test_value_check_declines_a_message_made_from_tensor_values_and_an_else():
    src = """
import torch


@torch.compile
def f(x):
    if (x < 0).any():
        raise ValueError(f"negative: {x.min()}")
    return x * 2
"""
    _declines(src, "TL005")  # the message needs the value on the host: no device check can say it
    with_else = src.replace(
        'raise ValueError(f"negative: {x.min()}")', 'raise ValueError("negative")\n    else:\n        x = x + 1'
    )
    _declines(with_else, "TL005")


@pytest.mark.dynamo
def test_masked_reduction_declines_a_reduction_over_a_dimension():
    torch = pytest.importorskip("torch")
    src = """
import torch


@torch.compile
def f(x):
    valid = x > 0
    return x[valid].sum(0)
"""
    _declines(src, "TL008")
    x = torch.randn(3, 4)
    assert torch.where(x > 0, x, 0).sum(0).shape != x[x > 0].sum(0).shape  # what the rewrite would give


@pytest.mark.dynamo
def test_value_check_still_raises_in_eager_with_the_message():
    torch = pytest.importorskip("torch")
    fixed = _load(FIXES / "value_check.out.py").build()
    with pytest.raises(RuntimeError, match="input out of range"):
        fixed(torch.full((2, 4), 1e5))


@pytest.mark.dynamo
def test_loop_exit_declines_an_in_place_update_and_a_body_value_read_after_the_loop(tmp_path):
    torch = pytest.importorskip("torch")
    before, after = _pair("loop_exit")
    in_place = before.replace("steps = steps + 1", "steps += 1")
    fixed = _fix(in_place).new
    assert "stopped" not in fixed and "break" in fixed  # `.item()` may go, the loop stays
    # the rewrite would save `steps` and then `+=` changes the saved tensor too: a wrong count
    (tmp_path / "orig.py").write_text(in_place)
    (tmp_path / "rewritten.py").write_text(after.replace("steps = steps + 1", "steps += 1"))
    x = torch.randn(4, 6)
    counts = []
    for name in ("orig.py", "rewritten.py"):
        torch.manual_seed(0)
        counts.append(_load(tmp_path / name).build()(x)[1].item())
    assert counts[0] < 30 and counts[1] == 30
    read_after = before.replace("return z * 2, steps", "return z * 2, steps, delta")
    assert "stopped" not in _fix(read_after).new  # `delta` after the loop: its last value differs


def test_where_chain_declines_an_arm_that_reads_a_name_it_just_assigned():
    before, _ = _pair("where_chain")
    reads = before.replace("            scale = level * 10\n", "            scale = h.abs().mean()\n")
    # in the arm `h` is already the new value; one `torch.where` per name would read the old one
    _declines(reads, "TL005")


@pytest.mark.dynamo
def test_item_as_an_index_is_kept_outside_a_row_pick():
    torch = pytest.importorskip("torch")
    src = """
import torch


@torch.compile
def first_row(h, idx):
    sel = idx[:1]
    return h[sel.item()] * 2
"""
    _declines(src, "TL001")
    # `sel` has shape (1,): as a tensor index it keeps that dimension, `.item()` does not
    h, idx = torch.randn(3, 2), torch.tensor([1, 0])
    assert h[idx[:1].item()].shape != h[idx[:1]].shape


@pytest.mark.dynamo
def test_module_pick_declines_arguments_that_would_run_once_per_submodule(tmp_path):
    torch = pytest.importorskip("torch")
    before, after = _pair("module_pick")
    noisy = before.replace("y = self.experts[best](x)", "y = self.experts[best](x + torch.randn_like(x))")
    fixed = _fix(noisy).new
    assert "best = scores.argmax().item()\n        y = self.experts[best](x + torch.randn_like(x))" in fixed
    # the stacked form would draw noise once per expert: the chosen one sees other numbers
    (tmp_path / "orig.py").write_text(noisy)
    (tmp_path / "rewritten.py").write_text(
        after.replace(
            "module(x) for module in self.experts]).index_select(0, scores.argmax()",
            "module(x + torch.randn_like(x)) for module in self.experts]).index_select(0, scores.argmax()",
        )
    )
    x = torch.randn(4, 8)
    outs = []
    for name in ("orig.py", "rewritten.py"):
        torch.manual_seed(0)
        model = _load(tmp_path / name).build()
        torch.manual_seed(1)
        outs.append(model(x))
    assert not torch.allclose(outs[0], outs[1])
    twice = before.replace("return torch.relu(y)", "return best + torch.relu(y)")
    assert "best = scores.argmax().item()" in _fix(twice).new  # the index is used as a number too
    keyed = before.replace("key=lambda i: scores[i])", "key=lambda i: scores[i] * torch.rand(()))")
    assert "worst = min(" in _fix(keyed).new  # a key that is not one score per index


def test_timing_guard_is_unsafe_when_a_guarded_value_calls_something_else():
    src = """
import time

import torch


@torch.compile
def step(x, counter):
    t0 = time.perf_counter()
    y = x * 2
    dt = time.perf_counter() - t0 + counter.bump()
    print(dt)
    return y
"""
    outcome = _fix(src, unsafe=False)
    assert "\n    t0 = time.perf_counter()\n" in outcome.new  # not guarded by a safe fix
    assert [a.applicability for a in _fix(src).applied if a.code == "TL009"] == ["unsafe"]


def test_where_never_takes_none_as_a_value():
    src = """
import torch


@torch.compile
def f(x, flag: torch.Tensor):
    weights = x * 2
    if flag.any():
        weights = None
    return x, weights
"""
    _declines(src, "TL005")  # `torch.where(c, None, w)` raises: there is no tensor to pick
