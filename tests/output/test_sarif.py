"""`--format sarif`: SARIF 2.1.0 that validates against the official schema and carries
every rule, the results' levels, messages and regions, and files that could not be read."""

from __future__ import annotations

import io
import json

import pytest
from support import REPO, run_cli, write

from torchlint.findings import FileError, Finding, Report
from torchlint.output import RenderOptions, render
from torchlint.rules import all_rules

SCHEMA = REPO / "tests" / "data" / "sarif-schema-2.1.0.json"  # OASIS SARIF 2.1.0, shipped with the tests

MODEL = """
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        s = x.sum().item()
        if x.mean() > 0:
            x = x + 1
        return x * s
"""


def validate(doc):
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed (pip install jsonschema)")
    schema = json.loads(SCHEMA.read_text("utf-8"))
    if "properties" not in schema and "Root" in schema.get("definitions", {}):
        # This copy keeps the log's own schema under definitions/Root; validate against it.
        schema = {**schema, "$ref": "#/definitions/Root"}
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    broken = {
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "m"}, "level": "bogus"}]}],
    }
    assert list(validator.iter_errors(broken)), "the schema check must be able to fail"
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])


def sarif_of(report: Report) -> dict:
    buf = io.StringIO()
    render(report, "sarif", buf, RenderOptions())
    return json.loads(buf.getvalue())


def test_cli_sarif_validates_and_lists_every_rule(project):
    write(project, "model.py", MODEL)
    (project / "broken.py").write_text("import torch\ndef f(:\n", encoding="utf-8")
    result = run_cli(["check", "model.py", "broken.py", "--format", "sarif"])
    assert result.exit_code == 2  # an unparsable file is an error, and still a valid log
    doc = json.loads(result.stdout)
    validate(doc)
    assert doc["version"] == "2.1.0"
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "torchlint" and driver["version"]
    ids = [r["id"] for r in driver["rules"]]
    assert ids == [r.code for r in all_rules()] + ["dynamo"]
    for descriptor in driver["rules"]:
        assert descriptor["name"] and descriptor["shortDescription"]["text"]
        assert descriptor["fullDescription"]["text"] and descriptor["help"]["text"]
    tl001 = driver["rules"][ids.index("TL001")]
    assert "## What it does" in tl001["help"]["text"]  # the rule's page

    results = run["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [("TL001", "error"), ("TL005", "error")]
    first = results[0]
    assert driver["rules"][first["ruleIndex"]]["id"] == "TL001"
    assert first["message"]["text"].startswith("`.item()` copies a tensor to Python")
    assert "Fix: " in first["message"]["text"]
    (location,) = first["locations"]
    assert location["physicalLocation"]["artifactLocation"] == {"uri": "model.py", "uriBaseId": "%SRCROOT%"}
    assert location["physicalLocation"]["region"] == {"startLine": 7, "startColumn": 13, "endLine": 7, "endColumn": 27}
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and "syntax error" in note["message"]["text"]
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "broken.py"


def test_dynamic_findings_and_warnings_map_to_rules_and_levels():
    report = Report(
        files=1,
        dynamic_ran=True,
        torch_version="2.13.0+cpu",
        findings=[
            Finding(
                rule=None,
                name="graph-break",
                path="sub dir/m.py",
                line=3,
                column=5,
                end_line=3,
                end_column=20,
                message="graph break: Unsupported call",
                suggestion="move it out",
                source="dynamic",
                gb_code="GB0147",
                target="m.py:Net",
                reason="Unsupported call",
                hints=["use torch ops"],
            ),
            Finding(
                rule="TL199",
                name="host-sync",
                path="m.py",
                line=9,
                column=9,
                end_line=9,
                end_column=9,
                message="`.cpu()` syncs the host",
                suggestion="",
                severity="warning",
            ),
        ],
    )
    doc = sarif_of(report)
    validate(doc)
    results = doc["runs"][0]["results"]
    dyn, warn = results
    assert dyn["ruleId"] == "dynamo" and dyn["level"] == "error"
    assert dyn["properties"]["gb_code"] == "GB0147" and dyn["properties"]["source"] == "dynamic"
    assert dyn["message"]["text"] == "graph break: Unsupported call. Fix: move it out"
    assert dyn["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "sub%20dir/m.py"
    assert warn["level"] == "warning" and warn["ruleId"] == "TL199"
    assert doc["runs"][0]["tool"]["driver"]["rules"][warn["ruleIndex"]]["id"] == "TL199"
    # an empty span still makes a valid region
    assert warn["locations"][0]["physicalLocation"]["region"]["endColumn"] == 9


def test_empty_report_is_a_valid_log():
    doc = sarif_of(Report(errors=[FileError("x.py", "no such file or directory")]))
    validate(doc)
    assert doc["runs"][0]["results"] == []
