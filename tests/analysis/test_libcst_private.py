"""The private libcst API that ``torchlint.analysis.tree`` uses for speed (its
``LIBCST_PRIVATE``), held against the installed libcst: in CI the one ``constraints.txt`` pins.

Each piece has a check that fails with a message naming the piece and what changed. The walk
falls back to ``node.children`` when it cannot read a class's order, so without these checks
a new libcst would show only as a slower lint, or not at all until a position came out wrong.
"""

from __future__ import annotations

import importlib
import inspect
from importlib.metadata import version
from pathlib import Path
from typing import Callable

import libcst as cst
import pytest

from torchlint.analysis import tree

LIBCST = f"libcst {version('libcst')}"
REPO = Path(__file__).resolve().parents[2]

SAMPLE = '''\
"""doc"""
import a.b as c
from .x import (y, z as w)
from m import *
@dec(1)
class K(B, metaclass=M):
    x: int = 1
    def f(self, /, p, *a, k=1, **kw) -> "T":
        global g
        nonlocal_ = lambda q, *, r=2: q if r else -q
        with open(p) as fh, ctx():
            async def inner():
                async for i in y:
                    await i
                async with z as v:
                    pass
        try:
            del x[1:2:3], y.attr
        except (E, F) as e:
            raise G from e
        else:
            assert p, "m"
        finally:
            return [i async for i in y if i] or {k: v for k, v in z} or {*s} or (t,) or f'{a!r:>{w}}'
    match p:
        case [1, *rest] | {"k": _, **kw} if rest:
            x += ~1 ** -2 @ m // 3 >> 1 & 2 | 3 ^ 4 and not b or c is not d
        case Point(x=0, y=yy) as pt:
            x = yield from (yield)
try:
    pass
except* H:
    pass
while True:
    break
else:
    continue_ = (a := 1) < 2 <= 3 != 4 in s
type Alias[T] = list[T]
def gen[T: int, *Ts, **P](x: T) -> T: ...
'''


def _pieces() -> dict[str, Callable[[], None]]:
    return {
        "libcst._nodes sources: _visit_and_replace_children": _children_order_is_read,
        "libcst._nodes.op, libcst._nodes.whitespace": _trivia_modules_hold_the_trivia,
        "libcst._nodes.internal.CodegenState, CSTNode._codegen": _codegen_state_keeps_its_hooks,
        "CSTNode.__post_init__": _post_init_is_where_nodes_validate,
    }


def _message(piece: str, what: str) -> str:
    return f"{LIBCST}: {what}; see LIBCST_PRIVATE[{piece!r}] in torchlint/analysis/tree.py"


def _concrete_node_classes() -> list[type[cst.CSTNode]]:
    return [
        c
        for c in vars(cst).values()
        if isinstance(c, type) and issubclass(c, cst.CSTNode) and not inspect.isabstract(c)
    ]


def _children_order_is_read() -> None:
    piece = "libcst._nodes sources: _visit_and_replace_children"
    orders = tree._read_orders()
    for klass in _concrete_node_classes():
        owner = next(k for k in klass.__mro__ if "_visit_and_replace_children" in k.__dict__)
        fields = orders.get(owner.__name__)
        assert fields is not None and all(f.isidentifier() for f, _ in fields), _message(
            piece, f"the order of {owner.__name__}'s children can no longer be read from libcst's source"
        )
    module = cst.parse_module(SAMPLE)
    for node in tree.walk(module):
        owner = next(k for k in type(node).__mro__ if "_visit_and_replace_children" in k.__dict__)
        got, expected = tree._make_getters(orders[owner.__name__])[0](node), node.children
        assert len(got) == len(expected) and all(a is b for a, b in zip(got, expected)), _message(
            piece, f"the fields read from {owner.__name__}._visit_and_replace_children are not its children"
        )


def _trivia_modules_hold_the_trivia() -> None:
    piece = "libcst._nodes.op, libcst._nodes.whitespace"
    for name in ("libcst._nodes.op", "libcst._nodes.whitespace"):
        try:
            importlib.import_module(name)
        except ImportError:
            pytest.fail(_message(piece, f"{name} is gone"))
    expected = {
        cst.Comma, cst.Colon, cst.Dot, cst.Semicolon, cst.AssignEqual, cst.Add, cst.AddAssign, cst.Is, cst.NotIn,
        cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.TrailingWhitespace, cst.Newline, cst.Comment,
        cst.EmptyLine, cst.LeftParen, cst.RightSquareBracket,
    }  # fmt: skip
    missing = sorted(c.__name__ for c in expected - tree.TRIVIA_TYPES)
    assert not missing, _message(piece, f"the trivia classes no longer include {missing}")
    for node in tree.walk(cst.parse_module(SAMPLE)):
        if type(node) in tree.TRIVIA_TYPES:
            code = [type(n).__name__ for n in tree.walk(node) if type(n) not in tree.TRIVIA_TYPES]
            assert not code, _message(piece, f"a {type(node).__name__} holds {code}, which a walk must not skip")


