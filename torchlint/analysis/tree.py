"""Fast traversal of libcst trees, in exactly the order libcst's own visitors use.

libcst's ``node.children`` and ``node.visit(visitor)`` rebuild every node they pass (each
``_visit_and_replace_children`` constructs and validates a fresh copy), which costs more
than parsing the file. Here children are read straight from the node's fields, in the order
each class's ``_visit_and_replace_children`` visits them. That order is read once per
process from libcst's own source; a class whose order cannot be read (another libcst
version) falls back to ``node.children``, and the first node of each class is checked
against ``node.children``, so the result is always what libcst would give.

Also here: :func:`positions` (what ``PositionProvider`` would say, for a few nodes only,
without metadata for the rest of the tree), :func:`statements_code` (the code of a few
statements at their indentation, without generating the module's) and :func:`unvalidated`
(parse without libcst's per-node validation). The tests compare them with libcst's own
answers.

This is the one module that uses libcst's private API, and only where speed needs it:
:data:`LIBCST_PRIVATE` names each piece and why; ``tests/analysis/test_libcst_private.py``
holds each against the libcst that ``constraints.txt`` pins and says which one changed.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable

import libcst as cst

# libcst's private API, here for speed alone: LIBCST_PRIVATE (below) says what and why
from libcst._nodes import op as _op
from libcst._nodes import whitespace as _whitespace
from libcst._nodes.internal import CodegenState

if TYPE_CHECKING:  # pragma: no cover
    from libcst.metadata import CodeRange

#: The private libcst API used here (nowhere else), each piece for speed: what it is -> why.
LIBCST_PRIVATE: dict[str, str] = {
    "libcst._nodes sources: _visit_and_replace_children": (
        "the order of each node class's children, read once from libcst's source, so a walk reads"
        " them straight from the fields (node.children rebuilds and validates every node it passes)"
    ),
    "libcst._nodes.op, libcst._nodes.whitespace": (
        "the punctuation and whitespace classes (TRIVIA_TYPES) that a walk with nothing to do on them skips"
    ),
    "libcst._nodes.internal.CodegenState, CSTNode._codegen": (
        "the positions of a few nodes without metadata for the whole tree, and the code of a few"
        " changed statements without generating the whole module"
    ),
    "CSTNode.__post_init__": "switched off while parsing: the per-node validation it runs is an eighth of the parse",
}

_NEWLINE = re.compile(r"\r\n?|\n")
_CLASS = re.compile(r"^class (\w+)\b", re.M)
_METHOD = re.compile(r"^    def _visit_and_replace_children\(", re.M)
_NEXT_DEF = re.compile(r"^    (?:def |@)", re.M)
_VISIT = re.compile(
    r"\bvisit_(required|optional|sentinel|sequence|iterable|body_sequence|body_iterable)\(\s*self,\s*\"(\w+)\""
)

# Class name -> (field, how libcst visits it) in visiting order, read from libcst's sources.
_ORDER: dict[str, tuple[tuple[str, str], ...]] | None = None
# Concrete node type -> (children, code_children) functions made for it.
_GETTERS: dict[type, tuple[Callable, Callable]] = {}


def _read_orders() -> dict[str, tuple[tuple[str, str], ...]]:
    import libcst._nodes as nodes_pkg  # LIBCST_PRIVATE

    orders: dict[str, tuple[tuple[str, str], ...]] = {}
    folder = os.path.dirname(nodes_pkg.__file__)
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".py"):
            continue
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as fh:
                text = fh.read()
        except OSError:
            continue
        classes = [(m.start(), m.group(1)) for m in _CLASS.finditer(text)]
        for m in _METHOD.finditer(text):
            owner = None
            for start, cls_name in classes:
                if start > m.start():
                    break
                owner = cls_name
            if owner is None:
                continue
            stop = len(text)
            for pattern in (_NEXT_DEF, _CLASS):
                nxt = pattern.search(text, m.end())
                if nxt is not None:
                    stop = min(stop, nxt.start())
            kinds: dict[str, str] = {}
            for v in _VISIT.finditer(text, m.end(), stop):
                kind = (
                    "sequence"
                    if v.group(1) in ("sequence", "iterable", "body_sequence", "body_iterable")
                    else v.group(1)
                )
                field_name = v.group(2)
                kinds[field_name] = kind if kinds.get(field_name, kind) == kind else "mixed"
            orders[owner] = tuple(kinds.items())
    return orders


def _make_getters(fields: Sequence[tuple[str, str]]) -> tuple[Callable, Callable]:
    """Two functions of a node: its children, and its children that are not trivia."""
    bodies = []
    for code_only in (False, True):
        lines = ["def get(n):", "    out = []"]
        for name, kind in fields:
            keep = "type(v) not in TRIVIA" if code_only else "True"
            if kind == "required":
                lines += [f"    v = n.{name}", f"    if {keep}: out.append(v)"]
            elif kind == "optional":
                lines += [f"    v = n.{name}", f"    if v is not None and {keep}: out.append(v)"]
            elif kind == "sentinel":
                lines += [f"    v = n.{name}", f"    if v is not DEFAULT and {keep}: out.append(v)"]
            elif kind == "sequence":
                if code_only:
                    lines += [f"    for v in n.{name} or ():", "        if type(v) not in TRIVIA: out.append(v)"]
                else:
                    lines += [f"    v = n.{name}", "    if v: out.extend(v)"]
            else:  # a node or a sequence of nodes
                lines += [
                    f"    v = n.{name}",
                    "    for v in ((v,) if isinstance(v, CSTNode) else v or ()):",
                    f"        if {keep}: out.append(v)",
                ]
        lines.append("    return out")
        bodies.append("\n".join(lines))
    made = []
    for body in bodies:
        scope: dict[str, Any] = {"TRIVIA": TRIVIA_TYPES, "DEFAULT": cst.MaybeSentinel.DEFAULT, "CSTNode": cst.CSTNode}
        exec(body, scope)
        made.append(scope["get"])
    return made[0], made[1]


def _slow_getters() -> tuple[Callable, Callable]:
    def code(node):
        return [c for c in node.children if type(c) not in TRIVIA_TYPES]

    return (lambda node: node.children), code


def _getters_for(node_type: type, sample: cst.CSTNode) -> tuple[Callable, Callable]:
    global _ORDER
    if _ORDER is None:
        _ORDER = _read_orders()
    getters = _slow_getters()
    for klass in node_type.__mro__:
        if "_visit_and_replace_children" in klass.__dict__:
            fields = _ORDER.get(klass.__name__)
            if fields is not None and all(f.isidentifier() for f, _ in fields):
                made = _make_getters(fields)
                # Check on this node that the fields hold all children, in libcst's order.
                expected, got = sample.children, made[0](sample)
                if len(got) == len(expected) and all(a is b for a, b in zip(got, expected)):
                    getters = made
            break
    _GETTERS[node_type] = getters
    return getters


def children(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """``node.children`` (same nodes, same order), without rebuilding the node."""
    try:
        return _GETTERS[type(node)][0](node)
    except KeyError:
        return _getters_for(type(node), node)[0](node)


def code_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """``children(node)`` less whitespace, comments and punctuation (:data:`TRIVIA_TYPES`)."""
    try:
        return _GETTERS[type(node)][1](node)
    except KeyError:
        return _getters_for(type(node), node)[1](node)


def walk(node) -> Iterator[cst.CSTNode]:
    """Every node under ``node`` (a node or a list of nodes), depth first, in source order."""
    stack = list(reversed(node)) if isinstance(node, (list, tuple)) else [node]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(reversed(children(cur)))


# Nodes that hold only whitespace, comments and punctuation: they can be skipped by a walk
# that has nothing to do on them.
TRIVIA_TYPES = frozenset(
    [
        obj
        for module in (_op, _whitespace)
        for obj in vars(module).values()
        if isinstance(obj, type) and issubclass(obj, cst.CSTNode) and obj.__module__ == module.__name__
    ]
    + [
        cst.LeftParen,
        cst.RightParen,
        cst.LeftSquareBracket,
        cst.RightSquareBracket,
        cst.LeftCurlyBrace,
        cst.RightCurlyBrace,
    ]
)


def traverse(
    root: cst.CSTNode,
    on_visit: Callable[[cst.CSTNode], bool],
    on_leave: Callable[[cst.CSTNode], None],
    skip_trivia: bool = False,
) -> None:
    """Call ``on_visit``/``on_leave`` on every node as ``root.visit(visitor)`` would.

    Children are visited only when ``on_visit`` returns true. With ``skip_trivia``, nodes of
    :data:`TRIVIA_TYPES` below ``root`` are passed over without a call: use it only when
    neither callback does anything on them.
    """
    kids = code_children if skip_trivia else children
    if not on_visit(root):
        on_leave(root)
        return
    stack: list[tuple[cst.CSTNode, Iterator[cst.CSTNode]]] = [(root, iter(kids(root)))]
    while stack:
        node, pending = stack[-1]
        child = next(pending, None)
        if child is None:
            stack.pop()
            on_leave(node)
        elif on_visit(child):
            stack.append((child, iter(kids(child))))
        else:
            on_leave(child)


# -- positions of a few nodes ------------------------------------------------------------
Span = tuple[tuple[int, int], tuple[int, int]]  # ((line, column), (end_line, end_column))


class _AllFound(Exception):
    pass


class _PositionState(CodegenState):
    """Generates the module's code, keeping track of line and column, and records the
    syntactic range of the wanted nodes only (and of the nodes inside them, which a wanted
    node may take its start or end from). Stops as soon as every wanted node is done."""

    def __init__(self, module: cst.Module, wanted: set[cst.CSTNode], whole: set[cst.CSTNode]) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.wanted = wanted
        self.whole = whole
        self.targets = wanted | whole
        self.left = len(self.targets)
        self.line = 1
        self.column = 0
        self.depth = 0
        self.starts: list[tuple[int, int]] = []
        self.spans: dict[cst.CSTNode, Span] = {}
        self.text_spans: dict[cst.CSTNode, Span] = {}

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        if "\r" in value:
            parts = _NEWLINE.split(value)
            if len(parts) > 1:
                self.line += len(parts) - 1
                self.column = len(parts[-1])
            else:
                self.column += len(value)
            return
        newlines = value.count("\n")
        if newlines:
            self.line += newlines
            self.column = len(value) - value.rfind("\n") - 1
        else:
            self.column += len(value)

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def before_codegen(self, node: cst.CSTNode) -> None:
        if self.depth or node in self.targets:
            self.depth += 1
            self.starts.append((self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        if not self.depth:
            return
        self.depth -= 1
        start = self.starts.pop()
        if node not in self.spans:  # a syntactic range recorded inside wins
            self.spans[node] = (start, (self.line, self.column))
        if node in self.targets:
            if node in self.whole:
                self.text_spans[node] = (start, (self.line, self.column))
            self.left -= 1
            if not self.left:
                raise _AllFound

    @contextmanager
    def record_syntactic_position(
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> Iterator[None]:
        if not self.depth:
            yield
            return
        start = (self.line, self.column)
        yield
        end = (self.line, self.column)
        if start_node is not None:
            start = self.spans[start_node][0]
        if end_node is not None:
            end = self.spans[end_node][1]
        self.spans[node] = (start, end)


def positions(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[cst.CSTNode, Span]:
    """The syntactic range of each of ``nodes`` (as libcst's ``PositionProvider`` gives it:
    1-based lines, 0-based columns), computed without metadata for the rest of the tree."""
    return spans_of(module, nodes, ())[0]


def spans_of(
    module: cst.Module, nodes: Iterable[cst.CSTNode], whole: Iterable[cst.CSTNode]
) -> tuple[dict[cst.CSTNode, Span], dict[cst.CSTNode, Span]]:
    """:func:`positions` of ``nodes``, and in the same pass the range of all the text each
    of ``whole`` generates (a statement's comment lines above it and its newline included;
    what ``WhitespaceInclusivePositionProvider`` would say)."""
    wanted, whole = set(nodes), set(whole)
    if not wanted and not whole:
        return {}, {}
    state = _PositionState(module, wanted, whole)
    try:
        module._codegen(state)
    except _AllFound:
        pass
    return {node: state.spans[node] for node in wanted if node in state.spans}, state.text_spans


def spans_within(module: cst.Module, parts: Sequence[cst.CSTNode]) -> dict[cst.CSTNode, Span]:
    """The syntactic range of every node inside ``parts`` -- consecutive top-level pieces of
    ``module`` (header lines, statements) -- counted as if their text began the file: the
    ranges :func:`positions` gives, less the lines above the first piece."""
    state = _PositionState(module, set(parts), set())
    try:
        for part in parts:
            part._codegen(state)
    except _AllFound:
        pass
    return state.spans


def statements_code(nodes: Sequence[cst.CSTNode], indent: Sequence[str], module: cst.Module) -> str:
    """The code of statements ``nodes`` of ``module`` as they read inside blocks indented by
    ``indent`` (one token per block, outermost first)."""
    state = CodegenState(
        default_indent=module.default_indent, default_newline=module.default_newline, indent_tokens=list(indent)
    )
    for node in nodes:
        node._codegen(state)
    return "".join(state.tokens)


def opening_paren(node: cst.CSTNode) -> cst.CSTNode | None:
    """The first of ``node``'s own parentheses (libcst's ranges leave them out): where a
    finding on ``node`` starts, `if (` for a test written over several lines."""
    lpar = getattr(node, "lpar", None)
    return lpar[0] if lpar else None


def code_ranges(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[cst.CSTNode, CodeRange]:
    """:func:`positions` as libcst ``CodeRange`` objects: a drop-in for
    ``MetadataWrapper(module).resolve(PositionProvider)`` when only ``nodes`` are needed."""
    from libcst.metadata import CodePosition, CodeRange

    return {
        node: CodeRange(CodePosition(*start), CodePosition(*end))
        for node, (start, end) in positions(module, nodes).items()
    }


# -- parsing without per-node validation -------------------------------------------------
_validation_lock = threading.Lock()
_validation_off = 0
_post_init = cst.CSTNode.__post_init__
_NODE_CLASS: Any = cst.CSTNode  # its ``__post_init__`` is swapped process-wide (below)


def _no_validation(self) -> None:
    pass


@contextmanager
def validated() -> Iterator[None]:
    """Inside :func:`unvalidated`, build nodes with libcst's checks again (the fixes make
    new nodes while the static pass parses without them)."""
    with _validation_lock:
        _NODE_CLASS.__post_init__ = _post_init
    try:
        yield
    finally:
        with _validation_lock:
            if _validation_off:
                _NODE_CLASS.__post_init__ = _no_validation


@contextmanager
def unvalidated() -> Iterator[None]:
    """While inside, libcst nodes are built without their ``_validate()`` check.

    The parser's nodes are valid by construction, and the check (regular expressions over
    every whitespace node, among others) is an eighth of the parse. The switch is
    process-wide: use it only around parsing and linting, never around code that builds
    new nodes from user input.
    """
    global _validation_off
    with _validation_lock:
        if _validation_off == 0:
            _NODE_CLASS.__post_init__ = _no_validation
        _validation_off += 1
    try:
        yield
    finally:
        with _validation_lock:
            _validation_off -= 1
            if _validation_off == 0:
                _NODE_CLASS.__post_init__ = _post_init
