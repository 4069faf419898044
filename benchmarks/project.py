"""Whole-project accuracy on real code: the installed ``transformers`` package.

Method (nothing is downloaded from a hub): each model in :data:`MODELS` is built from a tiny
config (``hidden_size=16``, one layer, ...) and run through dynamo on the installed torch
with :func:`torchlint.dynamic.observe.observe` (explain's graphs unioned with the
``graph_breaks`` log and the counters). Every frame inside the package counts as the user's,
so a break's site is the innermost frame inside ``transformers``. The distinct sites are the
ground truth; they are measured at run time (``--sites FILE`` keeps or reuses them).

The static side is one run of ``torchlint check <site-packages>/transformers --no-dynamic
--format json`` (the whole package, as a user would give it). A site is found when a static
finding sits on its line. Noise is the static findings per 1,000 lines over the modeling
files of the models dynamo compiles whole (no break at all): none of those findings is a
graph break that happens.

    python benchmarks/project.py [--sites sites.json] [--models bert,gpt2] [-v]
           [--no-project]        # the same check with project-wide analysis off

The last line reads ``project recall=R (found/sites) noise=N findings/kLOC (n findings,
L lines)``.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Dict, List

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: model type -> extra config keys (on top of the tiny defaults below)
MODELS: Dict[str, Dict] = {
    "bert": {}, "roberta": {}, "distilbert": {"dim": 16, "hidden_dim": 32, "n_layers": 1, "n_heads": 2},
    "albert": {"embedding_size": 16}, "electra": {"embedding_size": 16}, "xlm": {"emb_dim": 16, "n_layers": 1, "n_heads": 2},
    "flaubert": {"emb_dim": 16, "n_layers": 1, "n_heads": 2}, "ctrl": {"n_embd": 16, "n_layer": 1, "n_head": 2, "dff": 32},
    "gpt2": {"n_embd": 16, "n_layer": 1, "n_head": 2}, "openai-gpt": {"n_embd": 16, "n_layer": 1, "n_head": 2},
    "gpt_neo": {"num_layers": 1, "attention_types": [[["global"], 1]], "num_heads": 2},
    "gptj": {"n_embd": 16, "n_layer": 1, "n_head": 2, "rotary_dim": 4}, "codegen": {"n_embd": 16, "n_layer": 1, "n_head": 2, "rotary_dim": 4},
    "opt": {"ffn_dim": 32, "word_embed_proj_dim": 16}, "bloom": {"n_layer": 1, "n_head": 2},
    "llama": {"num_key_value_heads": 2}, "mistral": {"num_key_value_heads": 2}, "qwen2": {"num_key_value_heads": 2},
    "gemma": {"num_key_value_heads": 2, "head_dim": 8}, "phi": {}, "gpt_neox": {},
    "t5": {"d_model": 16, "d_ff": 32, "d_kv": 8, "num_layers": 1, "num_heads": 2},
    "bart": {"d_model": 16, "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2,
             "decoder_attention_heads": 2, "encoder_ffn_dim": 32, "decoder_ffn_dim": 32},
    "led": {"d_model": 16, "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2,
            "decoder_attention_heads": 2, "encoder_ffn_dim": 32, "decoder_ffn_dim": 32, "attention_window": [4]},
    "reformer": {"attn_layers": ["local"], "axial_pos_shape": [4, 4], "axial_pos_embds_dim": [8, 8],
                 "feed_forward_size": 32, "attention_head_size": 8, "local_attn_chunk_length": 4},
    "funnel": {"block_sizes": [1], "d_model": 16, "n_head": 2, "d_head": 8, "d_inner": 32},
    "deberta": {}, "deberta-v2": {}, "mobilebert": {"embedding_size": 16, "intermediate_size": 32, "true_hidden_size": 16, "intra_bottleneck_size": 16},
    "squeezebert": {"embedding_size": 16}, "convbert": {"embedding_size": 16}, "fnet": {},
    "xlnet": {"d_model": 16, "n_layer": 1, "n_head": 2, "d_inner": 32},
    "longformer": {"attention_window": 4}, "big_bird": {"attention_type": "original_full"},
    "mpnet": {}, "canine": {"downsampling_rate": 2, "num_hash_buckets": 64},
    "esm": {"pad_token_id": 1}, "biogpt": {}, "xglm": {"d_model": 16, "num_layers": 1, "attention_heads": 2, "ffn_dim": 32},
    "blenderbot": {"d_model": 16, "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2,
                   "decoder_attention_heads": 2, "encoder_ffn_dim": 32, "decoder_ffn_dim": 32},
    "marian": {"d_model": 16, "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2,
               "decoder_attention_heads": 2, "encoder_ffn_dim": 32, "decoder_ffn_dim": 32, "pad_token_id": 0},
    "prophetnet": {"encoder_ffn_dim": 32, "decoder_ffn_dim": 32, "num_encoder_layers": 1, "num_decoder_layers": 1,
                   "num_encoder_attention_heads": 2, "num_decoder_attention_heads": 2, "ngram": 2},
    "transfo-xl": {}, "rwkv": {"attention_hidden_size": 16}, "mamba": {"state_size": 4},
    "megatron-bert": {}, "rembert": {"input_embedding_size": 16, "output_embedding_size": 16},
    "nystromformer": {"num_landmarks": 4, "segment_means_seq_len": 8}, "yoso": {}, "ibert": {},
}
TINY = dict(hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
            vocab_size=99, max_position_embeddings=64, type_vocab_size=2)
SEQ = 8


# --------------------------------------------------------------------------- dynamo side (child)
def measure_sites(names: List[str]) -> Dict:
    """Run each model through dynamo; the distinct break sites inside the package."""
    import logging
    import warnings

    import torch
    import transformers
    from transformers import CONFIG_MAPPING, AutoModel

    from torchlint.dynamic.observe import observe

    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    transformers.logging.set_verbosity_error()
    pkg = os.path.dirname(os.path.realpath(transformers.__file__))
    user_files = set()
    for folder, _, files in os.walk(pkg):
        user_files.update(os.path.join(folder, f) for f in files if f.endswith(".py"))
    sites: Dict[str, Dict] = {}
    models: Dict[str, Dict] = {}
    for name in names:
        t0 = time.time()
        try:
            kwargs = dict(TINY)
            kwargs.update(MODELS.get(name, {}))
            config = CONFIG_MAPPING[name](**kwargs)
            torch.manual_seed(0)
            model = AutoModel.from_config(config)
            model.eval()
            ids = torch.randint(3, 90, (1, SEQ))
            call = {"input_ids": ids}
            if getattr(config, "is_encoder_decoder", False):
                call["decoder_input_ids"] = torch.randint(3, 90, (1, SEQ))
            with torch.no_grad():
                model(**call)  # runs eagerly first: a model that cannot is not measured
            obs = observe(model, [()], kwarg_sets=[call], user_files=user_files)
        except Exception as exc:  # noqa: BLE001 - a model that cannot be built is reported, skipped
            models[name] = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}"}
            continue
        located = [b for b in obs.breaks if b.path and b.path.startswith(pkg + os.sep)]
        modeling = os.path.realpath(sys.modules[type(model).__module__].__file__)
        models[name] = {"breaks": len(obs.breaks), "file": os.path.relpath(modeling, pkg),
                        "seconds": round(time.time() - t0, 1)}
        for b in located:
            key = f"{os.path.relpath(b.path, pkg)}:{b.line}"
            entry = sites.setdefault(key, {"gb_type": b.gb_type, "models": []})
            entry["models"].append(name)
    return {"transformers": transformers.__version__, "torch": torch.__version__,
            "models": models, "sites": sites}


# --------------------------------------------------------------------------- static side
def static_findings(pkg: str, project: bool) -> List[Dict]:
    cmd = [sys.executable, "-m", "torchlint", "check", pkg, "--no-dynamic", "--format", "json",
           "--exit-zero", "--no-cache"]
    if not project:
        cmd.append("--no-project")
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    if out.returncode not in (0, 1):
        sys.exit(f"torchlint check failed ({out.returncode}): {out.stderr.strip()[-400:]}")
    return json.loads(out.stdout)["findings"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sites", help="JSON file of measured sites: reused when it exists, else written")
    ap.add_argument("--models", help="comma-separated model types (default: all of MODELS)")
    ap.add_argument("--measure-only", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--no-project", action="store_true", help="check with project-wide analysis off")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    names = args.models.split(",") if args.models else list(MODELS)
    if args.measure_only:
        json.dump(measure_sites(names), sys.stdout)
        return
    import transformers  # noqa: F401 - located by file, never imported by torchlint

    pkg = os.path.dirname(os.path.realpath(transformers.__file__))
    if args.sites and os.path.exists(args.sites):
        with open(args.sites, encoding="utf-8") as fh:
            measured = json.load(fh)
    else:
        t0 = time.time()
        child = subprocess.run([sys.executable, __file__, "--measure-only", "--models", ",".join(names)],
                               capture_output=True, text=True, cwd=REPO)
        if child.returncode:
            sys.exit(f"dynamo measurement failed: {child.stderr.strip()[-800:]}")
        measured = json.loads(child.stdout)
        print(f"measured {len(measured['models'])} models in {time.time() - t0:.0f}s", file=sys.stderr)
        if args.sites:
            with open(args.sites, "w", encoding="utf-8") as fh:
                json.dump(measured, fh, indent=1)
    t0 = time.time()
    findings = static_findings(pkg, not args.no_project)
    static_s = time.time() - t0
    at = {}
    for f in findings:
        rel = os.path.relpath(os.path.realpath(f["path"]), pkg)
        at.setdefault(f"{rel}:{f['line']}", []).append(f)
    sites = measured["sites"]
    found = [k for k in sites if k in at]
    missed = [k for k in sites if k not in at]
    whole = sorted({m["file"] for m in measured["models"].values() if m.get("breaks") == 0})
    lines = 0
    noise = []
    for rel in whole:
        with open(os.path.join(pkg, rel), encoding="utf-8") as fh:
            lines += fh.read().count("\n") + 1
        noise.extend(f for k, fs in at.items() if k.rsplit(":", 1)[0] == rel for f in fs)
    built = {n: m for n, m in measured["models"].items() if "error" not in m}
    print(f"transformers {measured['transformers']}, torch {measured['torch']}: {len(built)} models run "
          f"({len(measured['models']) - len(built)} could not be built), {len(whole)} compile whole; "
          f"static check {static_s:.1f}s, {len(findings)} findings")
    if args.verbose:
        for n, m in sorted(measured["models"].items()):
            print(f"  {n:16} {m.get('error') or str(m['breaks']) + ' breaks  ' + m['file']}")
        for k in sorted(sites):
            mark = "found " if k in at else "MISSED"
            print(f"  {mark} {k:60} {sites[k]['gb_type']}  ({','.join(sites[k]['models'][:3])})")
        for f in noise:
            print(f"  noise  {os.path.relpath(f['path'], pkg)}:{f['line']} {f['rule']} {f['message'][:90]}")
    recall = len(found) / len(sites) if sites else 1.0
    kloc = lines / 1000 or 1
    print(f"project recall={recall:.2f} ({len(found)}/{len(sites)}) noise={len(noise) / kloc:.2f} "
          f"findings/kLOC ({len(noise)} findings, {lines} lines)")


if __name__ == "__main__":
    sys.path.insert(0, REPO)
    main()
