"""What each graph break costs: one call's timeline split among breaks, records to findings (no torch)."""

from __future__ import annotations

from torchlint.dynamic.costs import GraphInfo, split_call, trimmed_sums
from torchlint.findings import Report
from torchlint.output import fix_first
from torchlint.run.program import Places, ProcessRecords, observed

F = "/p/model.py"
FORWARD = GraphInfo("forward", F, break_after=(F, 14))
RESUMED = GraphInfo("forward", F, resume_of=(F, 14))
HELPER = GraphInfo("helper", F, break_after=(F, 30))


def test_gap_after_a_break_goes_to_it_and_the_rest_is_the_frames_own():
    # t0=0: 5 before the first graph, graph 5..20, break 20..70, resumed graph 70..80, 3 after
    times = split_call(0, 83, [(5, FORWARD), (20, None), (70, RESUMED), (80, None)])
    assert times.frame == FORWARD
    assert times.wall_ns == 83 and times.graph_ns == 25
    assert times.breaks == {(F, 14): 50}
    assert times.other_ns == 8


def test_resume_that_runs_eagerly_gives_the_rest_of_the_call_to_its_break():
    # the resume function hit the recompile limit: no graph after the break, all of it eager
    times = split_call(0, 1000, [(0, FORWARD), (10, None)])
    assert times.breaks == {(F, 14): 990} and times.other_ns == 0


def test_break_before_any_graph_goes_to_the_resume_it_leads_to():
    times = split_call(0, 100, [(60, RESUMED), (90, None)])
    assert times.breaks == {(F, 14): 60} and times.other_ns == 10


def test_a_function_called_at_a_break_charges_the_outer_break_until_its_own():
    # forward breaks at 14 calling helper, which breaks at 30 and resumes; then forward resumes
    helper_resumed = GraphInfo("helper", F, resume_of=(F, 30))
    events = [(0, FORWARD), (10, None), (15, HELPER), (20, None), (50, helper_resumed), (55, None)]
    events += [(60, RESUMED), (70, None)]
    times = split_call(0, 70, events)
    assert times.breaks == {(F, 14): 5 + 5, (F, 30): 30}
    assert times.graph_ns == 30


def test_marks_at_resume_entries_split_two_breaks_with_no_graph_between():
    # forward's graph ends at the break at 14 (50 of eager work); its resume function has no
    # graph: it runs to the break at 16 (a print, 5), whose resume function's graph runs 70..80
    at_14 = GraphInfo("forward", F, resume_of=(F, 14), mark=True)
    at_16 = GraphInfo("forward", F, resume_of=(F, 16), mark=True)
    last = GraphInfo("forward", F, resume_of=(F, 16))
    events = [(0, FORWARD), (10, None), (60, at_14), (65, at_16), (70, last), (80, None)]
    times = split_call(0, 83, events)
    assert times.breaks == {(F, 14): 50, (F, 16): 5 + 5} and times.other_ns == 3
    # a resume function that runs eagerly to the end: the rest of the call is its break's
    times = split_call(0, 100, [(0, FORWARD), (10, None), (60, at_14), (65, at_16)])
    assert times.breaks == {(F, 14): 50, (F, 16): 5 + 35} and times.other_ns == 0


def test_nested_graph_entries_count_in_the_outer_graph():
    inner = GraphInfo("inner", F)
    times = split_call(0, 50, [(0, FORWARD), (10, inner), (20, None), (30, None)])
    assert times.graph_ns == 30 and times.breaks == {(F, 14): 20}


def test_slowest_calls_left_out_of_the_sums():
    samples = [(10, 5, 1, {(F, 14): 4})] * 19 + [(10_000, 5, 1, {(F, 14): 9_994})]
    sums = trimmed_sums(samples, 0.05)
    assert sums.kept == 19 and sums.breaks == {(F, 14): 76} and sums.wall_ns == 190


def _project(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "serve.py").write_text("\n" * 40)
    return str(root), str(root / "serve.py")


def _break(path, frames, reason):
    return {
        "kind": "break",
        "frames": frames,
        "loc": frames[-1],
        "gb_type": reason,
        "gb_code": None,
        "reason": reason,
        "explanation": "",
        "hints": [],
        "stack": [],
    }


