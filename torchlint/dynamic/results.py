"""Worker answers -> results and findings, in the parent (no torch).

:func:`result_from_answer` turns one :class:`~torchlint.dynamic.answer.Answer` into the
target's :class:`TargetResult` and its findings: one ``graph-break`` finding (source
``dynamic``, severity ``error``) per break site, dynamo's hint as its suggestion (the merge may
replace it with a rule's fix), and, for ``mode = "reduce-overhead"``, the CUDA-graph findings
of :func:`findings_of` (severity ``warning``): ``cudagraph-skip`` (a graph run without a CUDA
graph), ``cudagraph-split`` (part of a graph run outside CUDA graphs, cutting it or running
CPU kernels each call) and ``cudagraph-rerecord``. Each finding shows its source line, read
through :class:`SourceLines` (one read per file and run). The findings themselves are built
by :mod:`torchlint.dynamic.records`, as ``torchlint run``'s are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from torchlint.dynamic import costs
from torchlint.dynamic.answer import Answer
from torchlint.dynamic.records import Findings, SourceLines, group_recompiles, relpath
from torchlint.findings import Finding, Recompile, TargetResult


def _findings(target: str, cwd: str, lines: SourceLines | None) -> Findings:
    return Findings(target, lambda path: relpath(path, cwd) or path, lines)


def break_finding(site: Mapping[str, Any], target: str, cwd: str, lines: SourceLines | None = None) -> Finding:
    """The finding for one break site of an answer."""
    return _findings(target, cwd, lines).graph_break(
        (site["path"], int(site["line"])), site, int(site.get("hits") or 1)
    )


def result_from_answer(
    target: str,
    answer: Answer,
    seconds: float,
    cwd: str,
    lines: SourceLines | None = None,
    mode: str | None = None,
    train: bool = False,
) -> tuple[TargetResult, list[Finding]]:
    """The result and findings of target ``target`` (its name in reports) from its answer;
    paths inside ``cwd`` become relative to it. ``mode``: the compile mode it ran under;
    ``train``: it ran forward and backward."""
    build = _findings(target, cwd, lines)
    result = TargetResult(target=target, seconds=seconds)
    result.run_mode = "training" if train else "eval"
    result.compile_mode = mode or "default"
    if answer.error:
        result.error = answer.error
        result.traceback = answer.traceback
        return result, []
    result.graphs = int(answer.graphs)
    result.ops_per_graph = list(answer.ops_per_graph)
    result.graph_lines = [
        [{"path": relpath(g["path"], cwd), "lines": list(g["lines"])} for g in graph] for graph in answer.graph_lines
    ]
    result.graph_breaks = len(answer.breaks)
    for event in answer.recompiles:
        words = event["words"] + (f"; fix: {event['fix']}" if event.get("fix") else "")
        result.recompile_reasons.append(
            Recompile(
                target=target,
                reason=words,
                path=relpath(event.get("path"), cwd),
                line=event.get("line"),
            )
        )
    result.recompiles = len(result.recompile_reasons)
    result.recompile_causes = group_recompiles(answer.recompiles, build.show, mode=mode)
    for path, line in answer.traced:
        result.traced.setdefault(relpath(path, cwd), set()).add(int(line))
    result.graph_break_hits = sum(int(b.get("hits") or 1) for b in answer.breaks)
    located = [b for b in answer.breaks if b.get("path") and b.get("line")]
    findings = [build.graph_break((b["path"], int(b["line"])), b, int(b.get("hits") or 1)) for b in located]
    # what each break cost per call, from the timed calls: the same attribution as `run`'s
    timed = costs.frame_costs(answer.costs)
    stacks = [(f, _stack(b)) for f, b in zip(findings, located)]
    result.costs = costs.apply(timed, stacks, show=build.show)
    result.details.extend(costs.frame_words(result.costs))
    for hit in answer.recompile_limit_hits:
        words = build.recompile_limit((hit.get("path") or "?", int(hit.get("line") or 0)), hit).message
        result.recompile_limit_hits.append(
            Recompile(target=target, reason=words, path=relpath(hit.get("path"), cwd), line=hit.get("line"))
        )
        if hit.get("path") and hit.get("line"):
            findings.append(build.recompile_limit((hit["path"], int(hit["line"])), hit))
            costs.apply_to_limit(findings[-1], hit.get("function"), hit.get("path"), timed, {})
    if answer.cudagraphs is not None:
        result.cudagraph_skips, more = findings_of(answer.cudagraphs, target, cwd, lines)
        findings.extend(more)
    for f in findings:  # the mode it was seen in: a static finding of that mode alone matches it
        f.seen_in(("train",) if train else ("eval",))
    return result, findings


def _stack(site: Mapping[str, Any]) -> list[tuple[str, int]]:
    """The frames that led to a break, outermost first, ending at its site."""
    here = (str(site["path"]), int(site["line"]))
    stack = [(str(p), int(n)) for p, n in site.get("stack") or []]
    return stack if here in stack else [*stack, here]


def findings_of(
    data: Mapping[str, Any], target: str, cwd: str, lines: SourceLines | None = None
) -> tuple[int, list[Finding]]:
    """(CUDA-graph skips, findings) from the worker's ``cudagraphs`` answer.

    The count is what ``--max-cudagraph-skips`` limits: graphs run without a CUDA graph plus
    graphs cut into several CUDA graphs.
    """
    build = _findings(target, cwd, lines)
    findings: list[Finding] = []
    for split in data.get("splits", []):
        pieces = int(split.get("pieces") or 1)
        for site in split.get("sites") or []:
            findings.append(
                build.cudagraph_split((site["path"], site["line"]), pieces, split["reason"], site.get("why"))
            )
    for skip in data.get("skips", []):
        for site in skip.get("sites") or []:
            findings.append(
                build.cudagraph_skip(
                    (site["path"], site["line"]), skip["reason"], site.get("why"), message=skip.get("message")
                )
            )
    rerecords = int(data.get("rerecordings", 0))
    if rerecords and data.get("path") and data.get("line"):
        per_set = data.get("per_set") or []
        shapes = data.get("shapes") or []
        detail = ", ".join(
            f"input set {i + 1} {shapes[i] if i < len(shapes) else ''}".rstrip() + f": {n}"
            for i, n in enumerate(per_set)
            if n
        )
        findings.append(
            build.cudagraph_rerecord(
                (data["path"], int(data["line"])),
                rerecords,
                f"across {len(per_set)} input sets (recordings per set: {detail})",
            )
        )
    return len(data.get("skips", [])) + len(data.get("splits", [])), findings
