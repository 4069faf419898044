"""What dynamo did to one target, as data: the worker's answer and ``torchlint.explain``'s.

Both sides speak it: the worker (and :func:`torchlint.explain`, in the user's process) make an
:class:`Answer` from an observation; :mod:`torchlint.dynamic.results` turns one into a
``TargetResult`` and findings. Between the processes it travels as one JSON line
(:meth:`Answer.to_json` / :meth:`Answer.from_json`). Standard library only: no torch.

A break is a dict with ``path``, ``line``, ``gb_type``, ``gb_code``, ``reason``,
``explanation``, ``hints``, ``frame_skipped``, ``seen_by``, ``hits``, ``stack``
(``BreakSite.to_dict``); a
recompilation one with ``function``, ``path``, ``line``, ``guard``, ``words``, ``fix``
(``RecompileEvent.to_dict``); ``cudagraphs`` is ``observe_cudagraphs``' data.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Answer:
    """One target's run: either ``error`` (one line) or what dynamo did."""

    #: the request's number, echoed back
    id: int | None = None
    error: str | None = None
    #: graphs of the first call, and call_function ops in each
    graphs: int = 0
    ops_per_graph: list[int] = field(default_factory=list)
    #: per graph of the first call, the user lines its FX nodes came from: [{"path", "lines"}]
    graph_lines: list[list[dict[str, Any]]] = field(default_factory=list)
    #: graphs over every call, recompilations included
    total_graphs: int = 0
    #: what ``torch._dynamo.explain`` alone would say (graphs - 1, or 0)
    explain_graph_breaks: int = 0
    breaks: list[dict[str, Any]] = field(default_factory=list)
    recompiles: list[dict[str, Any]] = field(default_factory=list)
    #: functions that hit dynamo's recompile limit, then ran eagerly: ``function``, ``path``,
    #: ``line``, ``limit``, ``kind``, ``guard``, ``words``, ``call``
    recompile_limit_hits: list[dict[str, Any]] = field(default_factory=list)
    #: the target's file, as the worker resolved it
    path: str | None = None
    #: the CUDA-graph measurement (``mode = "reduce-overhead"``), else None
    cudagraphs: dict[str, Any] | None = None
    #: the worker should be replaced before the next target (it ran out of memory)
    recycle: bool = False
    #: [path, line] of the user lines in the graphs' node stack traces (code dynamo traced)
    traced: list[list[Any]] = field(default_factory=list)
    #: the target's traceback when it raised (shown with ``-v``)
    traceback: str | None = None
    #: ``cost`` records of its timed calls, one per compiled frame (``torchlint.dynamic.timing``)
    costs: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """JSON-able data (``json.dumps`` it); :meth:`from_json` reads it back."""
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Answer:
        """An answer from :meth:`to_json`'s data; keys this version does not know are ignored."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})
