"""Latency of `torchlint server`: time from a didChange to its publishDiagnostics.

    python benchmarks/lsp.py [--lines 1000] [--edits 20] [--debounce 100]

Starts the real server process (``python -m torchlint server``) with a real LSP client
(pygls), opens a generated model file of about ``--lines`` lines (many nn.Module classes,
one ``.item()`` in each forward), then makes ``--edits`` edits, one at a time, each toggling
a break in the last forward, and waits for the diagnostics of that version. Prints the
median and worst latency, the part of it that is the debounce, and the target (300 ms).
"""
from __future__ import annotations

import argparse
import asyncio
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
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.py"
        uri = path.as_uri()
        client = LanguageClient("bench", "1")
        published: dict = {}
        got = asyncio.Event()

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            published[params.version] = (time.perf_counter(), len(params.diagnostics))
            got.set()

        await client.start_io(sys.executable, "-m", "torchlint", "server", "--debounce", str(debounce))
        await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                             root_uri=Path(tmp).as_uri()))
        client.initialized(types.InitializedParams())
        t0 = time.perf_counter()
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
        while 1 not in published:
            got.clear()
            await asyncio.wait_for(got.wait(), 60)
        first_ms = (published[1][0] - t0) * 1000
        counts = {1: published[1][1]}
        latencies = []
        for k in range(edits):
            version = k + 2
            if k % 2 == 0:  # drop the last `.item()` ...
                new = text[: text.rindex(".item()")] + text[text.rindex(".item()") + len(".item()"):]
            else:  # ... and put it back
                new = text
            start = time.perf_counter()
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=new)]))
            while version not in published:
                got.clear()
                await asyncio.wait_for(got.wait(), 60)
            latencies.append((published[version][0] - start) * 1000)
            counts[version] = published[version][1]
        runs = await client.protocol.send_request_async("torchlint/stats", None)
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    med, worst = statistics.median(latencies), max(latencies)
    print(f"model file: {n_lines} lines, {counts[1]} findings on open (first diagnostics {first_ms:.0f} ms "
          "after didOpen, imports already loaded)")
    print(f"change -> diagnostics over {edits} edits: median {med:.0f} ms, worst {worst:.0f} ms "
          f"(of which {debounce:.0f} ms is the debounce; lint alone ~{med - debounce:.0f} ms)")
    print(f"findings after edits alternate {sorted(set(counts.values()))}; lint runs: "
          f"{getattr(runs, 'lint_runs', runs)}")
    print(f"target {TARGET_MS:.0f} ms: median {'met' if med <= TARGET_MS else 'NOT met'} "
          f"({med / TARGET_MS:.2f}x of target), worst {'met' if worst <= TARGET_MS else 'NOT met'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--debounce", type=float, default=100.0, help="the server's --debounce, in ms")
    args = ap.parse_args()
    asyncio.run(run(args.lines, args.edits, args.debounce))


if __name__ == "__main__":
    main()
