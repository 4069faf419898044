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
files of the models dynamo compiles whole (no break at all), counting the findings that hold
in eval (the models run in eval; the package trains, so training-only findings are reported
too, with ``"mode": "train"``): none of those findings is a graph break that happens.

    python benchmarks/project.py [--sites sites.json] [--models bert,gpt2] [--heads] [-v]
           [--no-project]        # the same check with project-wide analysis off
    python benchmarks/project.py --projects [-v] [--no-dynamo]

``--projects`` scores the multi-file packages of ``tests/projects`` instead: each has an
``oracle.json`` naming what to compile; the lines marked ``# graph break`` are the expected
breaks, checked against dynamo (a mismatch is printed), and the static pass runs over the
project folder. It prints precision, recall and how many of the breaks that sit outside the
compiled entry's file were found.

``--heads`` builds each model type's task heads instead: its first language-model head (causal,
sequence-to-sequence or masked) and its sequence-classification head, each in training mode with
labels, one compiled forward and a backward of the loss. Its noise counts the findings that do
not hold in eval only.

Measured on transformers 5.24.0 and torch 2.13.0+cpu. Eval (94 models, 71 of their modeling
files compile whole; about 9 minutes): 14 sites, recall 0.86 (12/14); noise 0.45 findings per
1,000 lines (37 in 82,549). Heads (157 head models, 142 run, 71 files compile whole; about 9
minutes): 36 sites, recall 0.75 (27/36); noise 1.29 (101 in 78,136). The two lines where, under
compile only, an attention mask stays ``None`` (LongT5 and Switch Transformers fill a missing
mask ``if attention_mask is None and not is_torchdynamo_compiling()``, and the next use of it
raises) are found by TL022, in both sets, with no new noise.

The misses (eval has the first kind; the heads all three):

* two lines of transformers' output-capturing wrapper (an iteration dynamo cannot step, an
  exception it cannot handle), met only once another break has made dynamo compile the wrapper
  as a frame of its own;
* four language-model heads whose ``loss_function`` property logs a warning (their class names
  match no loss). The property's line is found; dynamo also breaks at the head's line that
  reads it, where it gives up the rest of the frame;
* three lines of longformer's global attention whose sizes come from data (a ``narrow`` by
  such a length, two asserts comparing such sizes).

