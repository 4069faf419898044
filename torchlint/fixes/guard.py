"""Guard side-effect statements with ``if not torch.compiler.is_compiling():`` (TL004, TL009).

``print(...)``, ``warnings.warn(...)``, ``logger.info(...)``, ``torch.cuda.synchronize()`` and
other calls used as statements run only in eager mode once guarded; dynamo drops the block while tracing, so the
graph is no longer split there. Safe: eager runs them exactly as before (a compiled run no
longer prints or logs). Two kinds of statements make the fix unsafe because the compiled
model then computes something else: calls that change random state (``torch.manual_seed``,
``random.shuffle``) or act on a tensor (``y.retain_grad()``, ``x.resize_(0)``), and
assignments to attributes or items (``self.stats[k] = str(t)``), which a compiled run no
longer updates.

A clock read whose value is kept (``t0 = time.perf_counter()``) is guarded together with
every statement that reads it, directly or through names computed from it
(``dt = time.perf_counter() - t0``), when those are all plain statements of the same block:
call statements (``print(...)``, ``logger.info(...)``, ``self._log(dt)``) and assignments to
names. Then no statement runs in compiled mode that needs the missing name. Safe when every
call among them is a logging call (``print``, ``warnings.warn``, ``logging``/logger methods);
unsafe when one calls anything else, which compiled runs then no longer call. A call statement
with a clock read in its arguments (``log(time.time() - t0)``) is guarded on the same terms.
Otherwise a kept value is left alone: the name would be missing in compiled runs.
"""

from __future__ import annotations

import libcst as cst

from torchlint.fixes.base import (
    SAFE,
    UNSAFE,
    Applicability,
    Edits,
    FixContext,
    Fixer,
    Plan,
    name_nodes,
    read_names,
    register,
    with_leading_lines,
)
from torchlint.rules.base import Rule

# Calls whose effect is on state the model's results depend on.
_STATEFUL = (
    "torch.manual_seed",
    "torch.random.manual_seed",
    "torch.seed",
    "torch.cuda.manual_seed",
    "torch.cuda.manual_seed_all",
    "random.",
    "numpy.random.",
    "copy.deepcopy",
)
_CLOCKS = (
    "time.time",
    "time.perf_counter",
    "time.monotonic",
    "time.process_time",
    "time.time_ns",
    "time.perf_counter_ns",
    "time.monotonic_ns",
    "datetime.datetime.now",
)
_LOG_CALLS = ("builtins.print", "warnings.warn", "logging.")
_LOGGER_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})


def guarded(stmt: cst.SimpleStatementLine, ctx: FixContext) -> cst.If:
    """``if not torch.compiler.is_compiling():`` around ``stmt``, which keeps its comment lines."""
    test = cst.UnaryOperation(operator=cst.Not(), expression=cst.Call(ctx.torch_expr("compiler.is_compiling")))
    inner = stmt.with_changes(leading_lines=())
    guard = with_leading_lines(cst.If(test=test, body=cst.IndentedBlock([inner])), stmt)
    ctx.new_guards[id(guard)] = guard
    return guard


def _the_statement(node: cst.CSTNode, ctx: FixContext) -> cst.SimpleStatementLine | None:
    """The one-statement line that ``node`` is the whole of, or whose stored value holds it."""
    for anc in ctx.ancestors(node):
        if isinstance(anc, cst.SimpleStatementLine):
            return anc if len(anc.body) == 1 else None
        if isinstance(anc, (cst.BaseCompoundStatement, cst.Lambda, cst.BaseComp, cst.SimpleStatementSuite)):
            return None
    return None


