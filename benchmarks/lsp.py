"""Latency of `torchlint server`: time from a didChange to the publishDiagnostics of that version.

    python benchmarks/lsp.py [--lines 1000] [--edits 40] [--debounce 50]

Starts the real server process (``python -m torchlint server``) with a real LSP client
(pygls), opens a generated model file of about ``--lines`` lines (many nn.Module classes,
one ``.item()`` in each forward), then makes ``--edits`` edits the way an editor sends them
(incremental changes, one at a time, each waiting for its diagnostics): in a forward in the
middle of the file, alternately removing or restoring its ``.item()`` and inserting a line
(so every version is new text and the lines below move). Each latency runs from sending the
didChange to receiving the publishDiagnostics for that version, so it holds the debounce,
the server's scheduling, the lint, serialising the diagnostics and the transport. Prints the
median, p90 and worst, the server's own lint time, the debounce, the load average, and the
target (300 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

TARGET_MS = 300.0

BLOCK = '''

class Block{k}(nn.Module):
    """Block {k}: a residual MLP with a gate."""

    def __init__(self, width: int = 64) -> None:
        super().__init__()
        self.fc1 = nn.Linear(width, width * 2)
        self.fc2 = nn.Linear(width * 2, width)
        self.norm = nn.LayerNorm(width)
        self.scale = nn.Parameter(torch.ones(width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(x)
        h = torch.relu(self.fc1(h))
        h = self.fc2(h) * self.scale
        gate = torch.sigmoid(h.mean(dim=-1, keepdim=True))
        y = x + gate * h
        return y / y.abs().max().item()
'''


def model_source(lines: int) -> str:
    out = ["import torch", "import torch.nn as nn", ""]
    k = 0
    while sum(s.count("\n") + 1 for s in out) < lines:
        out.append(BLOCK.format(k=k))
        k += 1
    return "\n".join(out)


async def run(lines: int, edits: int, debounce: float) -> None:
    text = model_source(lines)
    n_lines = text.count("\n") + 1
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.py"
        path.write_text(text)
        uri = path.as_uri()
        client = LanguageClient("bench", "1")
        published: dict = {}
        got = asyncio.Event()

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            published[params.version] = (time.perf_counter(), len(params.diagnostics))
            got.set()

        async def wait_for(version: int) -> None:
            while version not in published:
                got.clear()
                await asyncio.wait_for(got.wait(), 60)

        await client.start_io(sys.executable, "-m", "torchlint", "server", "--debounce", str(debounce))
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                root_uri=Path(tmp).as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=Path(tmp).as_uri(), name="bench")],
            )
        )
        client.initialized(types.InitializedParams())
        t0 = time.perf_counter()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
            )
        )
        await wait_for(1)
        first_ms = (published[1][0] - t0) * 1000
        counts = {1: published[1][1]}
        latencies = []
        for k in range(edits):
            version = k + 2
            change, text = edit(text, k)
            start = time.perf_counter()
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[change],
                )
            )
            await wait_for(version)
            latencies.append((published[version][0] - start) * 1000)
            counts[version] = published[version][1]
        stats = await client.protocol.send_request_async("torchlint/stats", None)
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    load_after = os.getloadavg()
    lint_ms = list(_stat(stats, "lint_ms"))[1:]  # the edits' runs
    cpu_ms = list(_stat(stats, "lint_cpu_ms"))[1:]
    runs = _stat(stats, "lint_runs")
    med, p90, worst = statistics.median(latencies), _p90(latencies), max(latencies)
    print(
        f"model file: {n_lines} lines, {counts[1]} findings on open (first diagnostics {first_ms:.0f} ms "
        "after didOpen, with every statement parsed; imports already loaded)"
    )
    print(
        f"change -> diagnostics over {edits} edits, debounce {debounce:.0f} ms: median {med:.0f} ms, "
        f"p90 {p90:.0f} ms, worst {worst:.0f} ms"
    )
    if lint_ms:
        print(
            f"  of which the server's lint (project facts, parse of the changed statements, rules, "
            f"positions): median {statistics.median(lint_ms):.0f} ms, p90 {_p90(lint_ms):.0f} ms; "
            f"the debounce {debounce:.0f} ms; the rest (scheduling, JSON, pipe) ~"
            f"{max(0.0, med - statistics.median(lint_ms) - debounce):.0f} ms"
        )
        print(
            f"  CPU time of the server per lint: median {statistics.median(cpu_ms):.0f} ms, p90 "
            f"{_p90(cpu_ms):.0f} ms (on an idle core the lint takes about this long)"
        )
    print(f"findings after edits alternate {sorted(set(counts.values()))}; lint runs: {runs} for {edits + 1} versions")
    print(f"load average (1 min) {load_before[0]:.2f} before, {load_after[0]:.2f} after, on {os.cpu_count()} cores")
    print(
        f"target {TARGET_MS:.0f} ms: median {'met' if med <= TARGET_MS else 'NOT met'} "
        f"({med / TARGET_MS:.2f}x of target), p90 {'met' if p90 <= TARGET_MS else 'NOT met'}"
    )


def _stat(stats, key: str):
    return stats.get(key) if isinstance(stats, dict) else getattr(stats, key)


def _p90(values) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]


def edit(text: str, k: int):
    """The ``k``-th edit, in the forward of the middle block: (the LSP change, the new text)."""
    lines = text.split("\n")
    middle = text.count("class Block") // 2
    head = next(i for i, line in enumerate(lines) if line.startswith(f"class Block{middle}("))
    ret = next(i for i in range(head, len(lines)) if "return y / y.abs().max()" in lines[i])
    if k % 2 == 0:  # remove the `.item()`, or put it back
        line = lines[ret]
        if line.endswith(".item()"):
            at = len(line) - len(".item()")
            rng, new = (
                types.Range(
                    start=types.Position(line=ret, character=at), end=types.Position(line=ret, character=len(line))
                ),
                "",
            )
        else:
            rng, new = (
                types.Range(
                    start=types.Position(line=ret, character=len(line)),
                    end=types.Position(line=ret, character=len(line)),
                ),
                ".item()",
            )
    else:  # a new line below `h = self.norm(x)`: every line under it moves down
        norm = next(i for i in range(head, ret) if "h = self.norm(x)" in lines[i])
        rng, new = (
            types.Range(
                start=types.Position(line=norm + 1, character=0), end=types.Position(line=norm + 1, character=0)
            ),
            f"        h = h * {k}\n",
        )
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    lo = starts[rng.start.line] + rng.start.character
    hi = starts[rng.end.line] + rng.end.character
    return types.TextDocumentContentChangePartial(range=rng, text=new), text[:lo] + new + text[hi:]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--edits", type=int, default=40)
    ap.add_argument("--debounce", type=float, default=50.0, help="the server's --debounce, in ms")
    args = ap.parse_args()
    asyncio.run(run(args.lines, args.edits, args.debounce))


if __name__ == "__main__":
    main()