The noise is training paths these configs do not take: warnings under gradient checkpointing
(off by default) or for ``inputs_embeds``, LayerDrop's random skip (``layerdrop`` is 0 by
default), BigBird's random block attention, the classification heads' checks that every row
holds one end-of-sequence token.

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

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: model type -> extra config keys (on top of the tiny defaults below)
MODELS: dict[str, dict] = {
    "bert": {},
    "roberta": {},
    "distilbert": {"dim": 16, "hidden_dim": 32, "n_layers": 1, "n_heads": 2},
    "albert": {"embedding_size": 16},
    "electra": {"embedding_size": 16},
    "xlm": {"emb_dim": 16, "n_layers": 1, "n_heads": 2},
    "flaubert": {"emb_dim": 16, "n_layers": 1, "n_heads": 2},
    "ctrl": {"n_embd": 16, "n_layer": 1, "n_head": 2, "dff": 32},
    "gpt2": {"n_embd": 16, "n_layer": 1, "n_head": 2},
    "openai-gpt": {"n_embd": 16, "n_layer": 1, "n_head": 2},
    "gpt_neo": {"num_layers": 1, "attention_types": [[["global"], 1]], "num_heads": 2},
    "gptj": {"n_embd": 16, "n_layer": 1, "n_head": 2, "rotary_dim": 4},
    "codegen": {"n_embd": 16, "n_layer": 1, "n_head": 2, "rotary_dim": 4},
    "opt": {"ffn_dim": 32, "word_embed_proj_dim": 16},
    "bloom": {"n_layer": 1, "n_head": 2},
    "llama": {"num_key_value_heads": 2},
    "mistral": {"num_key_value_heads": 2},
    "qwen2": {"num_key_value_heads": 2},
    "gemma": {"num_key_value_heads": 2, "head_dim": 8},
    "phi": {},
    "gpt_neox": {},
    "t5": {"d_model": 16, "d_ff": 32, "d_kv": 8, "num_layers": 1, "num_heads": 2},
    "bart": {
        "d_model": 16,
        "encoder_layers": 1,
        "decoder_layers": 1,
        "encoder_attention_heads": 2,
        "decoder_attention_heads": 2,
        "encoder_ffn_dim": 32,
        "decoder_ffn_dim": 32,
    },
    "led": {
        "d_model": 16,
        "encoder_layers": 1,
        "decoder_layers": 1,
        "encoder_attention_heads": 2,
        "decoder_attention_heads": 2,
        "encoder_ffn_dim": 32,
        "decoder_ffn_dim": 32,
        "attention_window": [4],
    },
    "reformer": {
        "attn_layers": ["local"],
        "axial_pos_shape": [4, 4],
        "axial_pos_embds_dim": [8, 8],
        "feed_forward_size": 32,
        "attention_head_size": 8,
        "local_attn_chunk_length": 4,
    },
    "funnel": {"block_sizes": [1], "num_hidden_layers": None, "d_model": 16, "n_head": 2, "d_head": 8, "d_inner": 32},
    "deberta": {},
    "deberta-v2": {},
    "mobilebert": {"embedding_size": 16, "intermediate_size": 32, "true_hidden_size": 16, "intra_bottleneck_size": 16},
    "squeezebert": {"embedding_size": 16},
    "convbert": {"embedding_size": 16},
    "fnet": {},
    "xlnet": {"d_model": 16, "n_layer": 1, "n_head": 2, "d_inner": 32, "max_position_embeddings": None},
    "longformer": {"attention_window": 4},
    "big_bird": {"attention_type": "original_full"},
    "mpnet": {},
    "canine": {"downsampling_rate": 2, "num_hash_buckets": 64},
    "esm": {"pad_token_id": 1},
    "biogpt": {},
    "xglm": {"d_model": 16, "num_layers": 1, "attention_heads": 2, "ffn_dim": 32},
    "blenderbot": {
        "d_model": 16,
        "encoder_layers": 1,
        "decoder_layers": 1,
        "encoder_attention_heads": 2,
        "decoder_attention_heads": 2,
        "encoder_ffn_dim": 32,
        "decoder_ffn_dim": 32,
    },
    "marian": {
        "d_model": 16,
        "encoder_layers": 1,
        "decoder_layers": 1,
        "encoder_attention_heads": 2,
        "decoder_attention_heads": 2,
        "encoder_ffn_dim": 32,
        "decoder_ffn_dim": 32,
        "pad_token_id": 0,
    },
    "prophetnet": {
        "num_hidden_layers": None,
        "encoder_ffn_dim": 32,
        "decoder_ffn_dim": 32,
        "num_encoder_layers": 1,
        "num_decoder_layers": 1,
        "num_encoder_attention_heads": 2,
        "num_decoder_attention_heads": 2,
        "ngram": 2,
    },
    "transfo-xl": {},
    "rwkv": {"attention_hidden_size": 16},
    "mamba": {"state_size": 4},
    "megatron-bert": {},
    "rembert": {"input_embedding_size": 16, "output_embedding_size": 16},
    "nystromformer": {"num_landmarks": 8, "segment_means_seq_len": 8},
    "yoso": {},
    "ibert": {},
    "mixtral": {"num_key_value_heads": 2, "num_local_experts": 4, "num_experts_per_tok": 2},
    "qwen2_moe": {
        "num_key_value_heads": 2,
        "num_experts": 4,
        "num_experts_per_tok": 2,
        "moe_intermediate_size": 16,
        "shared_expert_intermediate_size": 16,
    },
    "switch_transformers": {
        "d_model": 16,
        "d_ff": 32,
        "d_kv": 8,
        "num_layers": 1,
        "num_decoder_layers": 1,
        "num_heads": 2,
        "num_experts": 4,
        "num_sparse_encoder_layers": 1,
        "num_sparse_decoder_layers": 1,
    },
    "nllb-moe": dict(
        {
            "d_model": 16,
            "encoder_layers": 1,
            "decoder_layers": 1,
            "encoder_attention_heads": 2,
            "decoder_attention_heads": 2,
            "encoder_ffn_dim": 32,
            "decoder_ffn_dim": 32,
        },
        num_experts=4,
        expert_capacity=4,
    ),
    "gpt_bigcode": {"n_embd": 16, "n_layer": 1, "n_head": 2},
    "falcon": {},
    "mpt": {"d_model": 16, "n_layers": 1, "n_heads": 2},
    "stablelm": {"num_key_value_heads": 2},
    "starcoder2": {"num_key_value_heads": 2},
    "persimmon": {},
    "cohere": {"num_key_value_heads": 2},
    "olmo": {"num_key_value_heads": 2},
    "granite": {"num_key_value_heads": 2},
    "phi3": {"num_key_value_heads": 2, "pad_token_id": 0},
    "gemma2": {"num_key_value_heads": 2, "head_dim": 8},
    "fsmt": dict(
        {
            "d_model": 16,
            "encoder_layers": 1,
            "decoder_layers": 1,
            "encoder_attention_heads": 2,
            "decoder_attention_heads": 2,
            "encoder_ffn_dim": 32,
            "decoder_ffn_dim": 32,
        },
        src_vocab_size=99,
        tgt_vocab_size=99,
        langs=["en", "de"],
    ),
    "m2m_100": {
        "d_model": 16,
        "encoder_layers": 1,
        "decoder_layers": 1,
        "encoder_attention_heads": 2,
        "decoder_attention_heads": 2,
        "encoder_ffn_dim": 32,
        "decoder_ffn_dim": 32,
    },
    "mbart": {
        "d_model": 16,
        "encoder_layers": 1,
        "decoder_layers": 1,
        "encoder_attention_heads": 2,
        "decoder_attention_heads": 2,
        "encoder_ffn_dim": 32,
        "decoder_ffn_dim": 32,
    },
    "pegasus": {
        "d_model": 16,
        "encoder_layers": 1,
        "decoder_layers": 1,
        "encoder_attention_heads": 2,
        "decoder_attention_heads": 2,
        "encoder_ffn_dim": 32,
        "decoder_ffn_dim": 32,
    },
    "plbart": {
        "d_model": 16,
        "encoder_layers": 1,
        "decoder_layers": 1,
        "encoder_attention_heads": 2,
        "decoder_attention_heads": 2,
        "encoder_ffn_dim": 32,
        "decoder_ffn_dim": 32,
    },
    "mvp": {
        "d_model": 16,
        "encoder_layers": 1,
        "decoder_layers": 1,
        "encoder_attention_heads": 2,
        "decoder_attention_heads": 2,
        "encoder_ffn_dim": 32,
        "decoder_ffn_dim": 32,
    },
    "bigbird_pegasus": dict(
        {
            "d_model": 16,
            "encoder_layers": 1,
            "decoder_layers": 1,
            "encoder_attention_heads": 2,
            "decoder_attention_heads": 2,
            "encoder_ffn_dim": 32,
            "decoder_ffn_dim": 32,
        },
        attention_type="original_full",
    ),
    "longt5": {"d_model": 16, "d_ff": 32, "d_kv": 8, "num_layers": 1, "num_heads": 2},
    "umt5": {"d_model": 16, "d_ff": 32, "d_kv": 8, "num_layers": 1, "num_heads": 2},
    "mt5": {"d_model": 16, "d_ff": 32, "d_kv": 8, "num_layers": 1, "num_heads": 2},
    "xmod": {"languages": ["en_XX"]},
    "ernie": {},
    "roc_bert": {"pronunciation_embed_dim": 8, "shape_embed_dim": 8},
    "nezha": {},
    "lilt": {"channel_shrink_ratio": 2},
    "markuplm": {},
    "layoutlm": {},
    "splinter": {},
    "data2vec-text": {},
    "xlm-roberta": {},
    "camembert": {},
    "luke": {"entity_vocab_size": 10, "entity_emb_size": 16},
    "mra": {},
    "visual_bert": {},
    "qdqbert": {},
    "realm": {},
    "tapas": {},
    "perceiver": {},
}
TINY = dict(
    hidden_size=16,
    num_hidden_layers=1,
    num_attention_heads=2,
    intermediate_size=32,
    vocab_size=99,
    max_position_embeddings=64,
    type_vocab_size=2,
)
SEQ = 8


