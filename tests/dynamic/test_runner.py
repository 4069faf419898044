"""Targets in the reused worker: real models checked against explain, crashes, hangs, output."""

import os

import pytest

torch = pytest.importorskip("torch")

from torchlint.dynamic.target_pass import run_targets  # noqa: E402
from torchlint.dynamic.targets import make_target  # noqa: E402

pytestmark = pytest.mark.dynamo


def explain_in_process(models_dir, name, spec):
    """explain() on the same model and inputs the worker builds (same seeds)."""
    from torchlint.dynamic.load import load_module_from_path, materialize
    from torchlint.dynamic.specs import parse_input

    torch.manual_seed(0)
    module = load_module_from_path(os.path.join(models_dir, "nets.py"))
    args = (materialize(parse_input(spec), seed=0),)
    obj = getattr(module, name)
    obj = obj() if isinstance(obj, type) else obj
    if isinstance(obj, torch.nn.Module):
        obj.eval()
    with torch.no_grad():
        return torch._dynamo.explain(obj)(*args)


def run(worker, models_dir, *specs, **kw):
    return run_targets(list(specs), cwd=models_dir, worker=worker, **kw)


def test_real_models_match_explain(worker, models_dir):
    specs = [
        make_target("nets.py:Encoder", ["f32[2,5,16]"]),
        make_target("nets.py:LeakyEncoder", ["f32[2,5,16]"]),
        make_target("nets.py:ResNetish", ["f32[2,3,8,8]"]),
        make_target("nets.py:DebugResNet", ["f32[2,3,8,8]"]),
        make_target("nets.py:build(num_classes=4)", inputs_from="nets.py:example_inputs"),
    ]
    results, findings, errors = run(worker, models_dir, *specs)
    assert errors == []
    by_name = {r.target: r for r in results}
    for name, spec in [
        ("Encoder", "f32[2,5,16]"),
        ("LeakyEncoder", "f32[2,5,16]"),
        ("ResNetish", "f32[2,3,8,8]"),
        ("DebugResNet", "f32[2,3,8,8]"),
    ]:
        explained = explain_in_process(models_dir, name, spec)
        result = by_name[f"nets.py:{name}"]
        assert result.graphs == explained.graph_count, name
        sites = {(r.user_stack[-1].filename, r.user_stack[-1].lineno) for r in explained.break_reasons}
        assert result.graph_breaks >= len(sites), name
        assert result.ops_per_graph == [
            sum(1 for n in g.graph.nodes if n.op == "call_function") for g in explained.graphs
        ], name
    assert by_name["nets.py:Encoder"].graph_breaks == 0
    assert by_name["nets.py:ResNetish"].graph_breaks == 0
    assert by_name["nets.py:build(num_classes=4)"].graphs == 1
    lines = {(f.path, f.line, f.gb_code) for f in findings}
    source = open(os.path.join(models_dir, "nets.py")).read().splitlines()
    item_line = next(i for i, text in enumerate(source, 1) if ".item()" in text)
    branch_line = next(i for i, text in enumerate(source, 1) if "if h.mean() > 0" in text)
    print_line = next(i for i, text in enumerate(source, 1) if 'print("features"' in text)
    assert lines == {
        ("nets.py", item_line, "GB0124"),
        ("nets.py", branch_line, "GB0170"),
        ("nets.py", print_line, "GB0059"),
    }
    assert all(f.source == "dynamic" and f.rule is None and f.severity == "error" and f.suggestion for f in findings)


def test_misbehaving_targets_are_reported_and_the_rest_still_run(worker, models_dir, capfd):
    specs = [
        make_target("crashers.py:chatty", ["f32[2]"]),
        make_target("crashers.py:hang", ["f32[2]"], timeout=2),
        make_target("crashers.py:boom", ["f32[2]"]),
        make_target("crashers.py:exits", ["f32[2]"]),
        make_target("crashers.py:hard_exit", ["f32[2]"]),
        make_target("crashers.py:segfault", ["f32[2]"]),
        make_target("nets.py:softmax", ["f32[2,4]"]),
        make_target("nets.py:missing", ["f32[2]"]),
    ]
    results, findings, errors = run(worker, models_dir, *specs)
    got = {r.target.split(":")[1]: r.error for r in results}
    assert got["chatty"] is None and got["softmax"] is None
    assert "timed out after 2 s" in got["hang"]
    assert got["boom"].startswith("raised ValueError: boom")
    assert "sys.exit(3)" in got["exits"]
    assert "exited with status 7" in got["hard_exit"]
    assert "SIGSEGV" in got["segfault"] or "Segmentation" in got["segfault"]
    assert "has no 'missing'" in got["missing"]
    assert len(errors) == 6 and all("\n" not in e.message for e in errors)
    assert next(r for r in results if r.target.endswith("hang")).seconds < 10
    out, err = capfd.readouterr()
    assert "noise" not in out and "noise" not in err  # the child's output never reaches ours


def test_recompiles_in_a_reused_worker(worker, models_dir):
    spec = make_target("nets.py:softmax", input_sets=["f32[2,16]", "f32[2,32]", "f32[2,64]"])
    (result,), findings, errors = run(worker, models_dir, spec)
    assert result.recompiles == 1 and result.graphs == 1 and findings == []
    reason = result.recompile_reasons[0]
    assert reason.reason.startswith("dimension 1 of `x` changed from 16 to 32")
    assert (reason.path, reason.line) == ("nets.py", 73)


def test_frame_skip_is_reported_as_a_dynamic_finding(worker, models_dir):
    (result,), findings, _ = run(worker, models_dir, make_target("nets.py:looped_item", ["f32[2,4]"]))
    assert result.graphs == 0 and result.graph_breaks == 1
    (finding,) = findings
    assert finding.gb_code == "GB0124" and "gave up the whole function" in finding.message


def test_a_factory_target_with_a_comma_in_its_arguments_stays_one_name(worker, models_dir):
    from torchlint.findings import Finding
    from torchlint.merge import merge

    names = ["factories.py:build(scale=2.0, shift=1.0)", "factories.py:build(scale=3.0, shift=0.0)"]
    results, findings, errors = run(worker, models_dir, *(make_target(n, ["f32[2,4]"]) for n in names))
    assert errors == [] and [r.target for r in results] == names
    assert [r.graph_breaks for r in results] == [1, 1]
    (brk,) = findings  # the same print() in both runs: one finding naming both targets
    assert brk.target_names() == names and brk.target == ", ".join(names)
    brk.add_target(names[1])  # a name already there is not added again, ", " or not
    assert brk.target_names() == names
    static = Finding(
        rule="TL005",
        name="print",
        path=brk.path,
        line=brk.line,
        column=1,
        end_line=brk.line,
        end_column=20,
        message="potential graph break: print",
        suggestion="remove it",
        target=None,
    )
    (both,) = merge([static], [brk], {"TL005": set()})
    assert both.source == "both" and both.target_names() == names
