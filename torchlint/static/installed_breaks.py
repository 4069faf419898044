"""Where calling an installed package's function breaks the graph inside it.

The project's facts name, for each file, the installed packages' functions, classes and kept
modules its regions call (``installed_calls``, :meth:`~torchlint.analysis.project.Project.installed_calls`).
This reads each from the package's source in site-packages (never imported): the graph-break
rules run over it as compiled code (:func:`torchlint.analysis.installed.breaks_inside`), and
the file's facts get the first break found inside, which TL009 reports at the call (dynamo
reports it there: the innermost frame of the project). Each answer is worked out once per
process.
"""

from __future__ import annotations

import functools
from typing import Any

from torchlint import knowledge
from torchlint.analysis import installed


def followable(top: str) -> bool:
    """Whether the installed package ``top`` is read for the breaks inside its functions: not
    one dynamo skips whole (``tqdm``, ``sklearn``: TL009 flags any call of it, measured per
    torch version), else as :func:`torchlint.analysis.installed.followable` says."""
    return top not in knowledge.skipped_packages() and installed.followable(top)


def is_module_class(qual: str) -> bool:
    """Whether an installed package's class is an ``nn.Module``, for a package that is read
    (:func:`followable`; :func:`torchlint.analysis.installed.is_module_class`)."""
    return followable(qual.split(".", 1)[0]) and installed.is_module_class(qual)


def with_breaks(fact: dict[str, Any] | None) -> dict[str, Any] | None:
    """``fact`` with ``installed_calls`` turned into ``installed``: call -> [path, line, rule,
    message] of the break inside it, for the calls that break (``q``, or ``q()`` for calling
    an instance of the class ``q``; with :func:`~torchlint.analysis.installed.call_key`'s suffix for a call that passes
    what it says, whose answer is its own)."""
    if not fact or "installed_calls" not in fact:
        return fact
    out = {k: v for k, v in fact.items() if k != "installed_calls"}
    found = {}
    for qual, method, *rest in fact["installed_calls"]:
        call = qual + ("()" if method else "")
        where = breaks_inside(qual, method)  # (on the paths every call takes)
        if where is not None:
            found[call] = list(where)
        shape = rest[0] if rest else None
        if shape is not None:  # and on those this one's arguments decide
            passed = (shape[0], tuple(shape[1]))
            decided = breaks_inside(qual, method, passed)
            if decided is not None and decided != where:
                found[installed.call_key(call, passed)] = list(decided)
    if found:
        out["installed"] = found
    return out


@functools.lru_cache(maxsize=4096)
def breaks_inside(qual: str, method: str | None, passed: installed.Passed | None = None) -> installed.Break | None:
    return installed.breaks_inside(qual, method, _file_findings, passed)


@functools.lru_cache(maxsize=256)
def _file_findings(path: str) -> list[tuple[int, int, str, str, str]]:
    """The graph-break findings of the file at ``path`` with every function taken as compiled
    (eval, no project facts), each saying which function it is in: the file is read once."""
    from torchlint.files import read_source
    from torchlint.rules import all_rules
    from torchlint.static.lint import lint_file

    try:
        source = read_source(path)
    except Exception:  # noqa: BLE001 - an unreadable file of a package: nothing known inside
        return []
    lines = {start for (start, _), _, _ in installed.functions(path).values()}
    rules = [r for r in all_rules() if r.severity == "error" and r.code != "TL021"]
    return [
        (f.line, f.column, f.rule or "", f.message, f.region or "")
        for f in lint_file(path, source, rules, compiled_lines=lines).findings
    ]
