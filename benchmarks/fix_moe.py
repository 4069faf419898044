"""The mixture-of-experts and state fixes on real library code: transformers models, before and after.

Copies the installed ``transformers`` package to a temporary folder, runs
``torchlint check --no-dynamic --fix --unsafe-fixes`` over the model folders of the models
below (and checks that a second ``--fix`` changes nothing and every fixed file parses), then
builds each model from a tiny config (random weights, nothing downloaded) once from the
installed package and once from the fixed copy, with the same weights (state dict), each in
its own process, and reports per model and mode (eval; train with dropout off, then a
backward): dynamo's breaks (the larger of the distinct break sites and explain's graphs - 1,
torch's default settings), whether the outputs (and in training the gradients) are equal
(rtol 1e-4, atol 1e-5, no NaN), and the eager and compiled (``aot_eager``) time per call.

    python benchmarks/fix_moe.py [MODEL ...]      # default: every model below
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name -> (config class, model class, config values); sparse layers in every tiny model
MODELS: dict[str, tuple[str, str, dict]] = {
    "switch_transformers": (
        "SwitchTransformersConfig",
        "SwitchTransformersModel",
        dict(
            vocab_size=100,
            d_model=32,
            d_kv=16,
            d_ff=64,
            num_layers=2,
            num_decoder_layers=2,
            num_heads=2,
            num_experts=4,
            num_sparse_encoder_layers=1,
            num_sparse_decoder_layers=1,
            decoder_start_token_id=0,
            expert_capacity=8,
        ),
    ),
    "nllb_moe": (
        "NllbMoeConfig",
        "NllbMoeModel",
        dict(
            vocab_size=100,
            d_model=32,
            encoder_layers=2,
            decoder_layers=2,
            encoder_attention_heads=2,
            decoder_attention_heads=2,
            encoder_ffn_dim=64,
            decoder_ffn_dim=64,
            num_experts=4,
            expert_capacity=8,
            encoder_sparse_step=2,
            decoder_sparse_step=2,
            layerdrop=0.0,
        ),
    ),
    # not a mixture of experts: its positional table is converted and stored on every call
    "ctrl": ("CTRLConfig", "CTRLModel", dict(vocab_size=100, n_embd=32, n_layer=2, n_head=2, dff=64)),
}
ENCODER_ONLY = {"ctrl"}


def _inputs(name: str):
    import torch

    g = torch.Generator().manual_seed(16)
    ids = torch.randint(3, 100, (2, 16), generator=g)
    call = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    return call if name in ENCODER_ONLY else {**call, "decoder_input_ids": ids.flip(1)}


def child(root: str, name: str, mode: str, out: str) -> None:
    """Build ``name`` from ``root`` ('-': the installed package), measure, save outputs."""
    if root != "-":
        sys.path.insert(0, root)
    sys.path.insert(0, REPO)
    warnings.simplefilter("ignore")
    import torch
    import transformers

    from torchlint.dynamic.observe import observe

    config_name, model_name, values = MODELS[name]
    torch.manual_seed(0)
    model = getattr(transformers, model_name)(getattr(transformers, config_name)(**values))
    weights = os.path.join(out, f"{name}.weights.pt")
    if os.path.exists(weights):
        model.load_state_dict(torch.load(weights), strict=True)
    else:
        torch.save(model.state_dict(), weights)
    train = mode == "train"
    model.train(train)
    if train:  # random draws follow shapes: dropout off, so gradients can be compared
        for module in model.modules():
            if isinstance(module, torch.nn.Dropout):
                module.p = 0.0
    kwargs = _inputs(name)

    def call(fn):
        torch.manual_seed(1)
        with torch.enable_grad() if train else torch.no_grad():
            y = fn(**kwargs).last_hidden_state
            if train:
                y.float().pow(2).sum().backward()
        return y

    y = call(model)
    grads = {k: p.grad.clone() for k, p in model.named_parameters() if p.grad is not None}
    model.zero_grad(set_to_none=True)

    def per_call(fn) -> float:
        times = []
        for _ in range(5):
            start = time.perf_counter()
            call(fn)
            times.append(time.perf_counter() - start)
        model.zero_grad(set_to_none=True)
        return statistics.median(times)

    eager = per_call(model)
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="aot_eager")
    call(compiled)  # compile
    compiled_time = per_call(compiled)
    package = os.path.dirname(transformers.__file__)
    files = set(glob.glob(os.path.join(package, "**", "*.py"), recursive=True))
    obs = observe(model, [()], kwarg_sets=[kwargs], user_files=files, train=train)
    sites = [f"{os.path.relpath(b.path, package) if b.path else '?'}:{b.line}" for b in obs.breaks]
    torch.save(
        {"y": y.detach(), "grads": grads}, os.path.join(out, f"{name}.{mode}.{'fixed' if root != '-' else 'orig'}.pt")
    )
    print(
        json.dumps(
            {
                "breaks": max(obs.graph_breaks, obs.explain_graph_breaks),
                "sites": sites,
                "eager_ms": 1000 * eager,
                "compiled_ms": 1000 * compiled_time,
            }
        )
    )


def _run_child(root: str, name: str, mode: str, out: str) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--child", root, name, mode, out], capture_output=True, text=True, timeout=1800
    )
    lines = [x for x in done.stdout.splitlines() if x.startswith("{")]
    if done.returncode or not lines:
        raise SystemExit(f"{name} {mode} ({root}) failed:\n{done.stderr[-3000:]}")
    return json.loads(lines[-1])


def _hashes(folder: str) -> dict[str, str]:
    return {
        p: hashlib.sha256(open(p, "rb").read()).hexdigest()
        for p in glob.glob(os.path.join(folder, "**", "*.py"), recursive=True)
    }


def _equal(out: str, name: str, mode: str) -> str:
    import torch

    a = torch.load(os.path.join(out, f"{name}.{mode}.orig.pt"))
    b = torch.load(os.path.join(out, f"{name}.{mode}.fixed.pt"))
    ok = not torch.isnan(b["y"]).any() and torch.allclose(a["y"], b["y"], rtol=1e-4, atol=1e-5)
    text = "outputs equal" if ok else f"OUTPUTS DIFFER (max {float((a['y'] - b['y']).abs().max()):.2e})"
    if mode == "train":
        differ = [
            k
            for k in sorted(set(a["grads"]) | set(b["grads"]))
            if not torch.allclose(
                a["grads"].get(k, torch.zeros_like(b["grads"].get(k, torch.zeros(())))),
                b["grads"].get(k, torch.zeros_like(a["grads"].get(k, torch.zeros(())))),
                rtol=1e-4,
                atol=1e-5,
            )
        ]
        text += f", grads {len(a['grads']) - len(differ)}/{len(a['grads'])} equal" + (
            f" (differ: {', '.join(differ)})" if differ else ""
        )
    return text


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        child(*argv[1:5])
        return 0
    import transformers

    names = argv or list(MODELS)
    work = tempfile.mkdtemp(prefix="torchlint_fix_moe_")
    root, out = os.path.join(work, "site"), os.path.join(work, "out")
    os.makedirs(out)
    shutil.copytree(
        os.path.dirname(transformers.__file__),
        os.path.join(root, "transformers"),
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    folders = [os.path.join(root, "transformers", "models", n) for n in names]
    torchlint = [sys.executable, "-m", "torchlint", "check", "--no-dynamic", "--fix", "--unsafe-fixes", *folders]
    subprocess.run(torchlint, capture_output=True, cwd=work)
    first = _hashes(os.path.join(root, "transformers", "models"))
    subprocess.run(torchlint, capture_output=True, cwd=work)
    again = _hashes(os.path.join(root, "transformers", "models"))
    for path in first:
        compile(open(path, encoding="utf-8").read(), path, "exec")
    print(f"fixed copy: {root}; second --fix changes nothing: {first == again}; every file parses")
    total = [0, 0]
    for name in names:
        for mode in ("eval", "train"):
            before = _run_child("-", name, mode, out)
            after = _run_child(root, name, mode, out)
            total[0] += before["breaks"]
            total[1] += after["breaks"]
            print(
                f"{name:20s} {mode:5s} breaks {before['breaks']:3d} -> {after['breaks']:3d}  "
                f"{_equal(out, name, mode)}; eager {before['eager_ms']:.1f} -> {after['eager_ms']:.1f} ms, "
                f"compiled (aot_eager) {before['compiled_ms']:.1f} -> {after['compiled_ms']:.1f} ms per call"
            )
            if after["sites"]:
                print(f"    left: {', '.join(sorted(set(after['sites'])))}")
    print(f"total breaks {total[0]} -> {total[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
