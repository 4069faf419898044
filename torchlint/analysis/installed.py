"""What calling an installed package's function does, read from its source (never imported).

A package such as a detection library registers an operator whose fake kernel allocates a
size from the data (``torch.ops.<lib>.nms``), and wraps it in a Python function
(``def nms(boxes, scores, t): return torch.ops.<lib>.nms(boxes, scores, t)``). Dynamo breaks
inside the wrapper, so the graph breaks where the project calls it: the innermost frame in
the project. This module finds such functions in site-packages: the package's files that
register fake kernels are found by their text and summarised
(:mod:`torchlint.analysis.summary`), and a function is one when it calls such an operator,
directly or through the package's other functions (``batched_nms`` calling ``nms``).

The answer is worked out once per package and process.
"""

from __future__ import annotations

import ast
import functools
import os
import re
import sys
from collections.abc import Callable, Sequence

from torchlint.analysis.modules import NEVER_FOLLOW, ModuleMap, site_dirs
from torchlint.analysis.project import Project, Ref
from torchlint.analysis.summary import Summary, none_test, summarize
from torchlint.analysis.torchnames import is_module_class_name, library_op

#: the text a file registering a fake kernel holds (files without it are never parsed)
_REGISTERS = re.compile(rb"register_fake|impl_abstract|register_meta")
#: how deep a chain of wrappers is followed
_DEPTH = 4
#: the largest package read (files): a bigger one is not searched
_MAX_FILES = 20000


def _load(path: str) -> Summary | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return summarize(handle.read())
    except OSError:
        return None


def _package_folder(top: str) -> str | None:
    for folder in site_dirs():
        candidate = os.path.join(folder, top)
        if os.path.isfile(os.path.join(candidate, "__init__.py")):
            return candidate
    return None


def _package_files(folder: str) -> list[str] | None:
    """The Python files of the package in ``folder``; None for one too big to read."""
    files: list[str] = []
    for here, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d.isidentifier())
        files.extend(os.path.join(here, n) for n in sorted(names) if n.endswith(".py"))
        if len(files) > _MAX_FILES:
            return None
    return files


@functools.lru_cache(maxsize=128)
def _package(top: str) -> Project | None:
    """The installed package ``top`` as a project of its own, when it registers at least one
    operator whose output size depends on the data; else None."""
    if top in NEVER_FOLLOW or top in sys.stdlib_module_names or not top.isidentifier():
        return None
    folder = _package_folder(top)
    files = _package_files(folder) if folder is not None else None
    if folder is None or files is None:
        return None
    registering = []
    for path in files:
        try:
            with open(path, "rb") as handle:
                if _REGISTERS.search(handle.read()):
                    registering.append(path)
        except OSError:
            continue
    if not registering:
        return None
    project = Project(ModuleMap(files, [os.path.dirname(folder)]), _load, registering)
    return project if project.dynamic_ops()[0] else None


def _resolve(project: Project, qual: str) -> Ref | None:
    parts = qual.split(".")
    for i in range(len(parts) - 1, 0, -1):
        module = project.map.find(".".join(parts[:i]))
        if module is not None:
            return project.resolve_dotted(module, ".".join(parts[i:]))
    return None


def _reaches_dynamic(project: Project, ref: Ref | None, depth: int = 0) -> bool:
    """Whether calling the function ``ref`` calls such an operator, itself or through the
    package's functions it calls (dynamo then breaks inside it: the graph breaks at the
    project's call)."""
    if ref is None or ref[0] != "fn" or depth > _DEPTH:
        return False
    ops, functions = project.dynamic_ops()
    if (ref[1], ref[2]) in functions:
        return True
    for name, guard in (project.record(ref) or {}).get("calls", ()):
        if not project._runs(ref[1], guard):
            continue
        target = project.resolve_dotted(ref[1], name)
        if target is None:
            continue
        op = library_op(target[1]) if target[0] == "ext" else None
        if op is not None:
            if op in ops:
                return True
        elif _reaches_dynamic(project, target, depth + 1):
            return True
    return False


