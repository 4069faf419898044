"""Recompilations: parse dynamo's ``recompiles`` log records and say in words which guard failed.

A record reads (torch 2.13)::

    Recompiling function forward in /path/model.py:20
        triggered by the following guard failure(s):
        - 0/0: tensor 'x' size mismatch at index 1. expected 16, actual 32

One record is one recompilation; when several cache entries fail, each is listed, newest
first, and the first is the one that describes the call. No torch import here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

FIXES_FOR_SHAPES = (
    "compile with `torch.compile(..., dynamic=True)`, or mark the dimension dynamic before the "
    "first call with `torch._dynamo.mark_dynamic(x, dim)`, or pad inputs to a few fixed sizes"
)
FIXES_FOR_VALUES = (
    "pass the value as a tensor, or keep it constant between calls "
    "(each distinct Python value is a new specialisation)"
)


@dataclass
class RecompileEvent:
    """One recompilation: the function recompiled and the guard that failed, in words."""

    function: str
    path: Optional[str]
    line: Optional[int]
    guard: str          # dynamo's text of the first failed guard
    words: str          # the same, for people
    fix: str = ""

    def to_dict(self) -> Dict[str, Any]:
        return dict(vars(self))


_HEADER = re.compile(r"Recompiling function (?P<func>\S+) in (?P<path>.+):(?P<line>\d+)\s*$", re.M)
_FAILURE = re.compile(r"^\s*-\s*(?:\d+/\d+:\s*)?(?P<guard>.+)$", re.M)

_SIZE = re.compile(r"tensor '(?P<name>[^']+)' (?P<what>size|stride) mismatch at index (?P<i>\d+)\. "
                   r"expected (?P<exp>\S+), actual (?P<act>\S+)")
_DTYPE = re.compile(r"tensor '(?P<name>[^']+)' dtype mismatch\. expected (?P<exp>\S+), actual (?P<act>\S+)")
_RANK = re.compile(r"tensor '(?P<name>[^']+)' rank mismatch\. expected (?P<exp>\d+), actual (?P<act>\d+)")
_GRAD = re.compile(r"tensor '(?P<name>[^']+)' requires_grad mismatch\. expected requires_grad=(?P<exp>\d)")
_OTHER_TENSOR = re.compile(r"tensor '(?P<name>[^']+)' (?P<what>[\w ]+?) mismatch")
_EQUALS = re.compile(r"^(?P<lhs>[^=<>!]+?)\s*==\s*(?P<rhs>[^#]+?)\s*(?:#.*)?$")


def _name(raw: str) -> str:
    """``L['x']`` or ``x`` -> ``x``; ``L['self'].foo`` -> ``self.foo``."""
    return re.sub(r"L\['([^']+)'\]", r"\1", raw).strip()


def describe_guard(guard: str) -> tuple:
    """A failed guard's text -> (words, fix)."""
    guard = guard.strip()
    m = _SIZE.search(guard)
    if m:
        what = "dimension" if m.group("what") == "size" else "stride of dimension"
        return (f"{what} {m.group('i')} of `{_name(m.group('name'))}` changed from "
                f"{m.group('exp').rstrip(',')} to {m.group('act')}", FIXES_FOR_SHAPES)
    m = _DTYPE.search(guard)
    if m:
        return (f"dtype of `{_name(m.group('name'))}` changed from {m.group('exp').rstrip(',')} to "
                f"{m.group('act')}", "call with one dtype (cast inputs before the compiled call)")
    m = _RANK.search(guard)
    if m:
        return (f"number of dimensions of `{_name(m.group('name'))}` changed from "
                f"{m.group('exp').rstrip(',')} to {m.group('act')}",
                "keep one rank per compiled function (reshape before the call)")
    m = _GRAD.search(guard)
    if m:
        was = "did not require" if m.group("exp") == "0" else "required"
        return (f"`{_name(m.group('name'))}` {was} grad before and now does not match",
                "call with the same requires_grad setting each time")
    m = _OTHER_TENSOR.search(guard)
    if m:
        return (f"{m.group('what')} of `{_name(m.group('name'))}` changed", "")
    m = _EQUALS.match(guard)
    if m:
        lhs = _name(m.group("lhs"))
        rhs = m.group("rhs").strip()
        if lhs.startswith("len("):
            return (f"`{lhs}` is no longer {rhs}",
                    "keep the container length fixed, or pass a tensor instead of a list")
        return (f"`{lhs}` was specialised to {rhs} and changed", FIXES_FOR_VALUES)
    return (f"guard failed: {guard}", "")


def parse_recompile_message(message: str) -> List[RecompileEvent]:
    """Every recompilation in one ``recompiles`` log record (normally one)."""
    events = []
    headers = list(_HEADER.finditer(message))
    for i, header in enumerate(headers):
        body = message[header.end(): headers[i + 1].start() if i + 1 < len(headers) else len(message)]
        guard = ""
        for m in _FAILURE.finditer(body):
            text = m.group("guard").strip()
            if text and not text.startswith("User stack trace") and not text.startswith("File "):
                guard = text
                break
        words, fix = describe_guard(guard) if guard else ("guard failed (no reason given)", "")
        events.append(RecompileEvent(
            function=header.group("func"), path=header.group("path"), line=int(header.group("line")),
            guard=guard, words=words, fix=fix,
        ))
    return events
