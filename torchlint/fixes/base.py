"""What a fix is: a :class:`Fixer` per rule code that turns one reported node into a :class:`Plan`.

A plan is a set of node replacements (the original node of the parsed module -> a function
of its updated copy), its applicability (``safe``: eager behaviour is unchanged; ``unsafe``:
behaviour changes or needs review) and a description that says what changes. Fixers are
planned while the rules walk the file, so they can ask the same questions the rule asked
(``rule.is_tensor(expr)``) with the same scope; the edits are applied afterwards, in one
transformer pass (:mod:`torchlint.fixes.edits`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Callable, Final, Literal, TypeVar

import libcst as cst

from torchlint.analysis.names import ImportTable, dotted, read_names, target_names
from torchlint.analysis.tree import children
from torchlint.rules.base import Rule

#: ``original node -> fn(updated node) -> replacement`` (a node, a FlattenSentinel, or REMOVE)
Edits = dict[cst.CSTNode, Callable[[Any], object]]

REMOVE = object()  # an edit result: drop this statement (its comment lines stay)

Applicability = Literal["safe", "unsafe"]  # as in :class:`torchlint.findings.Fix`
SAFE: Final = "safe"
UNSAFE: Final = "unsafe"


@dataclass
class Plan:
    """The edits that fix one finding."""

    code: str
    node: cst.CSTNode  # the node the rule reported (matched to the finding by position)
    edits: Edits
    applicability: Applicability
    description: str
    needs_torch: bool = False  # the edits spell `torch.<...>`: make sure torch is imported
    imports: tuple[str, ...] = ()  # other modules the edits spell (`math`): imported if missing


@dataclass
class Binding:
    """A value bound to a name once, by a statement of its own (:meth:`FixContext.bound_once`)."""

    line: cst.SimpleStatementLine
    function: cst.FunctionDef
    name: str
    siblings: tuple[cst.CSTNode, ...]
    at: int
    uses: list[cst.Name]


class FixContext:
    """What fixers know of the file besides the rule's scope: parents, imports, names."""

    def __init__(self, module: cst.Module, enabled: set[str]) -> None:
        self.module = module
        self.enabled = enabled  # rule codes whose fixes may run in this pass
        self.imports = ImportTable.from_module(module)
        self._parents: dict[cst.CSTNode, cst.CSTNode] | None = None
        # parents known without the whole file's walk: the statements, and inside the
        # functions named by focus()
        self._near: dict[cst.CSTNode, cst.CSTNode] | None = None
        self._focused: set[cst.CSTNode] = set()
        torch_names = [local for local, full in self.imports.aliases.items() if full == "torch"]
        self.torch = "torch" if "torch" in torch_names or not torch_names else sorted(torch_names)[0]
        #: the `if not is_compiling():` guards made in this pass, by id (adjacent ones merge)
        self.new_guards: dict[int, cst.If] = {}

    def is_new_guard(self, node: cst.CSTNode) -> bool:
        return self.new_guards.get(id(node)) is node

    # -- tree navigation ------------------------------------------------------------------
    @property
    def parents(self) -> dict[cst.CSTNode, cst.CSTNode]:
        """Each node's parent, computed with one walk the first time it is needed."""
        if self._parents is None:
            self._parents = {}
            _map_parents(self.module, self._parents)
        return self._parents

    def focus(self, function: cst.FunctionDef) -> None:
        """The questions that follow are about nodes inside ``function`` (the compiled
        region a rule reported in): map the parents there and of the statements above it,
        rather than of the whole file."""
        if self._parents is not None or function in self._focused:
            return
        if self._near is None:
            self._near = {}
            stack: list[cst.CSTNode] = [self.module]
            while stack:
                node = stack.pop()
                for child in children(node):
                    if isinstance(child, _BLOCKS):
                        self._near[child] = node
                        stack.append(child)
        self._focused.add(function)
        _map_parents(function, self._near)

    def parent(self, node: cst.CSTNode | None) -> cst.CSTNode | None:
        """The node that holds ``node`` (None for the module, and for None)."""
        if node is None:
            return None
        if self._parents is None and self._near is not None:
            found = self._near.get(node)
            if found is not None or node is self.module:
                return found
        return self.parents.get(node)

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        cur = self.parent(node)
        while cur is not None:
            yield cur
            cur = self.parent(cur)

    def statement_of(self, expr: cst.CSTNode) -> cst.SimpleStatementLine | None:
        """The one-statement line whose whole statement is (or directly holds) ``expr``."""
        small = self.parent(expr)
        line = self.parent(small) if small is not None else None
        if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
            return line
        return None

    def enclosing_function(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        for anc in self.ancestors(node):
            if isinstance(anc, cst.FunctionDef):
                return anc
        return None

    def bound_once(self, node: cst.CSTNode) -> Binding | None:
        """``name = node`` as a whole statement of a function's block: the statement, the
        function, the name, the block and the statement's index in it, and every other use of
        the name in the function; None for any other form."""
        line = self.statement_of(node)
        if line is None:
            return None
        assign = line.body[0]
        if not (
            isinstance(assign, cst.Assign)
            and assign.value is node
            and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, cst.Name)
        ):
            return None
        target = assign.targets[0].target
        fn = self.enclosing_function(node)
        found = self.block_of(line)
        if fn is None or found is None:
            return None
        uses = [u for u in name_nodes(fn.body, [target.value]) if u is not target]
        return Binding(line, fn, target.value, found[0], found[1], uses)

    def block_of(self, stmt: cst.CSTNode | None) -> tuple[tuple[cst.CSTNode, ...], int] | None:
        """The statement list holding ``stmt`` and its index there (None: not in one)."""
        parent = self.parent(stmt)
        body = getattr(parent, "body", None)
        if isinstance(body, (list, tuple)) and stmt in body:
            return tuple(body), list(body).index(stmt)
        return None

    def fresh_name(self, scope: cst.CSTNode, base: str, taken: Iterable[str] = ()) -> str:
        """``base`` (or ``base_1``, ...) not used as a name anywhere in ``scope``."""
        used = set(taken) | read_names(scope, every_identifier=True)
        name, n = base, 0
        while name in used:
            n += 1
            name = f"{base}_{n}"
        return name

    # -- spelling -------------------------------------------------------------------------
    def torch_expr(self, dotted_tail: str) -> cst.BaseExpression:
        """``torch.<dotted_tail>`` spelled with the file's own name for torch."""
        return cst.parse_expression(f"{self.torch}.{dotted_tail}")


