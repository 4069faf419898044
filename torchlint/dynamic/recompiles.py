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
from typing import Any

FIXES_FOR_SHAPES = (
    "compile with `torch.compile(..., dynamic=True)`, or mark the dimension dynamic before the "
    "first call with `torch._dynamo.mark_dynamic(x, dim)`, or pad inputs to a few fixed sizes"
)
FIXES_FOR_VALUES = (
    "pass the value as a tensor, or keep it constant between calls (each distinct Python value is a new specialisation)"
)


@dataclass
class RecompileEvent:
    """One recompilation: the function recompiled and the guard that failed, in words."""

    function: str
    path: str | None
    line: int | None
    guard: str  # dynamo's text of the first failed guard
    words: str  # the same, for people
    fix: str = ""
    #: which call (0-based) of the target it happened in, when known
    call: int | None = None
    #: inside one call (another layer or loop step, the first call's own code), not because
    #: the inputs changed between calls
    within_call: bool = False

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


_HEADER = re.compile(r"Recompiling function (?P<func>\S+) in (?P<path>.+):(?P<line>\d+)\s*$", re.M)
_FAILURE = re.compile(r"^\s*-\s*(?:\d+/\d+:\s*)?(?P<guard>.+)$", re.M)

#: a tensor's name in a guard: ``'x'``, ``'L['x']'`` or ``'kwargs['input_ids']'`` (quotes inside)
_TNAME = r"tensor '(?P<name>.+?)'"
_SIZE = re.compile(
    _TNAME + r" (?P<what>size|stride) mismatch at index (?P<i>\d+)\. "
    r"expected (?P<exp>\S+), actual (?P<act>\S+)"
)
_DTYPE = re.compile(_TNAME + r" dtype mismatch\. expected (?P<exp>\S+), actual (?P<act>\S+)")
_RANK = re.compile(_TNAME + r" rank mismatch\. expected (?P<exp>\d+), actual (?P<act>\d+)")
_GRAD = re.compile(_TNAME + r" requires_grad mismatch\. expected requires_grad=(?P<exp>\d)")
_OTHER_TENSOR = re.compile(_TNAME + r" (?P<what>[\w ]+?) mismatch")
_EQUALS = re.compile(r"^(?P<lhs>[^=<>!]+?)\s*==\s*(?P<rhs>[^#]+?)\s*(?:#.*)?$")


FIX_WITHIN_CALL = (
    "this recompilation happened inside one call (another layer or loop step reached the same "
    "code with a different {what}), not because the inputs changed between calls, so "
    "`dynamic=True` or `mark_dynamic` on the inputs would not remove it: make the variants alike "
    "(the same shapes, types and Python values at each layer), or accept one compilation per "
    "variant; past dynamo's recompile limit (8) the code runs eagerly"
)
FIX_SIZE_EXPRESSION = (
    "the code depends on this value computed from a size (a branch, or a "
    "Python number made from it): pad inputs so it stays the same between "
    "calls, or compute it with tensor ops"
)
FIX_CONTIGUOUS = "call with contiguous tensors (`.contiguous()` before the call), or with one memory layout each time"
_STACK = re.compile(r"dict\.__getitem__\(___stack\d+, list\(dict\.keys\(___stack\d+\)\)\[(\d+)\]\)|___stack\d+")


def _name(raw: str) -> str:
    """``L['x']`` or ``x`` -> ``x``; ``L['self'].foo`` -> ``self.foo``;
    ``L['kwargs']['input_ids']`` -> ``kwargs['input_ids']``; ``self._modules['conv']`` ->
    ``self.conv``; a value dynamo carried over a graph break (``___stack0``) -> its words."""
    name = re.sub(r"L\['([^']+)'\]", r"\1", raw).strip()
    name = re.sub(r"\._(?:modules|parameters|buffers)\['([^']+)'\]", r".\1", name)
    if "___stack" in name:
        return "the value handed over at a graph break"
    return name