# --------------------------------------------------------------------------- dynamo side (child)
#: with --heads: the task heads each model type is built with (the first of the language-model
#: heads it has, and sequence classification), each trained one step on labels
LM_HEADS = (
    "MODEL_FOR_CAUSAL_LM_MAPPING_NAMES",
    "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES",
    "MODEL_FOR_MASKED_LM_MAPPING_NAMES",
)
CLS_HEAD = "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES"


def _head_classes(name: str) -> list[tuple[str, str]]:
    """(head, class name) of the task heads --heads builds for model type ``name``."""
    from transformers.models.auto import modeling_auto

    out = []
    for mapping in LM_HEADS:
        cls = getattr(modeling_auto, mapping).get(name)
        if cls:
            out.append(("lm", cls))
            break
    cls = getattr(modeling_auto, CLS_HEAD).get(name)
    if cls:
        out.append(("cls", cls))
    return out


def measure_sites(names: list[str], heads: bool = False) -> dict:
    """Run each model through dynamo; the distinct break sites inside the package. ``heads``:
    the models' task heads instead, in training mode with labels (one compiled forward and a
    backward of the loss)."""
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
    sites: dict[str, dict] = {}
    models: dict[str, dict] = {}
    runs = [(name, head, cls) for name in names for head, cls in _head_classes(name)] if heads else []
    for name, head, cls in runs or [(name, "", "") for name in names]:
        key = f"{name}/{head}" if head else name
        t0 = time.time()
        try:
            kwargs = dict(TINY)
            kwargs.update(MODELS.get(name, {}))
            kwargs = {k: v for k, v in kwargs.items() if v is not None}
            config = CONFIG_MAPPING[name](**kwargs)
            torch.manual_seed(0)
            ids = torch.randint(3, 90, (1, SEQ))
            call = {"input_ids": ids}
            if head:
                config.num_labels = 2
                for token in ("pad_token_id", "decoder_start_token_id"):  # shifting labels needs them
                    if getattr(config, token, None) is None:
                        setattr(config, token, 0)
                model = getattr(transformers, cls)(config)
                if head == "cls":
                    call["labels"] = torch.tensor([1])
                else:
                    call["labels"] = torch.randint(3, 90, (1, SEQ))
                model.train()
                model(**call).loss.backward()  # runs eagerly first: a model that cannot is not measured
            else:
                model = AutoModel.from_config(config)
                model.eval()
                if getattr(config, "is_encoder_decoder", False):
                    call["decoder_input_ids"] = torch.randint(3, 90, (1, SEQ))
                with torch.no_grad():
                    model(**call)  # runs eagerly first: a model that cannot is not measured
            obs = observe(model, [()], kwarg_sets=[call], user_files=user_files, train=bool(head))
        except Exception as exc:  # noqa: BLE001 - a model that cannot be built is reported, skipped
            models[key] = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}"}
            continue
        located = [b for b in obs.breaks if b.path and b.path.startswith(pkg + os.sep)]
        modeling = os.path.realpath(sys.modules[type(model).__module__].__file__)
        models[key] = {
            "breaks": len(obs.breaks),
            "file": os.path.relpath(modeling, pkg),
            "seconds": round(time.time() - t0, 1),
        }
        for b in located:
            site = f"{os.path.relpath(b.path, pkg)}:{b.line}"
            entry = sites.setdefault(site, {"gb_type": b.gb_type, "models": []})
            entry["models"].append(key)
    return {
        "heads": heads,
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "models": models,
        "sites": sites,
    }


