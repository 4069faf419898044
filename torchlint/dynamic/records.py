"""Dynamo's records -> findings: the one path every door reads dynamo through.

``check --target`` (the worker's :class:`~torchlint.dynamic.answer.Answer`, read by
:mod:`torchlint.dynamic.results`), ``torchlint run`` and ``pytest --torchlint`` (the observer's
JSON lines, read by :mod:`torchlint.run.program`) and ``assert_graph_breaks`` (an answer
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
import re
import sysconfig
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, overload

from torchlint.dynamic.gb_registry import torch_dir
from torchlint.files import display_path
from torchlint.findings import (
    CUDAGRAPH_RERECORD,
    CUDAGRAPH_SKIP,
    CUDAGRAPH_SPLIT,
    GRAPH_BREAK,
    RECOMPILE_LIMIT,
    Finding,
)

Frame = tuple[str, int]

_TORCHLINT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --------------------------------------------------------------------------- the project


def project_root(settings: Any = None, cwd: str | None = None, paths: Sequence[str] = (".",)) -> str:
    """The folder whose files are the user's project, as the static pass decides it
    (:func:`torchlint.files.project_root`: the folder of the config that applies, else the
    repository or Python project, else the working folder or the top package of ``paths``),
    else ``cwd``. ``settings``: the settings
    loaded for the run (their config file, if any); without them, the nearest config from
    ``cwd`` upward."""
    from torchlint.files import project_root as files_root

    cwd = os.path.abspath(cwd or os.getcwd())
    config_root: str | None = None
    if settings is None:  # the config that applies from cwd upward, if any
        from torchlint.config import ConfigError, find_config

        try:
            found = find_config(cwd)
        except ConfigError:
            found = None
        config_root = str(found.parent) if found is not None else None
    elif getattr(settings, "source", None):
        config_root = getattr(settings, "root", None) or os.path.dirname(settings.source)
    return files_root(paths, config_root, cwd) or cwd


def _real(path: str) -> str:
    return os.path.realpath(path)


def _library_dirs() -> tuple[str, ...]:
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
        self._project: dict[str, bool] = {}

    def is_project(self, path: str) -> bool:
        known = self._project.get(path)
        if known is None:
            real = _real(path)
            known = (
                not path.startswith("<")
                and not real.startswith(self.library + self.own)
                and not _installed(real)
                and real.startswith(self.roots)
            )
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
            return display_path(real, self.cwd)
        for marker in ("site-packages" + os.sep, "dist-packages" + os.sep):
            if marker in real:
                return real.split(marker, 1)[1]
        for base in self.library:
            if real.startswith(base):
                return os.path.relpath(real, os.path.dirname(base.rstrip(os.sep)))
        return real

    def place(self, frames: Sequence[Frame]) -> tuple[Frame | None, Frame | None]:
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


@overload
def relpath(path: str, cwd: str) -> str: ...
@overload
def relpath(path: None, cwd: str) -> None: ...
def relpath(path: str | None, cwd: str) -> str | None:
    """:func:`torchlint.files.display_path` of ``path`` relative to ``cwd``, else as given, for
    the paths of an answer, which may be missing (``None`` or empty: left as they are)."""
    return display_path(path, cwd, absolute=False) if path else path


class SourceLines:
    """The lines of the files findings point at, numbered as Python numbers them; each file
    is read once per instance (one run), so an edited file is read afresh by the next run."""

    def __init__(self) -> None:
        self._files: dict[str, list[str]] = {}

    def line(self, path: str, number: int) -> str | None:
        from torchlint.files import FileProblem, read_source, source_lines

        lines = self._files.get(path)
        if lines is None:
            try:
                lines = source_lines(read_source(path))
            except FileProblem:
                lines = []
            self._files[path] = lines
        return lines[number - 1] if 0 < number <= len(lines) else None


# --------------------------------------------------------------------------- findings


class Findings:
    """Builds the findings of one target or program: each placed on a real (file, line) and
    shown as ``show`` prints paths, its source line read once per file (:class:`SourceLines`)."""

    def __init__(self, target: str, show: Any, lines: SourceLines | None = None) -> None:
        self.target = target
        self.show = show
        self.lines = lines or SourceLines()

    def located(self, name: str, path: str, line: int, message: str, suggestion: str, **extra: Any) -> Finding:
        """A dynamic finding spanning the code of ``line`` (indentation and trailing blanks out)."""
        text = self.lines.line(path, line) or ""
        stripped = text.strip()
        return Finding(
            rule=None,
            name=name,
            path=self.show(path),
            line=line,
            column=len(text) - len(text.lstrip()) + 1 if stripped else 1,
            end_line=line,
            end_column=len(text.rstrip()) + 1 if stripped else 1,
            message=message,
            suggestion=suggestion,
            source="dynamic",
            target=self.target,
            targets=[self.target],
            source_line=text or None,
            **extra,
        )

    def graph_break(
        self,
        site: Frame,
        record: Mapping[str, Any],
        hits: int,
        *,
        library: Frame | None = None,
        note: str = "",
        ranks: list[int] | None = None,
    ) -> Finding:
        """One break site: dynamo's reason, explanation and hints (its first hint, else its
        explanation, as the fix: the merge puts a rule's fix in its place)."""
        reason = record.get("reason") or "graph break"
        message = f"graph break: {reason}"
        if library is not None:
            message += f" at {self.show(library[0])}:{library[1]}, reached from {self.show(site[0])}:{site[1]}"
        if record.get("skipped") or record.get("frame_skipped"):
            message += " (dynamo gave up the whole function and ran it eagerly)"
        message += f"; hit {hits} time{'s' if hits != 1 else ''} while compiling" + note
        hints = [h for h in record.get("hints") or [] if h]
        suggestion = hints[0] if hints else (record.get("explanation") or "move this out of the compiled region")
        return self.located(
            GRAPH_BREAK,
            site[0],
            site[1],
            message,
            suggestion,
            gb_code=record.get("gb_code"),
            severity="error",
            reason=reason,
            explanation=record.get("explanation") or None,
            hints=hints,
            hits=hits,
            library=f"{self.show(library[0])}:{library[1]}" if library else None,
            ranks=ranks,
        )

    def recompile_limit(self, site: Frame, hit: Mapping[str, Any], hits: int = 1) -> Finding:
        """A function that hit dynamo's recompile limit (``hit``: ``function``, ``where``,
        ``limit``, ``kind``, ``words``, ``fix``, ``gb_code``)."""
        message = limit_words(hit)
        after = break_of_resume(hit.get("function"))
        if after is not None:  # the code after a break: what changes is most often the value handed over
            message += (
                f"; it is the code after the graph break at line {after}, which takes the values handed over there"
            )
        return self.located(
            RECOMPILE_LIMIT,
            site[0],
            site[1],
            message,
            hit.get("fix") or LIMIT_SUGGESTION,
            severity="error",
            gb_code=hit.get("gb_code"),
            reason=f"hit config.{hit.get('kind') or 'recompile_limit'}",
            hits=hits,
        )

    def cudagraph_skip(
        self,
        site: Frame,
        reason: str,
        why: str | None = None,
        where: str = "",
        message: str | None = None,
        hits: int | None = None,
    ) -> Finding:
        return self.located(
            CUDAGRAPH_SKIP,
            site[0],
            site[1],
            skip_words(reason, why) + where,
            cudagraph_fix(reason),
            severity="warning",
            reason=message or reason,
            hits=hits,
        )

    def cudagraph_split(
        self, site: Frame, pieces: int, reason: str, why: str | None = None, where: str = "", hits: int | None = None
    ) -> Finding:
        return self.located(
            CUDAGRAPH_SPLIT,
            site[0],
            site[1],
            split_words(pieces, reason, why) + where,
            cudagraph_fix("cpu device"),
            severity="warning",
            reason=reason,
            hits=hits,
        )

    def cudagraph_rerecord(self, site: Frame, count: int, detail: str, called: str = "") -> Finding:
        return self.located(
            CUDAGRAPH_RERECORD,
            site[0],
            site[1],
            rerecord_words(count, detail, called),
            RERECORD_SUGGESTION,
            severity="warning",
            hits=count,
        )