def verdict(qual: str) -> int:
    """For an installed package's name: 2 when calling it runs an operator of its package
    whose output size depends on the data (:func:`dynamic_call`), 1 when its package
    registers such an operator (a module's calls are then looked up one by one), else 0."""
    if _package(qual.split(".", 1)[0]) is None:
        return 0
    return 2 if dynamic_call(qual) else 1


@functools.lru_cache(maxsize=4096)
def dynamic_call(qual: str) -> bool:
    """Whether calling the installed function ``qual`` (``torchvision.ops.nms``) runs an
    operator of its package whose output size depends on the data."""
    project = _package(qual.split(".", 1)[0])
    return project is not None and _reaches_dynamic(project, _resolve(project, qual))


# --------------------------------------------------------------------------- breaks inside

#: packages whose functions dynamo handles its own way, not by tracing their code as it is
#: written: einops (torch registers its functions with dynamo, ``torch/_dynamo/decorators.py``)
HANDLED_BY_DYNAMO = frozenset({"einops"})

Break = tuple[str, int, str, str]  # (path, line, rule, message) of the first break inside
#: how many calls deep a package's functions are read for a break inside (each level more
#: reads more of its files: a cold check of torchcde reads 65 files of its packages at 4)
_BREAK_DEPTH = 2
#: ``check(path)``: the graph-break findings of the file at ``path`` with each of its functions
#: taken as compiled, each (line, column, rule, message, qualname of the function it is in)
Checker = Callable[[str], Sequence[tuple[int, int, str, str, str]]]


def followable(top: str) -> bool:
    """Whether ``top`` is an installed third-party package whose code is read for the breaks
    inside its functions (not torch, numpy or the standard library; found on this
    interpreter's path)."""
    return (
        top not in NEVER_FOLLOW
        and top not in HANDLED_BY_DYNAMO
        and top not in sys.stdlib_module_names
        and top.isidentifier()
        and _whole_package(top) is not None
    )


@functools.lru_cache(maxsize=64)
def _whole_package(top: str) -> Project | None:
    """The installed package ``top`` (a package folder) as a project of its own."""
    folder = _package_folder(top)
    files = _package_files(folder) if folder is not None else None
    if folder is None or files is None:
        return None
    return Project(ModuleMap(files, [os.path.dirname(folder)]), _load, [])


def breaks_inside(qual: str, method: str | None, check: Checker, passed: Passed | None = None) -> Break | None:
    """Where calling the installed ``qual`` breaks the graph inside its package: a function; a
    class, whose constructor runs (``method`` None) or whose ``method`` does (``"__call__"``:
    its ``__call__``, else a module's ``forward``). Its code, and the package's functions it
    calls a few calls deep, are read by ``check`` as compiled code; the first finding that is
    not on a path the caller decides is the answer. ``passed``: what the call passes (how many
    positional arguments, which keywords), which decides the paths of the function it calls
    that test a parameter for ``None`` (``if batch_size is None:`` when the call leaves it out).
    None where there is none."""
    top = qual.split(".", 1)[0]
    project = _whole_package(top) if followable(top) else None
    if project is None:
        return None
    ref = _resolve(project, qual)
    if method is None and (ref is None or ref[0] == "ext"):
        # `scipy.optimize.linear_sum_assignment`, imported from `._lsap`, a C extension module
        parts = (ref[1] if ref is not None else qual).split(".")
        folder = _package_folder(top)
        for i in range(len(parts) - 1, 1, -1):
            compiled = _extension_file(folder, parts[1:i]) if folder is not None else None
            if compiled is not None:
                return compiled, 0, "TL009", COMPILED_MESSAGE
    if ref is not None and ref[0] == "cls":
        if method == "__call__":
            ref = project.find_method(ref[1], ref[2], "__call__") or project.find_method(ref[1], ref[2], "forward")
        else:
            ref = project.find_method(ref[1], ref[2], method or "__init__")
    elif method is not None:
        return None
    todo: list[tuple[Ref | None, int]] = [(ref, 0)]
    seen: set[tuple[str, str]] = set()
    while todo:
        ref, depth = todo.pop(0)
        if ref is None or ref[0] not in ("fn", "meth") or depth > _BREAK_DEPTH or (ref[1], ref[2]) in seen:
            continue
        seen.add((ref[1], ref[2]))
        found = _first_break(ref[1], ref[2], check, passed if depth == 0 else None)
        if found is not None:
            return found
        for name, guard in (project.record(ref) or {}).get("calls", ()):
            if not project._runs(ref[1], guard):
                continue
            target = project.resolve_dotted(ref[1], name)
            if target is not None and target[0] == "cls":
                target = project.find_method(target[1], target[2], "__init__")
            todo.append((target, depth + 1))
    return None