# --------------------------------------------------------------------------- the multi-file set
PROJECTS = os.path.join(REPO, "tests", "projects")
MARK = "# graph break"


def project_folders() -> list[str]:
    return sorted(
        os.path.join(PROJECTS, d)
        for d in os.listdir(PROJECTS)
        if os.path.isfile(os.path.join(PROJECTS, d, "oracle.json"))
    )


def project_files(folder: str) -> list[str]:
    out = []
    for base, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__pycache__")))
        out.extend(os.path.join(base, f) for f in sorted(files) if f.endswith(".py"))
    return out


def marked_lines(folder: str) -> set:
    """(relative path, line) of every line marked ``# graph break``: the expected breaks."""
    out = set()
    for path in project_files(folder):
        with open(path, encoding="utf-8") as fh:
            for i, line in enumerate(fh, 1):
                if line.rstrip().endswith(MARK):
                    out.add((os.path.relpath(path, folder), i))
    return out


def dynamo_lines(folder: str) -> set:
    """Where dynamo really breaks, running each entry of the project's oracle.json (imports
    the project: only for the oracle, in this process)."""
    import importlib

    from torchlint.dynamic.load import materialize
    from torchlint.dynamic.observe import observe
    from torchlint.dynamic.specs import parse_input
    from torchlint.verify import silenced

    with open(os.path.join(folder, "oracle.json"), encoding="utf-8") as fh:
        entries = json.load(fh)
    files = {os.path.realpath(p) for p in project_files(folder)}
    out = set()
    for entry in entries:
        root = os.path.join(folder, entry["path"])
        sys.path.insert(0, root)
        top = entry["module"].split(".")[0]
        for name in [n for n in sys.modules if n == top or n.startswith(f"{top}.")]:
            del sys.modules[name]  # (a package of that name imported from another folder)
        try:
            obj = importlib.import_module(entry["module"])
            for part in entry["target"].split("."):
                obj = getattr(obj, part)
            if isinstance(obj, type):
                obj = obj()
            args = [materialize(parse_input(spec), seed=i) for i, spec in enumerate(entry["inputs"])]
            with silenced():
                obs = observe(obj, [args], user_files=files)
        finally:
            sys.path.remove(root)
        for b in obs.breaks:
            if b.path is not None and os.path.realpath(b.path) in files:
                out.add((os.path.relpath(os.path.realpath(b.path), os.path.realpath(folder)), b.line))
    return out


