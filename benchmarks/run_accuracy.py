"""``torchlint run`` against ``TORCH_LOGS=graph_breaks,recompiles`` on real programs.

Each program is written to a temporary folder and run twice: plainly with
``TORCH_LOGS=graph_breaks,recompiles`` (what PyTorch itself records: every "Graph break in
user code at FILE:LINE" and every "Recompiling function") and as ``torchlint run --format
json``. The distinct break sites must be equal (a break inside an installed library counts
when the report names that library line) and so must the recompile counts; no reported site
may be torch's or torchlint's file. Programs:

* ``hf_train``: a Hugging Face XLM language model on a tiny config (built locally, nothing
  from the hub), trained with ``backend="aot_eager"`` on batches whose sequence length changes;
* ``cnn_infer``: a CNN inference script under ``torch.compile`` (inductor) whose DataLoader
  (two worker processes) ends on a short batch;
* ``package``: a multi-file package's ``train.py`` whose model calls into an installed library.

    .venv/bin/python benchmarks/run_accuracy.py [--only hf_train,cnn_infer,package]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time

PROGRAMS = {
    "hf_train": {
        "train.py": """
            import torch
            from transformers import XLMConfig, XLMWithLMHeadModel

            torch.manual_seed(0)
            config = XLMConfig(vocab_size=100, emb_dim=32, n_layers=2, n_heads=2, max_position_embeddings=64)
            model = XLMWithLMHeadModel(config)
            model.train()
            opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
            step = torch.compile(model, backend="aot_eager")
            for seq in [8, 8, 12, 16, 12, 20]:
                ids = torch.randint(0, 100, (2, seq))
                out = step(input_ids=ids, labels=ids)
                out.loss.backward()
                opt.step()
                opt.zero_grad()
            print("trained")
        """,
    },
    "cnn_infer": {
        "infer.py": """
            import torch
            from torch import nn
            from torch.utils.data import DataLoader, TensorDataset


            class CNN(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.features = nn.Sequential(
                        nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
                    self.head = nn.Linear(16, 10)

                def forward(self, x):
                    logits = self.head(self.features(x).flatten(1))
                    if logits.abs().max() > 100:  # a guard on the values: a graph break
                        logits = logits / 100
                    return logits


            if __name__ == "__main__":
                torch.manual_seed(0)
                model = torch.compile(CNN().eval())
                images = TensorDataset(torch.randn(10, 3, 32, 32))
                loader = DataLoader(images, batch_size=4, num_workers=2)  # batches of 4, 4 and 2
                with torch.no_grad():
                    for (x,) in loader:
                        print(model(x).argmax(1).tolist())
        """,
    },
    "package": {
        "site-packages/fakelib/__init__.py": "",
        "site-packages/fakelib/ops.py": """
            def normalize(h):
                print("normalizing")
                return h / 2
        """,
        "proj/pkg/__init__.py": "",
        "proj/pkg/layers.py": """
            import torch


            class Block(torch.nn.Module):
                def forward(self, x):
                    y = x * 2
                    if y.sum() > 0:
                        y = y + 1
                    return y
        """,
        "proj/pkg/model.py": """
            import torch
            from fakelib.ops import normalize

            from pkg.layers import Block


            class Net(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.block = Block()

                def forward(self, x):
                    h = self.block(x)
                    h = normalize(h)
                    return h.sum()
        """,
        "proj/train.py": """
            import torch

            from pkg.model import Net

            torch.manual_seed(0)
            net = torch.compile(Net(), backend="eager")
            for n in (4, 4, 6, 8):
                net(torch.randn(2, n))
            print("trained")
        """,
    },
}
COMMANDS = {"hf_train": ("", "train.py"), "cnn_infer": ("", "infer.py"), "package": ("proj", "train.py")}
_SITE = re.compile(r"in user code at (?P<file>.+?):(?P<line>\d+)\s*$", re.M)


def shown(path: str, line: int, cwd: str) -> str:
    real = os.path.realpath(path)
    if f"{os.sep}site-packages{os.sep}" in real:
        return f"{real.split('site-packages' + os.sep, 1)[1]}:{line}"
    return f"{os.path.relpath(real, os.path.realpath(cwd))}:{line}"


def compare(name: str) -> bool:
    folder = tempfile.mkdtemp(prefix=f"torchlint_acc_{name}_")
    for rel, text in PROGRAMS[name].items():
        path = os.path.join(folder, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as handle:
            handle.write(textwrap.dedent(text).lstrip("\n"))
    sub, script = COMMANDS[name]
    cwd = os.path.join(folder, sub)
    env = dict(os.environ)
    if os.path.isdir(os.path.join(folder, "site-packages")):
        env["PYTHONPATH"] = os.path.join(folder, "site-packages")
    started = time.perf_counter()
    plain = subprocess.run(
        [sys.executable, script],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=dict(env, TORCH_LOGS="graph_breaks,recompiles"),
    )
    plain_s = time.perf_counter() - started
    if plain.returncode:
        print(f"{name}: the plain run failed:\n{plain.stderr[-3000:]}")
        return False
    sites = {shown(m.group("file"), int(m.group("line")), cwd) for m in _SITE.finditer(plain.stderr)}
    recompiles = plain.stderr.count("Recompiling function ")
    out = os.path.join(folder, "report.json")
    started = time.perf_counter()
    watched = subprocess.run(
        [sys.executable, "-m", "torchlint", "run", "--format", "json", "-o", out, script],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
    )
    watched_s = time.perf_counter() - started
    if not os.path.exists(out):
        print(f"{name}: torchlint run wrote no report ({watched.returncode}):\n{watched.stderr[-3000:]}")
        return False
    report = json.load(open(out))
    found = {
        f.get("library") or f"{f['path']}:{f['line']}"
        for f in report["findings"]
        if f["source"] != "static" and f["severity"] == "error" and f["name"] != "recompile-limit"
    }
    bad_sites = [
        f["path"]
        for f in report["findings"]
        if os.path.isabs(f["path"]) or f["path"].startswith(("torch/", "torchlint/")) or "site-packages" in f["path"]
    ]
    ok = found == sites and report["summary"]["recompiles"] == recompiles and not bad_sites
    print(
        f"{name}: TORCH_LOGS {len(sites)} break sites, {recompiles} recompiles ({plain_s:.0f} s) | "
        f"torchlint run {len(found)} break sites, {report['summary']['recompiles']} recompiles "
        f"({watched_s:.0f} s) -> {'EQUAL' if ok else 'DIFFERENT'}"
    )
    for site in sorted(sites | found):
        where = (
            "both" if site in sites and site in found else ("TORCH_LOGS only" if site in sites else "torchlint only")
        )
        text = next(
            (f["message"] for f in report["findings"] if (f.get("library") or f"{f['path']}:{f['line']}") == site), ""
        )
        print(f"    {site:60s} {where:16s} {text[:150]}")
    if bad_sites:
        print(f"    sites in torch/torchlint/absolute: {bad_sites}")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(PROGRAMS))
    args = parser.parse_args()
    results = [compare(name) for name in args.only.split(",")]
    print(f"\n{sum(results)}/{len(results)} programs equal to TORCH_LOGS")
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
