"""`--format json` against its shipped schema (torchlint/data/report.schema.json): real reports
validate, from the static pass, the dynamic pass, `torchlint run` and `torchlint merge`, and as the
HTML page and SARIF log embed them; a renamed, missing or added key fails."""

from __future__ import annotations

import copy
import html
import json
import re
import textwrap
from importlib import resources

import pytest
from support import FIXTURES, REPO, run_cli, run_subprocess

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed (pip install jsonschema)")


@pytest.fixture(scope="module")
def schema():
    text = resources.files("torchlint.data").joinpath("report.schema.json").read_text("utf-8")
    data = json.loads(text)
    jsonschema.Draft202012Validator.check_schema(data)
    return data


def validate(schema, report, ref=None) -> None:
    root = schema if ref is None else {"$defs": schema["$defs"], "$ref": f"#/$defs/{ref}"}
    jsonschema.Draft202012Validator(root).validate(report)


def errors_of(schema, report):
    return [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(report)]


@pytest.fixture(scope="module")
def static_report():
    """`torchlint check fixtures --no-dynamic --format json`, from the repository root."""
    result = run_cli(["check", "fixtures", "--no-dynamic", "--format", "json"], cwd=REPO)
    assert result.exit_code == 1, result.stdout  # the fixtures hold graph breaks on purpose
    return json.loads(result.stdout)


def test_the_schema_ships_in_the_package_data():
    text = (REPO / "pyproject.toml").read_text("utf-8")
    assert re.search(r'"torchlint\.data" = \[[^\]]*"\*\.json"', text)
    assert (REPO / "torchlint" / "data" / "report.schema.json").is_file()


def test_a_static_report_of_the_fixtures_validates(schema, static_report):
    validate(schema, static_report)
    findings = static_report["findings"]
    # the report exercises the optional keys the schema allows: fixes, notebook cells
    assert any("fix" in f for f in findings) and any("cell" in f for f in findings)
    assert static_report["summary"]["findings"] == len(findings)


@pytest.mark.parametrize(
    "change",
    [
        "rename a summary key",
        "rename a finding key",
        "drop a finding key",
        "add a top-level key",
        "misspell a fix key",
        "a bad source",
        "a 0 line",
    ],
)
def test_a_renamed_missing_or_unknown_key_fails(schema, static_report, change):
    bad = copy.deepcopy(static_report)
    finding = next(f for f in bad["findings"] if "fix" in f)
    if change == "rename a summary key":
        bad["summary"]["graph_break_count"] = bad["summary"].pop("graph_breaks")
    elif change == "rename a finding key":
        finding["col"] = finding.pop("column")
    elif change == "drop a finding key":
        del finding["region"]
    elif change == "add a top-level key":
        bad["extra"] = 1
    elif change == "misspell a fix key":
        finding["fix"]["applicable"] = finding["fix"].pop("applicability")
    elif change == "a bad source":
        finding["source"] = "maybe"
    elif change == "a 0 line":
        finding["line"] = 0
    assert errors_of(schema, bad)


def test_a_merged_report_and_the_html_page_carry_a_valid_report(schema, static_report, tmp_path):
    first = tmp_path / "a.json"
    first.write_text(json.dumps(static_report), "utf-8")
    merged = run_cli(["merge", str(first), "--format", "json"], cwd=REPO)
    assert merged.exit_code == 1
    validate(schema, json.loads(merged.stdout))
    page = run_cli(["merge", str(first), "--format", "html"], cwd=REPO)
    embedded = re.search(r'<script type="application/json" id="report">(.*?)</script>', page.stdout, re.S)
    assert embedded is not None
    validate(schema, json.loads(html.unescape(embedded.group(1))))


@pytest.mark.dynamo
def test_a_dynamic_report_validates_and_so_do_the_targets_sarif_carries(schema, tmp_path):
    pytest.importorskip("torch")
    done = run_subprocess(
        [
            "check",
            "cnn_item_branch.py",
            "--target",
            "cnn_item_branch.py:ConvNet",
            "--inputs-from",
            "cnn_item_branch.py:example_inputs",
            "--format",
            "json",
            "-o",
            str(tmp_path / "r.json"),
        ],
        cwd=FIXTURES,
        timeout=600,
    )
    assert done.returncode == 1, done.stderr
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    validate(schema, report)
    assert report["torch_version"] and report["summary"]["graph_breaks"] > 0
    assert report["summary"]["recompiles"] > 0 and {f["source"] for f in report["findings"]} >= {"both"}
    assert report["errors"] == [] and all(t["graph_lines"] for t in report["targets"])
    # the target's timed calls put costs on its breaks (--cost-calls, default 20)
    assert report["targets"][0]["costs"] and any("cost_ms" in f for f in report["findings"])
    sarif = run_cli(["merge", str(tmp_path / "r.json"), "--format", "sarif"], cwd=REPO)
    targets = json.loads(sarif.stdout)["runs"][0]["properties"]["targets"]
    assert len(targets) == 1
    for target in targets:
        validate(schema, target, ref="target")


@pytest.mark.dynamo
def test_a_torchlint_run_report_validates(schema, tmp_path):
    pytest.importorskip("torch")
    (tmp_path / "prog.py").write_text(
        textwrap.dedent("""
        import torch

        def step(x):
            print("step")
            return x * 2

        f = torch.compile(step, backend="eager")
        f(torch.ones(2))
        f(torch.ones(3))
    """),
        "utf-8",
    )
    done = run_subprocess(
        ["run", "--format", "json", "-o", str(tmp_path / "r.json"), "prog.py"], cwd=tmp_path, timeout=600
    )
    assert done.returncode == 1, done.stderr
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    validate(schema, report)
    (target,) = report["targets"]
    assert target["program"]["exit_code"] == 0 and target["program"]["frames"]
    assert any(f["source"] in ("both", "dynamic") for f in report["findings"])


def test_a_report_with_costs_from_several_processes_validates(schema, tmp_path):
    from torchlint.findings import Report
    from torchlint.run.program import Places, ProcessRecords, observed

    (tmp_path / "serve.py").write_text("\n" * 20, "utf-8")
    serve = str(tmp_path / "serve.py")
    brk = {"kind": "break", "frames": [[serve, 14]], "loc": [serve, 14], "gb_type": "item", "reason": "item"}
    cost = {
        "kind": "cost", "frame": "forward", "path": serve, "calls": 40, "timed": 30, "kept": 30,
        "wall_ns": 30_000_000, "p50_ns": 1_000_000, "p95_ns": 1_200_000, "graph_ns": 9_000_000,
        "other_ns": 0, "breaks": [[serve, 14, 21_000_000]], "compile_calls": 1, "record_calls": 0,
    }  # fmt: skip
    procs = [ProcessRecords({"pid": pid}, [brk, dict(cost, pid=pid)]) for pid in (1, 2)]
    result, findings, _ = observed(procs, Places([str(tmp_path)], str(tmp_path)), name="p", run=None)
    report = Report(findings=findings, targets=[result], dynamic_ran=True).to_dict()
    validate(schema, report)
    assert report["targets"][0]["costs"][0]["processes"] == 2
    assert report["findings"][0]["cost_ms"] == 0.7 and report["findings"][0]["cost_share"] == 0.7