LIMIT_SUGGESTION = (
    "Remove what recompiles it (the reason above, and the target's recompile lines): "
    "each variant of the inputs, the layers or the Python values it sees is one "
    "more compilation; raising `torch._dynamo.config.recompile_limit` only delays this."
)


def limit_words(hit: Mapping[str, Any]) -> str:
    """A recompile-limit hit in words: loudly, since the function then runs uncompiled."""
    where = f" ({hit['where']})" if hit.get("where") else ""
    last = f"; the last guard that failed: {hit['words']}" if hit.get("words") else ""
    return (
        f"RECOMPILE LIMIT HIT: `{hit.get('function') or '?'}`{where} hit dynamo's recompile limit "
        f"(config.{hit.get('kind') or 'recompile_limit'} = {hit.get('limit', '?')} compilations): "
        f"from then on dynamo runs it eagerly, uncompiled, on every call that misses its compiled "
        f"versions{last}"
    )


_CUDAGRAPH_FIXES = (
    (
        "cpu device",
        "Keep every tensor of the compiled region on the GPU: return device tensors "
        "and copy them to the host after the call (TL101), create tensors with "
        "`device=x.device` or as buffers (TL102).",
    ),
    ("multiple devices", "Keep the whole compiled region on one GPU."),
    (
        "mutated inputs",
        "Do not modify inputs in place inside the region (`x.add_(1)`, "
        "`x[...] = v`): return a new tensor, or copy into a buffer of the module.",
    ),
    ("incompatible op", "Move the op that CUDA graphs cannot capture out of the compiled region."),
    ("dynamic shape", "Pad inputs to a few fixed sizes so each size is captured once."),
)
_CUDAGRAPH_FIX = (
    "Inductor ran this graph without a CUDA graph; remove the cause it names, "
    'or compile without mode="reduce-overhead" if it cannot be avoided.'
)
RERECORD_SUGGESTION = (
    "Each new input shape, and each new value of a Python number, records and keeps another CUDA "
    "graph: pad or bucket inputs to a few fixed sizes so each records once, and pass per-call "
    "numbers as 0-d tensors (TL103)."
)


