"""Run one file's static work so that no input can crash, hang or overflow the stack.

Deeply nested code makes libcst's parser and the rule visitors recurse once per level, and
a pathological file can take minutes. :func:`run_limited` runs the work in a fresh thread
with a large stack and a raised recursion limit, and stops it at a time limit by raising
:class:`TimeLimitExceeded` inside that thread (no signals, so it works in any thread and
in worker processes). :func:`too_deep` asks CPython's own parser, which refuses nesting
safely, whether a file is deeper than the analysis can follow.
"""

from __future__ import annotations

import ast
import ctypes
import re
import sys
import threading
import warnings
from typing import Any, Callable

#: seconds one file may take (read, parse, lint) before it is reported and skipped
FILE_TIME_LIMIT = 60.0
#: the worker thread's stack: room for the parser and visitors on ~3,000-deep trees
STACK_SIZE = 512 * 1024 * 1024
#: Python frames allowed in that thread (the visitors use a few frames per tree level)
RECURSION_LIMIT = 40_000
#: how long to wait for a stopped thread to unwind before giving up on it
_GRACE = 2.0
#: deeper syntax trees are reported, not parsed (libcst's time grows with depth squared)
MAX_DEPTH = 1500
#: CPython's tokenizer refuses deeper bracket nesting ("too many nested parentheses")
MAX_BRACKET_DEPTH = 200
#: print the traceback of an internal error to stderr (``torchlint check -v`` / ``--debug``)
SHOW_TRACEBACKS = False


class TimeLimitExceeded(BaseException):
    """Raised inside the worker thread at its deadline (a BaseException so that no
    ``except Exception`` in the analysis swallows it)."""


_lock = threading.Lock()
_active = 0
_saved_limit = 0


def _raise_limit() -> None:
    global _active, _saved_limit
    with _lock:
        if _active == 0:
            _saved_limit = sys.getrecursionlimit()
            if _saved_limit < RECURSION_LIMIT:
                sys.setrecursionlimit(RECURSION_LIMIT)
        _active += 1


def _restore_limit() -> None:
    global _active
    with _lock:
        _active -= 1
        if _active == 0 and sys.getrecursionlimit() == max(_saved_limit, RECURSION_LIMIT):
            sys.setrecursionlimit(_saved_limit)


def _start(target: Callable[[], None]) -> threading.Thread | None:
    """``target`` started on a big-stack thread, or None where none can be had (a tight
    ``ulimit -v``, a platform that refuses the size)."""
    with _lock:  # threading.stack_size is process-wide: set it, start, put it back
        old = threading.stack_size()
        try:
            threading.stack_size(STACK_SIZE)
            thread = threading.Thread(target=target, name="torchlint-static", daemon=True)
            thread.start()
            return thread
        except (ValueError, RuntimeError, MemoryError):
            return None
        finally:
            threading.stack_size(old)


def _interrupt(thread: threading.Thread) -> None:
    if thread.ident is not None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(TimeLimitExceeded))


def run_limited(fn: Callable[..., Any], *args: Any, time_limit: float | None = None) -> Any:
    """``fn(*args)`` in a big-stack thread; its result, or its exception re-raised here.

    Raises :class:`TimeLimitExceeded` when it runs past ``time_limit`` seconds (``None``:
    no limit). Native code (the parser) cannot be interrupted; the thread then stops at its
    next Python instruction, and is left to finish on its own (it is a daemon).
    """
    box: list[tuple[str, Any]] = []

    def body() -> None:
        try:
            try:
                box.append(("ok", fn(*args)))
            except BaseException as exc:  # noqa: BLE001 (handed to the caller below)
                box.append(("error", exc))
        except BaseException:  # noqa: BLE001 (a late TimeLimitExceeded between the lines above)
            pass

    _raise_limit()
    thread = _start(body)
    if thread is None:  # no big stack to be had: run here, at the usual recursion limit
        _restore_limit()
        body()
    else:
        try:
            thread.join(time_limit)
            if thread.is_alive():
                _interrupt(thread)
                thread.join(_GRACE)
        finally:
            _restore_limit()
    if not box or (box[0][0] == "error" and isinstance(box[0][1], TimeLimitExceeded)):
        raise TimeLimitExceeded(time_limit)
    kind, value = box[0]
    if kind == "error":
        raise value
    return value


class ParseFailed(Exception):
    """The parser refused the file; ``str()`` is the one-line reason."""


def parse(source: str):
    """libcst's tree of ``source`` (checked with :func:`too_deep` first), or
    :class:`ParseFailed` saying why not in one line: the one parse of lint and fix alike."""
    import libcst as cst

    try:
        return cst.parse_module(source)
    except (cst.ParserSyntaxError, RecursionError, ValueError, MemoryError) as exc:
        raise ParseFailed(parse_error_message(exc, source)) from None


