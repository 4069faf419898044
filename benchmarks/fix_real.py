"""How many of dynamo's graph breaks in real library models `--fix --unsafe-fixes` removes.

Copies installed packages (``transformers`` and a few pure-Python model libraries) into a
temporary folder, runs ``torchlint check --no-dynamic --fix --unsafe-fixes`` over the copy's
model files and the shared files that hold break sites, rebuilds each model from the copy
(tiny configs, random weights, nothing downloaded, seeds fixed) and compares it with the
model built from the installed package:

    python benchmarks/fix_real.py                  # every model of MODELS (~15 min on 2 CPUs)
    python benchmarks/fix_real.py led xlm vit_pytorch.cct   # some of them
    python benchmarks/fix_real.py --heldout        # only the models kept aside (HELDOUT)
    python benchmarks/fix_real.py --census notes/census.md  # also write what dynamo breaks on

Per model, in a subprocess of its own (a crash or a hang, ``--timeout``, is that model's
result): dynamo's breaks before and after on the installed torch, counted as the larger of
``torch._dynamo.explain``'s break count and the ``graph_breaks`` log's (eval with no_grad;
``train`` the same in training mode with a backward), whether the fixed model computes the
same outputs in eval (rtol 1e-4, atol 1e-5, no NaN) and the same gradients in training (dropout off;
compared to each tensor's scale, a missing gradient as zeros), and
the time per call eagerly and compiled (``--backend``, default ``aot_eager``: inductor's
compile time on two CPUs does not fit the budget) before and after. Then: files the fix left
unparseable (must be 0) and whether a second ``--fix`` changes anything (must not).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RTOL, ATOL = 1e-4, 1e-5

# --------------------------------------------------------------------------- the models
# name -> (package, the package's files to fix (folders or files, relative to the package),
# builder expression (``lib`` is the imported package), input kind). Kinds: ``text`` (two
# rows of 16 token ids + mask), ``text2`` (the same plus decoder ids), ``ids`` (a bare token
# tensor), ``image`` (2x3x32x32), ``audio`` (1x1x320), ``seq`` (2x16x32 floats).

_HF = "transformers"


def _hf(folder: str, kind: str = "text") -> tuple[str, list[str], str, str]:
    return (_HF, [f"models/{folder}"], f"hf:{folder}", kind)


MODELS: dict[str, tuple[str, list[str], str, str]] = {
    # the nine transformers models the measurement started from (configs of benchmarks/hf)
    "longformer": _hf("longformer"),
    "reformer": _hf("reformer"),
    "xlm": _hf("xlm"),
    "ctrl": _hf("ctrl"),
    "led": _hf("led", "text2"),
    "switch_transformers": _hf("switch_transformers", "text2"),
    "nllb_moe": _hf("nllb_moe", "text2"),
    "encodec": _hf("encodec", "audio"),
    "big_bird": _hf("big_bird"),
    # mixture-of-experts and other models that break
    "mixtral": _hf("mixtral"),
    "qwen2_moe": _hf("qwen2_moe"),
    "olmoe": _hf("olmoe"),
    "funnel": _hf("funnel"),
    "mra": _hf("mra"),
    "sew_d": _hf("sew_d", "wave"),
    "wav2vec2": _hf("wav2vec2", "wave"),
    "mimi": _hf("mimi", "audio"),
    # other libraries
    "routing_transformer": (
        "routing_transformer",
        ["."],
        "lib.RoutingTransformerLM(num_tokens=100, dim=32, depth=2, max_seq_len=16, heads=2, window_size=4,"
        " n_local_attn_heads=1, causal=True)",
        "ids",
    ),
    "vector_quantize.vq": ("vector_quantize_pytorch", ["."], "lib.VectorQuantize(dim=32, codebook_size=16)", "seq"),
    "vector_quantize.rvq": (
        "vector_quantize_pytorch",
        ["."],
        "lib.ResidualVQ(dim=32, codebook_size=16, num_quantizers=2)",
        "seq",
    ),
    "compressive_transformer": (
        "compressive_transformer_pytorch",
        ["."],
        "lib.CompressiveTransformer(num_tokens=100, dim=32, depth=2, seq_len=16, mem_len=16, cmem_len=4, heads=2)",
        "ids",
    ),
    "mixture_of_experts": ("mixture_of_experts", ["."], "lib.MoE(dim=32, num_experts=4)", "seq"),
    "st_moe": ("st_moe_pytorch", ["."], "lib.MoE(dim=32, num_experts=4)", "seq"),
    "performer": (
        "performer_pytorch",
        ["."],
        "lib.PerformerLM(num_tokens=100, max_seq_len=16, dim=32, depth=2, heads=2, causal=True)",
        "ids",
    ),
    "reformer_pytorch": (
        "reformer_pytorch",
        ["."],
        "lib.ReformerLM(num_tokens=100, dim=32, depth=2, max_seq_len=16, heads=2, bucket_size=4, lsh_dropout=0.)",
        "ids",
    ),
}
#: kept aside: not looked at while the fixers were written, a check that they generalise
HELDOUT: list[str] = ["olmoe", "mra", "vector_quantize.rvq", "reformer_pytorch"]

_EXTRA_HF = {  # transformers models not in benchmarks/hf/hf_targets.py: (config, model, keys)
    "mixtral": ("MixtralConfig", "MixtralModel", dict(num_local_experts=4, num_experts_per_tok=2)),
    "qwen2_moe": (
        "Qwen2MoeConfig",
        "Qwen2MoeModel",
        dict(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32, shared_expert_intermediate_size=32),
    ),
    "olmoe": ("OlmoeConfig", "OlmoeModel", dict(num_experts=4, num_experts_per_tok=2)),
    "funnel": ("FunnelConfig", "FunnelBaseModel", dict(d_model=32, n_head=4, d_head=8, d_inner=64, block_sizes=[1, 1])),
    "mra": ("MraConfig", "MraModel", dict(block_per_row=2, approx_mode="sparse")),
    "sew_d": (
        "SEWDConfig",
        "SEWDModel",
        dict(conv_dim=[16, 16], conv_stride=[5, 4], conv_kernel=[10, 8], num_conv_pos_embeddings=16, squeeze_factor=1),
    ),
    "wav2vec2": (
        "Wav2Vec2Config",
        "Wav2Vec2Model",
        dict(conv_dim=[16, 16], conv_stride=[5, 4], conv_kernel=[10, 8], num_conv_pos_embeddings=16),
    ),
}
_EXTRA_HF["mimi"] = (
    "MimiConfig",
    "MimiModel",
    dict(
        hidden_size=64,
        num_filters=8,
        num_attention_heads=4,
        num_key_value_heads=4,
        head_dim=16,
        intermediate_size=128,
        codebook_size=32,
        codebook_dim=32,
        num_quantizers=4,
        num_semantic_quantizers=1,
        vector_quantization_hidden_dimension=32,
        upsample_groups=64,
    ),
)
_TINY = dict(
    vocab_size=100,
    hidden_size=32,
    intermediate_size=64,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=64,
    head_dim=8,
)


def spec(name: str) -> tuple[str, list[str], str, str]:
    """A model of MODELS, or ``auto:<type>``: any transformers model type built from the tiny
    generic config of ``hf_scan.py`` (its folder is fixed)."""
    if name.startswith("auto:"):
        from transformers.models.auto.configuration_auto import CONFIG_MAPPING

        folder = CONFIG_MAPPING[name[5:]].__module__.split(".")[2]  # transformers.models.<folder>.configuration_x
        return (_HF, [f"models/{folder}"], name, "auto")
    return MODELS[name]


# --------------------------------------------------------------------------- the worker


def _build(name: str):
    import importlib

    import torch

    package, _, expr, kind = spec(name)
    torch.manual_seed(0)
    if expr.startswith("auto:"):  # any transformers model type, as hf_scan.py builds it
        sys.path.insert(0, str(REPO / "benchmarks"))
        import hf_scan

        model = hf_scan.build(expr[5:])
        return model, ((), hf_scan.runnable_inputs(model))
    if expr.startswith("hf:"):
        folder = expr[3:]
        if folder in _EXTRA_HF:
            import inspect

            import transformers

            config_name, model_name, extra = _EXTRA_HF[folder]
            config_cls = getattr(transformers, config_name)
            known = set(inspect.signature(config_cls.__init__).parameters) | set(config_cls().to_dict())
            values = {k: v for k, v in _TINY.items() if k in known}
            values.update(extra)
            config = config_cls(**values)
            config._attn_implementation = "eager"
            model = getattr(transformers, model_name)(config)
        else:
            sys.path.insert(0, str(REPO / "benchmarks" / "hf"))
            import hf_targets

            model = hf_targets.CONFIGS[folder]()
    else:
        lib = importlib.import_module(package)
        model = eval(expr, {"lib": lib})  # the builder expressions of MODELS
    return model, _inputs(kind)


def _inputs(kind: str) -> tuple[tuple, dict]:
    import torch

    g = torch.Generator().manual_seed(7)
    if kind == "image":
        return (torch.randn(2, 3, 32, 32, generator=g),), {}
    if kind == "audio":
        return (), {"input_values": torch.randn(1, 1, 320, generator=g)}
    if kind == "wave":
        return (torch.randn(2, 1600, generator=g),), {}
    if kind == "seq":
        return (torch.randn(2, 16, 32, generator=g),), {}
    ids = torch.randint(3, 100, (2, 16), generator=g)
    if kind == "ids":
        return (ids,), {}
    call = {"input_ids": ids, "attention_mask": torch.ones(2, 16, dtype=torch.long)}
    if kind == "text2":
        call["decoder_input_ids"] = torch.randint(3, 100, (2, 16), generator=g)
    return (), call


class _Under:
    """``path in files`` for every file under the copied packages (break sites are placed on
    the library's own innermost line, not on torch's)."""

    def __init__(self, roots: list[str]) -> None:
        self.places = [os.path.realpath(r) for r in roots]

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and any(os.path.realpath(path).startswith(r + os.sep) for r in self.places)

    def __bool__(self) -> bool:
        return True


def _tensors(value: Any):
    import torch

    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors(v)
    elif hasattr(value, "to_tuple"):
        yield from _tensors(value.to_tuple())


def _seeded(fn):
    import random

    import torch

    torch.manual_seed(1)
    random.seed(1)
    return fn()


def _count(obs) -> dict[str, Any]:
    log = sum(b.seen.get("log", 0) for b in obs.breaks)
    return {"explain": obs.explain_graph_breaks, "log": log, "breaks": max(obs.explain_graph_breaks, log)}


def _time(fn, calls: int) -> float:
    fn()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def worker(name: str, root: str | None, out: str, backend: str, calls: int, modes: list[str]) -> None:
    import contextlib
    import io
    import logging
    import warnings

    if root:
        sys.path.insert(0, root)
    import torch

    from torchlint.dynamic.observe import observe

    warnings.simplefilter("ignore")
    logging.getLogger("transformers").setLevel(logging.ERROR)
    torch.set_num_threads(1)
    package = spec(name)[0]
    pkg_dir = os.path.dirname(__import__(package).__file__)
    result: dict[str, Any] = {"name": name, "package_dir": pkg_dir}
    model, (args, kwargs) = _build(name)
    files = _Under([pkg_dir])

    def call():
        return model(*args, **kwargs)

    quiet = contextlib.redirect_stdout(io.StringIO())
    with quiet:
        # eager outputs (eval) and gradients (train), the same seeds both sides
        model.eval()
        with torch.no_grad():
            outs = [t.detach().clone() for t in _tensors(_seeded(call))]
        model.train()

        # gradients are compared with dropout off: a fix that runs an expert on every token
        # (the dense mixture-of-experts dispatch) draws dropout masks over more rows, so its
        # random draws differ while the function computed is the same
        for module in model.modules():
            if isinstance(module, torch.nn.modules.dropout._DropoutNd):
                module.p = 0.0

        def gradients() -> dict[str, Any]:
            model.zero_grad(set_to_none=True)
            loss = sum(t.float().sum() for t in _tensors(_seeded(call)) if t.requires_grad)
            if isinstance(loss, torch.Tensor):
                loss.backward()
            grads = {n: p.grad.detach().clone() for n, p in model.named_parameters() if p.grad is not None}
            model.zero_grad(set_to_none=True)
            return grads

        try:
            grads, again = gradients(), gradients()
        except Exception as exc:  # noqa: BLE001 - a model that cannot train on these inputs
            # (fastspeech2 wants labels in training): its eval outputs are still compared
            grads, again = {}, {}
            result["grads_error"] = f"{type(exc).__name__}"
        # a model that reseeds from the OS in training (reformer's `torch.seed()`) differs from
        # itself: its gradients cannot be compared, which the table says instead of DIFFER
        result["grads_repeat"] = "grads_error" not in result and (
            set(grads) == set(again) and all(torch.allclose(grads[k], again[k], rtol=RTOL, atol=ATOL) for k in grads)
        )
        torch.save({"outs": outs, "grads": grads}, out + ".pt")
        for mode, train in (("eval", False), ("train", True)):
            if mode not in modes:
                continue
            try:
                obs = _seeded(lambda t=train: observe(model, [args], kwarg_sets=[kwargs], user_files=files, train=t))
            except Exception as exc:  # noqa: BLE001 - a model dynamo cannot run is a result
                result[mode] = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}"}
                continue
            model.zero_grad(set_to_none=True)
            result[mode] = _count(obs) | {
                "graphs": obs.graphs,
                "sites": [b.to_dict() | {"gb_types": sorted(b.gb_types)} for b in obs.breaks],
            }
        model.eval()
        torch._dynamo.reset()
        if calls:
            with torch.no_grad():
                result["eager_s"] = _time(call, calls)
                compiled = torch.compile(model, backend=backend)
                try:
                    result["compiled_s"] = _time(lambda: compiled(*args, **kwargs), calls)
                except Exception as exc:  # noqa: BLE001 - reported, the breaks are counted already
                    result["compiled_error"] = f"{type(exc).__name__}"
    with open(out, "w") as fh:
        json.dump(result, fh)


# --------------------------------------------------------------------------- the driver


def run_worker(name: str, root: str | None, tmp: Path, tag: str, args) -> dict[str, Any]:
    out = str(tmp / f"{tag}-{name}.json")
    cmd = [sys.executable, __file__, "--worker", name, "--out", out, "--backend", args.backend]
    cmd += ["--calls", str(0 if args.no_fix else args.calls), "--modes", ",".join(args.modes)]
    cmd += ["--root", root] if root else []
    env = dict(os.environ, PYTHONPATH=str(REPO), TRANSFORMERS_VERBOSITY="error", HF_HUB_OFFLINE="1")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"name": name, "error": f"timeout {args.timeout}s"}
    if proc.returncode != 0 or not os.path.exists(out):
        last = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {"name": name, "error": last[:160]}
    with open(out) as fh:
        return json.load(fh) | {"tensors": out + ".pt"}


def run_all(names: list[str], root: str | None, tmp: Path, tag: str, args) -> dict[str, dict[str, Any]]:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        done = dict(zip(names, pool.map(lambda n: run_worker(n, root, tmp, tag, args), names)))
    for n, r in done.items():
        counts = r.get("error") or {
            m: (r.get(m) or {}).get("breaks", (r.get(m) or {}).get("error")) for m in args.modes
        }
        print(f"  {tag} {n}: {counts}", flush=True)
    return done


def compare(before: dict, after: dict) -> str:
    import torch

    if "error" in before or "error" in after:
        return "error"
    a, b = torch.load(before["tensors"]), torch.load(after["tensors"])

    def close(x, y) -> bool:
        return (
            x.shape == y.shape
            and x.dtype == y.dtype
            and not (x.is_floating_point() and (torch.isnan(x).any() or torch.isnan(y).any()))
            and torch.allclose(x.double(), y.double(), rtol=RTOL, atol=ATOL)
        )

    if len(a["outs"]) != len(b["outs"]) or not all(close(x, y) for x, y in zip(a["outs"], b["outs"])):
        return "OUT DIFFER"
    if "grads_error" in before or "grads_error" in after:
        return "equal-"  # eval outputs equal; the model does not train on these inputs
    if not (before.get("grads_repeat", True) and after.get("grads_repeat", True)):
        return "equal*"  # eval outputs equal; training differs from itself run to run (not compared)

    # A parameter with no gradient on one side and zeros on the other (an expert no token was
    # routed to, run densely) has the same gradient. Gradients are compared against the scale
    # of the whole tensor (max |a - b| <= atol + rtol * max |b|): a fix that changes a
    # matmul's length (rows of zeros) changes float32 summation order, which elementwise
    # tolerances on entries near zero would take for a difference.
    def grad_close(x, y) -> bool:
        return x.shape == y.shape and bool(
            (x.double() - y.double()).abs().max() <= ATOL + RTOL * y.double().abs().max()
        )

    for k in set(a["grads"]) | set(b["grads"]):
        x, y = a["grads"].get(k), b["grads"].get(k)
        x = torch.zeros_like(y) if x is None else x
        y = torch.zeros_like(x) if y is None else y
        if not grad_close(x, y):
            return "GRAD DIFFER"
    return "equal"


def _digest(files: list[Path]) -> dict[Path, str]:
    return {f: hashlib.sha256(f.read_bytes()).hexdigest() for f in files}


def fix(copy_root: Path, targets: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "torchlint", "check", "--no-dynamic", "--fix", "--unsafe-fixes", "-q", *targets],
        cwd=copy_root,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    if proc.returncode not in (0, 1):
        sys.exit(f"torchlint check --fix failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return time.perf_counter() - start, proc.stdout


def census(results: dict[str, dict], path: str) -> None:
    """What dynamo breaks on, grouped by break type, with each site's source line."""
    groups: dict[str, list[tuple[str, str, int, str, str]]] = defaultdict(list)
    for name, r in results.items():
        seen = set()
        for mode in ("eval", "train"):
            for s in (r.get(mode) or {}).get("sites", []):
                key = (s["path"], s["line"])
                if key in seen:
                    continue
                seen.add(key)
                line = ""
                if s["path"] and os.path.exists(s["path"]):
                    lines = Path(s["path"]).read_text(encoding="utf-8").splitlines()
                    line = lines[s["line"] - 1].strip() if s["line"] and s["line"] <= len(lines) else ""
                rel = s["path"].split("site-packages/")[-1] if s["path"] else "?"
                groups[s["gb_type"] or s["reason"][:60]].append((name, rel, s["line"] or 0, line, mode))
    out = ["# Census: what dynamo breaks on in the benchmark's models\n"]
    out.append(f"torch {__import__('torch').__version__}; `python benchmarks/fix_real.py --census`.\n")
    out.append("Distinct sites (file:line) per model, first mode seen; grouped by dynamo's break type.\n")
    for gb, sites in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        out.append(f"\n## {gb} ({len(sites)} sites)\n")
        by_line = Counter((rel, line, src) for _, rel, line, src, _ in sites)
        models = defaultdict(set)
        for name, rel, line, src, mode in sites:
            models[(rel, line, src)].add(f"{name}/{mode}")
        for rel, line, src in by_line:
            out.append(f"- `{rel}:{line}` `{src[:110]}` ({', '.join(sorted(models[(rel, line, src)]))})")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text("\n".join(out) + "\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("models", nargs="*")
    p.add_argument("--heldout", action="store_true", help="only the models kept aside")
    p.add_argument("--census", metavar="PATH", help="write the census of the breaks before the fix")
    p.add_argument("--timeout", type=int, default=240, help="seconds per model and side")
    p.add_argument("--backend", default="aot_eager")
    p.add_argument("--calls", type=int, default=3, help="timed calls per model")
    p.add_argument("--no-fix", action="store_true", help="measure before only, untimed (the census)")
    p.add_argument(
        "--modes",
        type=lambda v: v.split(","),
        default=["eval"],
        help="where breaks are counted: eval (no_grad), train (with a backward), or eval,train",
    )
    p.add_argument("-j", "--jobs", type=int, default=1, help="models measured at once")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--root", help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        worker(args.worker, args.root, args.out, args.backend, args.calls, args.modes)
        return 0
    names = args.models or (HELDOUT if args.heldout else [m for m in MODELS if m not in HELDOUT])
    unknown = [n for n in names if n not in MODELS and not n.startswith("auto:")]
    if unknown:
        sys.exit(f"fix_real.py: unknown model(s) {', '.join(unknown)}; known: {', '.join(MODELS)}")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="torchlint-fix-real-") as tmp_name:
        tmp = Path(tmp_name)
        before = run_all(names, None, tmp, "before", args)
        if args.census:
            census(before, args.census)
        if args.no_fix:
            return 0
        # the copy: every package the models come from
        copy_root = tmp / "site"
        packages = sorted({spec(n)[0] for n in names})
        targets: set[str] = set()
        for package in packages:
            src = Path(__import__(package).__file__).parent
            shutil.copytree(src, copy_root / package, ignore=shutil.ignore_patterns("__pycache__"))
        for n in names:
            package, folders, _, _ = spec(n)
            targets.update(f"{package}/{f}".rstrip("/.") for f in folders)
            for mode in ("eval", "train"):  # the shared files that hold break sites
                for s in (before[n].get(mode) or {}).get("sites", []):
                    pkg_dir = before[n]["package_dir"]
                    if s["path"] and s["path"].startswith(pkg_dir + os.sep):
                        targets.add(f"{package}/{os.path.relpath(s['path'], pkg_dir)}")
        targets = {t for t in targets if not any(t.startswith(o + "/") for o in targets)}
        # every file of the copy: --fix also rewrites the helpers a given file's regions reach
        fixed_files = sorted(copy_root.rglob("*.py"))
        original = _digest(fixed_files)
        fix_s, _ = fix(copy_root, sorted(targets))
        first = _digest(fixed_files)
        changed = [f for f in fixed_files if original[f] != first[f]]
        unparseable = []
        for f in changed:
            try:
                ast.parse(f.read_text(encoding="utf-8"))
            except SyntaxError:
                unparseable.append(f)
        fix(copy_root, sorted(targets))
        second = _digest(fixed_files)
        stable = [f for f in fixed_files if first[f] != second[f]]
        after = run_all(names, str(copy_root), tmp, "after", args)
        verdicts = {n: compare(before[n], after[n]) for n in names}
        report(names, before, after, verdicts)
        print(
            f"\nfixed: {len(targets)} targets, {len(fixed_files)} files, {len(changed)} rewritten in {fix_s:.1f} s; "
            f"unparseable after the fix: {len(unparseable)}; changed by a second --fix: {len(stable)}"
        )
        for f in unparseable + stable:
            print(f"  {f.relative_to(copy_root)}")
        print(f"rewritten: {' '.join(str(f.relative_to(copy_root)) for f in changed)}")
        print(f"targets: {' '.join(sorted(targets))}")
        print(f"wall: {time.perf_counter() - started:.0f} s")
    return 0