# Nodes that hold statements: the way from the module down to any function.
_BLOCKS = (
    cst.BaseCompoundStatement,
    cst.IndentedBlock,
    cst.Else,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Finally,
    cst.MatchCase,
)


def _map_parents(root: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode]) -> None:
    """Record the parent of every node below ``root``."""
    stack = [root]
    while stack:  # depth first, in source order, as a visitor goes
        node = stack.pop()
        kids = children(node)
        for child in kids:
            parents[child] = node
        stack.extend(reversed(kids))


def name_nodes(scope: cst.CSTNode, names: Iterable[str]) -> list[cst.Name]:
    """The ``Name`` nodes spelling one of ``names`` under ``scope``, read or bound (the names of
    attributes and of keyword arguments are not variables and are left out)."""
    wanted = set(names)
    out: list[cst.Name] = []
    stack = [scope]
    while stack:
        cur = stack.pop()
        if isinstance(cur, cst.Name):
            if cur.value in wanted:
                out.append(cur)
        elif isinstance(cur, cst.Attribute):
            stack.append(cur.value)
        elif isinstance(cur, cst.Arg):
            stack.append(cur.value)
        else:
            stack.extend(cur.children)
    return out


def is_name(expr: cst.CSTNode, value: str) -> bool:
    return isinstance(expr, cst.Name) and expr.value == value


def is_simple_ref(expr: cst.BaseExpression) -> bool:
    """A name or an attribute chain (``x``, ``self.weight``): cheap and side-effect free to repeat."""
    return dotted(expr) is not None


def assigned_names(node: cst.CSTNode) -> set[str]:
    """Names bound anywhere under ``node`` by assignment, loops, ``with ... as`` or walrus."""
    out: set[str] = set()

    def targets(t: cst.CSTNode) -> None:
        out.update(target_names(t))

    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, cst.Assign):
            for t in cur.targets:
                targets(t.target)
        elif isinstance(cur, (cst.AugAssign, cst.AnnAssign, cst.NamedExpr)):
            targets(cur.target)
        elif isinstance(cur, (cst.For, cst.CompFor)):
            targets(cur.target)
        elif isinstance(cur, cst.AsName):
            targets(cur.name)
        stack.extend(cur.children)
    return out


def contains(node: cst.CSTNode, types: tuple[type, ...], stop: tuple[type, ...] = ()) -> bool:
    """Whether ``node`` holds a node of ``types`` (not looking inside ``stop`` nodes)."""
    stack = list(node.children)
    while stack:
        cur = stack.pop()
        if isinstance(cur, types):
            return True
        if not isinstance(cur, stop):
            stack.extend(cur.children)
    return False


def tensor_method_receiver(node: cst.CSTNode, rule: Rule) -> cst.BaseExpression | None:
    """The tensor ``t`` of ``t.method()`` (called without arguments: ``.item()``,
    ``.tolist()``), or ``None`` when ``node`` is not such a call on a tensor."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and not node.args):
        return None
    receiver = node.func.value
    return receiver if rule.is_tensor(receiver) else None


_Node = TypeVar("_Node", bound=cst.CSTNode)


def with_leading_lines(new: _Node, old: cst.CSTNode) -> _Node:
    """``new`` carrying ``old``'s comment and blank lines above it."""
    lines = getattr(old, "leading_lines", ())
    return new.with_changes(leading_lines=lines) if lines else new


class Fixer:
    """Turns a finding's node into a :class:`Plan`, or ``None`` when the code is not of a form
    this fix handles (the finding then stays, with its suggestion in words).

    A fixer is made the fixer of its rule codes by :func:`register`; each plan carries its own
    applicability (the rule's ``fix_applicability`` says what to expect of them)."""

    def plan(self, node: cst.CSTNode, rule: Rule, ctx: FixContext) -> Plan | None:
        raise NotImplementedError


REGISTRY: dict[str, Fixer] = {}


def register(*codes: str) -> Callable[[type[Fixer]], type[Fixer]]:
    """Class decorator: ``@register("TL004", "TL009")`` makes the class the fixer of these
    rule codes."""

    def decorate(cls: type[Fixer]) -> type[Fixer]:
        instance = cls()
        for code in codes:
            if code in REGISTRY:
                raise RuntimeError(f"two fixers for {code}: {type(REGISTRY[code]).__name__} and {cls.__name__}")
            REGISTRY[code] = instance
        return cls

    return decorate


@dataclass
class Applied:
    """One fix that was applied: the finding it fixed and what it did."""

    code: str
    line: int
    column: int
    applicability: str
    description: str


@dataclass
class FixOutcome:
    """What fixing one file's text gave."""

    path: str
    old: str
    new: str
    applied: list[Applied] = field(default_factory=list)
    error: str | None = None

    @property
    def changed(self) -> bool:
        return self.new != self.old
