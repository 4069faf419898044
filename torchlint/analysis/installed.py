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

import functools
import os
import re
import sys

from torchlint.analysis.modules import NEVER_FOLLOW, ModuleMap, site_dirs
from torchlint.analysis.project import Project, Ref
from torchlint.analysis.summary import Summary, summarize
from torchlint.analysis.torchnames import library_op

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


@functools.lru_cache(maxsize=128)
def _package(top: str) -> Project | None:
    """The installed package ``top`` as a project of its own, when it registers at least one
    operator whose output size depends on the data; else None."""
    if top in NEVER_FOLLOW or top in sys.stdlib_module_names or not top.isidentifier():
        return None
    folder = _package_folder(top)
    if folder is None:
        return None
    files: list[str] = []
    for here, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d.isidentifier())
        files.extend(os.path.join(here, n) for n in sorted(names) if n.endswith(".py"))
        if len(files) > _MAX_FILES:
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
