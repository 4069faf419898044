"""Overhead of ``torchlint run``: a compiled training loop, plain and under the observer.

The program (written to a temporary folder) trains a small transformer encoder (2 layers,
d_model 64, 4 heads, batch 8 x 32 tokens, one CPU thread) with AdamW for ``--warmup`` steps, which compile,
then times ``--steps`` more steps (the compiled loop) and prints them. Each round runs it
plainly (``python train.py``) and as ``torchlint run --no-static train.py``, in alternating
order, so both see the same machine load; the inductor cache is warmed by one untimed run
first. Prints per-round figures, the medians and the ratios: the compiled steps must stay
within 1.10x, the whole process (start, compile, steps, exit, and for torchlint its report)
is shown too.

    .venv/bin/python benchmarks/run.py [--rounds 5] [--steps 50] [--backend inductor]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

PROGRAM = r"""
import json, sys, time
import torch

torch.manual_seed(0)
torch.set_num_threads(1)  # one core: steadier figures on a shared machine
steps, warmup, backend = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True, dropout=0.0)
model = torch.nn.Sequential(torch.nn.Embedding(1000, 64), torch.nn.TransformerEncoder(layer, num_layers=2),
                            torch.nn.Linear(64, 1000))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
compiled = torch.compile(model, backend=backend)
data = [torch.randint(0, 1000, (8, 32)) for _ in range(8)]

def step(i):
    ids = data[i % len(data)]
    logits = compiled(ids)
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 1000), ids.reshape(-1))
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss

for i in range(warmup):
    step(i)
start, cpu = time.perf_counter(), time.process_time()
for i in range(steps):
    loss = step(i)
float(loss)
print("BENCH " + json.dumps({"steps_s": time.perf_counter() - start, "cpu_s": time.process_time() - cpu}), flush=True)
"""


def run_once(cmd, cwd):
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - started
    line = next((out for out in done.stdout.splitlines() if out.startswith("BENCH ")), None)
    if line is None:
        raise SystemExit(f"benchmark program failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    data = json.loads(line[6:])
    return data["steps_s"], data["cpu_s"], wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--backend", default="inductor")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="torchlint_bench_run_")
    with open(os.path.join(folder, "train.py"), "w") as handle:
        handle.write(PROGRAM)
    prog = ["train.py", str(args.steps), str(args.warmup), args.backend]
    plain = [sys.executable] + prog
    watched = [sys.executable, "-m", "torchlint", "run", "--no-static", "--exit-zero", "-q"] + prog
    run_once(plain, folder)  # warm the inductor cache: both sides then load compiled graphs from it
    rows = {"plain": [], "torchlint run": []}
    for r in range(args.rounds):
        order = [("plain", plain), ("torchlint run", watched)]
        if r % 2:
            order.reverse()
        for name, cmd in order:
            steps_s, cpu_s, wall = run_once(cmd, folder)
            rows[name].append((steps_s, cpu_s, wall))
            print(
                f"round {r + 1} {name:14s} {args.steps} compiled steps {steps_s:7.3f} s wall "
                f"{cpu_s:7.3f} s CPU   process {wall:7.2f} s",
                flush=True,
            )
    print(f"\nmedian of {args.rounds} (backend {args.backend}, torch {_torch_version()}):")
    med = {}
    for name, values in rows.items():
        med[name] = [statistics.median(v[i] for v in values) for i in range(3)]
        print(
            f"  {name:14s} {args.steps} compiled steps {med[name][0]:7.3f} s wall {med[name][1]:7.3f} s CPU"
            f"   process {med[name][2]:7.2f} s"
        )
    ratio = med["torchlint run"][0] / med["plain"][0]
    paired = statistics.median(w[0] / p[0] for w, p in zip(rows["torchlint run"], rows["plain"]))
    print(
        f"compiled steps, wall: torchlint run / plain = {ratio:.3f}x of the medians, {paired:.3f}x median of "
        f"the rounds' pairs (bar: at most 1.10x) {'OK' if max(ratio, paired) <= 1.10 else 'OVER'}"
    )
    print(f"compiled steps, CPU:  torchlint run / plain = {med['torchlint run'][1] / med['plain'][1]:.3f}x")
    print(f"whole process, wall:  torchlint run / plain = {med['torchlint run'][2] / med['plain'][2]:.3f}x")


def _torch_version() -> str:
    out = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True
    )
    return out.stdout.strip()


if __name__ == "__main__":
    main()
