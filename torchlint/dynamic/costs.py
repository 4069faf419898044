"""What each graph break costs: one call's timeline -> time per break, and the figures on findings.

Standard library only (no torch): the timers that make the timelines live in
:mod:`torchlint.dynamic.timing` (in the program's process, or the worker's); this module
holds the arithmetic both sides share, so it is tested on plain data.

One *call* is one entry into ``torch.compile``'s wrapper (the outermost, per thread), from
``t0`` to ``t1``. Inside it the compiled graphs run, each between an entry and an exit; the
time between them is eager Python: the code at and after a graph break, dynamo's guard checks
and the call into the resume function. That time goes to a break:

* after a graph that dynamo ended at a graph break (``break_after``: the file and line where
  the frame broke), the time until the next graph starts, or until the call ends, belongs to
  that break: the eager code there, and the resume function's eager runs once it hit the
  recompile limit (it then has no graph);
* else, time before a graph of a resume function (``torch_dynamo_resume_in_f_at_14``) belongs
  to the break it resumes after (``resume_of``: the file and line 14);
* a *mark* (a zero-length event when a resume function is entered, ``mark=True``) cuts an eager
  stretch: the time before it goes to the break the last graph ended at, else (after another
  mark: the code of that resume function up to its own break, then this break's eager code) to
  the break it resumes after; the time after it, until the next graph, mark or the call's end,
  to the break it resumes after. Two breaks with no graph between them (a ``print`` right after
  a call dynamo skips) are so told apart;
* the rest (the prologue before the first graph, the return after the last) is the frame's own.

A break's cost is its time summed over the timed calls divided by their number: milliseconds
per call of the compiled frame, and its share of the frame's time. The parent maps each
break's (file, line) to the break findings whose stack holds that line (:func:`apply`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Where = tuple[str, int]

RESUME_PREFIX = "torch_dynamo_resume_in_"
_RESUME = re.compile(r"^torch_dynamo_resume_in_(?P<name>.+)_at_(?P<line>\d+)$")


def resume_target(name: str) -> tuple[str, int] | None:
    """(function, line) of a resume function's name (``torch_dynamo_resume_in_forward_at_14``
    -> ``("forward", 14)``), None for any other name."""
    m = _RESUME.match(name or "")
    return (m.group("name"), int(m.group("line"))) if m else None


def root_function(name: str) -> str:
    """The user's function a (possibly nested) resume function continues."""
    while True:
        found = resume_target(name)
        if found is None:
            return name
        name = found[0]


@dataclass(frozen=True)
class GraphInfo:
    """What the timers know of one compiled graph: the frame it belongs to (the user's function,
    resume functions mapped to theirs), where that frame broke after it, and, for a graph of a
    resume function, the break it resumes after."""

    frame: str
    path: str
    break_after: Where | None = None
    resume_of: Where | None = None
    #: a resume function's entry, not a graph
    mark: bool = False


@dataclass
class CallTimes:
    """One call, split: time inside graphs, time per break, the rest."""

    frame: GraphInfo | None
    wall_ns: int
    graph_ns: int = 0
    breaks: dict[Where, int] = field(default_factory=dict)
    other_ns: int = 0


def split_call(t0: int, t1: int, events: Sequence[tuple[int, GraphInfo | None]]) -> CallTimes:
    """Split one call (``t0``..``t1``, nanoseconds) by its events: ``(time, info)`` at a
    graph's entry, ``(time, None)`` at its exit, ``(time, mark)`` when a resume function is
    entered, in order. A graph entered inside another (a compiled graph that calls back into
    compiled code) counts as part of the outer one."""
    out = CallTimes(frame=None, wall_ns=max(t1 - t0, 0))
    last_exit = t0
    #: who the eager time since ``last_exit`` belongs to, as far as its start tells: the break
    #: the last graph ended at, or the break the last mark resumes after; and whether a mark
    last_owner: Where | None = None
    after_mark = False
    depth, entered, current = 0, t0, None

    def add(owner: Where | None, ns: int) -> None:
        if owner is not None:
            out.breaks[owner] = out.breaks.get(owner, 0) + ns
        else:
            out.other_ns += ns

    for t, info in events:
        if info is not None and info.mark:
            if depth:
                continue
            if out.frame is None:
                out.frame = info
            add(info.resume_of if after_mark or last_owner is None else last_owner, max(t - last_exit, 0))
            last_exit, last_owner, after_mark = t, info.resume_of, True
        elif info is not None:
            depth += 1
            if depth > 1:
                continue
            if out.frame is None:
                out.frame = info
            add(last_owner if last_owner is not None else info.resume_of, max(t - last_exit, 0))
            entered, current = t, info
        else:
            if depth == 0:
                continue
            depth -= 1
            if depth:
                continue
            out.graph_ns += max(t - entered, 0)
            last_exit = t
            last_owner = current.break_after if current is not None else None
            after_mark = False
    add(last_owner if depth == 0 else None, max(t1 - last_exit, 0) if depth == 0 else 0)
    return out


