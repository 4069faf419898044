"""The oracle: run a callable through dynamo and record every graph break it really hits.

Three witnesses, unioned, because none is complete on torch 2.13:

* the graphs dynamo hands to our backend (what ``torch._dynamo.explain`` reports: graph
  count, ops per graph, and a reason with a user stack for each graph that ends in a break);
* the ``graph_breaks`` log artifact, which also records breaks that close an empty graph
  (``print`` as the first statement) and frames dynamo gives up on (a break inside a loop,
  a ``try`` or an unsupported ``with``: explain then says 0 graphs and no reasons);
* ``counters["graph_break"]``, PyTorch CI's metric, which has no location but catches a break
  that somehow escaped the log.

Several argument sets run in turn without a reset; the ``recompiles`` log artifact then
says which guard failed each time (see :mod:`torchlint.dynamic.recompiles`).

Importing this module imports torch: only the worker and tests do.
"""

from __future__ import annotations

import inspect
import logging
import os
import re
import sys
import sysconfig
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import torch

from torchlint.dynamic import timed_calls
from torchlint.dynamic.answer import Answer
from torchlint.dynamic.cudagraphs import user_frames
from torchlint.dynamic.gb_registry import GraphBreakRegistry, load_registry
from torchlint.dynamic.load import load_module_from_path, materialize
from torchlint.dynamic.logs import capture_logs, every_break_logged
from torchlint.dynamic.recompiles import RecompileEvent, mark_within_call, parse_limit_message, parse_recompile_message

if TYPE_CHECKING:
    from torchlint.dynamic.records import ProjectFiles

_TORCH_DIR = os.path.dirname(os.path.realpath(torch.__file__))
_STDLIB_DIRS = {os.path.realpath(sysconfig.get_paths()[k]) for k in ("stdlib", "platstdlib")}
_SITE_DIRS = {os.path.realpath(sysconfig.get_paths()[k]) for k in ("purelib", "platlib")}
#: torchlint's own package: its frames (``compiled(*args)`` in :func:`observe`) are never a site
_OWN_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))

Frame = tuple[str, int]


@dataclass
class BreakSite:
    """One distinct place (file, line) where dynamo broke the graph."""

    path: str | None  # absolute path, None when only a counter saw it
    line: int | None
    gb_type: str | None = None
    gb_code: str | None = None
    reason: str = ""
    explanation: str = ""
    hints: list[str] = field(default_factory=list)
    frame_skipped: bool = False  # dynamo gave up the whole frame and ran it eagerly
    seen_by: set[str] = field(default_factory=set)  # "explain", "log", "counters"
    #: times each witness saw it (a break in a loop or a layer run several times is one site)
    seen: dict[str, int] = field(default_factory=dict)
    #: every break type a witness placed here (a line may hold several: a dataclass defined in
    #: ``forward`` breaks on its bytecode, and on the ``exec`` its decorator calls)
    gb_types: set[str] = field(default_factory=set)
    #: the frames that led to it, outermost first (the compiled frame's line first), as the
    #: first witness with a stack saw them: a break's time is placed on its finding by them
    stack: list[Frame] = field(default_factory=list)

    @property
    def hits(self) -> int:
        """How often dynamo broke here: the most any one witness saw (they see the same breaks)."""
        return max(self.seen.values(), default=1)

    @property
    def key(self) -> tuple[str | None, int | None]:
        return (self.path, self.line)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "gb_type": self.gb_type,
            "gb_code": self.gb_code,
            "reason": self.reason,
            "explanation": self.explanation,
            "hints": list(self.hints),
            "frame_skipped": self.frame_skipped,
            "seen_by": sorted(self.seen_by),
            "hits": self.hits,
            "stack": [list(f) for f in self.stack],
        }


