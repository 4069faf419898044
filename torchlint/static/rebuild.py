"""TL021 (object-rebuilt-at-break): a break inside a method of an object the region made.

When dynamo breaks inside a function it inlined, it resumes there only if it can rebuild, in
Python, every object that frame and its callers hold. An instance of a user class made while
tracing (``solver = Solver(...)``, ``SOLVERS[method](...)``, ``Dist(...).log_prob(x)``) cannot
be rebuilt: dynamo gives up the inlining ("Reconstruction failure") and breaks the graph at
the caller's call too, which then runs whole in Python.

An object whose constructor breaks is not one: the frame resumes after that break with the
object as an input, which dynamo rebuilds from its source.

Whether the method breaks is known only once every file is checked, so this runs after the
files are linted: a region function breaks when it holds a finding of the static pass or calls
(through the project's call graph, the ``calls`` facts of
:meth:`torchlint.analysis.project.Project.call_facts`) one that does. Each call in
``made_calls`` whose method may break is then a finding at the call.

A module made there is rebuilt neither. When the region runs its constructor outside the
graph -- the constructor breaks inside, the region is given up at such a call, or it breaks
inside a loop, which makes dynamo give up the whole frame ("graph break in loop") -- dynamo
compiles the constructor as a frame of its own, and stops at its ``super().__init__()``, the
module not initialized yet ("Uninitialized nn.Module"): a finding there, in each constructor up
its bases (the ``uninit`` facts), and in the constructors of the modules those constructors
make.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from torchlint.findings import Finding

CODE = "TL021"

Fn = tuple[str, str]  # (absolute path, qualname)


def spread(
    paths: Sequence[str],
    facts: Sequence[dict[str, Any] | None],
    findings: Sequence[Sequence[Finding]],
    line_of: Any,
) -> list[list[Finding]]:
    """For each file of ``paths`` (with its project ``facts`` and the ``findings`` of every
    rule in it), the TL021 findings at its calls on made objects whose method breaks.
    ``line_of(path, line)``: the text of a line, for the finding's ``source_line``."""
    from torchlint.rules import get_rule

    rule = get_rule(CODE)
    broken: set[Fn] = set()
    calls: dict[Fn, list[Fn]] = {}
    break_lines: dict[Fn, set[int]] = {}
    for path, fact, found in zip(paths, facts, findings):
        where = os.path.abspath(path)
        for f in found:
            if f.region and (f.rule or "").startswith("TL0") and f.rule != CODE:
                broken.add((where, f.region))
                break_lines.setdefault((where, f.region), set()).add(f.line)
        for qual, targets in ((fact or {}).get("calls") or {}).items():
            calls[(where, qual)] = [(t[0], t[1]) for t in targets]
    breaks = _Breaks(broken, calls)
    # a constructor breaks where it, or a base's constructor it calls, holds a break: the
    # helpers it calls often only build what runs later (a closure kept on the object)
    init_breaks = _Breaks(broken, {fn: [t for t in ts if t[1].endswith(".__init__")] for fn, ts in calls.items()})

    def spreads(run: Any, init: Any) -> bool:
        # (made by a constructor that breaks, the frame resumed after it has the object as an
        # input, which dynamo can rebuild)
        return breaks(run) and not (init and init_breaks(init))

    out: list[list[Finding]] = []
    for path, fact in zip(paths, facts):
        mine: list[Finding] = []
        reached = (fact or {}).get("reached") or {}
        for qual, line, col, end_line, end_col, method, runs in (fact or {}).get("made_calls") or ():
            if any(spreads(run, init) for run, init in runs):
                message = rule.message.replace("this method", f"`.{method}()`", 1)
                mine.append(_finding(rule, path, qual, (line, col, end_line, end_col), message, reached, line_of))
        for qual, line, col, end_line, end_col, causes in (fact or {}).get("uninit") or ():
            if any(_holds(c, init_breaks, spreads, breaks, break_lines) for c in causes):
                at = (line, col, end_line, end_col)
                mine.append(_finding(rule, path, qual, at, UNINIT_MESSAGE, reached, line_of))
        out.append(mine)
    return out


def _holds(cause: Sequence[Any], init_breaks: Any, spreads: Any, breaks: Any, break_lines: dict) -> bool:
    """Whether an ``uninit`` cause holds: the constructor breaks (``init``), a method called
    on a made object breaks (``run``), or the function breaks inside a loop (``loop``: a
    finding in one of its loops' lines, or a call there of a function that breaks)."""
    if cause[0] == "init":
        return bool(init_breaks(cause[1]))
    if cause[0] == "run":
        return bool(spreads(cause[1], cause[2]))
    _, fn, spans, callees = cause
    lines = break_lines.get((os.path.abspath(fn[0]), fn[1]), ())
    return any(a <= line <= b for line in lines for a, b in spans) or any(breaks(c) for c in callees)


def _finding(
    rule: Any, path: str, qual: str, where: Sequence[int], message: str, reached: dict[str, str], line_of: Any
) -> Finding:
    line, col, end_line, end_col = where
    if qual in reached:
        message = f"{message} (called from {reached[qual]})"
    return Finding(
        rule=CODE,
        name=rule.name,
        path=path,
        line=line,
        column=col + 1,
        end_line=end_line,
        end_column=end_col + 1,
        message=message,
        suggestion=rule.suggestion,
        source="static",
        region=qual,
        severity="warning" if rule.severity == "warning" else "error",
        source_line=line_of(path, line),
    )


#: the message at ``super().__init__()`` of a module whose constructor runs outside the graph
UNINIT_MESSAGE = (
    "the compiled code makes this module and runs its constructor outside the graph (the "
    "constructor, or a method called on an object made there, breaks inside; the code that makes "
    "it breaks inside a loop, so dynamo gives it up whole; or a constructor that runs on its own "
    "makes it), so dynamo "
    "compiles the constructor on its own and breaks here, where the module is not initialized yet"
)


class _Breaks:
    """Whether a function breaks: it holds a finding, or a function it calls breaks."""

    def __init__(self, broken: set[Fn], calls: dict[Fn, list[Fn]]) -> None:
        self.broken = broken
        self.calls = calls
        self.memo: dict[Fn, bool] = {}

    def __call__(self, fn: Any) -> bool:
        start = (fn[0], fn[1])
        if start in self.memo:
            return self.memo[start]
        # every function reachable from `start` (iteratively: call chains run deep)
        seen = {start}
        stack = [start]
        found = False
        while stack and not found:
            cur = stack.pop()
            if cur in self.broken or self.memo.get(cur):
                found = True
                break
            for nxt in self.calls.get(cur, ()):
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        self.memo[start] = found
        return found