#: warm calls of a ``check`` target timed when its table, the config and the CLI say nothing:
#: enough for a break that costs a tenth of a call to stand out, few enough for CI
DEFAULT_COST_CALLS = 20

#: the share of timed calls, the slowest, left out of the sums: on a shared machine (a CI
#: runner, a loaded host) more than one call in twenty is preempted, and a preempted call
#: costs ten times a plain one, so with a twentieth left out the mean still follows the
#: machine's load, not the program (measured: 2.7 ms against a median call of 0.65 ms)
TRIM = 0.2


@dataclass
class Sums:
    kept: int = 0
    wall_ns: int = 0
    graph_ns: int = 0
    other_ns: int = 0
    breaks: dict[Where, int] = field(default_factory=dict)


def trimmed_sums(samples: Sequence[tuple[int, int, int, Mapping[Where, int]]], trim: float = TRIM) -> Sums:
    """The sums over the timed calls (wall, in graphs, other, per break) without the slowest
    ``trim`` of them by wall time."""
    ordered = sorted(samples, key=lambda s: s[0])
    keep = ordered[: max(len(ordered) - int(len(ordered) * trim), 1)] if ordered else []
    out = Sums(kept=len(keep))
    for wall, graph, other, breaks in keep:
        out.wall_ns += wall
        out.graph_ns += graph
        out.other_ns += other
        for where, ns in breaks.items():
            out.breaks[where] = out.breaks.get(where, 0) + ns
    return out


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, by linear interpolation (0 for none)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


# --------------------------------------------------------------------------- parent side


@dataclass
class FrameCost:
    """One compiled frame's timing, as a process recorded it (a ``cost`` record)."""

    frame: str
    path: str
    calls: int
    timed: int
    p50_ms: float
    p95_ms: float
    mean_ms: float
    graph_ms: float
    other_ms: float
    #: (path, line) -> milliseconds per timed call
    breaks: dict[Where, float] = field(default_factory=dict)
    #: calls that compiled something (first calls, recompilations) and calls that recorded CUDA graphs
    compile_calls: int = 0
    record_calls: int = 0
    #: extra milliseconds a recording call took over the median call
    record_extra_ms: float | None = None
    #: how many processes timed it (:func:`combined`)
    processes: int = 1

    @classmethod
    def from_record(cls, r: Mapping[str, Any]) -> FrameCost:
        per = 1e6 * max(int(r.get("kept") or r.get("timed") or 0), 1)
        return cls(
            frame=str(r.get("frame") or "?"),
            path=str(r.get("path") or "?"),
            calls=int(r.get("calls") or 0),
            timed=int(r.get("timed") or 0),
            p50_ms=float(r.get("p50_ns") or 0) / 1e6,
            p95_ms=float(r.get("p95_ns") or 0) / 1e6,
            mean_ms=float(r.get("wall_ns") or 0) / per,
            graph_ms=float(r.get("graph_ns") or 0) / per,
            other_ms=float(r.get("other_ns") or 0) / per,
            breaks={(str(p), int(n)): float(ns) / per for p, n, ns in r.get("breaks") or []},
            compile_calls=int(r.get("compile_calls") or 0),
            record_calls=int(r.get("record_calls") or 0),
            record_extra_ms=(float(r["record_extra_ns"]) / 1e6 if r.get("record_extra_ns") is not None else None),
        )

    def share(self, ms: float) -> float:
        return ms / self.mean_ms if self.mean_ms > 0 else 0.0

    def to_dict(self, show: Any = None) -> dict[str, Any]:
        path = show(self.path) if show else self.path
        return {
            "frame": self.frame,
            "path": path,
            "calls": self.calls,
            "timed_calls": self.timed,
            "p50_ms": round(self.p50_ms, 4),
            "p95_ms": round(self.p95_ms, 4),
            "mean_ms": round(self.mean_ms, 4),
            "graph_ms": round(self.graph_ms, 4),
            "other_ms": round(self.other_ms, 4),
            "breaks": [
                {"path": show(p) if show else p, "line": n, "ms": round(ms, 4)}
                for (p, n), ms in sorted(self.breaks.items(), key=lambda kv: -kv[1])
            ],
            "compile_calls": self.compile_calls,
            "record_calls": self.record_calls,
            **({"processes": self.processes} if self.processes > 1 else {}),
        }


