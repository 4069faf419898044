"""The one data model every part of torchlint speaks.

The static pass, the dynamic pass, the merge step and every output format exchange
:class:`Finding` objects gathered in a :class:`Report`. Nothing else crosses module lines.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Literal

Source = Literal["static", "dynamic", "both"]
Severity = Literal["error", "warning"]

JSON_VERSION = 1

#: the names of the findings the dynamic pass makes that no rule stands for (a rule's finding is
#: named after the rule): read by the passes that make them and the outputs that word them
GRAPH_BREAK = "graph-break"
RECOMPILE_LIMIT = "recompile-limit"
CUDAGRAPH_SKIP = "cudagraph-skip"
CUDAGRAPH_SPLIT = "cudagraph-split"
CUDAGRAPH_RERECORD = "cudagraph-rerecord"


@dataclass(frozen=True)
class Edit:
    """Replace the text between two (line, column) positions with ``replacement``.

    Lines and columns are 1-based and count as the parser does (lines end at ``\n``,
    ``\r\n`` or ``\r``; columns are characters); the end is exclusive, and an edit whose
    end is its start inserts."""

    line: int
    column: int
    end_line: int
    end_column: int
    replacement: str


@dataclass(frozen=True)
class Fix:
    """An automatic fix: the edits it makes to the file, and whether it keeps eager behaviour.

    ``applicability`` is ``"safe"`` (eager behaviour is unchanged) or ``"unsafe"`` (changes
    behaviour or needs review); only safe fixes apply without ``--unsafe-fixes``. ``edits``
    are what this fix alone does to the file as it was checked (in source order, not
    overlapping); ``--fix`` plans all of a file's fixes together, round after round.
    """

    applicability: Literal["safe", "unsafe"]
    description: str
    edits: tuple[Edit, ...] = ()


#: a finding's measured cost (in JSON only when measured)
COST_KEYS = ("cost_ms", "cost_share", "cost_frame", "cost_calls", "occurrence_ms", "per_1000_calls")

#: the keys every finding's JSON has, in order (the others only when they apply)
_FINDING_KEYS = (
    "rule",
    "name",
    "path",
    "line",
    "column",
    "end_line",
    "end_column",
    "message",
    "suggestion",
    "source",
    "gb_code",
    "region",
    "target",
    "severity",
)


@dataclass
class Finding:
    """One problem at one place in a user's file, from either pass.

    ``source`` says who saw it: ``static`` (a rule predicted it, dynamo did not confirm it),
    ``dynamic`` (dynamo broke there, no rule predicted it) or ``both``.
    """

    rule: str | None
    name: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    suggestion: str
    source: Source = "static"
    gb_code: str | None = None
    region: str | None = None
    target: str | None = None
    severity: Severity = "error"
    # Dynamic details (dynamo's own words), empty for static findings.
    reason: str | None = None
    explanation: str | None = None
    hints: list[str] = field(default_factory=list)
    # `torchlint run`: times dynamo met it, the library line it broke on, the ranks that saw it.
    hits: int | None = None
    library: str | None = None
    ranks: list[int] | None = None
    # What it costs, measured once compiled and warm (`torchlint.dynamic.costs`): milliseconds
    # per call of the compiled frame `cost_frame`, their share of its time, over `cost_calls`
    # timed calls; for a recompilation or a CUDA-graph re-recording, the time one occurrence
    # takes and how often it happens per thousand calls.
    cost_ms: float | None = None
    cost_share: float | None = None
    cost_frame: str | None = None
    cost_calls: int | None = None
    occurrence_ms: float | None = None
    per_1000_calls: float | None = None
    # Not serialised in JSON: an automatic fix and the source line, for text output.
    fix: Fix | None = field(default=None, compare=False, repr=False)
    source_line: str | None = field(default=None, compare=False, repr=False)
    #: every target whose run hit it, in order; ``target`` is their names joined, for output
    targets: list[str] = field(default_factory=list, compare=False, repr=False)
    #: in a notebook: the code cell (from 1) whose lines ``line``/``end_line`` count
    cell: int | None = None
    #: the module mode it holds in when that is one alone: ``"train"`` (only in training:
    #: under ``if self.training:``, in the loss; for a dynamic finding, seen only in training
    #: runs) or ``"eval"`` (only in eval); None: both, or not known
    mode: str | None = None
    #: dynamic findings: the modes of the runs that saw it ("eval", "train"; not in JSON)
    run_modes: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def target_names(self) -> list[str]:
        """The targets that hit it (a name may itself hold ", ": ``m.py:build(a=1, b=2)``)."""
        return list(self.targets) or ([self.target] if self.target else [])

    def seen_in(self, modes: tuple[str, ...]) -> None:
        """A dynamic finding was seen in runs of these modes too: ``mode`` says "train" when
        every run that saw it trained."""
        self.run_modes = tuple(sorted(set(self.run_modes) | set(modes)))
        self.mode = "train" if self.run_modes == ("train",) else None

    def add_target(self, name: str) -> None:
        """Count target ``name`` among those that hit it (once)."""
        names = self.target_names()
        if name not in names:
            names.append(name)
        self.targets = names
        self.target = ", ".join(names)

    @property
    def sort_key(self) -> tuple[str, int, int, int, str, str]:
        return (self.path, self.cell or 0, self.line, self.column, self.rule or "~", self.message)

    def fingerprint(self, line_text: str | None = None) -> str:
        """A stable identity that survives line shifts: path, rule, region and the code itself."""
        text = (line_text if line_text is not None else (self.source_line or "")).strip()
        raw = "\x1f".join([self.path, self.rule or self.gb_code or self.name, self.region or "", text])
        return hashlib.sha1(raw.encode("utf-8")).hexdigest()[:16]

    def to_dict(self) -> dict[str, Any]:
        d = {key: getattr(self, key) for key in _FINDING_KEYS}
        if self.source != "static":
            d["reason"] = self.reason
            d["explanation"] = self.explanation
            d["hints"] = list(self.hints)
        if self.cell is not None:
            d["cell"] = self.cell
        if self.mode is not None:
            d["mode"] = self.mode
        for key in ("hits", "library", "ranks", *COST_KEYS):
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        if self.fix is not None:
            d["fix"] = {"applicability": self.fix.applicability, "description": self.fix.description}
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Finding:
        names = {f.name for f in dataclasses.fields(cls)} - {"fix", "source_line", "targets", "run_modes"}
        return cls(**{k: v for k, v in d.items() if k in names})


@dataclass
class FileError:
    """A file or target that could not be checked, with a one-line reason."""

    path: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "message": self.message}


@dataclass
class Recompile:
    """One recompilation of a target: which guard failed, in words."""

    target: str
    reason: str
    path: str | None = None
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"target": self.target, "reason": self.reason, "path": self.path, "line": self.line}


@dataclass
class TargetResult:
    """What dynamo did to one declared target."""

    target: str
    graphs: int = 0
    graph_breaks: int = 0
    recompiles: int = 0
    seconds: float = 0.0
    error: str | None = None
    ops_per_graph: list[int] = field(default_factory=list)
    recompile_reasons: list[Recompile] = field(default_factory=list)
    cudagraph_skips: int | None = None
    #: per graph, the user lines its operations came from: ``[{"path", "lines"}]``
    graph_lines: list[list[dict[str, Any]]] = field(default_factory=list)
    #: path -> lines dynamo traced into a graph (not in JSON): a static finding there ran
    #: without a break; one elsewhere was not reached
    traced: dict[str, set[int]] = field(default_factory=dict, repr=False)
    #: `torchlint run`: lines for people (compile time per frame, caches, output tail) and data
    details: list[str] = field(default_factory=list)
    program: dict[str, Any] | None = None
    #: functions that hit dynamo's recompile limit and then ran eagerly, uncompiled
    recompile_limit_hits: list[Recompile] = field(default_factory=list)
    #: graph breaks counted each time one was hit (``graph_breaks`` counts distinct sites)
    graph_break_hits: int = 0
    #: the traceback of a target that raised, for ``-v`` (not in JSON)
    traceback: str | None = field(default=None, repr=False)
    #: the recompilations grouped by cause (``torchlint.dynamic.records.group_recompiles``)
    recompile_causes: list[dict[str, Any]] = field(default_factory=list)
    #: how the code ran: "eval" or "training" (None: not known), and the compile mode
    run_mode: str | None = None
    compile_mode: str | None = None
    #: per compiled frame timed once warm (``torchlint.dynamic.costs.FrameCost.to_dict``)
    costs: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = {
            "target": self.target,
            "graphs": self.graphs,
            "graph_breaks": self.graph_breaks,
            "recompiles": self.recompiles,
            "seconds": round(self.seconds, 3),
            "error": self.error,
            "ops_per_graph": list(self.ops_per_graph),
            "recompile_reasons": [r.to_dict() for r in self.recompile_reasons],
        }
        if self.cudagraph_skips is not None:
            d["cudagraph_skips"] = self.cudagraph_skips
        if self.graph_lines:
            d["graph_lines"] = [[dict(g) for g in graph] for graph in self.graph_lines]
        if self.details:
            d["details"] = list(self.details)
        if self.program is not None:
            d["program"] = self.program
        d["graph_break_hits"] = self.graph_break_hits
        d["recompile_limit_hits"] = [r.to_dict() for r in self.recompile_limit_hits]
        d["recompile_causes"] = [dict(c) for c in self.recompile_causes]
        if self.run_mode is not None:
            d["run_mode"] = self.run_mode
        if self.compile_mode is not None:
            d["compile_mode"] = self.compile_mode
        if self.costs:
            d["costs"] = [dict(c) for c in self.costs]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TargetResult:
        names = {f.name for f in dataclasses.fields(cls)}
        out = cls(**{k: v for k, v in d.items() if k in names and k != "recompile_reasons"})
        out.recompile_reasons = [Recompile(**r) for r in d.get("recompile_reasons") or []]
        return out


@dataclass
class Report:
    """Everything one run found: the input to every output format and to the exit code."""

    findings: list[Finding] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)
    files: int = 0
    targets: list[TargetResult] = field(default_factory=list)
    torch_version: str | None = None
    dynamic_ran: bool = False
    static_ran: bool = True
    # Lines of gate verdicts ("graph breaks 5 > limit 3 (+2)"), set by the gate.
    gate_failures: list[str] = field(default_factory=list)
    gate_notes: list[str] = field(default_factory=list)

    def sort(self) -> None:
        self.findings.sort(key=lambda f: f.sort_key)
        self.errors.sort(key=lambda e: (e.path, e.message))

    def traced(self, finding: Finding) -> bool:
        """Whether some target traced one of the finding's lines into a graph (ran it without
        breaking there); False when no target reached them or the dynamic pass did not run."""
        lines = range(finding.line, max(finding.line, finding.end_line) + 1)
        for t in self.targets:
            seen = t.traced.get(finding.path)
            if seen and any(n in seen for n in lines):
                return True
        return False

    @property
    def files_with_findings(self) -> int:
        """How many files hold at least one finding (``files`` counts the files checked)."""
        return len({f.path for f in self.findings})

    def _total(self, count: str) -> int | None:
        """One per-target count summed over the targets; ``None`` when the dynamic pass did not run."""
        return sum(getattr(t, count) for t in self.targets) if self.dynamic_ran else None

    graph_breaks = property(lambda self: self._total("graph_breaks"), doc="graph breaks of all targets")
    graph_break_hits = property(lambda self: self._total("graph_break_hits"), doc="break hits of all targets")
    graphs = property(lambda self: self._total("graphs"), doc="graphs of all targets")
    recompiles = property(lambda self: self._total("recompiles"), doc="recompilations of all targets")

    def summary(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "findings": len(self.findings),
            "graph_breaks": self.graph_breaks,
            "graph_break_hits": self.graph_break_hits,
            "graphs": self.graphs,
            "recompiles": self.recompiles,
            "errors": len(self.errors),
            "files_with_findings": self.files_with_findings,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": JSON_VERSION,
            "torch_version": self.torch_version,
            "summary": self.summary(),
            "findings": [self._finding_dict(f) for f in self.findings],
            "targets": [t.to_dict() for t in self.targets],
            "errors": [e.to_dict() for e in self.errors],
        }

    def _finding_dict(self, finding: Finding) -> dict[str, Any]:
        d = finding.to_dict()
        if self.dynamic_ran and finding.source == "static" and finding.severity == "error":
            # what dynamo did with a line it did not confirm: ran it without breaking, or never
            d["dynamo"] = "ran_without_breaking" if self.traced(finding) else "not_reached"
        return d

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)
