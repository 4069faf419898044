"""Which ``transformers`` models break under dynamo, and on what: a scan of the whole library.

Every model type of ``transformers``' ``AutoModel`` mapping is built from its default config
shrunk to a tiny size (the same size keys for all: hidden 32, two layers, four heads, a
vocabulary of 100; nothing downloaded, random weights), called once eagerly on a generic input
for its ``main_input_name`` (token ids, 2x3x32x32 pixels, or a 1600-sample wave), then once
through ``torch._dynamo.explain`` in eval with no_grad. Each break is placed on its innermost
frame inside ``transformers``. Models that fail to build or to run eagerly with the generic
config are counted apart (they say nothing about dynamo).

Models run in batches inside one worker process (an import of torch and transformers costs more
than most models); a model that hangs (``--timeout``) or kills its worker is recorded as such
and the scan goes on from the next one.

    python benchmarks/hf_scan.py --out scan.jsonl            # every model type (~30 min, 2 CPUs)
    python benchmarks/hf_scan.py --out scan.jsonl bert gpt2  # some of them
    python benchmarks/hf_scan.py --summary scan.jsonl        # the table of an earlier scan

The summary groups the sites by dynamo's break type and by source line, the census the fixers
of ``torchlint --fix`` are chosen from.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

TINY = dict(
    vocab_size=100,
    hidden_size=32,
    d_model=32,
    n_embd=32,
    dim=32,
    embed_dim=32,
    intermediate_size=64,
    ffn_dim=64,
    encoder_ffn_dim=64,
    decoder_ffn_dim=64,
    d_ff=64,
    num_hidden_layers=2,
    n_layer=2,
    num_layers=2,
    encoder_layers=2,
    decoder_layers=2,
    num_decoder_layers=2,
    num_attention_heads=4,
    n_head=4,
    num_heads=4,
    encoder_attention_heads=4,
    decoder_attention_heads=4,
    num_key_value_heads=2,
    head_dim=8,
    d_kv=8,
    max_position_embeddings=64,
    image_size=32,
    patch_size=4,
    num_channels=3,
)


def _tiny_config(model_type: str):
    from transformers import AutoConfig

    config = AutoConfig.for_model(model_type)
    _shrink(config, 0)
    config._shrunk = True
    return config


def _shrink(config, depth: int) -> None:
    """The TINY sizes on ``config`` and on the configs inside it (text, vision, audio...)."""
    from transformers import PretrainedConfig

    for k, v in TINY.items():
        if isinstance(getattr(config, k, None), type(v)) and not isinstance(getattr(config, k), bool):
            setattr(config, k, v)
    if depth < 2:
        for value in vars(config).values():
            if isinstance(value, PretrainedConfig):
                _shrink(value, depth + 1)


MAX_PARAMETERS = 80_000_000


def _inputs(model) -> list[dict]:
    """The generic inputs to try, in order (the first the model runs on eagerly is used)."""
    import torch

    g = torch.Generator().manual_seed(7)
    name = getattr(model, "main_input_name", "input_ids")
    if name == "pixel_values":
        return [{"pixel_values": torch.randn(2, 3, 32, 32, generator=g)}]
    if name == "input_values":
        return [{"input_values": torch.randn(*shape, generator=g)} for shape in ((2, 1600), (1, 1, 1600))]
    if name != "input_ids":
        return []
    call = {"input_ids": torch.randint(3, 100, (2, 16), generator=g)}
    if getattr(model.config, "is_encoder_decoder", False):
        call["decoder_input_ids"] = torch.randint(3, 100, (2, 16), generator=g)
    return [call]


def _site(reason, root: str) -> tuple[str, int, str]:
    for frame in reversed(getattr(reason, "user_stack", None) or []):
        if frame.filename.startswith(root):
            return os.path.relpath(frame.filename, os.path.dirname(root)), frame.lineno, (frame.line or "").strip()
    return "?", 0, ""


class TooLarge(ValueError):
    """Even the shrunk config makes more than MAX_PARAMETERS parameters."""


class NoInput(ValueError):
    """No generic input for the model's ``main_input_name``."""


def build(model_type: str):
    """The model as the scan builds it: the default config if small enough, else shrunk."""
    import torch
    from transformers import AutoConfig, AutoModel

    torch.manual_seed(0)
    for config in (AutoConfig.for_model(model_type), _tiny_config(model_type)):
        config._attn_implementation = "eager"
        with torch.device("meta"):
            size = sum(p.numel() for p in AutoModel.from_config(config).parameters())
        if size <= MAX_PARAMETERS:
            return AutoModel.from_config(config).eval()
    raise TooLarge(f"{size / 1e6:.0f}M parameters")


def runnable_inputs(model) -> dict:
    """The first generic input the model runs on eagerly."""
    import contextlib
    import io

    import torch

    tries = _inputs(model)
    if not tries:
        raise NoInput(type(model).__name__)
    for i, inputs in enumerate(tries):
        try:
            with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
                model(**inputs)
            return inputs
        except Exception:
            if i == len(tries) - 1:
                raise
    raise NoInput(type(model).__name__)


