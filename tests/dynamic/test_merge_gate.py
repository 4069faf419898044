"""merge(): static + dynamic -> static / dynamic / both; gate: limits, baseline, ratchet."""

import json

from torchlint.findings import Finding, Report, TargetResult
from torchlint.gate import apply_gate, compare, load_baseline, write_baseline
from torchlint.merge import merge

GB = {"TL001": {"GB0124"}, "TL004": {"GB0059"}, "TL005": {"GB0170", "GB0035"}}


def static(rule, line, path="m.py", end_line=None, text="x"):
    return Finding(
        rule=rule,
        name="r",
        path=path,
        line=line,
        column=5,
        end_line=end_line or line,
        end_column=9,
        message="potential graph break: thing",
        suggestion=f"fix {rule}",
        region="Net.forward",
        source_line=text,
    )


def dynamic(line, gb, path="m.py"):
    return Finding(
        rule=None,
        name="graph-break",
        path=path,
        line=line,
        column=1,
        end_line=line,
        end_column=9,
        message=f"graph break: {gb}",
        suggestion="dynamo hint",
        source="dynamic",
        gb_code=gb,
        target="m.py:Net",
        reason="why",
        explanation="because",
        hints=["dynamo hint"],
    )


def test_merge_matches_by_line_and_gb_code():
    out = merge(
        [static("TL001", 10), static("TL005", 20), static("TL001", 30, path="other.py")],
        [dynamic(10, "GB0124"), dynamic(20, "GB0124"), dynamic(40, "GB0059")],
        GB,
        {"TL004": "remove the print"},
        flagged={("m.py", 20): {"TL001"}, ("m.py", 40): {"TL004"}},
    )
    got = {(f.path, f.line, f.rule, f.source) for f in out}
    assert got == {
        ("m.py", 10, "TL001", "both"),
        ("m.py", 20, "TL005", "static"),
        ("m.py", 20, "TL001", "dynamic"),
        ("m.py", 40, "TL004", "dynamic"),
        ("other.py", 30, "TL001", "static"),
    }
    both = next(f for f in out if f.source == "both")
    assert both.message == "graph break: thing" and both.suggestion == "fix TL001"
    assert (both.gb_code, both.target, both.reason, both.hints) == ("GB0124", "m.py:Net", "why", ["dynamo hint"])
    print_break = next(f for f in out if f.line == 40)
    assert print_break.suggestion == "remove the print"
    unowned = merge([], [dynamic(50, "GB9999")], GB)[0]
    assert unowned.rule is None and unowned.suggestion == "dynamo hint"


def test_a_break_is_named_after_a_rule_only_when_that_rule_flags_its_line():
    # GB0124 is declared by TL001, but no rule flags line 60 (a `self.t = x` say): no rule
    (alone,) = merge([], [dynamic(60, "GB0124")], GB, {"TL001": "fix TL001"})
    assert (alone.rule, alone.suggestion) == (None, "dynamo hint")
    # a rule flags the line but does not declare the break's GB code: no rule either
    (other,) = merge([], [dynamic(60, "GB0124")], GB, {}, flagged={("m.py", 60): {"TL004"}})
    assert other.rule is None
    (named,) = merge([], [dynamic(60, "GB0059")], GB, {"TL004": "remove it"}, flagged={("m.py", 60): {"TL004"}})
    assert (named.rule, named.suggestion, named.source) == ("TL004", "remove it", "dynamic")


def test_one_break_confirms_every_compatible_finding_on_a_multiline_statement():
    out = merge([static("TL001", 10, end_line=12), static("TL004", 10, end_line=12)], [dynamic(11, "GB0059")], GB)
    assert {(f.rule, f.source) for f in out} == {("TL001", "static"), ("TL004", "both")}
    out = merge([static("TL001", 10), static("TL004", 10)], [dynamic(10, None)], GB)
    assert {f.source for f in out} == {"both"}


def test_merge_leaves_inputs_untouched():
    s, d = [static("TL001", 10)], [dynamic(10, "GB0124")]
    merge(s, d, GB)
    assert s[0].source == "static" and d[0].source == "dynamic"


def report(breaks=3, recompiles=1, findings=()):
    r = Report(findings=list(findings), dynamic_ran=True, torch_version="2.13.0")
    r.targets = [TargetResult("m.py:Net", graphs=breaks + 1, graph_breaks=breaks, recompiles=recompiles)]
    return r