def cudagraph_fix(reason: str) -> str:
    """The fix for a graph inductor ran without a CUDA graph, by the reason it gave."""
    return next((text for key, text in _CUDAGRAPH_FIXES if key in reason), _CUDAGRAPH_FIX)


_NOT_A_BREAK = 'not a graph break, but under mode="reduce-overhead" '


def skip_words(reason: str, why: str | None = None) -> str:
    """A ``cudagraph-skip`` finding's message."""
    return (
        _NOT_A_BREAK
        + f"inductor runs this graph without a CUDA graph because of {reason}"
        + (f"; this line {why}" if why else "")
    )


def split_words(pieces: int, reason: str, why: str | None = None) -> str:
    """A ``cudagraph-split`` finding's message."""
    what = (
        f"the CUDA graph is cut in {pieces}: each call replays {pieces} CUDA graphs with {reason} between them"
        if pieces >= 2
        else f"{reason} run outside the CUDA graph, eagerly, on every call"
    )
    return _NOT_A_BREAK + what + (f"; this line {why}" if why else "")


def rerecord_words(count: int, detail: str, called: str = "") -> str:
    """A ``cudagraph-rerecord`` finding's message; ``detail`` says for which inputs."""
    return _NOT_A_BREAK + f"the CUDA graph{called} was re-recorded {count} time{'s' if count != 1 else ''} " + detail


# --------------------------------------------------------------------------- recompilations

#: how a recompile's words name a value dynamo carried over a graph break
HANDED_OVER = "the value handed over at a graph break"
#: what names the input a guard is about in a recompile's words
_NAMED = re.compile(r"`[^`]+`|" + HANDED_OVER)
#: the function dynamo makes for the code after a graph break: ``torch_dynamo_resume_in_forward_at_41``
_RESUME = re.compile(r"^torch_dynamo_resume_in_\w+?_at_(\d+)$")


