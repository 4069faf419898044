"""Sample-input specs: ``f32[8,3,224,224]``, ``i64[2,16]:0..1000``, ``bool[4]``, scalars, tuples.

Grammar (whitespace is ignored)::

    arg      := tensor | scalar | tuple
    tensor   := DTYPE [ '[' dims ']' ] [ ':' LOW '..' HIGH ] [ '@' DEVICE ]
                (no brackets, or ``[]``: a 0-d tensor)
    scalar   := INT | FLOAT | True | False | None | int:INT | float:FLOAT | bool:BOOL
    tuple    := '(' arg { ',' arg } [ ',' ] ')'
    keyword  := NAME '=' arg             (a keyword argument: ``input_ids=i64[2,16]:0..1000``)
    arg list := (arg | keyword) { ';' (arg | keyword) }
                                         (one call's arguments, for ``--input-set``;
                                          keywords after the positional ones, each name once)

``LOW..HIGH`` bounds the values: integers are drawn from ``[LOW, HIGH)``, floats uniformly
from ``[LOW, HIGH)``. Without a range floats are standard normal, integers ``[0, 10)``, bools
random. Values are drawn from a fixed seed so two runs see the same inputs.

Parsing needs no torch; the values are built in the worker
(:func:`torchlint.dynamic.load.materialize`). A bad spec raises :class:`SpecError` whose
message names the spec and says what is wrong, in one line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union

DTYPES = {
    "f16": "float16",
    "half": "float16",
    "float16": "float16",
    "bf16": "bfloat16",
    "bfloat16": "bfloat16",
    "f32": "float32",
    "float": "float32",
    "float32": "float32",
    "f64": "float64",
    "double": "float64",
    "float64": "float64",
    "c64": "complex64",
    "complex64": "complex64",
    "i8": "int8",
    "int8": "int8",
    "u8": "uint8",
    "uint8": "uint8",
    "i16": "int16",
    "int16": "int16",
    "i32": "int32",
    "int32": "int32",
    "i64": "int64",
    "long": "int64",
    "int64": "int64",
    "bool": "bool",
}
#: the floating dtypes (a range of floats is drawn uniformly, not as integers)
FLOATING = {"float16", "bfloat16", "float32", "float64", "complex64"}


class SpecError(ValueError):
    """An input spec that cannot be parsed; ``str()`` is one line naming the spec."""

    def __init__(self, spec: str, problem: str) -> None:
        self.spec = spec
        self.problem = problem
        super().__init__(f"bad input spec {spec!r}: {problem}")


@dataclass(frozen=True)
class TensorSpec:
    dtype: str
    shape: tuple[int, ...]
    low: float | None = None
    high: float | None = None
    device: str = "cpu"

    def __str__(self) -> str:
        text = f"{_SHORT.get(self.dtype, self.dtype)}[{','.join(map(str, self.shape))}]"
        if self.low is not None:
            text += f":{_num(self.low)}..{_num(self.high)}"
        if self.device != "cpu":
            text += f"@{self.device}"
        return text


@dataclass(frozen=True)
class ScalarSpec:
    value: int | float | bool | None

    def __str__(self) -> str:
        return repr(self.value)


@dataclass(frozen=True)
class TupleSpec:
    items: tuple[Spec, ...]

    def __str__(self) -> str:
        inner = ", ".join(str(i) for i in self.items)
        return f"({inner},)" if len(self.items) == 1 else f"({inner})"


@dataclass(frozen=True)
class KeywordSpec:
    """``name=spec``: the call passes this argument by keyword."""

    name: str
    spec: Spec

    def __str__(self) -> str:
        return f"{self.name}={self.spec}"


Spec = Union[TensorSpec, ScalarSpec, TupleSpec, KeywordSpec]

_SHORT = {
    "float16": "f16",
    "bfloat16": "bf16",
    "float32": "f32",
    "float64": "f64",
    "complex64": "c64",
    "int8": "i8",
    "uint8": "u8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "bool": "bool",
}


def _num(value: float | None) -> str:
    return str(int(value)) if value is not None and float(value).is_integer() else str(value)


_NUMBER = r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf)"
_TENSOR = re.compile(
    r"^(?P<dtype>[A-Za-z][A-Za-z0-9]*)"
    r"(?:\[(?P<dims>[^\]]*)\])?"
    rf"(?::(?P<low>{_NUMBER})\.\.(?P<high>{_NUMBER}))?"
    r"(?:@(?P<device>[A-Za-z]+(?::\d+)?))?$"
)


def _split_top(text: str, sep: str, whole: str) -> list[str]:
    """Split on ``sep`` outside brackets and parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth < 0:
                raise SpecError(whole, f"unbalanced {ch!r}")
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth != 0:
        raise SpecError(whole, "unbalanced brackets")
    parts.append(text[start:])
    return parts