def _quoted(raw: str) -> str:
    name = _name(raw)
    return name if name.startswith("the value") else f"`{name}`"


_SIZE_EXPR = re.compile(r"(?P<name>[A-Za-z_][\w.\[\]'\"()]*?)\.(?P<what>size|stride)\(\)\[(?P<i>\d+)\]")


def _sizes_in_words(expr: str) -> str:
    """``x.size()[1]`` -> ``dimension 1 of `x```, ``x.stride()[0]`` -> ``the stride of dimension 0 of `x```."""

    def one(m: re.Match[str]) -> str:
        what = "dimension" if m.group("what") == "size" else "the stride of dimension"
        return f"{what} {m.group('i')} of {_quoted(m.group('name'))}"

    return _SIZE_EXPR.sub(one, expr)


_COMPARE = re.compile(r"^(?P<lhs>.+?)\s*(?P<op><=|>=|<|>|!=)\s*(?P<rhs>.+)$")
_TYPE_ID = re.compile(r"___check_type_id\((?P<name>[^,]+),.*?(?:type=<class '(?P<type>[^']+)'>)?$")
_OBJ_ID = re.compile(r"___check_obj_id\((?P<name>[^,]+),")


def describe_guard(guard: str) -> tuple[str, str]:
    """A failed guard's text -> (words, fix)."""
    guard = guard.strip()
    if not guard.startswith("tensor '"):
        guard = guard.split("  #", 1)[0].strip()  # dynamo's note of the user line, not the guard
    m = _SIZE.search(guard)
    if m:
        what = "dimension" if m.group("what") == "size" else "stride of dimension"
        return (
            f"{what} {m.group('i')} of {_quoted(m.group('name'))} changed from "
            f"{m.group('exp').rstrip(',')} to {m.group('act')}",
            FIXES_FOR_SHAPES if m.group("what") == "size" else FIX_CONTIGUOUS,
        )
    m = _TYPE_ID.search(guard)
    if m:
        kind = f" (now {m.group('type').rsplit('.', 1)[-1]})" if m.group("type") else ""
        return (
            f"the type of {_quoted(m.group('name'))} changed{kind}",
            "call the compiled code with one type of object each time",
        )
    m = _OBJ_ID.search(guard)
    if m:
        return (
            f"{_quoted(m.group('name'))} is a different object than before",
            "call the compiled code with the same object each time, or pass what differs as a tensor",
        )
    m = _COMPARE.match(guard)
    if m and (".size()" in guard or ".stride()" in guard):
        lhs, op, rhs = _sizes_in_words(m.group("lhs")), m.group("op"), _sizes_in_words(m.group("rhs"))
        held = {"<=": "at most", "<": "below", ">=": "at least", ">": "above", "!=": "different from"}[op]
        if re.fullmatch(r"\d+", m.group("lhs").strip()):  # `2 <= x.size()[1]`: x was assumed >= 2
            flipped = {"at most": "at least", "at least": "at most", "below": "above", "above": "below"}
            lhs, rhs, held = rhs, lhs, flipped.get(held, held)
        fix = FIXES_FOR_SHAPES
        if rhs.strip() in ("0", "1", "2") and held in ("at least", "above", "different from"):
            fix = (
                "sizes 0 and 1 are always specialised: keep this dimension at 2 or more, or "
                "mark it with `torch._dynamo.decorators.mark_unbacked(tensor, dim)`"
            )
        return (f"{lhs} was assumed to be {held} {rhs} and no longer is", fix)
    m = _DTYPE.search(guard)
    if m:
        return (
            f"dtype of `{_name(m.group('name'))}` changed from {m.group('exp').rstrip(',')} to {m.group('act')}",
            "call with one dtype (cast inputs before the compiled call)",
        )
    m = _RANK.search(guard)
    if m:
        return (
            f"number of dimensions of `{_name(m.group('name'))}` changed from "
            f"{m.group('exp').rstrip(',')} to {m.group('act')}",
            "keep one rank per compiled function (reshape before the call)",
        )
    m = _GRAD.search(guard)
    if m:
        was = "did not require" if m.group("exp") == "0" else "required"
        return (
            f"`{_name(m.group('name'))}` {was} grad before and now does not match",
            "call with the same requires_grad setting each time",
        )
    m = _OTHER_TENSOR.search(guard)
    if m:
        return (f"{m.group('what')} of `{_name(m.group('name'))}` changed", "")
    m = _EQUALS.match(guard)
    if m and (".size()" in guard or ".stride()" in guard):
        lhs, rhs = _sizes_in_words(m.group("lhs")), _sizes_in_words(m.group("rhs").strip())
        fix = FIX_CONTIGUOUS if ".stride()" in guard else FIXES_FOR_SHAPES
        if ".stride()" not in guard and re.search(r"[%*+-]|//", m.group("lhs")):
            fix = FIX_SIZE_EXPRESSION
        return (f"{lhs} was specialised to {rhs} and changed", fix)
    if m:
        lhs = _quoted(m.group("lhs"))
        rhs = m.group("rhs").strip()
        if lhs.startswith("`len("):
            return (
                f"{lhs} is no longer {rhs}",
                "keep the container length fixed, or pass a tensor instead of a list",
            )
        return (f"{lhs} was specialised to {rhs} and changed", FIXES_FOR_VALUES)
    return (f"guard failed: {guard}", "")