def test_records_put_each_breaks_cost_on_its_finding_and_rank_them(tmp_path):
    root, serve = _project(tmp_path)
    records = [
        _break(serve, [[serve, 12], [serve, 20]], "print"),  # broke in a function called at line 12
        _break(serve, [[serve, 14]], "item"),
        {
            "kind": "cost",
            "pid": 1,
            "frame": "forward",
            "path": serve,
            "calls": 210,
            "timed": 200,
            "kept": 190,
            "wall_ns": 190 * 1_300_000,
            "p50_ns": 1_250_000,
            "p95_ns": 1_600_000,
            "graph_ns": 190 * 150_000,
            "other_ns": 190 * 20_000,
            "breaks": [[serve, 12, 190 * 30_000], [serve, 14, 190 * 1_100_000]],
            "compile_calls": 3,
            "record_calls": 0,
            "record_extra_ns": None,
        },
    ]
    result, findings, _ = observed([ProcessRecords({"pid": 1}, records)], Places([root], root), name="p", run=None)
    by_line = {f.line: f for f in findings}
    assert by_line[14].cost_ms == 1.1 and by_line[14].cost_frame == "forward" and by_line[14].cost_calls == 200
    assert abs(by_line[14].cost_share - 1.1 / 1.3) < 1e-3
    assert by_line[20].cost_ms == 0.03  # the line called at 12 broke at 20: the finding is there
    assert by_line[14].to_dict()["cost_ms"] == 1.1
    assert fix_first(findings) == "fix this first: serve.py:14, 1.1 ms per call (85% of `forward`)"
    (frame,) = result.costs
    assert frame["p50_ms"] == 1.25 and frame["p95_ms"] == 1.6 and frame["timed_calls"] == 200
    assert frame["breaks"][0] == {"path": "serve.py", "line": 14, "ms": 1.1}
    assert any(line.startswith("timed `forward`") for line in result.details)
    report = Report(findings=findings, targets=[result], dynamic_ran=True)
    assert report.to_dict()["targets"][0]["costs"][0]["frame"] == "forward"


def test_recompile_limit_of_a_resume_function_gets_its_eager_time_and_compiles(tmp_path):
    root, serve = _project(tmp_path)
    limit = (
        "torch._dynamo hit config.recompile_limit (8)\n   function: 'torch_dynamo_resume_in_forward_at_14' "
        f"({serve}:14)\n   last reason: 1/7: L['k'] == 3"
    )
    records = [
        _break(serve, [[serve, 14]], "item"),
        {"kind": "limit", "message": limit, "stack": [[serve, 14]]},
        {
            "kind": "compile",
            "compile_id": "1/0",
            "co_name": "torch_dynamo_resume_in_forward_at_14",
            "co_filename": serve,
            "co_firstlineno": 14,
            "seconds": 0.5,
            "counters": {},
        },
        {
            "kind": "compile",
            "compile_id": "1/1",
            "co_name": "torch_dynamo_resume_in_forward_at_14",
            "co_filename": serve,
            "co_firstlineno": 14,
            "seconds": 0.3,
            "counters": {},
        },
        {
            "kind": "cost",
            "pid": 1,
            "frame": "forward",
            "path": serve,
            "calls": 100,
            "timed": 80,
            "kept": 80,
            "wall_ns": 80 * 2_000_000,
            "p50_ns": 2_000_000,
            "p95_ns": 2_000_000,
            "graph_ns": 0,
            "other_ns": 0,
            "breaks": [[serve, 14, 80 * 1_500_000]],
            "compile_calls": 8,
            "record_calls": 0,
        },
    ]
    _, findings, _ = observed([ProcessRecords({"pid": 1}, records)], Places([root], root), name="p", run=None)
    (found,) = [f for f in findings if f.name == "recompile-limit"]
    assert found.cost_ms == 1.5 and found.occurrence_ms == 400.0 and found.per_1000_calls == 20.0
    (brk,) = [f for f in findings if f.name == "graph-break"]
    assert brk.cost_ms == 1.5 and brk.cost_share == 0.75


def test_a_frame_without_timed_calls_puts_no_cost(tmp_path):
    root, serve = _project(tmp_path)
    records = [
        _break(serve, [[serve, 14]], "item"),
        {"kind": "cost", "pid": 1, "frame": "forward", "path": serve, "calls": 3, "timed": 0, "breaks": []},
    ]
    result, findings, _ = observed([ProcessRecords({"pid": 1}, records)], Places([root], root), name="p", run=None)
    assert findings[0].cost_ms is None and result.costs == [] and fix_first(findings) is None


