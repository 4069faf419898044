"""Worker answers -> results and findings, in the parent (no torch).

:func:`result_from_answer` turns one :class:`~torchlint.dynamic.answer.Answer` into the
target's :class:`TargetResult` and its findings: one ``graph-break`` finding (source
``dynamic``, severity ``error``) per break site, dynamo's hint as its suggestion (the merge may
replace it with a rule's fix), and, for ``mode = "reduce-overhead"``, the CUDA-graph findings
of :func:`findings_of` (severity ``warning``): ``cudagraph-skip`` (a graph run without a CUDA
graph), ``cudagraph-split`` (part of a graph run outside CUDA graphs, cutting it or running
CPU kernels each call) and ``cudagraph-rerecord``. Each finding shows its source line, read
through :class:`SourceLines` (one read per file and run).
"""
from __future__ import annotations

import os
from typing import Any, Dict, List, Mapping, Optional, Tuple

from torchlint.dynamic.answer import Answer
from torchlint.dynamic.records import SourceLines, relpath
from torchlint.findings import Finding, Recompile, TargetResult

SKIP_NAME = "cudagraph-skip"
SPLIT_NAME = "cudagraph-split"
RERECORD_NAME = "cudagraph-rerecord"


def _finding(name: str, path: str, line: int, message: str, suggestion: str, target: str,
             cwd: str, lines: SourceLines, **more: Any) -> Finding:
    """A dynamic finding spanning the code of ``line`` (indentation and trailing blanks out)."""
    text = lines.line(path, line) or ""
    stripped = text.strip()
    return Finding(
        rule=None, name=name, path=relpath(path, cwd) or path, line=line,
        column=len(text) - len(text.lstrip()) + 1 if stripped else 1, end_line=line,
        end_column=len(text.rstrip()) + 1 if stripped else 1, message=message,
        suggestion=suggestion, source="dynamic", target=target, targets=[target],
        source_line=text or None, **more,
    )


def break_finding(site: Mapping[str, Any], target: str, cwd: str, lines: Optional[SourceLines] = None
                  ) -> Finding:
    """The finding for one break site of an answer."""
    reason = site.get("reason") or "graph break"
    message = f"graph break: {reason}"
    if site.get("frame_skipped"):
        message += " (dynamo gave up the whole function and ran it eagerly)"
    hints = [h for h in site.get("hints") or [] if h]
    suggestion = hints[0] if hints else (site.get("explanation") or "move this out of the compiled region")
    return _finding(
        "graph-break", site["path"], site["line"], message, suggestion, target, cwd, lines or SourceLines(),
        gb_code=site.get("gb_code"), severity="error", reason=reason,
        explanation=site.get("explanation") or None, hints=hints,
    )


LIMIT_NAME = "recompile-limit"
LIMIT_SUGGESTION = ("Remove what recompiles it (the reason above, and the target's recompile lines): "
                    "each variant of the inputs, the layers or the Python values it sees is one "
                    "more compilation; raising `torch._dynamo.config.recompile_limit` only delays this.")


def limit_words(hit: Mapping[str, Any]) -> str:
    """A recompile-limit hit in words: loudly, since the function then runs uncompiled."""
    last = f" (the last: {hit['words']})" if hit.get("words") else ""
    return (f"`{hit.get('function') or '?'}` hit dynamo's recompile limit ({hit.get('limit', '?')} "
            f"compilations){last}: from then on dynamo runs it eagerly, uncompiled, on every call")


def result_from_answer(target: str, answer: Answer, seconds: float, cwd: str,
                       lines: Optional[SourceLines] = None) -> Tuple[TargetResult, List[Finding]]:
    """The result and findings of target ``target`` (its name in reports) from its answer;
    paths inside ``cwd`` become relative to it."""
    lines = lines or SourceLines()
    result = TargetResult(target=target, seconds=seconds)
    if answer.error:
        result.error = answer.error
        result.traceback = answer.traceback
        return result, []
    result.graphs = int(answer.graphs)
    result.ops_per_graph = list(answer.ops_per_graph)
    result.graph_lines = [[{"path": relpath(g["path"], cwd), "lines": list(g["lines"])} for g in graph]
                          for graph in answer.graph_lines]
    result.graph_breaks = len(answer.breaks)
    for event in answer.recompiles:
        words = event["words"] + (f"; fix: {event['fix']}" if event.get("fix") else "")
        result.recompile_reasons.append(Recompile(
            target=target, reason=words, path=relpath(event.get("path"), cwd), line=event.get("line"),
        ))
    result.recompiles = len(result.recompile_reasons)
    for path, line in answer.traced:
        result.traced.setdefault(relpath(path, cwd), set()).add(int(line))
    result.graph_break_hits = sum(int(b.get("hits") or 1) for b in answer.breaks)
    findings = [break_finding(b, target, cwd, lines) for b in answer.breaks if b.get("path") and b.get("line")]
    for hit in answer.recompile_limit_hits:
        result.recompile_limit_hits.append(Recompile(
            target=target, reason=limit_words(hit), path=relpath(hit.get("path"), cwd), line=hit.get("line")))
        if hit.get("path") and hit.get("line"):
            findings.append(_finding(
                LIMIT_NAME, hit["path"], int(hit["line"]), limit_words(hit), LIMIT_SUGGESTION, target, cwd,
                lines, severity="error", reason=f"hit config.{hit.get('kind') or 'recompile_limit'}"))
    if answer.cudagraphs is not None:
        result.cudagraph_skips, more = findings_of(answer.cudagraphs, target, cwd, lines)
        findings.extend(more)
    return result, findings