def parse_error_message(exc: Exception, source: str = "") -> str:
    import libcst as cst

    if isinstance(exc, cst.ParserSyntaxError):
        # Python's own parser words syntax errors better and places them exactly.
        try:
            with warnings.catch_warnings():  # the user's warnings are not ours to print
                warnings.simplefilter("ignore")
                compile(source, "<file>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
        except SyntaxError as err:
            col = f", column {err.offset}" if err.offset else ""
            return f"syntax error at line {err.lineno}{col}: {err.msg}"
        except (ValueError, RecursionError, MemoryError):
            pass
        else:
            return (
                f"syntax the parser does not support (line {exc.raw_line}, column "
                f"{exc.raw_column + 1}); torchlint parses Python 3.0-3.12 grammar"
            )
        first = str(exc.message).strip().splitlines()[0] if exc.message else "invalid syntax"
        return f"syntax error at line {exc.raw_line}, column {exc.raw_column + 1}: {first}"
    if isinstance(exc, RecursionError):
        return "expression nested too deeply for the parser"
    return f"cannot parse: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}".rstrip(": ")


def too_deep(source: str) -> str | None:
    """A one-line reason not to hand ``source`` to libcst, else None (:func:`syntax_tree`)."""
    return syntax_tree(source)[0]


def syntax_tree(source: str) -> tuple[str | None, ast.Module | None]:
    """(a one-line reason not to hand ``source`` to libcst, else None; CPython's ``ast`` tree
    of it when that parsed).

    libcst's parser recurses once per nesting level, in native code that neither a time
    limit nor a recursion limit can stop, and its time grows with the square of the depth.
    CPython's parser refuses deep nesting safely, so ask it first: too deep for CPython (it
    could not run the file either), or deeper than :data:`MAX_DEPTH`, is an error. Other
    syntax errors are left to libcst (CPython may be older than the file's syntax).
    """
    try:
        with warnings.catch_warnings():  # "invalid escape sequence" & co. are not ours to print
            warnings.simplefilter("ignore")
            tree = ast.parse(source, "<file>", "exec")
    except SyntaxError as err:
        if "too many nested" in (err.msg or "") or "too many statically nested" in (err.msg or ""):
            return f"syntax error at line {err.lineno}: {err.msg}", None
        # CPython stopped at an earlier error (perhaps newer syntax than it knows), before
        # any deep nesting further on: count brackets as its tokenizer would, and refuse
        # lines long enough to hide a chain deeper than MAX_DEPTH.
        if _bracket_depth(source) > MAX_BRACKET_DEPTH:
            return f"brackets nested more than {MAX_BRACKET_DEPTH} deep; Python cannot parse it", None
        number, length = _longest_line(source)
        if length > 4 * MAX_DEPTH:
            return (
                f"line {number} is {length} characters long and this Python cannot parse the "
                f"file ({err.msg}, line {err.lineno}); not checked"
            ), None
        return None, None
    except (RecursionError, MemoryError):
        return "code nested too deeply for Python's parser (it cannot run either)", None
    except ValueError:  # e.g. NUL bytes: the parser that follows reports them
        return None, None
    depth, line = _deepest(tree, source)
    if depth > MAX_DEPTH:
        return f"code nested {depth} levels deep at line {line}; torchlint analyses up to {MAX_DEPTH}", None
    return None, tree


_LINE_END = re.compile(r"\r\n?|\n")  # where Python's lines end (so AST line numbers index them)


def _deepest(tree: ast.AST, source: str = "") -> tuple[int, int]:
    """(depth, line) of the deepest node, without recursion, when that is deeper than
    :data:`MAX_DEPTH` (else a depth no deeper than it).

    A node cannot hold more levels below it than its text has characters (each level takes
    at least one, the last adds a context leaf): its subtree is not walked when even that
    many more would stay within the limit. So most statements are not walked into."""
    starts = [0] + [m.end() for m in _LINE_END.finditer(source)] if source else None
    best, line = 0, 0
    stack: list[tuple[Any, int]] = [(tree, 1)]  # the nodes' line attributes are read where present
    while stack:
        node, depth = stack.pop()
        if depth > best:
            best, line = depth, getattr(node, "lineno", line)
        end = getattr(node, "end_lineno", None)
        if end is not None:
            # an over-estimate of the node's characters (columns count UTF-8 bytes)
            if end == node.lineno:
                size = node.end_col_offset - node.col_offset
            elif starts is not None and end <= len(starts):
                size = starts[end - 1] - starts[node.lineno - 1] + node.end_col_offset
            else:
                size = MAX_DEPTH
            if depth + 2 * size + 4 <= MAX_DEPTH:
                continue
        depth += 1
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                stack.append((value, depth))
            elif type(value) is list:
                stack.extend((v, depth) for v in value if isinstance(v, ast.AST))
    return best, line


def _longest_line(source: str) -> tuple[int, int]:
    """(1-based number, length) of the longest line."""
    lines = source.splitlines() or [""]
    number = max(range(len(lines)), key=lambda i: len(lines[i]))
    return number + 1, len(lines[number])


_OPEN = {ord("("): 1, ord("["): 1, ord("{"): 1, ord(")"): -1, ord("]"): -1, ord("}"): -1}


def _bracket_depth(source: str) -> int:
    """The deepest bracket nesting, counting brackets in strings and comments too (an
    over-estimate only when those are unbalanced by hundreds)."""
    if source.count("(") + source.count("[") + source.count("{") <= MAX_BRACKET_DEPTH:
        return 0
    depth = deepest = 0
    for ch in source:
        step = _OPEN.get(ord(ch))
        if step:
            depth = max(0, depth + step)
            deepest = max(deepest, depth)
    return deepest
