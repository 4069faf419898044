"""Build a module made in ``forward`` once, in ``__init__`` (TL007).

    def forward(self, x):                    def __init__(self, ...):
        proj = nn.Linear(self.dim, 10)   ->      ...
        return proj(x)                           self.proj = nn.Linear(self.dim, 10)
                                             def forward(self, x):
                                                 proj = self.proj
                                                 return proj(x)

Only when every argument is a constant: literals, ``torch`` dtypes, ``self.<attr>`` set at the
top level of ``__init__`` (and nowhere else), ``torch`` factories of constants (for
``nn.Parameter(torch.zeros(4))``), and arithmetic of those; and not inside a loop, where each
pass built a different module. A size read from the input, ``x.shape[-1]`` (or ``x.size(-1)``),
counts when an earlier top-level statement of the same method passed the same ``x`` to a
layer that only accepts one last dimension, ``self.norm(x)`` with ``self.norm =
nn.LayerNorm(d)`` (or ``nn.RMSNorm(d)``, or ``nn.Linear(d, ...)``) built at the top level of
``__init__``: the call would have raised for any other size, so ``x.shape[-1]`` is ``d``, and
the hoisted line uses ``d`` (an ``__init__`` argument not rebound there, a literal or a
constant attribute). This assumes nothing replaces ``self.norm`` from outside the class.

Unsafe, on purpose: the weights are now drawn once, when the model is built, instead of on
every call. To keep initialisation reproducible the new line goes at the end of ``__init__``,
so every existing layer still draws the same random numbers in the same order; the new layer
draws after them (and the forward pass no longer consumes the random generator). The module
becomes part of the model: its parameters are trained and saved in the state dict (a
checkpoint saved before the change lacks them: load it with ``strict=False``), and it follows
the model's device and ``train()``/``eval()`` mode.
"""

from __future__ import annotations

from typing import cast

import libcst as cst

from torchlint.fixes.base import UNSAFE, Edits, FixContext, Fixer, Plan, assigned_names, contains, is_name, register
from torchlint.fixes.local_state import local_state_plan
from torchlint.rules.base import Rule

_FACTORIES = frozenset({"zeros", "ones", "empty", "full", "eye", "rand", "randn", "arange", "linspace", "tensor"})
_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)
_LOOPS = (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.Lambda, cst.FunctionDef)


