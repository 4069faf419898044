"""Dynamo's records -> findings: the one path every door reads dynamo through.

``check --target`` (the worker's :class:`~torchlint.dynamic.answer.Answer`, read by
:mod:`torchlint.dynamic.results`), ``torchlint run`` and ``pytest --torchlint`` (the observer's
JSON lines, read by :mod:`torchlint.dynamic.program`) and ``assert_graph_breaks`` (an answer
made in the test's process) all build their findings and recompile entries here:

* where a break belongs (:class:`Places`): the innermost frame in the *project* (the folder
  of the config that applies, else the repository root, else the working directory:
  :func:`project_root`), never torch, torchlint, the standard library or an installed
  package; else the library's own line. The paths given on the command line do not matter;
* the five finding kinds: ``graph-break`` (:func:`break_finding`), ``recompile-limit``
  (:func:`limit_finding`) and, under ``mode="reduce-overhead"``, ``cudagraph-skip``,
  ``cudagraph-split`` and ``cudagraph-rerecord`` (:func:`skip_finding`,
  :func:`split_finding`, :func:`rerecord_finding`);
* recompilations grouped by cause (:func:`group_recompiles`): the same kind of guard failing
  for the same change of the inputs is one entry, whatever frames it recompiles.

Standard library only: no torch. The worker reads :class:`Places` too (through
:class:`ProjectFiles`), so a break is placed the same way in both processes.
"""
from __future__ import annotations

import os
import sysconfig
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from torchlint.dynamic.gb_registry import torch_dir
from torchlint.findings import Finding, Recompile

Frame = Tuple[str, int]

_TORCHLINT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --------------------------------------------------------------------------- the project

def project_root(settings: Any = None, cwd: Optional[str] = None) -> str:
    """The folder whose files are the user's project: the folder of the config that applies
    (``settings``' file; without ``settings``, the nearest one from ``cwd`` upward), else the
    git repository holding ``cwd``, else ``cwd`` itself."""
    cwd = os.path.abspath(cwd or os.getcwd())
    if settings is None:  # the config that applies from cwd upward, if any
        from torchlint.config import ConfigError, find_config

        try:
            found = find_config(cwd)
        except ConfigError:
            found = None
        if found is not None:
            return str(found.parent)
    elif getattr(settings, "source", None):
        return os.path.abspath(getattr(settings, "root", None) or os.path.dirname(settings.source))
    return git_root(cwd) or cwd


def git_root(folder: str) -> Optional[str]:
    """The top of the git work tree holding ``folder`` (read from the folders, not git)."""
    cur = os.path.abspath(folder)
    while True:
        if os.path.exists(os.path.join(cur, ".git")):
            return cur
        parent = os.path.dirname(cur)
        if parent == cur:
            return None
        cur = parent


def _real(path: str) -> str:
    return os.path.realpath(path)


def _library_dirs() -> Tuple[str, ...]:
    dirs = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    torch = torch_dir()
    if torch:
        dirs.add(torch)
    return tuple(sorted({os.path.join(_real(d), "") for d in dirs if d}))


def _installed(real: str) -> bool:
    return (os.sep + "site-packages" + os.sep in real) or (os.sep + "dist-packages" + os.sep in real)


class Places:
    """Which frames are the user's project: files under a project root, not inside an
    installed library (site-packages, the standard library, torch) nor torchlint itself."""

    def __init__(self, roots: Iterable[str], cwd: str) -> None:
        self.roots = tuple(sorted({os.path.join(_real(r), "") for r in roots if r}))
        self.cwd = cwd
        self.library = _library_dirs()
        self.own = (os.path.join(_real(_TORCHLINT_DIR), ""),)
        torch = torch_dir()
        self.torch = (os.path.join(_real(torch), ""),) if torch else ()
        self._project: Dict[str, bool] = {}

    def is_project(self, path: str) -> bool:
        known = self._project.get(path)
        if known is None:
            real = _real(path)
            known = (not path.startswith("<") and not real.startswith(self.library + self.own)
                     and not _installed(real) and real.startswith(self.roots))
            self._project[path] = known
        return known

    def may_be_named(self, path: str) -> bool:
        """A frame worth naming as the library line: not torchlint's, not generated code."""
        return not path.startswith("<") and not _real(path).startswith(self.own)

    def may_be_site(self, path: str) -> bool:
        real = _real(path)
        return self.may_be_named(path) and not real.startswith(self.torch)

    def show(self, path: str) -> str:
        """A path as the report prints it: relative to the cwd in the project, else from the
        installed package's folder ("transformers/models/...")."""
        real = _real(path)
        if self.is_project(real):
            rel = os.path.relpath(real, self.cwd)
            return rel if not rel.startswith(os.pardir + os.sep) else real
        for marker in ("site-packages" + os.sep, "dist-packages" + os.sep):
            if marker in real:
                return real.split(marker, 1)[1]
        for base in self.library:
            if real.startswith(base):
                return os.path.relpath(real, os.path.dirname(base.rstrip(os.sep)))
        return real

    def place(self, frames: Sequence[Frame]) -> Tuple[Optional[Frame], Optional[Frame]]:
        """(site, library line) for a stack, outermost first: the site is the innermost frame
        in the project; the library line is the innermost frame when that one is not in the
        project. Without a project frame the site is the innermost frame outside torch and
        torchlint (an installed library's line), and there is no separate library line."""
        frames = [(f, int(n)) for f, n in frames if f and not f.startswith("<")]
        if not frames:
            return None, None
        inner = frames[-1]
        mine = [f for f in frames if self.is_project(f[0])]
        if mine:
            site = mine[-1]
            library = inner if site != inner and self.may_be_named(inner[0]) else None
            return site, library
        outside = [f for f in frames if self.may_be_site(f[0])]
        return (outside[-1] if outside else None), None


class ProjectFiles:
    """The project's files as the worker's observer asks for them: ``path in files`` is true
    for a (real) path in the project (:meth:`Places.is_project`) or one of ``also`` (files
    named explicitly, e.g. ``explain(files=...)``)."""

    def __init__(self, roots: Iterable[str], cwd: str, also: Iterable[str] = ()) -> None:
        self.places = Places(roots, cwd)
        self.also = {_real(p) for p in also}

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and (_real(path) in self.also or self.places.is_project(path))

    def __bool__(self) -> bool:
        return True


# --------------------------------------------------------------------------- source lines

def relpath(path: Optional[str], cwd: str) -> Optional[str]:
    """``path`` relative to ``cwd`` when it lies inside it, else as given."""
    if path is None:
        return None
    try:
        rel = os.path.relpath(path, cwd)
    except ValueError:
        return path
    return path if rel.startswith(os.pardir + os.sep) else rel


class SourceLines:
    """The lines of the files findings point at, numbered as Python numbers them; each file
    is read once per instance (one run), so an edited file is read afresh by the next run."""

    def __init__(self) -> None:
        self._files: Dict[str, List[str]] = {}

    def line(self, path: str, number: int) -> Optional[str]:
        from torchlint.files import FileProblem, read_source, source_lines

        lines = self._files.get(path)
        if lines is None:
            try:
                lines = source_lines(read_source(path))
            except FileProblem:
                lines = []
            self._files[path] = lines
        return lines[number - 1] if 0 < number <= len(lines) else None
