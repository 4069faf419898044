"""Inductor's CUDA-graph log texts, read (no torch: used by the worker and by ``torchlint run``'s parent).

Inductor says what it does with CUDA graphs only in its ``cudagraphs`` log artifact:

* a skip: "skipping cudagraphs due to <reason>" (``cudagraph_utils``, ``output_code``; at times
  said twice, and "Found from :" with the user's trace), and "skipping cudagraph due to function
  N exceeding max re-recording limit ..." (``cudagraph_trees``: the function then runs eagerly);
* a graph cut into partitions (``scheduler``): "Created N graph partitions: M cudagraphable, K
  non-cudagraphable", then "  Partition i: ..." and, for each node left out of CUDA graphs,
  "    opN: reason=cpu ops, ir=DeviceCopy, fx=..." followed by its stack trace, one line a record;
* a re-recording of one CUDA graph: "[0/1] Re-recording function=partition_0, mode=INFERENCE,
  reason=..." (torch 2.13; 2.11 writes no ``mode=``);
* many sizes of a dynamic graph: "CUDAGraph supports dynamic shapes by recording a new graph for
  each distinct input size. ... We have observed N distinct sizes. ...".

The functions here turn those texts into data; which lines are the user's is the caller's call.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

_SKIP = re.compile(r"skipping cudagraphs? due to ")
_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
_CREATED = re.compile(r"Created (?P<total>\d+) graph partitions: (?P<cuda>\d+) cudagraphable")
_NODE_REASON = re.compile(r"^\s*\S+: reason=(?P<reason>[^,]+)(?:, ir=(?P<ir>\w+))?")
_RERECORD = re.compile(
    r"^\[(?P<compile_id>[^\]]*)\] Re-recording function=(?P<function>[^,]+),"
    r"(?: mode=(?P<mode>\w+),)? reason=(?P<reason>.*)",
    re.S,
)
_SIZES = re.compile(
    r"CUDAGraph supports dynamic shapes by recording a new graph for each distinct input size"
    r".*?observed (?P<sizes>\d+) distinct sizes",
    re.S,
)
_LIMIT = re.compile(
    r"skipping cudagraph due to function \S+ exceeding max re-recording limit \(=(?P<limit>\d+)\)"
    r".*? due to (?P<reason>.*)",
    re.S,
)


def is_skip(message: str) -> bool:
    """Whether a log text says inductor runs a graph (or a function) without a CUDA graph."""
    return bool(_SKIP.search(message))


def skip_reason(message: str) -> str:
    """The reason of a skip text, in inductor's words, without its trace ("cpu device (device_put)")."""
    limit = _LIMIT.search(message)
    if limit:
        why = re.split(r"\n", limit.group("reason").strip(), maxsplit=1)[0].strip().rstrip(".")
        return f"re-recording more than cudagraph_unexpected_rerecord_limit ({limit.group('limit')}) times" + (
            f" ({why})" if why else ""
        )
    text = message
    while _SKIP.search(text):  # inductor sometimes says it twice
        text = _SKIP.split(text, maxsplit=1)[1]
    text = re.split(r"\.\s*Found from|\n", text.strip(), maxsplit=1)[0]
    return text.strip().rstrip(".") or "an unnamed reason"


def frames_in(text: str | None) -> list[tuple[str, int]]:
    """Every ``File "...", line N`` of a stack trace, outermost first."""
    return [(m.group("file"), int(m.group("line"))) for m in _FRAME.finditer(text or "")]


def is_partition_text(message: str) -> bool:
    """Whether a ``cudagraphs`` log text belongs to inductor's partition log (a graph's block)."""
    return bool(
        _CREATED.search(message)
        or _NODE_REASON.match(message)
        or message.lstrip().startswith(("Partition ", "File "))
        or _FRAME.search(message)
    )


@dataclasses.dataclass
class LeftOut:
    """One node inductor runs outside CUDA graphs: why, its IR kind, its stack trace."""

    reason: str
    ir: str
    trace: str = ""

    @property
    def copies(self) -> bool:
        return self.ir == "DeviceCopy"

    @property
    def why(self) -> str:
        return "copies between host and GPU" if self.copies else "runs on the CPU"


@dataclasses.dataclass
class Partitions:
    """One graph's partition log: CUDA-graph pieces, what is left out, and whether it costs."""

    pieces: int | None = None
    nodes: list[LeftOut] = dataclasses.field(default_factory=list)

    @property
    def kinds(self) -> list[str]:
        out: list[str] = []
        for node in self.nodes:
            kind = "device copies" if node.copies else node.reason.replace("cpu ops", "CPU kernels")
            if kind not in out:
                out.append(kind)
        return out

    @property
    def reason(self) -> str:
        return " and ".join(self.kinds) or "host work"

    @property
    def cpu_work(self) -> bool:
        return any(not n.copies for n in self.nodes)

    def costs(self, has_sites: bool) -> bool:
        """Worth reporting: cut in two or more CUDA graphs (a host round trip), or CPU kernels
        run eagerly on every call at lines we can name. A lone copy to the host that inductor
        moved to the end costs the wait, not a CUDA graph."""
        return (self.pieces is not None and self.pieces >= 2) or (self.cpu_work and has_sites)


def parse_partitions(messages: Sequence[str], partition_count: int = 0) -> Partitions:
    """The partition log of one graph (its messages in order). ``partition_count``: inductor's
    ``cudagraph_partitions`` counter for it, used where this torch logs no partitions."""
    out = Partitions()
    node: LeftOut | None = None
    for message in messages:
        created = _CREATED.search(message)
        found = _NODE_REASON.match(message)
        if created:
            out.pieces = int(created.group("cuda"))
        if found:
            node = LeftOut(found.group("reason").strip(), found.group("ir") or "")
            out.nodes.append(node)
        elif node is not None and _FRAME.search(message):
            node.trace += message + "\n"
    if out.pieces is None and partition_count > 2:
        out.pieces = (partition_count + 1) // 2  # GPU pieces alternate with host pieces
    return out


def rerecord(message: str) -> tuple[str, str, str] | None:
    """(compile id, function, reason) of a "Re-recording function=..." text, else None."""
    m = _RERECORD.match(message.strip())
    if not m:
        return None
    return m.group("compile_id"), m.group("function").strip(), m.group("reason").strip()


def distinct_sizes(message: str) -> int | None:
    """N of inductor's "We have observed N distinct sizes" warning, else None."""
    m = _SIZES.search(message)
    return int(m.group("sizes")) if m else None