def _self_attrs_assigned(fn: cst.FunctionDef, top_level_only: bool) -> set[str]:
    """``X`` of every ``self.X = ...`` in ``fn`` (only its top-level statements if asked)."""
    self_name = fn.params.params[0].name.value if fn.params.params else "self"
    out: set[str] = set()
    stack: list[cst.CSTNode] = list(fn.body.body) if top_level_only else [fn.body]
    while stack:
        cur = stack.pop()
        if isinstance(cur, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = [t.target for t in cur.targets] if isinstance(cur, cst.Assign) else [cur.target]
            for t in targets:
                if isinstance(t, cst.Attribute) and is_name(t.value, self_name):
                    out.add(t.attr.value)
        if isinstance(cur, cst.SimpleStatementLine) or not top_level_only:
            stack.extend(cur.children)
    return out


class _Constants:
    """Decides whether an argument has the same value in ``__init__`` as in ``forward``."""

    def __init__(self, rule: Rule, owner: cst.ClassDef, init: cst.FunctionDef | None) -> None:
        self.rule = rule
        methods = [m for m in owner.body.body if isinstance(m, cst.FunctionDef)]
        self.init_attrs = _self_attrs_assigned(init, top_level_only=True) if init is not None else set()
        self.changed_elsewhere = set().union(
            *(_self_attrs_assigned(m, top_level_only=False) for m in methods if m is not init)
        )

    def __call__(self, e: cst.BaseExpression) -> bool:
        if isinstance(e, _LITERALS):
            return True
        if isinstance(e, cst.Name):
            return e.value in ("True", "False", "None")
        if isinstance(e, cst.UnaryOperation):
            return self(e.expression)
        if isinstance(e, cst.BinaryOperation):
            return self(e.left) and self(e.right)
        if isinstance(e, (cst.Tuple, cst.List)):
            return all(not isinstance(el, cst.StarredElement) and self(el.value) for el in e.elements)
        if isinstance(e, cst.Attribute):
            if is_name(e.value, "self"):
                attr = e.attr.value
                return attr in self.init_attrs and attr not in self.changed_elsewhere
            qual = self.rule.resolve(e)
            return qual is not None and qual.startswith("torch.") and qual.count(".") == 1  # torch.float16
        if isinstance(e, cst.Call):
            qual = self.rule.resolve(e.func) or ""
            return (
                qual.startswith("torch.")
                and qual.rsplit(".", 1)[-1] in _FACTORIES
                and all(not a.star and self(a.value) for a in e.args)
            )
        return False


@register("TL007")
class HoistModule(Fixer):
    def plan(self, node: cst.CSTNode, rule: Rule, ctx: FixContext) -> Plan | None:
        if isinstance(node, cst.Attribute):  # `self.buf = self.buf.to(...)`: state written in forward
            return local_state_plan(node, rule, ctx)
        region = rule.ctx.region
        owner = region.owner if region is not None else None
        if not isinstance(node, cst.Call) or owner is None:
            return None
        qual = rule.resolve(node.func)
        cls = owner.node
        method = ctx.enclosing_function(node)
        if (
            qual is None
            or not qual.startswith("torch.nn.")
            or method is None
            or method not in cls.body.body
            or method.name.value == "__init__"
            or not method.params.params
            or not is_name(method.params.params[0].name, "self")
        ):
            return None
        for anc in ctx.ancestors(node):
            if anc is method:
                break
            if isinstance(anc, _LOOPS):
                return None
        init = owner.methods.get("__init__")
        constant = _Constants(rule, cls, init)
        args = []
        for a in node.args:
            if a.star:
                return None
            if constant(a.value):
                args.append(a)
                continue
            size = _last_dim(a.value, node, method, init, constant, rule, ctx)
            if size is None:
                return None
            args.append(a.with_changes(value=size))
        built = node.with_changes(args=args)
        if init is not None and (
            not init.params.params
            or not is_name(init.params.params[0].name, "self")
            or contains(init.body, (cst.Return,), stop=(cst.FunctionDef, cst.Lambda))
        ):
            return None  # a line appended to __init__ would not run on every path
        attr = _fresh_member(cls, self._base_name(node, qual, ctx))
        build = cst.SimpleStatementLine(
            [cst.Assign([cst.AssignTarget(cst.Attribute(cst.Name("self"), cst.Name(attr)))], built)]
        )
        edits: Edits = {
            node: lambda updated: cst.Attribute(cst.Name("self"), cst.Name(attr), lpar=updated.lpar, rpar=updated.rpar)
        }
        if init is not None:
            edits[init] = lambda updated: updated.with_changes(
                body=updated.body.with_changes(body=[*updated.body.body, build])
            )
        else:
            edits[cls] = lambda updated: _with_init(updated, build)
        name = qual.replace("torch.nn.", "nn.")
        return Plan(
            rule.code,
            node,
            edits,
            UNSAFE,
            description=(
                f"Build `{name}(...)` once at the end of `__init__` as `self.{attr}` instead of on every call. "
                "Its weights are drawn once, after every existing layer's (whose initialisation is unchanged), "
                "and the forward pass no longer consumes the random generator; it becomes part of the model "
                "(trained, saved in the state dict, moved with `.to()`, follows `train()`/`eval()`), so outputs "
                "that relied on fresh weights per call change."
            ),
        )

    @staticmethod
    def _base_name(node: cst.Call, qual: str, ctx: FixContext) -> str:
        assign = ctx.parent(node)
        if (
            isinstance(assign, cst.Assign)
            and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, cst.Name)
        ):
            return assign.targets[0].target.value
        last = qual.rsplit(".", 1)[-1]
        return "".join(("_" + c.lower()) if c.isupper() and i else c.lower() for i, c in enumerate(last))


_ONE_LAST_DIM = {
    "torch.nn.LayerNorm": "normalized_shape",
    "torch.nn.RMSNorm": "normalized_shape",
    "torch.nn.Linear": "in_features",
}


def _last_dim(
    expr: cst.BaseExpression,
    node: cst.Call,
    method: cst.FunctionDef,
    init: cst.FunctionDef | None,
    constant: _Constants,
    rule: Rule,
    ctx: FixContext,
) -> cst.BaseExpression | None:
    """What ``x.shape[-1]`` / ``x.size(-1)`` must be, as an expression valid at the end of ``__init__``."""
    x = _last_dim_of(expr)
    if x is None or init is None:
        return None
    body = list(method.body.body)
    here = next((a for a in ctx.ancestors(node) if a in body), None)
    if here is None:
        return None
    for stmt in reversed(body[: body.index(here)]):
        if x in assigned_names(stmt):
            return None  # rebound before the call: a different tensor
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue  # a call inside a compound statement may not run
        for call in _self_calls_on(stmt, x):
            size = _layer_size(call.func.attr.value, init, constant, rule)
            if size is not None:
                return size
    return None