def static_lines(folder: str, project: bool = True) -> set:
    cmd = [
        sys.executable,
        "-m",
        "torchlint",
        "check",
        ".",
        "--no-dynamic",
        "--format",
        "json",
        "--exit-zero",
        "--no-cache",
    ] + ([] if project else ["--no-project"])
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=folder)
    if out.returncode not in (0, 1):
        sys.exit(f"torchlint check failed in {folder}: {out.stderr.strip()[-400:]}")
    return {
        (os.path.relpath(os.path.join(folder, f["path"]), folder), f["line"])
        for f in json.loads(out.stdout)["findings"]
    }


def score_projects(project: bool, verbose: bool, check_dynamo: bool) -> None:
    tp = fp = fn = 0
    away = away_found = 0
    for folder in project_folders():
        expected = marked_lines(folder)
        if check_dynamo:
            real = dynamo_lines(folder)
            if real != expected:
                print(
                    f"  {os.path.basename(folder)}: marks differ from dynamo: only marked "
                    f"{sorted(expected - real)}, only dynamo {sorted(real - expected)}"
                )
        with open(os.path.join(folder, "oracle.json"), encoding="utf-8") as fh:
            entry_files = {e["module"].replace(".", os.sep) for e in json.load(fh)}
        got = static_lines(folder, project)
        tp += len(got & expected)
        fp += len(got - expected)
        fn += len(expected - got)
        for rel, line in expected:
            if not any(rel.endswith(e + ".py") for e in entry_files):
                away += 1
                away_found += (rel, line) in got
        if verbose:
            name = os.path.basename(folder)
            for rel, line in sorted(expected | got):
                mark = (
                    "found "
                    if (rel, line) in got and (rel, line) in expected
                    else ("MISSED" if (rel, line) in expected else "FALSE ")
                )
                print(f"  {mark} {name}/{rel}:{line}")
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    print(
        f"projects precision={precision:.2f} recall={recall:.2f} (tp={tp} fp={fp} fn={fn}); "
        f"breaks outside the compiled entry's file: {away_found}/{away} found"
    )


