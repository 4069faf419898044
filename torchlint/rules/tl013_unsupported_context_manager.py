"""TL013 unsupported-context-manager: ``with`` on an object dynamo cannot enter in compiled code
(a ``threading`` lock, ``torch.random.fork_rng()``, ``contextlib.redirect_stdout(...)``).

Which context managers break is measured on the torch reported for (the ``context_managers``
of the generated knowledge, ``benchmarks/knowledge.py``), not listed here.
"""

from __future__ import annotations

import functools

import libcst as cst

from torchlint import knowledge
from torchlint.analysis.names import self_attr
from torchlint.rules.base import Rule


@functools.lru_cache(maxsize=8)
def _breaking(version: str | None) -> frozenset[str]:
    return frozenset(knowledge.breaking_context_managers(knowledge.load(version)))


def breaking_factories() -> frozenset[str]:
    """The calls whose result dynamo cannot enter, on the torch reported for."""
    return _breaking(knowledge.current_version())


class UnsupportedContextManager(Rule):
    code = "TL013"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.factories = breaking_factories()
        self.module_locks = self._module_locks(ctx.module)
        self.class_locks: dict[int, set[str]] = {}

    def _is_lock_call(self, expr: cst.BaseExpression) -> bool:
        return isinstance(expr, cst.Call) and self.resolve(expr.func) in self.factories

    def _module_locks(self, module: cst.Module) -> set[str]:
        out = set()
        for stmt in module.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Assign) and self._is_lock_call(small.value):
                        out |= {t.target.value for t in small.targets if isinstance(t.target, cst.Name)}
        return out

    def _locks_of(self, owner) -> set[str]:
        """``self.<attr> = threading.Lock()`` in any method of the region's class."""
        if owner is None:
            return set()
        key = id(owner.node)
        if key not in self.class_locks:
            from torchlint.analysis.tree import code_children

            found: set[str] = set()
            stack = list(owner.methods.values())
            while stack:
                node = stack.pop()
                if isinstance(node, cst.Assign) and self._is_lock_call(node.value):
                    found |= {a for a in (self_attr(t.target) for t in node.targets) if a is not None}
                stack.extend(code_children(node))
            self.class_locks[key] = found
        return self.class_locks[key]

    def visit_With(self, node: cst.With) -> None:
        owner = self.ctx.region.owner if self.ctx.region is not None else None
        for item in node.items:
            expr = item.item
            attr = self_attr(expr)
            qual = self.resolve(expr.func) if isinstance(expr, cst.Call) else None
            if qual is not None and qual in self.factories and not qual.startswith(("threading.", "multiprocessing.")):
                self.report(
                    item,
                    message=f"dynamo cannot enter `{qual}(...)` and gives up on the code inside the `with` "
                    "(the whole frame runs eagerly); enter it outside the compiled region",
                )
                return
            if (
                self._is_lock_call(expr)
                or (attr is not None and attr in self._locks_of(owner))
                or (
                    isinstance(expr, cst.Name)
                    and expr.value in self.module_locks
                    and not (self.ctx.scope is not None and expr.value in self.ctx.scope.local)
                )
            ):
                self.report(item)
                return