def frame_costs(records: Iterable[Mapping[str, Any]]) -> list[FrameCost]:
    """Each compiled frame's figures from ``cost`` records: the last record of each frame per
    process (a process writes a snapshot now and then and a final one at exit), then the
    processes' figures of the same frame (pytest-xdist workers, torchrun ranks) combined into
    one: per call, weighted by each process's timed calls, never summed."""
    last: dict[tuple[Any, str, str], Mapping[str, Any]] = {}
    for r in records:
        if r.get("kind") == "cost":
            last[(r.get("pid"), str(r.get("frame")), str(r.get("path")))] = r
    by_frame: dict[tuple[str, str], list[FrameCost]] = {}
    for r in last.values():
        if int(r.get("timed") or 0) > 0:
            cost = FrameCost.from_record(r)
            by_frame.setdefault((cost.frame, _real(cost.path)), []).append(cost)
    return [combined(group) for group in by_frame.values()]


def combined(costs: Sequence[FrameCost]) -> FrameCost:
    """One frame's figures from several processes: counts added; per-call times (mean, in
    graphs, per break, P50 and P95) averaged with each process's timed calls as its weight,
    so two ranks that each spend 1 ms at a break report 1 ms per call, not 2."""
    if len(costs) == 1:
        return costs[0]
    weights = [max(c.timed, 1) for c in costs]
    total = sum(weights)

    def mean(values: Iterable[float]) -> float:
        return sum(w * v for w, v in zip(weights, values)) / total

    wheres = {w for c in costs for w in c.breaks}
    extra = [(c.record_extra_ms, c.record_calls) for c in costs if c.record_extra_ms is not None]
    return FrameCost(
        frame=costs[0].frame,
        path=costs[0].path,
        calls=sum(c.calls for c in costs),
        timed=sum(c.timed for c in costs),
        p50_ms=mean(c.p50_ms for c in costs),
        p95_ms=mean(c.p95_ms for c in costs),
        mean_ms=mean(c.mean_ms for c in costs),
        graph_ms=mean(c.graph_ms for c in costs),
        other_ms=mean(c.other_ms for c in costs),
        breaks={w: mean(c.breaks.get(w, 0.0) for c in costs) for w in wheres},
        compile_calls=sum(c.compile_calls for c in costs),
        record_calls=sum(c.record_calls for c in costs),
        record_extra_ms=(sum(ms * max(n, 1) for ms, n in extra) / sum(max(n, 1) for _, n in extra) if extra else None),
        processes=sum(c.processes for c in costs),
    )


def _real(path: str) -> str:
    return os.path.realpath(path)


def _matches(where: Where, frames: Sequence[Where]) -> int | None:
    """How well a break's stack holds ``where``: 0 when it is the innermost frame (the break
    itself), 1 when an outer frame (a call that broke inside), None when not at all."""
    path, line = _real(where[0]), int(where[1])
    hits = [i for i, (f, n) in enumerate(frames) if int(n) == line and _real(f) == path]
    if not hits:
        return None
    return 0 if hits[-1] == len(frames) - 1 else 1