def _b(r: dict, mode: str) -> int | None:
    m = r.get(mode) or {}
    return m.get("breaks")


def _n(v: int | None) -> str:
    return "-" if v is None else str(v)


def report(names: list[str], before: dict, after: dict, verdicts: dict) -> None:
    head = f"{'model':22s} {'eval':>9s} {'train':>9s}  {'outputs':11s} {'eager ms':>13s} {'compiled ms':>13s}"
    print("\n" + head + "\n" + "-" * len(head))
    tot = [0, 0, 0, 0]
    for n in names:
        b, a = before[n], after[n]
        if "error" in b or "error" in a:
            print(f"{n:22s} ERROR {b.get('error') or a.get('error')}")
            continue
        e0, e1, t0, t1 = _b(b, "eval"), _b(a, "eval"), _b(b, "train"), _b(a, "train")
        for i, v in enumerate((e0, e1, t0, t1)):
            tot[i] += v or 0

        def ms(key: str, b: dict = b, a: dict = a) -> str:
            x, y = b.get(key), a.get(key)
            return f"{x * 1e3:6.1f}>{y * 1e3:6.1f}" if x and y else "     -"

        print(
            f"{n:22s} {_n(e0):>4s}>{_n(e1):<4s} {_n(t0):>4s}>{_n(t1):<4s}  {verdicts[n]:11s} {ms('eager_s'):>13s} "
            f"{ms('compiled_s'):>13s}"
        )
    print("-" * len(head))
    print(f"{'total':22s} {tot[0]:>4d}>{tot[1]:<4d} {tot[2]:>4d}>{tot[3]:<4d}")
    for label, x, y in (("eval", tot[0], tot[1]), ("train", tot[2], tot[3])):
        print(f"{label}: {x - y} of {x} breaks removed ({(x - y) / max(x, 1):.0%})")
    bad = [n for n in names if verdicts[n] not in ("equal", "equal*", "equal-")]
    if any(v == "equal*" for v in verdicts.values()):
        print(
            "equal*: eval outputs equal; the model's training gradients differ between two seeded runs of the same code"
        )
    if any(v == "equal-" for v in verdicts.values()):
        print("equal-: eval outputs equal; the model does not run in training on these inputs (no gradients)")
    print(f"models whose outputs or gradients differ: {len(bad)} {' '.join(bad)}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