@dataclass
class Observation:
    """What dynamo did to one callable over one or more calls."""

    graphs: int = 0  # graphs of the first call (explain's graph_count)
    ops_per_graph: list[int] = field(default_factory=list)
    total_graphs: int = 0  # graphs over every call, recompilations included
    breaks: list[BreakSite] = field(default_factory=list)
    recompiles: list[RecompileEvent] = field(default_factory=list)
    explain_graph_breaks: int = 0  # what explain() alone would say (graphs - 1 or 0)
    #: per graph of the first call, the user lines its nodes came from: [{"path", "lines"}]
    graph_lines: list[list[dict[str, Any]]] = field(default_factory=list)
    traced: set[Frame] = field(default_factory=set)  # user lines in the graphs: code dynamo traced
    #: functions that hit dynamo's recompile limit and then ran eagerly (parse_limit_message)
    recompile_limit_hits: list[dict[str, Any]] = field(default_factory=list)
    #: ``cost`` records of the timed calls (:mod:`torchlint.dynamic.timed_calls`)
    costs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def graph_breaks(self) -> int:
        """Distinct break sites; a located site counts once, however often it was hit."""
        return len(self.breaks)

    def answer(self, **more: Any) -> Answer:
        """This observation as the worker's answer (``more``: its other fields)."""
        return Answer(
            graphs=self.graphs,
            ops_per_graph=list(self.ops_per_graph),
            total_graphs=self.total_graphs,
            explain_graph_breaks=self.explain_graph_breaks,
            breaks=[b.to_dict() for b in self.breaks],
            recompiles=[r.to_dict() for r in self.recompiles],
            graph_lines=[list(g) for g in self.graph_lines],
            traced=[list(frame) for frame in sorted(self.traced)],
            recompile_limit_hits=[dict(h) for h in self.recompile_limit_hits],
            costs=[dict(c) for c in self.costs],
            **more,
        )

    def break_lines(self, path: str | None = None) -> set[int]:
        real = os.path.realpath(path) if path else None
        return {b.line for b in self.breaks if b.line is not None and (real is None or b.path == real)}


# --------------------------------------------------------------------------- message parsing

_AT = re.compile(r"in user code at (?P<file>.+?):(?P<line>\d+)\s*$", re.M)
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>.+)$', re.M)
_REASON_END = ("\nUser code traceback:", "\nStack variable source attribution:")


_EXPLANATION_NOISE = (" The branch condition involves a tensor computed as follows:",)


def _split_reason(text: str) -> tuple[str, list[str], str]:
    """Dynamo's break message -> (explanation, hints, context) from its indented sections."""
    explanation: list[str] = []
    hints: list[list[str]] = []
    context: list[str] = []
    current: list[str] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("Explanation:"):
            current = explanation
            line = line[len("Explanation:") :].strip()
        elif line.startswith("Hint:"):
            hints.append([])
            current = hints[-1]
            line = line[len("Hint:") :].strip()
        elif line.startswith("Developer debug context:"):
            current = context
            line = line[len("Developer debug context:") :].strip()
        elif line.startswith("For more details about this graph break") or line.startswith("***"):
            current = None
            if line.startswith("***") and explanation:
                break  # a nested break: the first one is the user's
            continue
        elif not line:
            if current is context:
                current = None
            continue
        if current is not None and line:
            current.append(line)
    text = " ".join(explanation)
    for noise in _EXPLANATION_NOISE:  # dynamo's internal trace of the condition, not for users
        text = text.split(noise, 1)[0].strip()
    return text, [" ".join(h) for h in hints if h], " ".join(context)


def _files(user_files: Any) -> Any:
    """The user's files as a container of real paths: a set of files, or a
    :class:`~torchlint.dynamic.records.ProjectFiles` (every file of the project) as it is."""
    if hasattr(user_files, "places"):
        return user_files
    return {os.path.realpath(p) for p in user_files}


def _in_dir(path: str, dirs: Iterable[str]) -> bool:
    return any(path == d or path.startswith(d + os.sep) for d in dirs)


