"""The CI gate: limits on graph breaks and recompilations, and a baseline to ratchet down.

When a gate is set, it replaces "no unsuppressed finding" as the run's criterion: the run
fails only when a count is over its limit or worse than the baseline, and each verdict is a
line saying by how much (``graph breaks: 5 > limit 3 (+2)``). Improvements over the baseline
become notes, so the baseline can be written again (ratcheted down).

A gate never passes a run on a count it did not measure: without the dynamic pass the
graph-break limit counts the static pass's potential graph breaks (and says so), and a limit
on anything else this run did not measure leaves the default criterion in force.

Baseline file (JSON, written atomically)::

    {"version": 1, "torch_version": ..., "graph_breaks": int|null, "recompiles": int|null,
     "targets": {name: {"graphs", "graph_breaks", "recompiles"}},
     "findings": [{"fingerprint", "rule", "gb_code", "path", "line", "message"}]}

Fingerprints (:meth:`Finding.fingerprint`) use the path, rule and the code on the line, not
the line number, so they survive edits above the finding.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from torchlint.atomic import write_text_atomic
from torchlint.files import read_json
from torchlint.findings import Finding, Report

if TYPE_CHECKING:
    from torchlint.config import Settings

BASELINE_VERSION = 1

#: the exit codes of every command: the run meets its criterion, it does not, a usage,
#: config or input error
EXIT_OK, EXIT_FAIL, EXIT_ERROR = 0, 1, 2


class GateError(ValueError):
    """A baseline file that cannot be read; ``str()`` is one line naming the file."""


@dataclass
class Baseline:
    graph_breaks: int | None = None
    recompiles: int | None = None
    targets: dict[str, dict[str, int]] = field(default_factory=dict)
    findings: list[dict[str, Any]] = field(default_factory=list)
    torch_version: str | None = None

    def fingerprints(self) -> Counter[str]:
        return Counter(f["fingerprint"] for f in self.findings if "fingerprint" in f)


def _line_text(finding: Finding) -> str:
    if finding.source_line is not None:
        return finding.source_line
    from torchlint.files import read_line

    return read_line(finding.path, finding.line) or ""


def fingerprint(finding: Finding) -> str:
    return finding.fingerprint(_line_text(finding))


def baseline_of(report: Report) -> dict[str, Any]:
    return {
        "version": BASELINE_VERSION,
        "torch_version": report.torch_version,
        "graph_breaks": report.graph_breaks,
        "recompiles": report.recompiles,
        "targets": {
            t.target: {"graphs": t.graphs, "graph_breaks": t.graph_breaks, "recompiles": t.recompiles}
            for t in report.targets
            if t.error is None
        },
        "findings": sorted(
            (
                {
                    "fingerprint": fingerprint(f),
                    "rule": f.rule,
                    "gb_code": f.gb_code,
                    "path": f.path,
                    "line": f.line,
                    "message": f.message,
                    "source": f.source,
                }
                for f in report.findings
            ),
            key=lambda d: (d["path"], d["line"], d["fingerprint"]),
        ),
    }


def write_baseline(report: Report, path: str) -> None:
    """Write the report's counts and finding fingerprints to ``path`` atomically."""
    write_text_atomic(path, json.dumps(baseline_of(report), indent=2, sort_keys=True) + "\n")


def load_baseline(path: str) -> Baseline:
    try:
        data = read_json(path)
    except ValueError as e:
        raise GateError(f"baseline {path}: {e}") from None
    if not isinstance(data, dict) or data.get("version") != BASELINE_VERSION:
        raise GateError(f"baseline {path}: not a torchlint baseline (version {BASELINE_VERSION})")
    return Baseline(
        graph_breaks=data.get("graph_breaks"),
        recompiles=data.get("recompiles"),
        targets=dict(data.get("targets") or {}),
        findings=list(data.get("findings") or []),
        torch_version=data.get("torch_version"),
    )


def _over(what: str, value: int | None, limit: int | None, kind: str = "limit") -> str | None:
    if value is None or limit is None or value <= limit:
        return None
    return f"{what}: {value} > {kind} {limit} (+{value - limit})"


def _describe(f: Finding) -> str:
    code = f.rule or f.gb_code or f.name
    return f"{f.path}:{f.line} {code} {f.message}"


