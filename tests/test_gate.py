"""The gate never passes a run on a count it did not measure (torchlint.gate.apply_gate)."""

from __future__ import annotations

from torchlint.config import Settings
from torchlint.findings import Finding, Report, TargetResult
from torchlint.gate import apply_gate, exit_code, potential_breaks

FALLBACK = (
    "unsuppressed finding{s}: a limit was not checked, so the default criterion (no unsuppressed finding) still applies"
)


def finding(rule, line, severity="error"):
    return Finding(
        rule=rule,
        name="r",
        path="m.py",
        line=line,
        column=1,
        end_line=line,
        end_column=5,
        message="m",
        suggestion="s",
        severity=severity,
    )


BREAKS = [finding("TL001", 3), finding("TL004", 4)]
WARNINGS = [finding("TL101", 5, "warning"), finding("TL900", 6, "warning")]


def static_report(findings=()):
    return Report(findings=list(findings), dynamic_ran=False)


def dynamic_report(findings=(), targets=()):
    return Report(findings=list(findings), dynamic_ran=True, targets=list(targets))


def test_without_the_dynamic_pass_the_graph_break_limit_counts_the_static_breaks():
    report = static_report(BREAKS + WARNINGS)
    assert potential_breaks(report) == 2  # not the performance warning, not the TL900 one
    assert apply_gate(report, max_graph_breaks=0) is False
    assert report.gate_failures == [
        "potential graph breaks (static pass; the dynamic pass did not run): 2 > limit 0 (+2)"
    ]
    assert apply_gate(report, max_graph_breaks=2) is True  # the gate is the criterion: warnings pass
    assert report.gate_notes == ["potential graph breaks (static pass; the dynamic pass did not run): 2 <= limit 2"]
    assert exit_code(report, Settings(max_graph_breaks=2), exit_zero=False) == 0
    neither = Report(findings=BREAKS[:1], dynamic_ran=False, static_ran=False)
    assert apply_gate(neither, max_graph_breaks=5) is False  # nothing counted: the findings decide
    assert neither.gate_notes == ["graph-break limit not checked: neither pass ran"]


def test_a_recompile_limit_without_the_dynamic_pass_leaves_the_default_criterion():
    report = static_report(BREAKS)
    assert apply_gate(report, max_recompiles=10) is False
    assert report.gate_notes == ["recompile limit not checked: the dynamic pass did not run"]
    assert report.gate_failures == ["2 " + FALLBACK.format(s="s")]
    assert exit_code(report, Settings(max_recompiles=10), exit_zero=False) == 1
    clean = static_report()
    assert apply_gate(clean, max_recompiles=10) is True and clean.gate_notes  # noted, passes
    # measured and unmeasured together: the measured limit passes, the findings still fail
    both = static_report(WARNINGS)
    assert apply_gate(both, max_graph_breaks=0, max_recompiles=0) is False
    assert both.gate_failures == ["2 " + FALLBACK.format(s="s")]


def test_a_per_target_limit_for_a_target_that_did_not_run_or_failed_is_not_a_pass():
    ok = TargetResult("m.py:Net", graphs=2, graph_breaks=1, recompiles=0)
    failed = TargetResult("m.py:Broken", graphs=0, graph_breaks=0, recompiles=0, error="cannot import m.py")
    report = dynamic_report(BREAKS[:1], [ok, failed])
    assert apply_gate(report, per_target={"m.py:Net": 1, "m.py:Broken": 0, "m.py:Other": 0}) is False
    assert report.gate_notes == [
        "graph breaks limit for m.py:Broken not checked: the target failed",
        "graph breaks limit for m.py:Other not checked: no such target ran",
    ]
    assert report.gate_failures == ["1 " + FALLBACK.format(s="")]
    assert apply_gate(report, per_target={"m.py:Net": 1}) is True  # measured: the limit decides
    assert apply_gate(report, per_target={"m.py:Net": 0}) is False
    assert report.gate_failures == ["graph breaks in m.py:Net: 1 > limit 0 (+1)"]
    off = static_report(BREAKS)
    assert apply_gate(off, per_target_recompiles={"m.py:Net": 3}) is False
    assert off.gate_notes == ["recompiles limit for m.py:Net not checked: the dynamic pass did not run"]


def test_a_cudagraph_skip_limit_without_reduce_overhead_is_not_a_pass():
    plain = TargetResult("m.py:Net", graphs=1, graph_breaks=0, recompiles=0)  # cudagraph_skips None
    report = dynamic_report(BREAKS[:1], [plain])
    assert apply_gate(report, max_cudagraph_skips=0) is False
    assert report.gate_notes == ["CUDA-graph skip limit not checked: no target ran with --mode reduce-overhead"]
    assert apply_gate(dynamic_report((), [plain]), max_cudagraph_skips=0) is True
    measured = TargetResult("m.py:Net", graphs=1, graph_breaks=0, recompiles=0, cudagraph_skips=0)
    assert apply_gate(dynamic_report(BREAKS[:1], [measured]), max_cudagraph_skips=0) is True
