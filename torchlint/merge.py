"""Static + dynamic findings -> one list, each marked ``static``, ``dynamic`` or ``both``.

A dynamic break confirms a static finding when both sit in the same file, the break's line
lies within the finding's lines, and the break's GB code is one the finding's rule declares
(a rule that declares none, or a break without a code, is compatible with anything), and a
finding that holds in one module mode alone (``mode``) is matched only by a break seen in that
mode.

Independent of the rule registry: the caller passes ``gb_codes`` (rule code -> GB codes)
and, optionally, ``suggestions`` (rule code -> the rule's fix in words).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping

from torchlint.findings import COST_KEYS, Finding


def _norm(path: str) -> str:
    return os.path.normcase(os.path.normpath(path))


def _compatible(static: Finding, dynamic: Finding, gb_codes: Mapping[str, Iterable[str]]) -> bool:
    if dynamic.gb_code is None or static.rule is None:
        return True
    codes = set(gb_codes.get(static.rule, ()) or ())
    return not codes or dynamic.gb_code in codes


def _same_mode(static: Finding, dynamic: Finding) -> bool:
    """A static finding that holds in one module mode alone (``mode``) is confirmed only by a
    break seen in a run of that mode (a break whose runs are not known matches any)."""
    return static.mode is None or not dynamic.run_modes or static.mode in dynamic.run_modes


def _covers(static: Finding, dynamic: Finding) -> bool:
    end = max(static.end_line or static.line, static.line)
    return static.line <= dynamic.line <= end


def owner_of(gb_code: str | None, gb_codes: Mapping[str, Iterable[str]], flagging: Iterable[str] = ()) -> str | None:
    """The rule a break no static finding matched is named after: one of the rules that flag
    its line (``flagging``) and, when the break has a GB code, declare it (the lowest code if
    several do); None when no rule would flag the line (a GB code alone says too little: a
    ``print`` and an ``.item()`` share codes)."""
    owners = sorted(rule for rule in set(flagging) if not gb_code or gb_code in set(gb_codes.get(rule, ()) or ()))
    return owners[0] if owners else None


def merge(
    static: list[Finding],
    dynamic: list[Finding],
    gb_codes: Mapping[str, Iterable[str]] | None = None,
    suggestions: Mapping[str, str] | None = None,
    *,
    assign_rule: bool = True,
    flagged: Mapping[tuple[str, int], Iterable[str]] | None = None,
) -> list[Finding]:
    """One list of findings, sorted, inputs untouched (copies are returned).

    * matched static finding -> ``both``: its rule, message and suggestion kept ("potential
      graph break" becomes "graph break"), dynamo's gb_code, target, reason, explanation and
      hints added. One break may confirm several findings on its line (``print(x.item())``).
    * unmatched static -> ``static`` (not reached by any target, or a false alarm).
    * unmatched dynamic -> ``dynamic``; when a rule flags its line (``flagged``: (path, line) ->
      the codes of the rules that flag it when its function is taken as compiled, see
      :func:`torchlint.static.static_pass.rules_on_lines`) and declares its GB code, the suggestion
      is that rule's fix (``suggestions``) and, with ``assign_rule``, ``rule`` is set to that
      code so ``--select/--ignore`` and suppression comments treat it like the rule's
      findings; otherwise it keeps dynamo's own reason and hints, with no rule.
    """
    gb_codes = gb_codes or {}
    suggestions = suggestions or {}
    flagged_at = {(_norm(path), line): codes for (path, line), codes in (flagged or {}).items()}
    out: list[Finding] = []
    by_file: dict[str, list[Finding]] = {}
    for finding in static:
        copy = dataclasses.replace(finding, source="static", hints=list(finding.hints))
        out.append(copy)
        by_file.setdefault(_norm(finding.path), []).append(copy)
    confirmed = set()
    for brk in dynamic:
        matches = [
            s
            for s in by_file.get(_norm(brk.path), [])
            if _covers(s, brk) and _compatible(s, brk, gb_codes) and _same_mode(s, brk)
        ]
        if matches:
            for s in matches:
                s.source = "both"
                s.message = s.message.replace("potential graph break", "graph break").replace(
                    "Potential graph break", "Graph break"
                )
                s.gb_code = s.gb_code or brk.gb_code
                for name in brk.target_names():
                    s.add_target(name)
                s.reason = s.reason or brk.reason
                s.explanation = s.explanation or brk.explanation
                s.hints = s.hints or list(brk.hints)
                for key in ("hits", "library", "ranks", *COST_KEYS):  # what a watched program adds
                    if getattr(s, key) is None:
                        setattr(s, key, getattr(brk, key))
                if s.source_line is None:
                    s.source_line = brk.source_line
                confirmed.add(id(s))
            continue
        copy = dataclasses.replace(brk, source="dynamic", hints=list(brk.hints))
        owner = owner_of(brk.gb_code, gb_codes, flagged_at.get((_norm(brk.path), brk.line), ()))
        if owner is not None:
            if owner in suggestions and suggestions[owner]:
                copy.suggestion = suggestions[owner]
            if assign_rule and copy.rule is None:
                copy.rule = owner
        out.append(copy)
    out.sort(key=lambda f: f.sort_key)
    return out


def merge_passes(
    static: list[Finding],
    dynamic: list[Finding],
    gb_codes: Mapping[str, Iterable[str]],
    suggestions: Mapping[str, str],
    flagged: Mapping[tuple[str, int], Iterable[str]] | None = None,
) -> list[Finding]:
    """The two passes' findings, merged: graph breaks (dynamic errors) with the graph-break
    rules, CUDA-graph findings (dynamic warnings) with the TL1xx warnings.

    A CUDA-graph skip on a ``.cpu()`` line confirms that line's TL101 warning (``both``) and
    never a TL0xx finding; a graph break never confirms a TL1xx warning.
    """
    warnings = [f for f in static if f.severity == "warning"]
    errors = [f for f in static if f.severity != "warning"]
    breaks = [f for f in dynamic if f.severity != "warning"]  # graph breaks
    skips = [f for f in dynamic if f.severity == "warning"]  # CUDA-graph findings
    merged = merge(errors, breaks, gb_codes, suggestions, flagged=flagged)
    merged += merge(warnings, skips, {}, {}, assign_rule=False) if skips else warnings
    return sorted(merged, key=lambda f: f.sort_key)
