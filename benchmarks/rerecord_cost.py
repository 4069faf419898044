"""What CUDA-graph re-recording costs a `reduce-overhead` service, reported against measured latency.

A small encoder compiled with ``mode="reduce-overhead"`` serves requests whose lengths vary
(drawn from ``--sizes`` distinct lengths, new ones keep arriving), then the same requests padded
to one fixed length (the fix: one shape, one CUDA graph, replayed). For each variant, after a
warm-up, every call is timed (synchronised): P50, P95 and the mean per call, over the same
requests in the same process. Then ``torchlint run --format json`` runs the varying service and
its report's CUDA-graph findings are printed with what they say each re-recording costs
(``occurrence_ms``) and how often it happens (``per_1000_calls``), beside the measured
difference of the mean per call between the two variants.

    python benchmarks/rerecord_cost.py [--calls 400] [--sizes 48] [--device cuda]

Needs a CUDA GPU for CUDA graphs (on a CPU it still runs, without them, as a check of the
plumbing). Prints a Markdown table and one line per torchlint finding.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

SERVICE = r"""
import json, random, statistics, sys, time
import torch

variant, calls, sizes, device, warmup = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
torch.manual_seed(0)
MAX = 256


class Encoder(torch.nn.Module):
    def __init__(self, dim=256, layers=4):
        super().__init__()
        self.embed = torch.nn.Embedding(1000, dim)
        layer = torch.nn.TransformerEncoderLayer(dim, 4, dim * 2, batch_first=True, dropout=0.0)
        self.encoder = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = torch.nn.Linear(dim, 8)

    def forward(self, ids, mask):
        h = self.encoder(self.embed(ids), src_key_padding_mask=mask)
        keep = (~mask).unsqueeze(-1).to(h.dtype)
        return self.head((h * keep).sum(1) / keep.sum(1).clamp(min=1))


model = Encoder().to(device).eval()
serve = torch.compile(model, mode="reduce-overhead")
rng = random.Random(0)
lengths = [rng.choice(range(MAX // sizes, MAX + 1, MAX // sizes)) for _ in range(warmup + calls)]


def request(n):
    ids = torch.randint(0, 1000, (4, n), device=device)
    mask = torch.zeros(4, n, dtype=torch.bool, device=device)
    if variant == "fixed":  # padded to one length: one shape, one CUDA graph
        ids = torch.nn.functional.pad(ids, (0, MAX - n))
        mask = torch.nn.functional.pad(mask, (0, MAX - n), value=True)
    return ids, mask


def sync():
    if device == "cuda":
        torch.cuda.synchronize()


times = []
with torch.no_grad():
    for i, n in enumerate(lengths):
        ids, mask = request(n)
        sync()
        t0 = time.perf_counter()
        out = serve(ids, mask)
        sync()
        if i >= warmup:
            times.append((time.perf_counter() - t0) * 1000)
times.sort()
print(json.dumps({"variant": variant, "p50": times[len(times) // 2], "p95": times[int(len(times) * 0.95)],
                  "mean": statistics.fmean(times), "calls": len(times)}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--sizes", type=int, default=48, help="how many distinct request lengths")
    parser.add_argument("--warmup", type=int, default=40)
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="rerecord-")
    program = os.path.join(folder, "service.py")
    with open(program, "w", encoding="utf-8") as f:
        f.write(SERVICE)
    argv = [str(args.calls), str(args.sizes), args.device, str(args.warmup)]
    rows = {}
    for variant in ("varying", "fixed"):
        out = subprocess.run(
            [sys.executable, program, variant, *argv], capture_output=True, text=True, cwd=folder, check=False
        )
        if out.returncode != 0:
            print(f"{variant}: failed\n{out.stderr[-2000:]}", file=sys.stderr)
            return 1
        rows[variant] = json.loads(out.stdout.strip().splitlines()[-1])
    print("| requests | P50 ms | P95 ms | mean ms |")
    print("|---|---|---|---|")
    for variant, r in rows.items():
        print(f"| {variant} lengths | {r['p50']:.2f} | {r['p95']:.2f} | {r['mean']:.2f} |")
    measured = rows["varying"]["mean"] - rows["fixed"]["mean"]
    print(f"\nmeasured: varying lengths cost {measured:.2f} ms per call more than fixed (mean)")

    report_path = os.path.join(folder, "report.json")
    run = subprocess.run(
        [sys.executable, "-m", "torchlint", "run", "--no-static", "--format", "json", "-o", report_path,
         "--", sys.executable, program, "varying", *argv],
        capture_output=True, text=True, cwd=folder, check=False,
    )  # fmt: skip
    if not os.path.exists(report_path):
        print(f"torchlint run failed (exit {run.returncode}):\n{run.stderr[-2000:]}", file=sys.stderr)
        return 1
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)
    reported = 0.0
    for finding in report["findings"]:
        occurrence, rate = finding.get("occurrence_ms"), finding.get("per_1000_calls")
        if occurrence is not None and rate is not None:
            reported += occurrence * rate / 1000
        print(
            f"torchlint: {finding['name']} {finding['path']}:{finding['line']}"
            f" occurrence_ms={occurrence} per_1000_calls={rate} cost_ms={finding.get('cost_ms')}"
            f" : {finding['message'][:160]}"
        )
    print(f"reported: re-recordings and recompiles cost {reported:.2f} ms per call on average")
    if measured > 0:
        print(f"ratio reported/measured: {reported / measured:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