def scan_one(model_type: str) -> dict:
    import contextlib
    import io

    import torch
    import transformers

    root = os.path.dirname(transformers.__file__)
    row: dict = {"model": model_type}
    try:
        model = build(model_type)
        inputs = runnable_inputs(model)
    except TooLarge as exc:
        return row | {"status": "too large", "error": str(exc)}
    except NoInput:
        return row | {"status": "no generic input"}
    except Exception as exc:  # noqa: BLE001 - a model the generic config cannot build says nothing
        return row | {"status": "eager failed", "error": f"{type(exc).__name__}: {str(exc)[:100]}"}
    row["shrunk"] = bool(getattr(model.config, "_shrunk", False))
    row["module"] = type(model).__module__
    torch._dynamo.reset()
    try:
        with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
            ex = torch._dynamo.explain(model)(**inputs)
    except Exception as exc:  # noqa: BLE001 - dynamo failing outright is a result
        return row | {"status": "dynamo failed", "error": f"{type(exc).__name__}: {str(exc)[:100]}"}
    sites = []
    for r in ex.break_reasons:
        path, line, src = _site(r, root)
        sites.append({"path": path, "line": line, "src": src, "reason": r.reason.splitlines()[0][:120]})
    return row | {"status": "ok", "breaks": ex.graph_break_count, "graphs": ex.graph_count, "sites": sites}


def worker(models: list[str], out: str, timeout: int) -> None:
    import logging
    import signal
    import warnings

    import torch

    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    torch.set_num_threads(1)

    def alarm(*_):
        raise TimeoutError

    signal.signal(signal.SIGALRM, alarm)
    with open(out, "a") as fh:
        for m in models:
            fh.write(json.dumps({"model": m, "status": "started"}) + "\n")
            fh.flush()
            signal.alarm(timeout)
            try:
                row = scan_one(m)
            except TimeoutError:
                row = {"model": m, "status": "timeout"}
            except BaseException as exc:  # noqa: BLE001 - recorded, the scan goes on
                row = {"model": m, "status": "error", "error": f"{type(exc).__name__}: {str(exc)[:100]}"}
            signal.alarm(0)
            fh.write(json.dumps(row) + "\n")
            fh.flush()


def _done(out: str) -> dict[str, dict]:
    rows: dict[str, dict] = {}
    if os.path.exists(out):
        for line in Path(out).read_text().splitlines():
            row = json.loads(line)
            rows[row["model"]] = row
    return rows


def drive(models: list[str], out: str, timeout: int) -> None:
    while True:
        rows = _done(out)
        for m, row in rows.items():
            if row["status"] == "started":  # the worker died on it
                with open(out, "a") as fh:
                    fh.write(json.dumps({"model": m, "status": "crashed"}) + "\n")
        rows = _done(out)
        todo = [m for m in models if m not in rows]
        if not todo:
            return
        print(f"{len(rows)} done, {len(todo)} to go", flush=True)
        subprocess.run(
            [sys.executable, __file__, "--worker", "--out", out, "--timeout", str(timeout), *todo],
            env=dict(os.environ, TRANSFORMERS_VERBOSITY="error", HF_HUB_OFFLINE="1"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


def summary(out: str) -> None:
    rows = _done(out)
    status = Counter(r["status"] for r in rows.values())
    ok = [r for r in rows.values() if r["status"] == "ok"]
    breaking = sorted((r for r in ok if r["breaks"]), key=lambda r: -r["breaks"])
    print(f"{len(rows)} model types: " + ", ".join(f"{n} {s}" for s, n in status.most_common()))
    print(f"{len(breaking)} of {len(ok)} that run break; {sum(r['breaks'] for r in ok)} breaks in all\n")
    for r in breaking:
        print(f"  {r['model']:28s} {r['breaks']:3d}")
    by_site: dict[tuple, list[str]] = defaultdict(list)
    for r in breaking:
        for s in r["sites"]:
            by_site[(s["reason"][:60], s["path"], s["line"], s["src"][:90])].append(r["model"])
    print("\nsites (break reason, file:line, models):")
    for (reason, path, line, src), models in sorted(by_site.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(models):3d}  {path}:{line}  {src}\n       {reason}  [{' '.join(sorted(set(models))[:8])}]")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("models", nargs="*")
    p.add_argument("--out", default="hf_scan.jsonl")
    p.add_argument("--timeout", type=int, default=120, help="seconds per model")
    p.add_argument("--summary", metavar="JSONL", help="print the table of an earlier scan")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.summary:
        summary(args.summary)
        return 0
    if args.worker:
        worker(args.models, args.out, args.timeout)
        return 0
    from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES

    models = args.models or sorted(MODEL_MAPPING_NAMES)
    started = time.perf_counter()
    drive(models, args.out, args.timeout)
    print(f"wall: {time.perf_counter() - started:.0f} s")
    summary(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