def compare(report: Report, baseline: Baseline) -> tuple[list[str], list[str]]:
    """(regressions, improvements) of the report against a baseline, one line each."""
    regressions: list[str] = []
    improvements: list[str] = []
    if report.dynamic_ran:
        pairs = [
            ("graph breaks", report.graph_breaks, baseline.graph_breaks),
            ("recompiles", report.recompiles, baseline.recompiles),
        ]
        for t in report.targets:
            old = baseline.targets.get(t.target)
            if t.error is None and old is not None:
                pairs.append((f"graph breaks in {t.target}", t.graph_breaks, old.get("graph_breaks")))
                pairs.append((f"recompiles in {t.target}", t.recompiles, old.get("recompiles")))
        for what, now, before in pairs:
            line = _over(what, now, before, "baseline")
            if line:
                regressions.append(line)
            elif now is not None and before is not None and now < before:
                improvements.append(f"{what}: {now} < baseline {before} ({now - before})")
    known = baseline.fingerprints()
    # Compare only what ran: a break only dynamo saw is not "fixed" when dynamo did not run.
    skipped = [e for e in baseline.findings if not _comparable(e, report)]
    known.subtract(Counter(e["fingerprint"] for e in skipped if "fingerprint" in e))
    seen: Counter[str] = Counter()
    for f in sorted(report.findings, key=lambda f: f.sort_key):
        fp = fingerprint(f)
        seen[fp] += 1
        if seen[fp] > known.get(fp, 0):
            regressions.append(f"new finding: {_describe(f)}")
    gone = known - seen
    for entry in baseline.findings:
        if not _comparable(entry, report):
            continue
        old = entry.get("fingerprint")
        if old is not None and gone.get(old, 0) > 0:
            gone[old] -= 1
            improvements.append(
                f"fixed since baseline: {entry.get('path')}:{entry.get('line')} "
                f"{entry.get('rule') or entry.get('gb_code') or ''} {entry.get('message', '')}".rstrip()
            )
    return regressions, improvements


def _comparable(entry: dict[str, Any], report: Report) -> bool:
    """Whether a baseline finding could be found by the passes this run ran: one only dynamo
    saw (``source`` dynamic; in baselines written without ``source``, one with a GB code and
    no rule) needs the dynamic pass, one only the static pass saw needs the static pass."""
    source = entry.get("source")
    if source is None:
        source = "dynamic" if entry.get("gb_code") and not entry.get("rule") else "both"
    if source == "dynamic":
        return report.dynamic_ran
    if source == "static":
        return report.static_ran
    return True  # both: either pass finds it


def potential_breaks(report: Report) -> int:
    """The static pass's count of graph breaks: findings of graph-break rules (not the TL1xx
    performance warnings, not the TL9xx findings about suppression comments)."""
    from torchlint.output import kind_of

    return sum(1 for f in report.findings if kind_of(f) == "break")


