"""Sizes from integer buffers -> the same arithmetic on Python ints (TL020).

    stride = torch.tensor(self.conv.stride[0], dtype=torch.int64)
    self.stride = nn.Buffer(stride, persistent=False)
    ...
    n_frames = torch.ceil((length - self.kernel_size) / self.stride).to(torch.int64)
    ->
    stride_int = self.conv.stride[0]
    stride = torch.tensor(self.conv.stride[0], dtype=torch.int64)
    self.stride = nn.Buffer(stride, persistent=False)
    self.stride_int = stride_int
    ...
    n_frames = math.ceil((length - self.kernel_size_int) / self.stride_int)

Every buffer stays (code that moves it, re-initialises it or reads it as a tensor works as
before); ``__init__`` also keeps its value as a Python int, written from the same ints the
buffer was made of (never read back from the tensor, which may live on the meta device). The
reported method and the same-class helpers whose results it uses as sizes then read the ints:
their shape arithmetic stays in Python and dynamo sees constants.

Unsafe: the arithmetic runs in double precision where it ran in float32 tensors (the same
results below about 2^24), and the helpers return Python ints where they returned 0-d
tensors. Declined when a rewritten helper is also called on something other than ``self``
(that caller may want a tensor), when one of the numbers would reach a tensor method or be the
first argument of a torch function other than ``torch.ceil``/``torch.floor``, or when ``math``
is imported under another name. (A buffer made from ints through a call is no int buffer to the
rule: written twice, the call would run twice.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import cast

import libcst as cst

from torchlint.analysis.names import self_attr
from torchlint.analysis.tree import walk
from torchlint.fixes.base import UNSAFE, Edits, FixContext, Fixer, Plan, register
from torchlint.rules.base import Rule
from torchlint.rules.tl020_int_buffer_size import (
    _INT_DTYPES,
    NUMPY_INT_MATH,
    ROUNDING,
    IntBuffer,
    Numbers,
    _int_tensor_call,
    class_methods,
    int_buffers,
)


def _body_nodes(fn: cst.FunctionDef) -> Iterator[cst.CSTNode]:
    """The nodes of ``fn``'s body, nested functions, classes and lambdas left out."""
    stack: list[cst.CSTNode] = [fn.body]
    while stack:
        cur = stack.pop()
        yield cur
        if not isinstance(cur, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            stack.extend(cur.children)


def _all_numbers(root: Numbers) -> list[Numbers]:
    out: list[Numbers] = []
    stack = [root]
    while stack:
        cur = stack.pop()
        if all(cur.fn is not o.fn for o in out):
            out.append(cur)
            stack.extend(cur.callees.values())
    return out


@register("TL020")
class IntBufferToInt(Fixer):
    def plan(self, node: cst.CSTNode, rule: Rule, ctx: FixContext) -> Plan | None:
        fn = ctx.enclosing_function(node)
        cls = ctx.parent(ctx.parent(fn)) if fn is not None else None
        if fn is None or not isinstance(cls, cst.ClassDef):
            return None
        buffers = int_buffers(cls, rule.resolve)
        methods = class_methods(cls)
        init = methods.get("__init__")
        functions = {s.name.value: s for s in ctx.module.body if isinstance(s, cst.FunctionDef)}
        everything = _all_numbers(Numbers(fn, buffers, rule.resolve, methods, functions=functions))
        helpers = {n.fn.name.value for n in everything if n.fn is not fn}
        if helpers and _called_elsewhere(ctx.module, helpers):
            return None
        edits: Edits = {}
        used: set[str] = set()
        uses_math = False
        for numbers in everything:
            found = self._rewrite(numbers, rule, ctx, edits, used)
            if found is None:
                return None
            uses_math |= found
        if not edits:
            return None
        if used and (init is None or not self._twins(cls, init, buffers, used, rule, ctx, edits)):
            return None
        math_name = next((k for k, v in ctx.imports.aliases.items() if v == "math"), None)
        if uses_math and math_name not in (None, "math"):
            return None  # `import math as m`: spelled differently; left alone
        return Plan(
            rule.code,
            node,
            edits,
            UNSAFE,
            imports=("math",) if uses_math and math_name is None else (),
            description=(_description(used)),
        )

    # -- the methods ------------------------------------------------------------------------
    def _rewrite(self, numbers: Numbers, rule: Rule, ctx: FixContext, edits: Edits, used: set[str]) -> bool | None:
        """Edits for one method: buffer reads -> their ints, rounding -> ``math``; None when a
        number would reach something that wants a tensor. Returns whether ``math`` is used."""
        uses_math = False
        ctx.focus(numbers.fn)
        for node in _body_nodes(numbers.fn):
            if isinstance(node, cst.Call):
                verdict = self._call(node, numbers, rule, ctx, edits)
                if verdict is None:
                    return None
                uses_math |= verdict
            name = self_attr(node)
            if name is None or name not in numbers.buffers:
                continue
            holder = ctx.parent(node)
            if isinstance(holder, cst.Attribute) and holder.value is node:
                continue  # `self.stride.device`: the tensor itself
            if not _in_number(node, numbers, ctx):
                continue
            used.add(name)
            edits[node] = _renamed(f"{name}_int")
        return uses_math

    def _call(self, call: cst.Call, numbers: Numbers, rule: Rule, ctx: FixContext, edits: Edits) -> bool | None:
        func = call.func
        name = rule.resolve(func)
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        if name in ("torch.ceil", "torch.floor") and len(call.args) == 1 and numbers.kind(positional[0]) == "buffer":
            edits[call] = _math_call(ROUNDING[name])
            return True
        if name in NUMPY_INT_MATH and numbers.kind(call) == "buffer":
            edits[call] = _math_call(NUMPY_INT_MATH[name])  # `np.lcm(a, b)` -> `math.lcm(a, b)`
            return True
        if isinstance(func, cst.Attribute) and numbers.kind(func.value) == "buffer":
            method = func.attr.value
            is_cast = (method == "to" and len(call.args) == 1 and rule.resolve(call.args[0].value) in _INT_DTYPES) or (
                method in ("long", "int") and not call.args
            )
            if not is_cast:
                return None  # a tensor method on what becomes a Python number
            receiver = func.value
            rounded = isinstance(receiver, cst.Call) and rule.resolve(receiver.func) in ROUNDING
            edits[call] = _int_cast(rounded)
            return False
        if (
            name is not None
            and name.startswith("torch.")
            and positional
            and call.args[0].keyword is None
            and numbers.kind(positional[0]) == "buffer"
        ):
            return None  # a torch function given what becomes a Python number
        return False

    # -- __init__ ---------------------------------------------------------------------------
    def _twins(
        self,
        cls: cst.ClassDef,
        init: cst.FunctionDef,
        buffers: dict[str, IntBuffer],
        used: set[str],
        rule: Rule,
        ctx: FixContext,
        edits: Edits,
    ) -> bool:
        """Edits that give each used buffer its ``self.<name>_int`` in ``__init__`` (unless an
        earlier fix already did); False when one cannot be written."""
        existing = _twins_in(init)
        taken = {n.attr.value for n in walk(cls) if isinstance(n, cst.Attribute)}
        needed: list[str] = []
        pending = sorted(used)
        while pending:
            name = pending.pop()
            if name in needed or name in existing:
                continue
            if f"{name}_int" in taken:
                return False  # the name means something else in this class
            needed.append(name)
            pending.extend(
                a for a in (self_attr(n) for n in walk(buffers[name].value)) if a and a in buffers and a != name
            )
        before: dict[cst.CSTNode, list[cst.BaseStatement]] = {}
        after: dict[cst.CSTNode, list[cst.BaseStatement]] = {}
        local_names: dict[int, str] = {}  # the binding statement -> its int's local name
        taken_locals: set[str] = set()
        for name in needed:
            buf = buffers[name]
            renames: dict[str, str] = {}
            for local, (line, value) in buf.tensor_locals.items():
                key = id(line)
                if key not in local_names:
                    local_names[key] = ctx.fresh_name(init, f"{local}_int", taken_locals)
                    taken_locals.add(local_names[key])
                    new = cst.SimpleStatementLine([_assign(cst.Name(local_names[key]), value)])
                    before.setdefault(line, []).append(new)
                renames[local] = local_names[key]
            twin = _int_value(buf.value, renames, rule)
            if twin is None:
                return False
            attr = cst.Attribute(cst.Name("self"), cst.Name(f"{name}_int"))
            after.setdefault(buf.line, []).append(cst.SimpleStatementLine([_assign(attr, twin)]))
        for stmt in set(before) | set(after):
            if stmt in edits:
                return False
            edits[stmt] = _around(tuple(before.get(stmt, ())), tuple(after.get(stmt, ())))
        return True


def _description(used: set[str]) -> str:
    if not used:
        return (
            "Use `math`'s integer functions for numpy's on these Python ints (`math.lcm` for "
            "`np.lcm`): the same value, a constant to dynamo where numpy's is traced as a tensor."
        )
    return (
        f"Keep {', '.join(f'`self.{n}`' for n in sorted(used))} also as Python ints beside the "
        "buffers and do this shape arithmetic on ints (`math.ceil` for `torch.ceil`): the "
        "sizes are constants to dynamo. Double precision instead of float32 (equal below "
        "about 2^24); helpers of the class now return ints, not 0-d tensors."
    )


def _renamed(attr: str) -> Callable[[cst.Attribute], cst.Attribute]:
    return lambda updated: updated.with_changes(attr=cst.Name(attr))


def _math_call(how: str) -> Callable[[cst.Call], cst.Call]:
    return lambda updated: updated.with_changes(func=cst.Attribute(cst.Name("math"), cst.Name(how)))


def _int_cast(rounded: bool) -> Callable[[cst.Call], cst.BaseExpression]:
    """``n.to(torch.int64)`` -> ``n`` after ``math.ceil`` (already an int), else ``int(n)``."""

    def edit(updated: cst.Call) -> cst.BaseExpression:
        receiver = cast(cst.Attribute, updated.func).value
        if rounded:
            return receiver
        return cst.Call(cst.Name("int"), [cst.Arg(receiver)], lpar=updated.lpar, rpar=updated.rpar)

    return edit


def _around(pre: tuple[cst.BaseStatement, ...], post: tuple[cst.BaseStatement, ...]):
    """An edit that puts ``pre`` before a statement (taking over its comment lines) and
    ``post`` after it."""

    def edit(updated: cst.SimpleStatementLine) -> cst.FlattenSentinel:
        first = [p.with_changes(leading_lines=updated.leading_lines) for p in pre[:1]] + list(pre[1:])
        own = updated.with_changes(leading_lines=()) if pre else updated
        return cst.FlattenSentinel([*first, own, *post])

    return edit


def _assign(target: cst.BaseAssignTargetExpression, value: cst.BaseExpression) -> cst.Assign:
    return cst.Assign([cst.AssignTarget(target)], value)


def _int_value(expr: cst.BaseExpression, renames: dict[str, str], rule: Rule) -> cst.BaseExpression | None:
    """The Python-int twin of a buffer's value: ``torch.tensor(k, ...)`` -> ``k``, an
    int-tensor local -> its int, another int buffer -> its twin."""
    arg = _int_tensor_call(expr, rule.resolve)
    if arg is not None:
        return arg
    if isinstance(expr, cst.Name):
        return cst.Name(renames[expr.value]) if expr.value in renames else None
    attr = self_attr(expr)
    if attr is not None:
        return cst.Attribute(cst.Name("self"), cst.Name(f"{attr}_int"))
    if isinstance(expr, cst.Integer):
        return expr
    if isinstance(expr, cst.BinaryOperation):
        left, right = _int_value(expr.left, renames, rule), _int_value(expr.right, renames, rule)
        if left is None or right is None:
            return None
        return expr.with_changes(left=left, right=right)
    return None


def _twins_in(init: cst.FunctionDef) -> set[str]:
    """The buffers whose ``self.<name>_int`` a top-level statement of ``__init__`` assigns."""
    out: set[str] = set()
    for stmt in init.body.body if isinstance(init.body, cst.IndentedBlock) else ():
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    attr = self_attr(small.targets[0].target)
                    if attr and attr.endswith("_int"):
                        out.add(attr[: -len("_int")])
    return out


def _in_number(node: cst.CSTNode, numbers: Numbers, ctx: FixContext) -> bool:
    """Whether the buffer read ``node`` takes part in a number: its nearest enclosing
    expression that is not a number is a use of it as one (an argument, a tuple, a test, a
    binding, a return), not tensor math with a tensor."""
    cur: cst.CSTNode = node
    parent = ctx.parent(cur)
    while isinstance(parent, cst.BaseExpression) and numbers.kind(parent) == "buffer":
        cur, parent = parent, ctx.parent(parent)
    return not (isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)) or isinstance(parent, cst.Attribute))


def _called_elsewhere(module: cst.Module, names: set[str]) -> bool:
    """Whether one of the methods ``names`` is called (or read) on something other than ``self``."""
    for node in walk(module):
        if isinstance(node, cst.Attribute) and node.attr.value in names:
            if not (isinstance(node.value, cst.Name) and node.value.value == "self"):
                return True
    return False