def mark_within_call(events: list[RecompileEvent]) -> None:
    """Set ``within_call`` (and the fix that fits) on the recompilations that happened inside
    one call rather than because the call's inputs changed: every one in the first call (it
    recompiles its own code: another layer, a loop step), and in a later call each one of a
    function already recompiled earlier in that call. ``call`` must be set."""
    seen = set()
    for event in events:
        if event.call is None:
            continue
        key = (event.call, event.path, event.line)
        if event.call == 0 or key in seen:
            event.within_call = True
            what = "type" if event.words.startswith("the type") else "shape" if "dimension" in event.words else "value"
            event.fix = FIX_WITHIN_CALL.format(what=what)
            event.words += " (within one call)"
        seen.add(key)


_LIMIT = re.compile(
    r"hit config\.(?P<kind>\w+) \((?P<limit>\d+)\)\s*\n\s*function: '(?P<func>[^']*)' "
    r"\((?P<path>.+):(?P<line>\d+)\)\s*\n\s*last reason: (?P<reason>.*)"
)


def parse_limit_message(message: str) -> dict[str, Any] | None:
    """Dynamo's warning that a function hit the recompile limit (it then runs it eagerly):
    ``{"function", "path", "line", "limit", "kind", "guard", "words"}``, else None."""
    m = _LIMIT.search(message)
    if not m:
        return None
    guard = re.sub(r"^\s*\d+/\d+:\s*", "", m.group("reason").strip())
    return {
        "function": m.group("func"),
        "path": m.group("path"),
        "line": int(m.group("line")),
        "limit": int(m.group("limit")),
        "kind": m.group("kind"),
        "guard": guard,
        "words": describe_guard(guard)[0] if guard else "",
    }


def parse_recompile_message(message: str) -> list[RecompileEvent]:
    """Every recompilation in one ``recompiles`` log record (normally one)."""
    events = []
    headers = list(_HEADER.finditer(message))
    for i, header in enumerate(headers):
        body = message[header.end() : headers[i + 1].start() if i + 1 < len(headers) else len(message)]
        guard = ""
        for m in _FAILURE.finditer(body):
            text = m.group("guard").strip()
            if text and not text.startswith("User stack trace") and not text.startswith("File "):
                guard = text
                break
        words, fix = describe_guard(guard) if guard else ("guard failed (no reason given)", "")
        events.append(
            RecompileEvent(
                function=header.group("func"),
                path=header.group("path"),
                line=int(header.group("line")),
                guard=guard,
                words=words,
                fix=fix,
            )
        )
    return events