def _last_dim_of(expr: cst.BaseExpression) -> str | None:
    """``x`` of ``x.shape[-1]`` or ``x.size(-1)``."""

    def minus_one(e: cst.BaseExpression) -> bool:
        return (
            isinstance(e, cst.UnaryOperation)
            and isinstance(e.operator, cst.Minus)
            and isinstance(e.expression, cst.Integer)
            and e.expression.value == "1"
        )

    if (
        isinstance(expr, cst.Subscript)
        and isinstance(expr.value, cst.Attribute)
        and expr.value.attr.value == "shape"
        and isinstance(expr.value.value, cst.Name)
        and len(expr.slice) == 1
        and isinstance(expr.slice[0].slice, cst.Index)
        and minus_one(expr.slice[0].slice.value)
    ):
        return expr.value.value.value
    if (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and expr.func.attr.value == "size"
        and isinstance(expr.func.value, cst.Name)
        and len(expr.args) == 1
        and expr.args[0].keyword is None
        and minus_one(expr.args[0].value)
    ):
        return expr.func.value.value
    return None


def _self_calls_on(stmt: cst.CSTNode, x: str):
    """The calls ``self.<m>(x)`` in ``stmt`` (one positional argument, the name ``x``)."""
    stack = [stmt]
    while stack:
        cur = stack.pop()
        if isinstance(cur, (cst.Lambda, cst.BaseComp, cst.IfExp, cst.BooleanOperation)):
            continue  # may not run, or not with this `x`
        if (
            isinstance(cur, cst.Call)
            and isinstance(cur.func, cst.Attribute)
            and is_name(cur.func.value, "self")
            and len(cur.args) == 1
            and not cur.args[0].keyword
            and not cur.args[0].star
            and is_name(cur.args[0].value, x)
        ):
            yield cur
        stack.extend(cur.children)


def _layer_size(member: str, init: cst.FunctionDef, constant: _Constants, rule: Rule) -> cst.BaseExpression | None:
    """``d`` when ``self.<member> = nn.LayerNorm(d)`` (or RMSNorm, Linear's in_features) is built once,
    at the top level of ``__init__``, and ``d`` means the same at the end of ``__init__``."""
    if member not in constant.init_attrs or member in constant.changed_elsewhere:
        return None
    builds = []
    for stmt in init.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Attribute)
                and is_name(small.targets[0].target.value, "self")
                and small.targets[0].target.attr.value == member
            ):
                builds.append(small.value)
    if len(builds) != 1 or not isinstance(builds[0], cst.Call):
        return None
    call = builds[0]
    keyword = _ONE_LAST_DIM.get(rule.resolve(call.func) or "")
    if keyword is None:
        return None
    size = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == keyword), None)
    if size is None and call.args and call.args[0].keyword is None and not call.args[0].star:
        size = call.args[0].value
    if isinstance(size, cst.Integer) or (size is not None and constant(size)):
        return size
    params = {p.name.value for p in (*init.params.params, *init.params.kwonly_params)}
    rebound = set().union(*(assigned_names(s) for s in init.body.body)) if init.body.body else set()
    if isinstance(size, cst.Name) and size.value in params and size.value not in rebound:
        return size
    return None


def _fresh_member(cls: cst.ClassDef, base: str) -> str:
    """``base`` (or ``base_1``, ...) that is no ``self.<attr>``, method or class attribute yet."""
    taken: set[str] = set()
    stack: list[cst.CSTNode] = [cls.body]
    while stack:
        cur = stack.pop()
        if isinstance(cur, cst.Attribute) and is_name(cur.value, "self"):
            taken.add(cur.attr.value)
        elif isinstance(cur, (cst.FunctionDef, cst.ClassDef)):
            taken.add(cur.name.value)
        stack.extend(cur.children)
    for stmt in cls.body.body:  # class attributes
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                for target in getattr(small, "targets", ()):
                    if isinstance(target.target, cst.Name):
                        taken.add(target.target.value)
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    taken.add(small.target.value)
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    return name


def _with_init(cls: cst.ClassDef, build: cst.SimpleStatementLine) -> cst.ClassDef:
    """The class with ``__init__(self, *args, **kwargs)`` that calls the base's and then builds."""
    init = cast(
        cst.FunctionDef,
        cst.parse_statement("def __init__(self, *args, **kwargs):\n    super().__init__(*args, **kwargs)\n"),
    )
    init = init.with_changes(body=init.body.with_changes(body=[*init.body.body, build]))
    body = list(cls.body.body)
    at = next((i for i, s in enumerate(body) if isinstance(s, cst.FunctionDef)), len(body))
    if at < len(body):
        init = init.with_changes(leading_lines=cast(cst.FunctionDef, body[at]).leading_lines)
    body.insert(at, init)
    return cls.with_changes(body=cls.body.with_changes(body=body))
