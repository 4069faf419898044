"""``--format sarif``: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

One run. ``tool.driver`` lists every rule (id, name, short and full description, help from
the rule's page) plus ``dynamo``, the rule of graph breaks no rule predicted (their GB code
is in the result's properties). Results carry the rule id, level (``error`` for graph
breaks, ``warning`` for performance warnings), the message with its fix, and a physical
location relative to ``%SRCROOT%`` (the working directory). Files and targets that could not
be checked are tool execution notifications of the one invocation.
"""

from __future__ import annotations

import json
import os
from importlib import metadata
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

from torchlint import __version__
from torchlint.findings import COST_KEYS, FileError, Finding, Report
from torchlint.output import SUPPRESSION_PREFIX, message_with_fix

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
DYNAMO_RULE = "dynamo"


def _level(severity: str) -> str:
    return "warning" if severity == "warning" else "error"


def _information_uri() -> str | None:
    """The project's home page from the installed package's metadata, if it declares one."""
    try:
        meta = metadata.metadata("torchlint")
    except metadata.PackageNotFoundError:
        return None
    for entry in meta.get_all("Project-URL") or []:
        label, _, url = entry.partition(",")
        if label.strip().lower() in ("homepage", "home", "repository", "source", "documentation"):
            return url.strip()
    home = (meta.get_all("Home-page") or [None])[0]
    return home.strip() if home and home.strip().upper() != "UNKNOWN" else None


def _rule_descriptors() -> list[dict[str, Any]]:
    from torchlint.pages import pages
    from torchlint.rules import all_rules

    catalog = pages()
    out = []
    for rule in all_rules():
        page = catalog.get(rule.code)
        full = (page.sections.get("What it does") if page else None) or rule.message
        help_text = page.text if page else f"{rule.message}\n\nFix: {rule.suggestion}"
        out.append(
            {
                "id": rule.code,
                "name": rule.name,
                "shortDescription": {"text": rule.summary},
                "fullDescription": {"text": " ".join(full.split())},
                "help": {"text": help_text, "markdown": help_text},
                "defaultConfiguration": {"level": _level(rule.severity)},
                "properties": {
                    "gb_codes": list(rule.gb_codes),
                    "fix": rule.fix_applicability,
                    "tags": [
                        "torch.compile",
                        "suppression"
                        if rule.code.startswith(SUPPRESSION_PREFIX)
                        else "performance"
                        if rule.severity == "warning"
                        else "graph-break",
                    ],
                },
            }
        )
    out.append(
        {
            "id": DYNAMO_RULE,
            "name": "graph-break",
            "shortDescription": {"text": "A graph break dynamo recorded that no rule predicted"},
            "fullDescription": {
                "text": "torch._dynamo broke the graph here while running a declared target; "
                "the result's properties hold dynamo's GB code, reason and hints."
            },
            "help": {
                "text": "Read dynamo's reason and hint in the message; move the code out of the "
                "compiled region or rewrite it with tensor operations."
            },
            "defaultConfiguration": {"level": "error"},
            "properties": {"tags": ["torch.compile", "graph-break"]},
        }
    )
    return out


def _artifact(path: str) -> dict[str, str]:
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(path.replace(os.sep, "/")), "uriBaseId": SRCROOT}


def _region(f: Finding) -> dict[str, int]:
    line = max(f.line, 1)
    column = max(f.column, 1)
    end_line = max(f.end_line or line, line)
    end_column = max(f.end_column or column, 1)
    if end_line == line:
        end_column = max(end_column, column)
    return {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}


def _result(f: Finding, index: dict[str, int]) -> dict[str, Any]:
    rule_id = f.rule or DYNAMO_RULE
    properties: dict[str, Any] = {"source": f.source, "name": f.name}
    for key in ("gb_code", "region", "target", "reason", "explanation", "mode"):
        value = getattr(f, key)
        if value:
            properties[key] = value
    if f.hints:
        properties["hints"] = list(f.hints)
    for key in COST_KEYS:  # what it costs, as measured (`torchlint run`)
        if getattr(f, key) is not None:
            properties[key] = getattr(f, key)
    location: dict[str, Any] = {"artifactLocation": _artifact(f.path), "region": _region(f)}
    if f.cell is not None:  # lines count in the cell, not in the notebook's JSON: no region
        properties.update(cell=f.cell, cell_line=f.line, cell_column=f.column)
        del location["region"]
    return {
        "ruleId": rule_id,
        "ruleIndex": index[rule_id],
        "level": _level(f.severity),
        "message": {"text": message_with_fix(f)},
        "locations": [{"physicalLocation": location}],
        "partialFingerprints": {"torchlint/v1": f.fingerprint()},
        "properties": properties,
    }


def _notification(e: FileError) -> dict[str, Any]:
    return {
        "level": "error",
        "message": {"text": e.message},
        "locations": [{"physicalLocation": {"artifactLocation": _artifact(e.path)}}],
    }


def to_sarif(report: Report) -> dict[str, Any]:
    rules = _rule_descriptors()
    for f in report.findings:  # a rule outside the registry (a plugin's) still gets its entry
        if f.rule and all(r["id"] != f.rule for r in rules):
            rules.append({"id": f.rule, "name": f.name, "shortDescription": {"text": f.name}})
    index = {r["id"]: i for i, r in enumerate(rules)}
    driver: dict[str, Any] = {"name": "torchlint", "version": __version__, "semanticVersion": __version__}
    uri = _information_uri()
    if uri:
        driver["informationUri"] = uri
    driver["rules"] = rules
    invocation: dict[str, Any] = {"executionSuccessful": not report.errors}
    if report.errors:
        invocation["toolExecutionNotifications"] = [_notification(e) for e in report.errors]
    run: dict[str, Any] = {
        "tool": {"driver": driver},
        "invocations": [invocation],
        "columnKind": "unicodeCodePoints",
        "results": [_result(f, index) for f in report.findings],
        "properties": {
            "torch_version": report.torch_version,
            "summary": report.summary(),
            "targets": [t.to_dict() for t in report.targets],
            "gate_failures": list(report.gate_failures),
        },
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render(report: Report, stream: TextIO, *, options) -> None:
    stream.write(json.dumps(to_sarif(report), indent=2))
    stream.write("\n")