def _cost(pid, serve, timed, per_break_ns, wall_ns=1_000_000):
    return {
        "kind": "cost",
        "pid": pid,
        "frame": "forward",
        "path": serve,
        "calls": timed + 2,
        "timed": timed,
        "kept": timed,
        "wall_ns": timed * wall_ns,
        "p50_ns": wall_ns,
        "p95_ns": wall_ns,
        "graph_ns": 0,
        "other_ns": 0,
        "breaks": [[serve, 14, timed * per_break_ns]],
        "compile_calls": 1,
        "record_calls": 0,
        "record_extra_ns": None,
    }


def test_processes_timing_the_same_frame_combine_weighted_by_calls_not_summed(tmp_path):
    # two ranks (or xdist workers) run the same forward: 0.4 ms at the break over 300 calls
    # in one, 1.0 ms over 100 in the other -> (0.4*300 + 1.0*100) / 400 = 0.55 ms per call
    root, serve = _project(tmp_path)
    records = [_break(serve, [[serve, 14]], "item"), _cost(1, serve, 300, 400_000), _cost(2, serve, 100, 1_000_000)]
    procs = [ProcessRecords({"pid": 1}, records[:2]), ProcessRecords({"pid": 2}, records[2:])]
    result, findings, _ = observed(procs, Places([root], root), name="p", run=None)
    (finding,) = [f for f in findings if f.line == 14]
    assert finding.cost_ms == 0.55 and finding.cost_calls == 400
    assert finding.cost_share == 0.55
    (frame,) = result.costs
    assert frame["calls"] == 404 and frame["timed_calls"] == 400 and frame["processes"] == 2


def test_a_targets_answer_gets_costs_through_the_same_attribution(tmp_path):
    # the worker's answer carries cost records; a break inside a helper (line 30) called from
    # forward's line 12 is timed at line 12 of the compiled frame and lands on its finding
    from torchlint.dynamic.answer import Answer
    from torchlint.dynamic.results import result_from_answer

    root, serve = _project(tmp_path)
    site = {"path": serve, "line": 30, "gb_type": "print", "reason": "print", "hints": [], "seen_by": ["log"]}
    answer = Answer(
        graphs=2,
        breaks=[dict(site, stack=[[serve, 12], [serve, 30]]), dict(site, line=14, stack=[[serve, 14]])],
        costs=[
            dict(
                _cost(7, serve, 20, 2_000_000, wall_ns=3_000_000),
                breaks=[[serve, 12, 20 * 50_000], [serve, 14, 20 * 2_000_000]],
            )
        ],
    )
    result, findings = result_from_answer("serve.py:Net", answer, 1.0, root)
    by_line = {f.line: f for f in findings}
    assert by_line[30].cost_ms == 0.05 and by_line[14].cost_ms == 2.0
    assert by_line[14].cost_calls == 20 and abs(by_line[14].cost_share - 2 / 3) < 1e-3
    assert fix_first(findings) == "fix this first: serve.py:14, 2 ms per call (67% of `forward`)"
    assert result.costs[0]["frame"] == "forward" and result.costs[0]["breaks"][0]["line"] == 14
    assert not result_from_answer("serve.py:Net", Answer(breaks=answer.breaks), 1.0, root)[0].costs


def test_a_targets_cost_calls_wins_over_the_runs_and_travels_to_the_worker():
    from torchlint.config import parse_table
    from torchlint.dynamic.targets import target_from_config

    settings = parse_table(
        {"cost-calls": 3, "targets": [{"target": "m.py:Net", "input": ["f32[2]"], "cost-calls": 50}]}, "pyproject.toml"
    )
    assert settings.cost_calls == 3
    assert target_from_config(settings.targets[0]).to_wire()["cost_calls"] == 50
    assert target_from_config({"target": "m.py:Net", "input": ["f32[2]"]}).to_wire()["cost_calls"] is None


def test_past_the_window_one_warm_call_in_stride_is_timed_and_every_call_counted():
    from torchlint.dynamic.timing import Timers

    timers = Timers(lambda record: None)
    timers.warmup, timers.window, timers.stride = 0, 4, 3
    for _ in range(22):
        done = timers.enter()
        timers.call.events.extend([(timers.call.t0 + 10, FORWARD), (timers.call.t0 + 20, None)])
        done()
    (frame,) = timers.frames.values()
    assert frame.calls == frame.warm == 22
    assert frame.timed == 4 + 6 and len(frame.samples) == 10  # calls 1-4, then 6, 9, ..., 21