def apply_gate(
    report: Report,
    *,
    max_graph_breaks: int | None = None,
    max_recompiles: int | None = None,
    per_target: Mapping[str, int] | None = None,
    baseline: str | None = None,
    per_target_recompiles: Mapping[str, int] | None = None,
    max_cudagraph_skips: int | None = None,
) -> bool:
    """Check the limits and the baseline; fill ``report.gate_failures`` / ``gate_notes``.

    Returns True when the run passes. ``per_target``: target name -> its graph-break limit;
    ``per_target_recompiles``: target name -> its recompile limit. ``max_cudagraph_skips``: a
    limit on the graphs run without a CUDA graph, over the targets run with
    ``mode="reduce-overhead"``.

    Without the dynamic pass, ``max_graph_breaks`` counts the static pass's potential graph
    breaks (:func:`potential_breaks`), and the line says so. A limit on a count this run did
    not measure (recompiles without the dynamic pass, a target that did not run or failed,
    CUDA-graph skips without reduce-overhead) is noted as not checked, and then the default
    criterion applies as well: an unsuppressed finding fails the run, so a gate never turns a
    failing run into a passing one.
    Raises :class:`GateError` for an unreadable baseline (a usage error: exit 2).
    """
    failures: list[str] = []
    notes: list[str] = []
    unmeasured: list[str] = []  # limits on counts this run did not produce
    counted = report.dynamic_ran
    if max_graph_breaks is not None:
        if counted:
            _check(failures, _over("graph breaks", report.graph_breaks, max_graph_breaks))
        elif report.static_ran:
            what = "potential graph breaks (static pass; the dynamic pass did not run)"
            n = potential_breaks(report)
            line = _over(what, n, max_graph_breaks)
            _check(failures, line)
            if line is None:
                notes.append(f"{what}: {n} <= limit {max_graph_breaks}")
        else:
            unmeasured.append("graph-break limit not checked: neither pass ran")
    if max_recompiles is not None:
        if counted:
            _check(failures, _over("recompiles", report.recompiles, max_recompiles))
        else:
            unmeasured.append("recompile limit not checked: the dynamic pass did not run")
    for what, limits in (("graph breaks", per_target), ("recompiles", per_target_recompiles)):
        for name, limit in (limits or {}).items():
            result = next((t for t in report.targets if t.target == name), None)
            why = (
                "the dynamic pass did not run"
                if not counted
                else "no such target ran"
                if result is None
                else "the target failed"
                if result.error is not None
                else None
            )
            if why is not None:
                unmeasured.append(f"{what} limit for {name} not checked: {why}")
                continue
            _check(failures, _over(f"{what} in {name}", getattr(result, what.replace(" ", "_")), limit))
    if max_cudagraph_skips is not None:
        measured = [t.cudagraph_skips for t in report.targets if t.cudagraph_skips is not None]
        if not measured:
            unmeasured.append("CUDA-graph skip limit not checked: no target ran with --mode reduce-overhead")
        else:
            _check(failures, _over("CUDA-graph skips", sum(measured), max_cudagraph_skips))
    if baseline is not None:
        regressions, improvements = compare(report, load_baseline(baseline))
        failures.extend(regressions)
        notes.extend(improvements)
        if improvements and not regressions:
            notes.append(f"better than the baseline: run `torchlint baseline` to update {baseline}")
    notes.extend(unmeasured)
    n = len(report.findings)
    if unmeasured and n:
        failures.append(
            f"{n} unsuppressed finding{'s' if n != 1 else ''}: a limit was not checked, "
            "so the default criterion (no unsuppressed finding) still applies"
        )
    report.gate_failures = failures
    report.gate_notes = notes
    return not failures


def _check(failures: list[str], line: str | None) -> None:
    if line:
        failures.append(line)


def gate_set(settings: Settings) -> bool:
    """Whether a gate (a limit or a baseline, on the command line or in the config) is set:
    it then replaces "no unsuppressed finding" as the run's criterion."""
    return (
        settings.max_graph_breaks is not None
        or settings.max_recompiles is not None
        or settings.baseline is not None
        or settings.max_cudagraph_skips is not None
        or any("max-graph-breaks" in t or "max-recompiles" in t for t in settings.targets)
    )


def apply_settings(report: Report, settings: Settings) -> None:
    """Apply the gates the settings set (none: the report is left as it is).
    Raises :class:`GateError` for an unreadable baseline."""
    if not gate_set(settings):
        return

    def limits(key: str) -> dict[str, int]:
        return {str(t.get("name") or t["target"]): t[key] for t in settings.targets if key in t}

    apply_gate(
        report,
        max_graph_breaks=settings.max_graph_breaks,
        max_recompiles=settings.max_recompiles,
        per_target=limits("max-graph-breaks"),
        per_target_recompiles=limits("max-recompiles"),
        baseline=settings.baseline,
        max_cudagraph_skips=settings.max_cudagraph_skips,
    )


def exit_code(report: Report, settings: Settings, exit_zero: bool) -> int:
    """2 when a file or target could not be checked; else 0 with ``--exit-zero``; else the
    gate's verdict when a gate is set; else 1 when an unsuppressed finding remains."""
    if report.errors:
        return EXIT_ERROR
    if exit_zero:
        return EXIT_OK
    if gate_set(settings):
        return EXIT_FAIL if report.gate_failures else EXIT_OK
    return EXIT_FAIL if report.findings else EXIT_OK