def break_of_resume(function: str | None) -> int | None:
    """The line of the graph break a resume function continues after (in its own file), or None."""
    m = _RESUME.match(function or "")
    return int(m.group(1)) if m else None


_CUDAGRAPH_MODES = ("reduce-overhead", "max-autotune")
SHAPES_UNDER_CUDAGRAPHS = (
    'under mode="reduce-overhead" each new shape also records and keeps another CUDA graph, and '
    "`dynamic=True` or `mark_dynamic` do not stop that (a dynamic shape still re-records per size): "
    "pad or bucket the inputs to a few fixed sizes, so each size compiles and records once"
)


def group_recompiles(events: Sequence[Mapping[str, Any]], show: Any, mode: str | None = None) -> list[dict[str, Any]]:
    """Recompilations grouped by cause: the same kind of guard failing for the same change
    (``dimension 0 of ... changed from 8 to 4``), whichever input it names and whichever
    frames it recompiles (a break splits one forward into several frames, and each
    recompiles for the one change of the inputs). Each cause: ``cause`` (in words),
    ``recompiles``, ``frames`` (``function``, ``path``, ``line``, ``recompiles``), ``inputs``
    (the names the guards gave), ``fix`` (once), ``within_call``, ``input_sets`` (the
    1-based calls it happened in, when known) and ``breaks`` (``path``, ``line``: the graph
    breaks whose handed-over values it guards on); most recompiles first.

    ``events``: dicts with ``function``, ``path``, ``line``, ``words``, ``fix`` and
    ``within_call`` (``RecompileEvent.to_dict``). ``mode``: the compile mode; under CUDA
    graphs a shape change is fixed by fixed or bucketed shapes, not by ``dynamic=True``.
    """
    from torchlint.dynamic.recompiles import FIXES_FOR_SHAPES

    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for event in events:
        words = event.get("words") or "a guard failed (no reason given)"
        fix = event.get("fix") or ""
        key = (_NAMED.sub("\0", words), fix)
        group = groups.get(key)
        if group is None:
            group = groups[key] = {
                "template": key[0],
                "inputs": [],
                "recompiles": 0,
                "frames": {},
                "fix": fix,
                "within_call": bool(event.get("within_call")),
                "input_sets": [],
                "breaks": [],
            }
        group["recompiles"] += 1
        if event.get("call") is not None and int(event["call"]) + 1 not in group["input_sets"]:
            group["input_sets"].append(int(event["call"]) + 1)
        for name in _NAMED.findall(words):
            if name not in group["inputs"]:
                group["inputs"].append(name)
        path = event.get("path")
        frame = (event.get("function") or "?", show(path) if path else None, event.get("line"))
        group["frames"][frame] = group["frames"].get(frame, 0) + 1
        at = break_of_resume(event.get("function"))
        if at is not None and path and HANDED_OVER in words:
            place = {"path": show(path), "line": at}
            if place not in group["breaks"]:
                group["breaks"].append(place)
    out = []
    for group in groups.values():
        names = group["inputs"]
        said = names[0] if len(names) == 1 else (", ".join(names[:-1]) + " and " + names[-1] if names else "")
        fix = group["fix"]
        if mode in _CUDAGRAPH_MODES and fix == FIXES_FOR_SHAPES:
            fix = SHAPES_UNDER_CUDAGRAPHS
        out.append(
            {
                "cause": group["template"].replace("\0", said, 1).replace("\0", "it"),
                "recompiles": group["recompiles"],
                "frames": [
                    {"function": f, "path": p, "line": line, "recompiles": n}
                    for (f, p, line), n in group["frames"].items()
                ],
                "inputs": [n.strip("`") for n in names],
                "fix": fix,
                "within_call": group["within_call"],
                "input_sets": sorted(group["input_sets"]),
                "breaks": group["breaks"],
            }
        )
    out.sort(key=lambda c: -c["recompiles"])
    return out