def _codegen_state_keeps_its_hooks() -> None:
    piece = "libcst._nodes.internal.CodegenState, CSTNode._codegen"
    try:
        from libcst._nodes.internal import CodegenState
    except ImportError:
        pytest.fail(_message(piece, "libcst._nodes.internal.CodegenState is gone"))
    params = set(inspect.signature(CodegenState).parameters)
    assert {"default_indent", "default_newline", "indent_tokens"} <= params, _message(
        piece, f"CodegenState takes {sorted(params)}"
    )
    hooks = ("add_token", "add_indent_tokens", "before_codegen", "after_codegen", "record_syntactic_position")
    gone = [h for h in (*hooks, "increase_indent", "decrease_indent") if not callable(getattr(CodegenState, h, None))]
    assert not gone and callable(getattr(cst.CSTNode, "_codegen", None)), _message(
        piece, f"CodegenState lost {gone or ''} or CSTNode lost _codegen"
    )
    calls: dict[str, int] = dict.fromkeys(hooks, 0)

    class Counting(CodegenState):
        def add_token(self, value: str) -> None:
            calls["add_token"] += 1
            super().add_token(value)

        def add_indent_tokens(self) -> None:
            calls["add_indent_tokens"] += 1
            super().add_indent_tokens()

        def before_codegen(self, node: cst.CSTNode) -> None:
            calls["before_codegen"] += 1

        def after_codegen(self, node: cst.CSTNode) -> None:
            calls["after_codegen"] += 1

        def record_syntactic_position(self, node, *, start_node=None, end_node=None):
            calls["record_syntactic_position"] += 1
            return super().record_syntactic_position(node, start_node=start_node, end_node=end_node)

    module = cst.parse_module(SAMPLE)
    state = Counting(default_indent=module.default_indent, default_newline=module.default_newline)
    module._codegen(state)
    assert "".join(state.tokens) == SAMPLE, _message(piece, "CSTNode._codegen no longer writes a node's code")
    unused = [h for h, n in calls.items() if not n]
    assert not unused, _message(piece, f"code generation no longer calls {unused}")
    # statements_code: a block's statements, at its indentation, read as they do in the file
    cls = next(s for s in module.body if isinstance(s, cst.ClassDef))
    method = next(s for s in cls.body.body if isinstance(s, cst.FunctionDef))
    indent = [module.default_indent, module.default_indent]
    text = tree.statements_code(method.body.body, indent, module)
    assert text in SAMPLE and text.startswith("        global g\n") and text.endswith("f'{a!r:>{w}}'\n"), _message(
        piece, "statements_code no longer gives the statements' code at their indentation"
    )


def _post_init_is_where_nodes_validate() -> None:
    piece = "CSTNode.__post_init__"
    assert "__post_init__" in cst.CSTNode.__dict__, _message(piece, "CSTNode no longer defines __post_init__")
    overriding = [c.__name__ for c in _concrete_node_classes() if "__post_init__" in c.__dict__]
    assert not overriding, _message(piece, f"{overriding} define their own __post_init__, which the switch misses")
    with tree.unvalidated():
        cst.SimpleWhitespace("not whitespace")  # not checked while the switch is on
    with pytest.raises(cst.CSTValidationError):
        cst.SimpleWhitespace("not whitespace")
    with tree.unvalidated():
        try:
            cst.Name("x")
        except Exception as e:  # noqa: BLE001 - any failure here is the message's
            pytest.fail(_message(piece, f"a node no longer builds without its __post_init__: {e!r}"))


def test_each_private_piece_has_a_check():
    assert set(_pieces()) == set(tree.LIBCST_PRIVATE)


@pytest.mark.parametrize("piece", sorted(_pieces()))
def test_the_private_libcst_api_keeps_its_shape(piece):
    _pieces()[piece]()


def test_constraints_pin_the_libcst_these_checks_hold():
    lines = (REPO / "constraints.txt").read_text("utf-8").splitlines()
    assert [line for line in lines if line.startswith("libcst==")], "constraints.txt pins libcst for CI"