@functools.lru_cache(maxsize=1024)
def is_module_class(qual: str, depth: int = 0) -> bool:
    """Whether the installed package's class ``qual`` (``torch_geometric.nn.MessagePassing``,
    ``lightning.LightningModule``) derives from ``torch.nn.Module``, through its package's
    classes and those of the installed packages they derive from, read from their source: a
    project class deriving from it is a module, whose ``forward`` dynamo traces."""
    top = qual.split(".", 1)[0]
    project = _whole_package(top) if depth <= _DEPTH and followable(top) else None
    ref = _resolve(project, qual) if project is not None else None
    if project is None or ref is None or ref[0] != "cls":
        return False
    return project._derives(
        "module", ref[1], ref[2], lambda q: is_module_class_name(q) or is_module_class(q, depth + 1)
    )


#: what a function of a package's compiled extension module is to dynamo
COMPILED_MESSAGE = "a function of a compiled extension module, whose code dynamo cannot trace"


def _extension_file(folder: str, module: list[str]) -> str | None:
    """The compiled extension file (``_lsap.cpython-311-x86_64-linux-gnu.so``, ``.pyd``) of the
    module ``module`` (its dotted parts below the package) of the package in ``folder``, if
    that is what it is."""
    here, stem = os.path.join(folder, *module[:-1]), module[-1]
    if os.path.exists(os.path.join(here, stem + ".py")) or os.path.isdir(os.path.join(here, stem)):
        return None
    try:
        names = sorted(os.listdir(here))
    except OSError:
        return None
    return next(
        (os.path.join(here, n) for n in names if n.startswith(stem + ".") and n.endswith((".so", ".pyd"))), None
    )


def _first_break(path: str, qual: str, check: Checker, passed: Passed | None = None) -> Break | None:
    spans = functions(path).get(qual)
    if spans is None:
        return None
    (start, end), guards, params = spans
    guarded = [span for span, test in guards if passed is None or not _taken(test, params, passed)]
    found = [
        (line, col, rule, message)
        for line, col, rule, message, region in check(path)
        if region == qual and start <= line <= end and not any(a <= line <= b for a, b in guarded)
    ]
    if not found:
        return None
    line, _, rule, message = min(found)
    return path, line, rule, message


#: what a call passes: how many positional arguments, and the keywords' names
Passed = tuple[int, tuple[str, ...]]
#: a test the arm of a guard runs under: (parameter, True when the arm runs where it is
#: ``None``), for ``if p is None:`` / ``if p is not None:`` and their ``else``; None for another
Test = tuple[str, bool] | None
#: a function's parameters: the positional ones (``self`` aside, for a method), the
#: keyword-only ones, and those with a default (its value, ``None`` or another)
Params = tuple[tuple[str, ...], tuple[str, ...], dict[str, bool]]
Function = tuple[tuple[int, int], list[tuple[tuple[int, int], Test]], Params]