def test_limits_say_by_how_much():
    r = report(breaks=5, recompiles=2)
    assert apply_gate(r, max_graph_breaks=3, max_recompiles=2) is False
    assert r.gate_failures == ["graph breaks: 5 > limit 3 (+2)"]
    assert apply_gate(r, per_target={"m.py:Net": 4}) is False
    assert r.gate_failures == ["graph breaks in m.py:Net: 5 > limit 4 (+1)"]
    assert apply_gate(r, per_target_recompiles={"m.py:Net": 1}) is False
    assert r.gate_failures == ["recompiles in m.py:Net: 2 > limit 1 (+1)"]
    assert apply_gate(r, max_graph_breaks=5, max_recompiles=2) is True and r.gate_failures == []
    off = Report(dynamic_ran=False)
    assert apply_gate(off, max_graph_breaks=0) is True and off.gate_notes


def test_baseline_regressions_improvements_and_line_shifts(tmp_path):
    path = tmp_path / "baseline.json"
    old = report(
        breaks=3, findings=[static("TL001", 10, text="s = x.item()"), static("TL005", 20, text="if x.sum() > 0:")]
    )
    write_baseline(old, str(path))
    data = json.loads(path.read_text())
    assert data["graph_breaks"] == 3 and len(data["findings"]) == 2
    assert not list(tmp_path.glob(".torchlint-baseline-*"))  # the temp file was renamed

    shifted = report(
        breaks=3, findings=[static("TL001", 14, text="s = x.item()"), static("TL005", 24, text="if x.sum() > 0:")]
    )
    assert compare(shifted, load_baseline(str(path))) == ([], [])

    worse = report(breaks=5, findings=shifted.findings + [static("TL003", 30, text="l = x.tolist()")])
    assert apply_gate(worse, baseline=str(path)) is False
    assert "graph breaks: 5 > baseline 3 (+2)" in worse.gate_failures
    assert any(x.startswith("new finding: m.py:30 TL003") for x in worse.gate_failures)

    better = report(breaks=1, findings=shifted.findings[:1])
    assert apply_gate(better, baseline=str(path)) is True
    assert "graph breaks: 1 < baseline 3 (-2)" in better.gate_notes
    assert any(x.startswith("fixed since baseline: m.py:20 TL005") for x in better.gate_notes)


def test_bad_baseline_is_a_one_line_error(tmp_path):
    import pytest

    from torchlint.gate import GateError

    bad = tmp_path / "b.json"
    bad.write_text("{nope")
    with pytest.raises(GateError, match="not valid JSON"):
        load_baseline(str(bad))
    with pytest.raises(GateError, match="cannot read"):
        load_baseline(str(tmp_path / "missing.json"))


def test_baseline_compares_only_what_ran(tmp_path):
    """A break only dynamo saw is not "fixed since baseline" in a --no-dynamic run, nor a
    static-only finding in a --no-static run; a confirmed one counts in either."""
    path = tmp_path / "baseline.json"
    confirmed = merge([static("TL001", 10, text="s = x.item()")], [dynamic(10, "GB0124")], GB)
    only_dynamo = merge([], [dynamic(30, "GB0059")], GB, assign_rule=False)
    only_static = [static("TL005", 20, text="if x.sum() > 0:")]
    write_baseline(report(breaks=2, findings=confirmed + only_dynamo + only_static), str(path))
    assert {e["source"] for e in json.loads(path.read_text())["findings"]} == {"both", "dynamic", "static"}

    no_dynamic = Report(findings=[static("TL001", 10, text="s = x.item()")] + only_static)
    assert compare(no_dynamic, load_baseline(str(path))) == ([], [])
    no_static = report(breaks=2, findings=confirmed + only_dynamo)
    no_static.static_ran = False
    assert compare(no_static, load_baseline(str(path))) == ([], [])
    # what did run is still compared: the static finding fixed, the confirmed one gone
    fixed = Report(findings=[])
    regressions, improvements = compare(fixed, load_baseline(str(path)))
    assert regressions == []
    assert [line.split(" ")[4] for line in improvements] == ["TL001", "TL005"]


def test_old_baselines_without_source_treat_a_ruleless_gb_code_as_dynamic(tmp_path):
    path = tmp_path / "baseline.json"
    write_baseline(report(breaks=1, findings=merge([], [dynamic(30, "GB0059")], GB, assign_rule=False)), str(path))
    data = json.loads(path.read_text())
    for entry in data["findings"]:
        del entry["source"]
    path.write_text(json.dumps(data))
    assert compare(Report(findings=[]), load_baseline(str(path))) == ([], [])
    assert compare(report(breaks=0, findings=[]), load_baseline(str(path)))[1]  # dynamo ran: fixed


def test_traced_lines_tell_ran_without_breaking_from_not_reached():
    r = report(breaks=0, findings=[])
    r.targets[0].traced = {"m.py": {10, 11}}
    assert r.traced(static("TL001", 10)) and r.traced(static("TL001", 9, end_line=11))
    assert not r.traced(static("TL001", 12)) and not r.traced(static("TL001", 10, path="n.py"))