# --------------------------------------------------------------------------- static side
def static_findings(pkg: str, project: bool) -> list[dict]:
    cmd = [
        sys.executable,
        "-m",
        "torchlint",
        "check",
        pkg,
        "--no-dynamic",
        "--format",
        "json",
        "--exit-zero",
        "--no-cache",
    ]
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
    ap.add_argument(
        "--heads",
        action="store_true",
        help="the models' task heads (language model, sequence classification), trained on labels",
    )
    ap.add_argument("--measure-only", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--no-project", action="store_true", help="check with project-wide analysis off")
    ap.add_argument(
        "--projects",
        action="store_true",
        help="score the multi-file set in tests/projects instead (marks checked against dynamo)",
    )
    ap.add_argument("--no-dynamo", action="store_true", help="with --projects: trust the marks, run no torch")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if args.projects:
        score_projects(not args.no_project, args.verbose, not args.no_dynamo)
        return
    names = args.models.split(",") if args.models else list(MODELS)
    if args.measure_only:
        json.dump(measure_sites(names, args.heads), sys.stdout)
        return
    import transformers

    pkg = os.path.dirname(os.path.realpath(transformers.__file__))
    if args.sites and os.path.exists(args.sites):
        with open(args.sites, encoding="utf-8") as fh:
            measured = json.load(fh)
    else:
        t0 = time.time()
        child = subprocess.run(
            [sys.executable, __file__, "--measure-only", "--models", ",".join(names)] + ["--heads"] * args.heads,
            capture_output=True,
            text=True,
            cwd=REPO,
        )
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
    [k for k in sites if k not in at]
    whole = sorted({m["file"] for m in measured["models"].values() if m.get("breaks") == 0})
    lines = 0
    noise = []
    for rel in whole:
        with open(os.path.join(pkg, rel), encoding="utf-8") as fh:
            lines += fh.read().count("\n") + 1
        # a finding that holds in the other mode only ("mode": "train" when the models ran in
        # eval, "eval" when they trained) is judged against that mode's truth, not measured here
        other = "eval" if measured.get("heads") else "train"
        noise.extend(f for k, fs in at.items() if k.rsplit(":", 1)[0] == rel for f in fs if f.get("mode") != other)
    built = {n: m for n, m in measured["models"].items() if "error" not in m}
    print(
        f"transformers {measured['transformers']}, torch {measured['torch']}: {len(built)} models run "
        f"({len(measured['models']) - len(built)} could not be built), {len(whole)} compile whole; "
        f"static check {static_s:.1f}s, {len(findings)} findings"
    )
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
    print(
        f"project recall={recall:.2f} ({len(found)}/{len(sites)}) noise={len(noise) / kloc:.2f} "
        f"findings/kLOC ({len(noise)} findings, {lines} lines)"
    )


if __name__ == "__main__":
    sys.path.insert(0, REPO)
    main()
