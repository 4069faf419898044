"""Reports written by other runs, read back and combined: ``torchlint merge a.json b.json ...``.

A CI matrix runs ``torchlint check --shard K/N --format json -o shard-K.json`` on N machines
(each runs every N-th declared target; every shard runs the same static pass); this module
turns their JSON reports into one :class:`~torchlint.findings.Report`, which then goes
through the gates and every output format like a single run's.

Combining: findings that are the same (path, position, rule, name, GB code, message) are
one, naming every target that saw them; targets and errors are concatenated (a target that
appears in several reports is kept once); ``files`` is the largest count.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from torchlint.files import read_json
from torchlint.findings import JSON_VERSION, FileError, Finding, Report, TargetResult


class ReportError(ValueError):
    """A report file that cannot be read; ``str()`` is one line naming the file."""


def load_report(path: str) -> Report:
    try:
        data = read_json(path)
    except ValueError as e:
        raise ReportError(f"{path}: {e}") from None
    if not isinstance(data, dict) or data.get("version") != JSON_VERSION or "findings" not in data:
        raise ReportError(f"{path}: not a torchlint JSON report (--format json, version {JSON_VERSION})")
    try:
        report = Report(
            findings=[Finding.from_dict(f) for f in data.get("findings") or []],
            errors=[FileError(e["path"], e["message"]) for e in data.get("errors") or []],
            files=int((data.get("summary") or {}).get("files") or 0),
            targets=[TargetResult.from_dict(t) for t in data.get("targets") or []],
            torch_version=data.get("torch_version"),
            dynamic_ran=(data.get("summary") or {}).get("graph_breaks") is not None,
        )
    except (KeyError, TypeError, ValueError) as e:
        raise ReportError(f"{path}: malformed report ({type(e).__name__}: {e})") from None
    return report


def combine(reports: Sequence[Report]) -> Report:
    out = Report()
    findings: dict[tuple, Finding] = {}
    targets: dict[str, TargetResult] = {}
    errors: dict[tuple[str, str], FileError] = {}
    for report in reports:
        out.files = max(out.files, report.files)
        out.torch_version = out.torch_version or report.torch_version
        out.dynamic_ran = out.dynamic_ran or report.dynamic_ran
        for f in report.findings:
            # a rule's finding is one per place, confirmed ("both") in whichever shard reached it
            key = (
                (f.path, f.line, f.column, f.rule, f.name)
                if f.rule
                else (f.path, f.line, f.column, None, f.name, f.gb_code, f.message)
            )
            known = findings.get(key)
            if known is None:
                findings[key] = f
                continue
            if known.source == "static" and f.source != "static":
                findings[key] = f
                known, f = f, known  # keep the confirmed one, with every target's name
            names = [n for n in (known.target or "").split(", ") if n]
            for name in (f.target or "").split(", "):
                if name and name not in names:
                    names.append(name)
            known.target = ", ".join(names) or None
        for t in report.targets:
            targets.setdefault(t.target, t)
        for e in report.errors:
            errors.setdefault((e.path, e.message), e)
    out.findings = list(findings.values())
    out.targets = list(targets.values())
    out.errors = list(errors.values())
    from torchlint.dynamic.records import SourceLines

    lines = SourceLines()
    for f in out.findings:  # the code frame, where the file is here
        if f.source_line is None and os.path.isfile(f.path):
            f.source_line = lines.line(f.path, f.line)
    out.sort()
    return out


def parse_shard(text: str) -> tuple[int, int]:
    """``K/N`` (1 <= K <= N) -> (K, N); ValueError with a one-line message otherwise."""
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard {text!r}: expected K/N, e.g. 1/4") from None
    if not 1 <= k <= n:
        raise ValueError(f"--shard {text!r}: K must be between 1 and N")
    return k, n


def shard(items: Sequence, k: int, n: int) -> list:
    """Every N-th item, starting with the K-th (1-based): the shards cover each item once."""
    return list(items)[k - 1 :: n]