def _scalar(text: str, whole: str) -> ScalarSpec | None:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return ScalarSpec(lowered == "true")
    if lowered == "none":
        return ScalarSpec(None)
    kind, colon, value = text.partition(":")
    if colon and kind in ("int", "float", "bool"):
        try:
            if kind == "int":
                return ScalarSpec(int(value))
            if kind == "float":
                return ScalarSpec(float(value))
        except ValueError:
            raise SpecError(whole, f"{value!r} is not a valid {kind}") from None
        if value.lower() not in ("true", "false", "0", "1"):
            raise SpecError(whole, f"{value!r} is not a valid bool (use true or false)")
        return ScalarSpec(value.lower() in ("true", "1"))
    if re.fullmatch(r"[+-]?\d+", text):
        return ScalarSpec(int(text))
    if re.fullmatch(_NUMBER, text):
        return ScalarSpec(float(text))
    return None


def _parse(text: str, whole: str) -> Spec:
    if not text:
        raise SpecError(whole, "empty argument")
    if text.startswith("("):
        if not text.endswith(")"):
            raise SpecError(whole, "a tuple must end with ')'")
        body = text[1:-1]
        items = [p for p in _split_top(body, ",", whole)]
        if items and items[-1] == "" and len(items) > 1:
            items = items[:-1]
        if items == [""]:
            return TupleSpec(())
        return TupleSpec(tuple(_parse(p, whole) for p in items))
    scalar = _scalar(text, whole)
    if scalar is not None:
        return scalar
    match = _TENSOR.match(text)
    if not match:
        raise SpecError(whole, f"cannot read {text!r} (expected e.g. f32[8,16], i64[2,16]:0..100, 3)")
    name = match.group("dtype")
    dtype = DTYPES.get(name.lower())
    if dtype is None:
        raise SpecError(whole, f"unknown dtype {name!r} (known: {', '.join(sorted(set(_SHORT.values())))})")
    dims_text = match.group("dims")
    shape: tuple[int, ...] = ()
    if dims_text:
        dims = []
        for dim in dims_text.split(","):
            if not re.fullmatch(r"\d+", dim):
                raise SpecError(whole, f"dimension {dim!r} is not a non-negative integer")
            dims.append(int(dim))
        shape = tuple(dims)
    low = high = None
    if match.group("low") is not None:
        low, high = float(match.group("low")), float(match.group("high"))
        if not low < high:
            raise SpecError(whole, f"empty range {match.group('low')}..{match.group('high')}")
        if dtype == "bool":
            raise SpecError(whole, "a bool tensor takes no range")
        if dtype not in FLOATING and not (low.is_integer() and high.is_integer()):
            raise SpecError(whole, f"{name} range bounds must be integers")
    return TensorSpec(dtype, shape, low, high, match.group("device") or "cpu")


_KEYWORD = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<spec>.*)$", re.S)


def _argument(text: str, whole: str) -> Spec:
    match = _KEYWORD.match(text)
    if match:
        return KeywordSpec(match.group("name"), _parse(match.group("spec"), whole))
    return _parse(text, whole)


def parse_input(text: str) -> Spec:
    """One argument: ``f32[8,16]``, ``i64[2,16]:0..1000``, ``3``, ``(f32[2], f32[2])``, or a
    keyword argument ``input_ids=i64[2,16]:0..1000`` (a :class:`KeywordSpec`)."""
    if not isinstance(text, str):
        raise SpecError(repr(text), "an input spec must be a string")
    compact = re.sub(r"\s+", "", text)
    return _argument(compact, text)


def check_call(specs: list[Spec], whole: str) -> list[Spec]:
    """One call's arguments, checked: keywords after the positional ones, each name once."""
    seen = set()
    for spec in specs:
        if isinstance(spec, KeywordSpec):
            if spec.name in seen:
                raise SpecError(whole, f"keyword argument {spec.name!r} given twice")
            seen.add(spec.name)
        elif seen:
            raise SpecError(whole, f"positional argument {str(spec)!r} after a keyword argument")
    return specs


def parse_input_set(text: str) -> list[Spec]:
    """One call's arguments separated by ``;`` (``f32[2,16];i64[2,16]:0..100``, or with
    names: ``input_ids=i64[2,16]:0..1000;attention_mask=i64[2,16]:1..2``)."""
    compact = re.sub(r"\s+", "", text)
    if not compact:
        return []
    return check_call([_argument(part, text) for part in _split_top(compact, ";", text)], text)
