"""CUDA graphs: what stops ``torch.compile(mode="reduce-overhead")`` from replaying them.

``reduce-overhead`` records each compiled graph once as a CUDA graph and replays it, which
removes launch overhead. Inductor quietly runs a graph without one ("skipping cudagraphs due
to ...": a CPU tensor or a host copy in the graph, a mutated input, ...) and records a new
one for every new input shape or value of a dynamic number. Neither is a graph break, and
inductor says so only in its logs. This module measures both, in the worker (it imports torch when called):
:func:`prepare` moves a target and its inputs to the device, :func:`observe_cudagraphs`
compiles it with ``mode="reduce-overhead"``, runs each input set a few times and returns the
skips (with the user line each points at), the graphs inductor cut, and the recordings per
input set, as JSON-able data. The parent turns that data into findings
(:func:`torchlint.dynamic.results.findings_of`).

How a finding gets its line: the compile goes through a thin wrapper around inductor's own
``reduce-overhead`` backend that keeps dynamo's graph (its nodes carry the user's stack
traces) and the log records inductor writes while compiling it (its ``cudagraphs`` log names
the nodes it leaves out of CUDA graphs, with their stack traces). A "cpu device" skip is
placed on the nodes that *make* a CPU tensor in a graph that also holds CUDA tensors (the
``.cpu()`` line); other skips on the innermost user frame of inductor's "Found from" trace;
failing both, on the target's ``def`` line. Re-recordings point at the target's ``def``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import os
import re
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from typing import Any, cast

from torchlint.dynamic.cudagraph_text import frames_in, is_skip, parse_partitions, skip_reason
from torchlint.dynamic.logs import LogRecords, capture_logs

#: calls of each input set: the first warms up, the second records, the rest replay
CALLS_PER_SET = 3
#: imported before capturing: the modules whose loggers say why a CUDA graph was skipped
_LOGGING_MODULES = (
    "torch._inductor.cudagraph_utils",
    "torch._inductor.cudagraph_trees",
    "torch._inductor.output_code",
    "torch._inductor.compile_fx",
    "torch._inductor.graph",
)

_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')


def _move(value: Any, device: str) -> Any:
    import torch

    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_move(v, device) for v in value)
    if isinstance(value, dict):
        return {k: _move(v, device) for k, v in value.items()}
    return value


def prepare(
    fn: Any, calls: list[tuple[Sequence[Any], dict[str, Any]]], device: str | None
) -> tuple[Any, list[tuple[list[Any], dict[str, Any]]]]:
    """The target and its calls on ``device`` (``TargetSpec.run_device``; None: left as built)."""
    import torch

    if device is None:
        return fn, [(list(a), dict(k)) for a, k in calls]
    if device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("CUDA is not available to torch in the worker")
    if isinstance(fn, torch.nn.Module):
        fn = fn.to(device)
    return fn, [(list(_move(list(a), device)), _move(dict(k), device)) for a, k in calls]


@dataclasses.dataclass
class _Graph:
    """One graph dynamo handed to inductor: where it makes CPU tensors, what inductor logged."""

    cpu_sites: list[dict[str, Any]]
    #: indices [start, end) of the log messages written while inductor compiled it
    span: tuple[int, int] = (0, 0)
    #: inductor's count of graph partitions made while compiling it (0: not partitioned)
    partitions: int = 0


@contextlib.contextmanager
def _count_recordings() -> Iterator[dict[str, int]]:
    """Count CUDA-graph recordings (cudagraph trees' ``record_function``) while active."""
    box = {"count": 0}
    try:
        from torch._inductor.cudagraph_trees import CUDAGraphTreeManager
    except ImportError:
        yield box
        return
    manager: Any = CUDAGraphTreeManager  # its method is replaced while counting
    original = manager.record_function

    def counting(self: Any, *args: Any, **kwargs: Any) -> Any:
        box["count"] += 1
        return original(self, *args, **kwargs)

    manager.record_function = counting
    try:
        yield box
    finally:
        manager.record_function = original


def user_frames(trace: str | None, user_files: Container[str]) -> list[tuple[str, int]]:
    """Every ``File "...", line N`` of a stack trace that is in the user's files, outermost first."""
    return [(os.path.realpath(f), n) for f, n in frames_in(trace) if os.path.realpath(f) in user_files]


def user_frame(trace: str | None, user_files: Container[str]) -> tuple[str, int] | None:
    """The innermost ``File "...", line N`` of a stack trace that is in the user's files."""
    mine = user_frames(trace, user_files)
    return mine[-1] if mine else None


def _cpu_sites(gm: Any, user_files: Container[str]) -> list[dict[str, Any]]:
    """Nodes that make a CPU tensor from no CPU tensor, in a graph that holds CUDA tensors."""
    import torch

    def device(node: Any) -> str | None:
        value = node.meta.get("example_value", node.meta.get("val"))
        return value.device.type if isinstance(value, torch.Tensor) else None

    nodes = list(gm.graph.nodes)
    if not any(device(n) == "cuda" for n in nodes):
        return []
    sites = []
    for node in nodes:
        if node.op not in ("call_function", "call_method") or device(node) != "cpu":
            continue
        if any(device(i) == "cpu" for i in node.all_input_nodes):
            continue  # computed from a CPU tensor: the site that made that one is reported
        frame = user_frame(node.meta.get("stack_trace"), user_files)
        if frame is not None:
            made = (
                "copies a tensor to the host"
                if any(device(i) == "cuda" for i in node.all_input_nodes)
                else "creates a CPU tensor"
            )
            sites.append({"path": frame[0], "line": frame[1], "why": made})
    return sites


def _inductor_reduce_overhead(mode: str = "reduce-overhead") -> Any | None:
    """The backend ``torch.compile(mode=mode)`` itself builds, or None."""
    import torch

    wrapper = getattr(torch, "_TorchCompileInductorWrapper", None)
    if wrapper is None:
        return None
    try:
        return wrapper(mode, None, None)
    except TypeError:
        return None


class _Inspecting:
    """Inductor's reduce-overhead backend, keeping each graph's CPU sites and log records."""

    def __init__(self, inner: Any, handler: LogRecords, user_files: Container[str]) -> None:
        self.inner = inner
        self.handler = handler
        self.user_files = user_files
        self.graphs: list[_Graph] = []

    def __call__(self, gm: Any, example_inputs: Any) -> Any:
        graph = _Graph(cpu_sites=_cpu_sites(gm, self.user_files))
        self.graphs.append(graph)
        start = len(self.handler.records)
        before = _partition_count()
        try:
            return self.inner(gm, example_inputs)
        finally:
            graph.span = (start, len(self.handler.records))
            graph.partitions = _partition_count() - before

    def __getattr__(self, name: str) -> Any:  # get_compiler_config, reset, compiler_name...
        return getattr(self.inner, name)


def _partition_count() -> int:
    from torch._dynamo.utils import counters

    return int(counters["inductor"].get("cudagraph_partitions", 0))


def _def_site(fn: Any) -> tuple[str, int] | None:
    import torch

    target = type(fn).forward if isinstance(fn, torch.nn.Module) else fn
    target = inspect.unwrap(target)
    try:
        return os.path.realpath(inspect.getsourcefile(target) or ""), inspect.getsourcelines(target)[1]
    except (TypeError, OSError):
        return None


def _shape_text(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str:
    import torch

    parts = []
    for value in list(args) + list(kwargs.values()):
        if isinstance(value, torch.Tensor):
            parts.append("x".join(str(d) for d in value.shape) or "scalar")
        elif isinstance(value, (int, float, bool)):
            parts.append(repr(value))
    return "(" + ", ".join(parts) + ")"


def observe_cudagraphs(
    fn: Any,
    calls: Sequence[tuple[Sequence[Any], Mapping[str, Any]]],
    *,
    user_files: Iterable[str],
    calls_per_set: int = CALLS_PER_SET,
    debug: bool = False,
    mode: str = "reduce-overhead",
) -> dict[str, Any]:
    """Compile ``fn`` with ``mode="reduce-overhead"`` and run each call ``calls_per_set`` times.

    ``fn`` and the calls' tensors must already be on the GPU (:func:`prepare`). Runs in
    ``eval()`` + ``no_grad``. Returns JSON-able data: ``skips`` (one per skipped graph:
    ``reason``, ``message``, ``sites`` with path/line), ``skip_counter`` (inductor's own count),
    ``recordings``, ``per_set`` (new recordings per input set), ``rerecordings`` (those made by
    input sets after the first), ``shapes``, and the target's ``path``/``line``; ``splits``
    (graphs inductor cut into several CUDA graphs around work it cannot capture: ``reason``,
    ``pieces``, ``sites``) and ``partitions`` (inductor's partition count per graph).
    ``debug`` adds inductor's raw partition log and counters.
    """
    import torch
    from torch._dynamo.utils import counters

    files: Container[str] = (
        cast("Container[str]", user_files)  # a ProjectFiles: every file of the project
        if hasattr(user_files, "places")
        else {os.path.realpath(p) for p in user_files}
    )
    if isinstance(fn, torch.nn.Module):
        fn.eval()
    torch._dynamo.reset()
    counters.clear()
    site = _def_site(fn)
    with (
        capture_logs(
            ("cudagraphs", "perf_hints"), under="torch._inductor", modules=_LOGGING_MODULES, also=(".cudagraph",)
        ) as handler,
        _count_recordings() as recorded,
        torch.no_grad(),
    ):
        inner = _inductor_reduce_overhead(mode)
        backend = _Inspecting(inner, handler, files) if inner is not None else None
        compiled: Callable[..., Any] = (
            torch.compile(fn, backend=backend) if backend is not None else torch.compile(fn, mode=mode)
        )
        mark_step_begin: Callable[[], None] = torch.compiler.cudagraph_mark_step_begin
        per_set = []
        for args, kwargs in calls:
            before = recorded["count"]
            for _ in range(calls_per_set):
                mark_step_begin()
                compiled(*args, **kwargs)
            torch.cuda.synchronize()
            per_set.append(recorded["count"] - before)
        messages = handler.messages()
    graphs = backend.graphs if backend is not None else []
    skips = _skips(graphs, messages, files, site)
    splits = _splits(graphs, messages, files)
    torch._dynamo.reset()
    data = {
        "skips": skips,
        "splits": splits,
        "partitions": [g.partitions for g in graphs],
        "skip_counter": int(counters["inductor"].get("cudagraph_skips", 0)),
        "recordings": recorded["count"],
        "per_set": per_set,
        "rerecordings": sum(per_set[1:]),
        "shapes": [_shape_text(a, k) for a, k in calls],
        "path": site[0] if site else None,
        "line": site[1] if site else None,
    }
    if debug:
        data["log"] = [m for m in messages if "artition" in m or "reason=" in m or _FRAME.search(m)]
        data["counters"] = {k: dict(v) for k, v in counters.items()}
    return data


def _skips(
    graphs: Sequence[_Graph], messages: Sequence[str], files: Container[str], site: tuple[str, int] | None
) -> list[dict[str, Any]]:
    """One entry per skipped graph, each with the user lines it points at."""
    out: list[dict[str, Any]] = []
    seen: set[tuple[int, str]] = set()
    owner: dict[int, _Graph] = {}
    for graph in graphs:
        for index in range(*graph.span):
            owner[index] = graph
    for index, message in enumerate(messages):
        owned = owner.get(index)
        if not is_skip(message):
            continue
        reason = skip_reason(message)
        key = (id(owned) if owned is not None else -1, reason)
        if key in seen:
            continue
        seen.add(key)
        sites: list[dict[str, Any]] = []
        if owned is not None and "cpu device" in reason:
            sites = list(owned.cpu_sites)
        if not sites:
            frame = user_frame(message, files)
            if frame is not None:
                sites = [{"path": frame[0], "line": frame[1], "why": None}]
        if not sites and site is not None:
            sites = [{"path": site[0], "line": site[1], "why": None}]
        unique = {(s["path"], s["line"]): s for s in sites}
        out.append({"reason": reason, "message": message.strip().splitlines()[0], "sites": list(unique.values())})
    return out


def _splits(graphs: Sequence[_Graph], messages: Sequence[str], files: Container[str]) -> list[dict[str, Any]]:
    """Graphs where inductor left work outside CUDA graphs that costs something, with its lines.

    With graph partitions (on by default: measured on torch 2.11, read in 2.13's config) inductor
    runs what it cannot capture (device copies, CPU kernels) outside CUDA graphs and captures
    the GPU work around it, reordering to keep the pieces few. Reported: graphs left in two or
    more CUDA-graph pieces (a host round trip), and graphs with CPU kernels run eagerly on
    every call (``torch.randn(...)`` on the CPU). Not reported: a lone copy to the host that
    inductor moved to the end (it costs the wait, not a CUDA graph), and constants
    (``torch.zeros``, ``torch.arange``, ``torch.tensor(0.5)``) that inductor builds on the GPU.
    Sites are the user lines of the nodes inductor logs as left out; where this torch logs no
    partitions, a cut graph falls back to the nodes that make CPU tensors in dynamo's graph.
    """
    out: list[dict[str, Any]] = []
    for graph in graphs:
        parsed = parse_partitions(messages[graph.span[0] : graph.span[1]], graph.partitions)
        sites: dict[tuple[str, int], dict[str, Any]] = {}
        for node in parsed.nodes:
            frame = user_frame(node.trace, files)
            if frame is not None:
                sites.setdefault(frame, {"path": frame[0], "line": frame[1], "why": node.why})
        if not parsed.costs(bool(sites)):
            continue
        located = list(sites.values()) or [dict(s) for s in graph.cpu_sites]
        if not located:
            continue
        out.append({"reason": parsed.reason, "pieces": parsed.pieces or 1, "sites": located})
    return out