def apply(
    costs: Sequence[FrameCost],
    breaks: Sequence[tuple[Any, Sequence[Where]]],
    *,
    show: Any = None,
) -> list[dict[str, Any]]:
    """Put each frame's break times on the break findings: ``breaks`` is ``(finding, stack)``
    per break finding, its stack outermost first (the break's own line last). A (file, line)
    goes to the finding whose break is on it, else to the first one whose stack passes through
    it (a call that broke inside). A finding that gets time from several frames keeps the
    largest. Returns each frame's figures for the report."""
    owner: dict[int, tuple[str, str]] = {}  # finding -> the frame its cost came from
    for cost in costs:
        frame = (cost.frame, _real(cost.path))
        for where, ms in cost.breaks.items():
            ranked = [(m, i) for i, (_, frames) in enumerate(breaks) if (m := _matches(where, frames)) is not None]
            if not ranked:
                continue
            finding = breaks[min(ranked)[1]][0]
            same = owner.get(id(finding)) == frame  # several lines of one frame lead to it: add them
            total = ms + (finding.cost_ms or 0.0) if same else ms
            if finding.cost_ms is None or same or total > finding.cost_ms:
                finding.cost_ms = round(total, 4)
                finding.cost_share = round(min(cost.share(total), 1.0), 4)
                finding.cost_frame = cost.frame
                finding.cost_calls = cost.timed
                owner[id(finding)] = frame
    return [c.to_dict(show) for c in costs]


def apply_to_limit(
    finding: Any,
    function: str | None,
    path: str | None,
    costs: Sequence[FrameCost],
    compiled: Mapping[tuple[str, str, int], Mapping[str, Any]],
) -> None:
    """A recompile-limit finding's cost: the eager runs of the function it names, when that is
    a resume function (the time after its break, as :func:`split_call` counts it), and the
    compilations it took (milliseconds each, how many per thousand calls of its frame).
    ``compiled``: (function, file, first line) -> ``{"compiles", "seconds"}`` of the run."""
    if not function:
        return
    resumed = resume_target(function)
    root = root_function(function)
    same = [c for c in costs if c.frame == root and (path is None or _real(c.path) == _real(path))]
    if resumed is not None and path:
        for cost in same:
            ms = sum(v for (p, n), v in cost.breaks.items() if n == resumed[1] and _real(p) == _real(path))
            if ms and (finding.cost_ms is None or ms > finding.cost_ms):
                finding.cost_ms = round(ms, 4)
                finding.cost_share = round(min(cost.share(ms), 1.0), 4)
                finding.cost_frame = cost.frame
                finding.cost_calls = cost.timed
    compiles = sum(int(v.get("compiles") or 0) for (name, _, _), v in compiled.items() if name == function)
    seconds = sum(float(v.get("seconds") or 0.0) for (name, _, _), v in compiled.items() if name == function)
    if compiles:
        finding.occurrence_ms = round(1000 * seconds / compiles, 3)
        calls = sum(c.calls for c in same)
        if calls:
            finding.per_1000_calls = round(1000 * compiles / calls, 3)


def apply_to_rerecord(finding: Any, frame: str | None, costs: Sequence[FrameCost]) -> None:
    """A CUDA-graph re-recording finding's cost: how much longer a call that recorded took than
    the median call, and how often calls recorded, per thousand (of the frame ``frame``)."""
    same = [c for c in costs if frame is None or c.frame == frame]
    calls = sum(c.calls for c in same)
    if not calls:
        return
    recorded = sum(c.record_calls for c in same)
    finding.per_1000_calls = round(1000 * recorded / calls, 3)
    extra = [c.record_extra_ms for c in same if c.record_extra_ms is not None]
    if extra:
        finding.occurrence_ms = round(max(extra), 3)


def frame_words(figures: Sequence[Mapping[str, Any]]) -> list[str]:
    """Lines for people: each timed frame's calls, P50 and P95, and where its time went."""
    lines = []
    for f in sorted(figures, key=lambda f: -f["mean_ms"] * max(f["calls"], 1)):
        in_breaks = sum(b["ms"] for b in f["breaks"])
        lines.append(
            f"timed `{f['frame']}` ({f['path']}): {f['calls']} calls, {f['timed_calls']} timed once warm: "
            f"P50 {f['p50_ms']:.3g} ms, P95 {f['p95_ms']:.3g} ms; per call {f['graph_ms']:.3g} ms in graphs, "
            f"{in_breaks:.3g} ms at graph breaks, {f['other_ms']:.3g} ms other"
        )
    return lines