def call_key(call: str, passed: Passed | None) -> str:
    """The key of a call's answer in the project's ``installed`` facts: ``call`` itself, or
    with what it passes (``torch_geometric.utils.softmax#2:dim``: two positional arguments and
    ``dim=``), where the answer is that call's."""
    return call if passed is None else f"{call}#{passed[0]}:{','.join(passed[1])}"


def _taken(test: Test, params: Params, passed: Passed) -> bool:
    """Whether a call that passes ``passed`` surely runs the arm guarded by ``test``: the
    parameter is left out (it holds its default: ``None`` or not), or passed a value, taken
    for one that is not ``None`` (a caller that means ``None`` leaves it out)."""
    if test is None:
        return False
    name, when_none = test
    positional, keyword_only, defaults = params
    given = (name in positional and positional.index(name) < passed[0]) or name in passed[1]
    if not given and name not in defaults:
        return False  # (a required parameter not passed: the call is not read right)
    is_none = False if given else defaults[name]
    return is_none == when_none


@functools.lru_cache(maxsize=256)
def functions(path: str) -> dict[str, Function]:
    """Qualified name -> ((first line of the body, last line), the spans of its code that run
    or not by what the caller passes, its parameters) of each function of the file. Those
    spans are the arms of an ``if`` (the body of a ``while``) whose test reads a parameter
    (``if max_len is None: max_len = lens.amax().item()``): which arm a call takes is the
    caller's, so a break there is not taken for the call's unless the call decides it (each
    arm says how, where it can: :func:`_taken`)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return {}
    out: dict[str, Function] = {}

    def signature(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Params:
        args = fn.args
        positional = [a.arg for a in args.posonlyargs + args.args]
        if positional and positional[0] in ("self", "cls"):
            positional = positional[1:]
        defaults: dict[str, bool] = {}
        with_default = (args.posonlyargs + args.args)[len(args.posonlyargs + args.args) - len(args.defaults) :]
        for a, d in zip(with_default, args.defaults):
            defaults[a.arg] = isinstance(d, ast.Constant) and d.value is None
        for a, kd in zip(args.kwonlyargs, args.kw_defaults):
            if kd is not None:
                defaults[a.arg] = isinstance(kd, ast.Constant) and kd.value is None
        return tuple(positional), tuple(a.arg for a in args.kwonlyargs), defaults

    def guarded(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[tuple[int, int], Test]]:
        args = fn.args
        params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} - {"self", "cls"}
        params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
        spans: list[tuple[tuple[int, int], Test]] = []

        def span(block: list[ast.stmt]) -> tuple[int, int]:
            return block[0].lineno, block[-1].end_lineno or block[-1].lineno

        for node in ast.walk(fn):
            for field in ("body", "orelse", "finalbody"):
                block = getattr(node, field, None)
                if not isinstance(block, list) or not block or not isinstance(block[0], ast.stmt):
                    continue
                for i, stmt in enumerate(block):
                    if not (
                        isinstance(stmt, (ast.If, ast.While))
                        and any(isinstance(n, ast.Name) and n.id in params for n in ast.walk(stmt.test))
                    ):
                        continue
                    test = none_test(stmt.test) if isinstance(stmt, ast.If) else None
                    test = test if test is not None and test[0] in params else None
                    for arm, when_none in ((stmt.body, True), (stmt.orelse, False)):
                        if not arm:
                            continue
                        decided = None if test is None else (test[0], test[1] == when_none)
                        spans.append((span(arm), decided))
                        if decided is not None and i + 1 < len(block) and isinstance(arm[-1], (ast.Return, ast.Raise)):
                            # `if batch is None: return x`: what follows runs where it is not None
                            spans.append((span(block[i + 1 :]), (decided[0], not decided[1])))
        return spans

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                span = (child.body[0].lineno, child.end_lineno or child.lineno)
                out[prefix + child.name] = (span, guarded(child), signature(child))
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")

    walk(tree, "")
    return out