_SUGGESTIONS = (
    ("cpu device", "Keep every tensor of the compiled region on the GPU: return device tensors "
                   "and copy them to the host after the call (TL101), create tensors with "
                   "`device=x.device` or as buffers (TL102)."),
    ("multiple devices", "Keep the whole compiled region on one GPU."),
    ("mutated inputs", "Do not modify inputs in place inside the region (`x.add_(1)`, "
                       "`x[...] = v`): return a new tensor, or copy into a buffer of the module."),
    ("incompatible op", "Move the op that CUDA graphs cannot capture out of the compiled region."),
    ("dynamic shape", "Pad inputs to a few fixed sizes so each size is captured once."),
)
_GENERIC_SUGGESTION = ("Inductor ran this graph without a CUDA graph; remove the cause it names, "
                       "or compile without mode=\"reduce-overhead\" if it cannot be avoided.")
_RERECORD_SUGGESTION = (
    "Each new input shape, and each new value of a Python number, records and keeps another CUDA "
    "graph: pad or bucket inputs to a few fixed sizes so each records once, and pass per-call "
    "numbers as 0-d tensors (TL103)."
)


def _suggestion(reason: str) -> str:
    return next((text for key, text in _SUGGESTIONS if key in reason), _GENERIC_SUGGESTION)


_NOT_A_BREAK = 'not a graph break, but under mode="reduce-overhead" '


def skip_words(reason: str, why: Optional[str] = None) -> str:
    """A ``cudagraph-skip`` finding's message (``check --mode`` and ``torchlint run``)."""
    return (_NOT_A_BREAK + f"inductor runs this graph without a CUDA graph because of {reason}"
            + (f"; this line {why}" if why else ""))


def split_words(pieces: int, reason: str, why: Optional[str] = None) -> str:
    """A ``cudagraph-split`` finding's message."""
    what = (f"the CUDA graph is cut in {pieces}: each call replays {pieces} CUDA graphs with "
            f"{reason} between them" if pieces >= 2 else
            f"{reason} run outside the CUDA graph, eagerly, on every call")
    return _NOT_A_BREAK + what + (f"; this line {why}" if why else "")


def rerecord_words(count: int, detail: str, called: str = "") -> str:
    """A ``cudagraph-rerecord`` finding's message; ``detail`` says for which inputs."""
    return (_NOT_A_BREAK + f"the CUDA graph{called} was re-recorded {count} time{'s' if count != 1 else ''} "
            + detail)


def findings_of(data: Mapping[str, Any], target: str, cwd: str, lines: Optional["SourceLines"] = None
                ) -> Tuple[int, List[Finding]]:
    """(CUDA-graph skips, findings) from the worker's ``cudagraphs`` answer.

    The count is what ``--max-cudagraph-skips`` limits: graphs run without a CUDA graph plus
    graphs cut into several CUDA graphs.
    """
    lines = lines or SourceLines()
    findings: List[Finding] = []
    for split in data.get("splits", []):
        pieces = int(split.get("pieces") or 1)
        for site in split.get("sites") or []:
            findings.append(_finding(
                SPLIT_NAME, site["path"], site["line"], split_words(pieces, split["reason"], site.get("why")),
                _suggestion("cpu device"), target, cwd, lines, severity="warning"))
    for skip in data.get("skips", []):
        reason = skip["reason"]
        for site in skip.get("sites") or []:
            findings.append(_finding(
                SKIP_NAME, site["path"], site["line"], skip_words(reason, site.get("why")),
                _suggestion(reason), target, cwd, lines, severity="warning", reason=skip.get("message")))
    rerecords = int(data.get("rerecordings", 0))
    if rerecords and data.get("path") and data.get("line"):
        per_set = data.get("per_set") or []
        shapes = data.get("shapes") or []
        detail = ", ".join(
            f"input set {i + 1} {shapes[i] if i < len(shapes) else ''}".rstrip() + f": {n}"
            for i, n in enumerate(per_set) if n
        )
        findings.append(_finding(
            RERECORD_NAME, data["path"], int(data["line"]),
            rerecord_words(rerecords, f"across {len(per_set)} input sets (recordings per set: {detail})"),
            _RERECORD_SUGGESTION, target, cwd, lines, severity="warning"))
    return len(data.get("skips", [])) + len(data.get("splits", [])), findings