@register("TL004", "TL009")
class GuardSideEffect(Fixer):
    def plan(self, node: cst.CSTNode, rule: Rule, ctx: FixContext) -> Plan | None:
        stmt = _the_statement(node, ctx)
        if stmt is None:
            return None
        small = stmt.body[0]
        if isinstance(small, cst.Expr) and small.value is node:
            qual = rule.resolve(node.func) if isinstance(node, cst.Call) else None
            if qual is not None and qual.startswith(_STATEFUL):
                applicability: Applicability = UNSAFE
                why = (
                    f"`{qual}` changes state the model's results depend on: guarded, a compiled run "
                    "no longer does it, so compiled and eager results can differ"
                )
            elif (
                isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and rule.is_tensor(node.func.value)
            ):
                applicability = UNSAFE
                why = (
                    f"`.{node.func.attr.value}()` acts on the tensor (its storage, gradient or hooks): "
                    "guarded, a compiled run no longer does it, so compiled and eager runs can differ"
                )
            else:
                applicability = SAFE
                why = "eager runs it as before; compiled runs skip it instead of splitting the graph"
        elif isinstance(node, cst.Call) and _is_clock(node, rule):
            return self._timing(node, stmt, rule, ctx)
        elif isinstance(small, (cst.Assign, cst.AugAssign)) and all(
            isinstance(t, (cst.Attribute, cst.Subscript))
            for t in ([t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target])
        ):
            applicability = UNSAFE
            why = (
                "eager runs it as before, but compiled runs no longer update the stored value, so code "
                "that reads it sees the value from the last eager run"
            )
        else:
            return None
        return Plan(
            code=rule.code,
            node=node,
            edits={stmt: lambda updated: guarded(updated, ctx)},
            applicability=applicability,
            needs_torch=True,
            description=f"Guard the statement with `if not torch.compiler.is_compiling():`; {why}.",
        )

    def _timing(self, node: cst.Call, stmt: cst.SimpleStatementLine, rule: Rule, ctx: FixContext) -> Plan | None:
        """Guard a kept clock read with every statement that reads it (or a call statement reading one)."""
        found = ctx.block_of(stmt)
        fn = ctx.enclosing_function(stmt)
        if found is None or fn is None:
            return None
        siblings, at = found
        small = stmt.body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            group: list[cst.SimpleStatementLine] | None = [stmt]
        elif (
            isinstance(small, cst.Assign)
            and small.value is node
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
        ):
            group = _readers(small.targets[0].target.value, siblings, at, fn)
        else:
            return None
        if group is None:
            return None
        others = [c for c in _calls_of(group) if not (_is_logging(c, rule) or _is_clock(c, rule))]
        if others:
            names = ", ".join(sorted({f"`{cst.Module([]).code_for_node(c.func)}`" for c in others}))
            applicability: Applicability = UNSAFE
            why = (
                f"compiled runs no longer call {names}, so whatever it records is not updated there; "
                "eager runs everything as before"
            )
        else:
            applicability = SAFE
            why = "the time is only logged: eager runs it all as before; compiled runs skip it"
        edits: Edits = {s: (lambda updated: guarded(updated, ctx)) for s in group}
        return Plan(
            rule.code,
            node,
            edits,
            applicability,
            needs_torch=True,
            description=(
                "Guard the clock read and the statements that use its value with "
                f"`if not torch.compiler.is_compiling():`; {why}. Assumes a call is either all eager or all "
                "compiled, so the guarded statements see the guarded name."
            ),
        )


def _is_clock(node: cst.CSTNode, rule: Rule) -> bool:
    return isinstance(node, cst.Call) and rule.resolve(node.func) in _CLOCKS


def _is_logging(call: cst.Call, rule: Rule) -> bool:
    qual = rule.resolve(call.func) or ""
    if qual.startswith(_LOG_CALLS):
        return True
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in _LOGGER_METHODS:
        receiver = func.value
        if isinstance(receiver, cst.Name):
            return rule.ctx.imports.bound_calls.get(receiver.value) == "logging.getLogger"
        if isinstance(receiver, cst.Call):
            return rule.resolve(receiver.func) == "logging.getLogger"
    return False


def _calls_of(group: list[cst.SimpleStatementLine]) -> list[cst.Call]:
    """Every call the guarded statements make, nested ones included."""
    out: list[cst.Call] = []
    stack: list[cst.CSTNode] = list(group)
    while stack:
        cur = stack.pop()
        if isinstance(cur, cst.Call):
            out.append(cur)
        stack.extend(cur.children)
    return out


def _readers(
    name: str, siblings: tuple[cst.CSTNode, ...], at: int, fn: cst.FunctionDef
) -> list[cst.SimpleStatementLine] | None:
    """``siblings[at]`` and the later statements of the block reading ``name`` (or names made from
    it), when each is a call statement or an assignment to one name, and nothing else in ``fn``
    reads or binds those names; else None."""
    names: set[str] = {name}
    first = siblings[at]
    if not isinstance(first, cst.SimpleStatementLine):
        return None
    group = [first]
    for stmt in siblings[at + 1 :]:
        if not read_names(stmt) & names:
            continue
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
            return None
        small = stmt.body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            group.append(stmt)
        elif (
            isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)
        ):
            group.append(stmt)
            names.add(small.targets[0].target.value)
        else:
            return None
    if len(group) == 1:
        return None  # the value is never used: nothing to keep, but nothing logs it either
    inside = sum(len(name_nodes(s, names)) for s in group)
    if len(name_nodes(fn.body, names)) != inside or any(p.name.value in names for p in fn.params.params):
        return None  # read or bound somewhere the guards do not cover
    return group