def site_frame(frames: Sequence[Frame], user_files: Any | None) -> Frame | None:
    """Which frame of a stack (outermost first) a break is placed on: the innermost in the
    user's files (the project's, for the worker and ``explain``); else the innermost outside
    torch, torchlint and the standard library (the line of an installed library, a model in
    site-packages); else the innermost outside torch and torchlint. Never a frame of torch or
    of torchlint: None when there is no other."""
    real = [(os.path.realpath(f), int(n)) for f, n in frames if f and not f.startswith("<")]
    if user_files:
        for frame in reversed(real):
            if frame[0] in user_files:
                return frame
    ours = [f for f in real if not _in_dir(f[0], (_TORCH_DIR, _OWN_DIR))]
    libraries = [f for f in ours if not _in_dir(f[0], _STDLIB_DIRS) or _in_dir(f[0], _SITE_DIRS)]
    candidates = libraries or ours
    return candidates[-1] if candidates else None


class _BreakCollector:
    """Turns the three witnesses into distinct :class:`BreakSite` objects."""

    def __init__(self, user_files: Any | None, registry: GraphBreakRegistry) -> None:
        self.user_files = _files(user_files) if user_files else None
        self.registry = registry
        self.sites: dict[tuple[str | None, int | None], BreakSite] = {}
        # dynamo's own location (innermost frame) -> the user site it resolved to
        self._by_dynamo_loc: dict[Frame, Frame] = {}

    def _user_frame(self, frames: Sequence[Frame]) -> Frame | None:
        return site_frame(frames, self.user_files)

    def add(
        self,
        frames: Sequence[Frame],
        text: str,
        witness: str,
        *,
        skipped: bool = False,
        gb_type: str | None = None,
        dynamo_loc: Frame | None = None,
    ) -> BreakSite | None:
        frame = self._user_frame(frames)
        if frame is None and dynamo_loc is not None:
            known = self._by_dynamo_loc.get((os.path.realpath(dynamo_loc[0]), dynamo_loc[1]))
            frame = known if known else self._user_frame([dynamo_loc])
        if frame is None:
            return None
        if dynamo_loc is not None:
            self._by_dynamo_loc[(os.path.realpath(dynamo_loc[0]), dynamo_loc[1])] = frame
        entry = self.registry.lookup(gb_type) if gb_type else None
        if entry is None:
            entry = self.registry.find_in_text(text)
        explanation, hints, _context = _split_reason(text)
        site = self.sites.get(frame)
        if site is None:
            site = BreakSite(path=frame[0], line=frame[1])
            self.sites[frame] = site
        if not site.stack:
            site.stack = [(os.path.realpath(f), int(n)) for f, n in frames if f and not f.startswith("<")]
        site.seen_by.add(witness)
        site.seen[witness] = site.seen.get(witness, 0) + 1
        site.frame_skipped = site.frame_skipped or skipped
        found_type = entry.gb_type if entry is not None else gb_type  # a registry's is never ""
        if found_type:
            site.gb_types.add(found_type)
        if site.gb_type is None and found_type:
            site.gb_type = found_type
            site.gb_code = entry.code if entry else None
            site.reason = found_type
        if not site.reason:
            site.reason = text.strip().splitlines()[0] if text.strip() else "graph break"
        if not site.explanation:
            site.explanation = explanation or (entry.explanation if entry else "")
        if not site.hints:
            site.hints = hints or (list(entry.hints) if entry else [])
        return site

    def add_log_record(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 (a malformed record must not stop the run)
            return
        error = record.exc_info[1] if record.exc_info else None
        skipped = "Skipping the function" in message or "results in a skip" in message
        at = _AT.search(message.split("\n", 1)[0]) or _AT.search(message)
        dynamo_loc = (at.group("file"), int(at.group("line"))) if at else None
        reason = message
        if "Graph Break Reason:" in message:
            reason = message.split("Graph Break Reason:", 1)[1]
            for end in _REASON_END:
                reason = reason.split(end, 1)[0]
        frames = [(m.group("file"), int(m.group("line"))) for m in _FRAME.finditer(message)]
        gb_type = None
        if error is not None:
            gb_type = getattr(error, "gb_type", None) or None
            reason = getattr(error, "msg", None) or reason
            stack = getattr(error, "real_stack", None) or []
            frames = [(f.filename, f.lineno) for f in stack] or frames
        if not frames and dynamo_loc is None:
            return
        self.add(frames, reason, "log", skipped=skipped, gb_type=gb_type, dynamo_loc=dynamo_loc)

    def add_compile_reason(self, reason: Any) -> None:
        frames = [(f.filename, f.lineno) for f in (getattr(reason, "user_stack", None) or [])]
        self.add(frames, str(getattr(reason, "reason", "")), "explain")

    def add_counters(self, counter: dict[str, int]) -> None:
        """Counter keys are dynamo's messages; add the break types no located site explains."""
        located = {t for s in self.sites.values() for t in s.gb_types | {s.gb_type}}
        for message in counter:
            entry = self.registry.find_in_text(message)
            gb_type = entry.gb_type if entry else message.strip().splitlines()[0]
            if gb_type in located:
                for site in self.sites.values():
                    if gb_type in site.gb_types or site.gb_type == gb_type:
                        site.seen_by.add("counters")
                continue
            explanation, hints, _ = _split_reason(message)
            key = (None, len(self.sites))
            self.sites[key] = BreakSite(
                path=None,
                line=None,
                gb_type=gb_type,
                gb_code=entry.code if entry else None,
                reason=gb_type,
                explanation=explanation or (entry.explanation if entry else ""),
                hints=hints or (list(entry.hints) if entry else []),
                seen_by={"counters"},
            )
            located.add(gb_type)


#: dynamo's own logger, where it warns that a function hit the recompile limit
_LIMIT_LOGGER = "torch._dynamo.convert_frame"
_LOGGING_MODULES = (
    "torch._dynamo.guards",
    "torch._dynamo.convert_frame",
    "torch._dynamo.symbolic_convert",
    "torch._dynamo.exc",
)


# --------------------------------------------------------------------------- running


def _tensors_in(value: Any) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors_in(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors_in(v)
    elif hasattr(value, "__dataclass_fields__") or hasattr(value, "_fields"):
        for v in vars(value).values() if hasattr(value, "__dict__") else value:
            yield from _tensors_in(v)


def _backward(output: Any) -> None:
    losses = [t.float().sum() for t in _tensors_in(output) if t.requires_grad]
    if losses:
        backward: Callable[[], None] = torch.stack(losses).sum().backward
        backward()


def observe(
    fn: Callable[..., Any],
    arg_sets: Sequence[Sequence[Any]],
    *,
    kwarg_sets: Sequence[dict[str, Any]] | None = None,
    user_files: Iterable[str] | ProjectFiles | None = None,
    train: bool = False,
    registry: GraphBreakRegistry | None = None,
    cost_calls: int = 0,
) -> Observation:
    """Reset dynamo, compile ``fn`` with a recording backend, call it once per argument set.

    ``fn`` is a function or an ``nn.Module`` (``eval()`` + ``no_grad`` unless ``train``: then
    ``train()`` and a backward of the sum of the outputs). ``user_files`` are the files whose
    frames count as the user's (default: the file defining ``fn``). ``cost_calls``: after the
    observation, call it warm this many times more, timed (:mod:`torchlint.dynamic.timed_calls`;
    forward only): ``costs`` then holds what each break cost. Exceptions raised by the user's
    code propagate.
    """
    from torch._dynamo.utils import counters

    registry = registry or load_registry()
    if user_files is None:
        user_files = _defining_files(fn)
    collector = _BreakCollector(user_files, registry)
    graphs: list[Any] = []

    def recording_backend(gm: torch.fx.GraphModule, example_inputs: Any) -> Callable[..., Any]:
        graphs.append(gm)
        return gm.forward

    if isinstance(fn, torch.nn.Module):
        fn.train(train)
    timing = cost_calls > 0 and timed_calls.ready()  # before compiling: its graphs get timers
    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(fn, backend=recording_backend)
    obs = Observation()
    kwarg_sets = kwarg_sets or [{} for _ in arg_sets]
    grad = torch.enable_grad() if train else torch.no_grad()
    ends: list[int] = []  # where each call's log records end
    with (
        capture_logs(("graph_breaks", "recompiles"), modules=_LOGGING_MODULES, also=(_LIMIT_LOGGER,)) as logs,
        grad,
        every_break_logged(),
    ):
        for i, (args, kwargs) in enumerate(zip(arg_sets, kwarg_sets)):
            try:
                out = compiled(*args, **kwargs)
            finally:
                ends.append(len(logs.records))
            if train:
                _backward(out)
            if i == 0:
                obs.graphs = len(graphs)
                obs.ops_per_graph = [sum(1 for n in g.graph.nodes if n.op == "call_function") for g in graphs]
                obs.graph_lines = [_graph_user_lines(g, collector.user_files or set()) for g in graphs]
    obs.total_graphs = len(graphs)
    obs.explain_graph_breaks = max(obs.graphs - 1, 0)
    for gm in graphs:
        reason = getattr(gm, "compile_subgraph_reason", None)
        if reason is not None and getattr(reason, "graph_break", False):
            collector.add_compile_reason(reason)
    for record in logs.of("graph_breaks"):
        collector.add_log_record(record)
    collector.add_counters(dict(counters.get("graph_break", {})))
    obs.traced = traced_lines(graphs, collector.user_files)
    obs.breaks = sorted(collector.sites.values(), key=lambda s: (s.path or "~", s.line or 0))
    for number, record in enumerate(logs.records):
        call = next((i for i, end in enumerate(ends) if number < end), None)
        if record.name.endswith("__recompiles"):
            for event in parse_recompile_message(record.getMessage()):
                event.call = call
                obs.recompiles.append(event)
        elif record.name == _LIMIT_LOGGER:
            hit = parse_limit_message(_message(record))
            if hit is not None:
                hit["call"] = call
                obs.recompile_limit_hits.append(hit)
    mark_within_call(obs.recompiles)
    if timing:
        with torch.enable_grad() if train else torch.no_grad():
            obs.costs = timed_calls.time_calls(compiled, list(zip(arg_sets, kwarg_sets)), cost_calls)
    return obs


def _graph_user_lines(gm: Any, user_files: set[str]) -> list[dict[str, Any]]:
    """The user lines one FX graph holds: every user frame of each node's stack trace (the line
    of the op and the lines of the user calls that led to it)."""
    by_path: dict[str, set[int]] = {}
    for node in gm.graph.nodes:
        for path, line in user_frames(node.meta.get("stack_trace") or getattr(node, "stack_trace", None), user_files):
            by_path.setdefault(path, set()).add(line)
    return [{"path": path, "lines": sorted(lines)} for path, lines in sorted(by_path.items())]


def traced_lines(graphs: Sequence[Any], files: set[str] | None) -> set[Frame]:
    """(file, line) of every frame in the graphs' node stack traces, in ``files`` (all when
    None): the lines dynamo traced into a graph, so a rule's line among them ran without a break."""
    out: set[Frame] = set()
    for gm in graphs:
        for node in gm.graph.nodes:
            trace = node.meta.get("stack_trace")
            for m in _FRAME.finditer(trace or ""):
                path = os.path.realpath(m.group("file"))
                if files is None or path in files:
                    out.add((path, int(m.group("line"))))
    return out


def _message(record: logging.LogRecord) -> str:
    try:
        return record.getMessage()
    except Exception:  # noqa: BLE001 (a malformed record must not stop the run)
        return ""


def _defining_files(fn: Any) -> set[str]:
    target = type(fn) if isinstance(fn, torch.nn.Module) else fn
    try:
        return {os.path.realpath(inspect.getfile(target))}
    except (TypeError, OSError):
        return set()


# --------------------------------------------------------------------------- source snippets


def pick_target(module: Any, target: str | None = None) -> Any:
    """``target`` by name (dotted), else the first nn.Module subclass, else the first function,
    both in source order and defined in that module."""
    if target:
        obj = module
        for part in target.split("."):
            obj = getattr(obj, part)
        return obj
    own = [v for v in vars(module).values() if getattr(v, "__module__", None) == module.__name__]

    def line_of(v: Any) -> int:
        try:
            return inspect.getsourcelines(v)[1]
        except (OSError, TypeError):
            return 10**9

    classes = sorted((v for v in own if inspect.isclass(v) and issubclass(v, torch.nn.Module)), key=line_of)
    if classes:
        return classes[0]
    functions = sorted((v for v in own if inspect.isfunction(v)), key=line_of)
    if functions:
        return functions[0]
    raise LookupError("no nn.Module subclass or function in the snippet")


def default_args(fn: Any, spec: str = "f32[8,16]") -> list[Any]:
    """One tensor of ``spec`` per required positional parameter of ``fn`` (or its forward)."""
    from torchlint.dynamic.specs import parse_input

    call = fn.forward if isinstance(fn, torch.nn.Module) else fn
    params = [
        p
        for p in inspect.signature(call).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    return [materialize(parse_input(spec), seed=i) for i, _ in enumerate(params)]


def observe_source(
    code: str,
    target: str | None = None,
    inputs: Sequence[Any] | None = None,
    *,
    input_sets: Sequence[Sequence[Any]] | None = None,
    train: bool = False,
) -> tuple[Observation, str]:
    """Run a source snippet through dynamo; returns the observation and the temp file's path.

    See :func:`break_lines_of_source` for the arguments.
    """
    from torchlint.dynamic.specs import parse_input, parse_input_set

    def build(items: Sequence[Any]) -> list[Any]:
        if isinstance(items, str):
            return [materialize(s, seed=i) for i, s in enumerate(parse_input_set(items))]
        return [materialize(parse_input(x), seed=i) if isinstance(x, str) else x for i, x in enumerate(items)]

    folder = tempfile.mkdtemp(prefix="torchlint_snippet_")
    path = os.path.join(folder, "snippet.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(code)
    module = load_module_from_path(path)
    try:
        obj = pick_target(module, target)
        if inspect.isclass(obj):
            obj = obj()
        if input_sets is not None:
            arg_sets = [build(s) for s in input_sets]
        elif inputs is not None:
            arg_sets = [build(inputs)]
        else:
            arg_sets = [default_args(obj)]
        return observe(obj, arg_sets, user_files={path}, train=train), path
    finally:
        sys.modules.pop(module.__name__, None)
        if folder in sys.path:
            sys.path.remove(folder)


def break_lines_of_source(
    code: str,
    target: str | None = None,
    inputs: Sequence[Any] | None = None,
    *,
    train: bool = False,
) -> set[int]:
    """The distinct lines of ``code`` where dynamo breaks the graph on the installed torch.

    ``code``: a module's source. It is written to a temporary ``snippet.py`` and imported.
    ``target``: the name (dotted allowed) of the class or function to run; default the first
    ``nn.Module`` subclass in source order (instantiated with no arguments), else the first
    function. ``inputs``: the call's arguments: spec strings (``"f32[8,16]"``,
    ``"i64[2,16]:0..100"``, ``"3"``), a single ``;``-separated spec string, or ready values
    (tensors, numbers); default one ``f32[8,16]`` tensor per required positional parameter of
    the function or of ``forward``. ``train``: ``train()`` + backward instead of ``eval()`` +
    ``no_grad``. Lines are 1-based and only those inside the snippet count (a break inside
    torch is attributed to the snippet line that called into it). Exceptions raised by the
    snippet propagate. Needs torch; imports it.
    """
    obs, path = observe_source(code, target, inputs, train=train)
    return obs.break_lines(path)
