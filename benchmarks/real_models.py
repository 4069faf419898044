"""Real package code for the accuracy benchmark: transformers models from tiny configs.

Each entry builds one model of the installed ``transformers`` from a small config (random
weights, nothing downloaded), runs it through dynamo on the installed torch, and returns the
lines of the model's own modeling file where dynamo broke the graph; the static pass lints
that same file (in eval and in training, each finding labelled with the mode it holds in, as
for a project that trains). Used by ``benchmarks/accuracy.py`` (its "real models" group) and on
its own:

    python benchmarks/real_models.py [-v]     # per model: lines, breaks, static findings, noise

The noise line counts, in the models that compile whole in both modes, the findings that hold
in eval (unlabelled or ``eval``), and all of them.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import warnings
from dataclasses import dataclass, field

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

# Small shared sizes: every model gets them (a model ignores those its config lacks).
TINY = dict(
    vocab_size=128,
    hidden_size=32,
    intermediate_size=64,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=64,
    head_dim=8,
)

# name -> (config class, model class, extra config keys, input kind)
MODELS: dict[str, tuple[str, str, dict, str]] = {
    "llama": ("LlamaConfig", "LlamaModel", {}, "ids"),
    "mistral": ("MistralConfig", "MistralModel", {}, "ids"),
    "qwen2": ("Qwen2Config", "Qwen2Model", {}, "ids"),
    "gemma": ("GemmaConfig", "GemmaModel", {}, "ids"),
    "phi": ("PhiConfig", "PhiModel", {}, "ids"),
    "gpt2": ("GPT2Config", "GPT2Model", dict(n_embd=32, n_layer=2, n_head=4, n_positions=64), "ids"),
    "bert": ("BertConfig", "BertModel", {}, "ids"),
    "roberta": ("RobertaConfig", "RobertaModel", {}, "ids"),
    "distilbert": ("DistilBertConfig", "DistilBertModel", dict(dim=32, hidden_dim=64, n_layers=2, n_heads=4), "ids"),
    "opt": ("OPTConfig", "OPTModel", dict(ffn_dim=64, word_embed_proj_dim=32), "ids"),
    "falcon": ("FalconConfig", "FalconModel", {}, "ids"),
    "gpt_neo": (
        "GPTNeoConfig",
        "GPTNeoModel",
        dict(num_layers=2, attention_types=[[["global", "local"], 1]], num_heads=4),
        "ids",
    ),
    "vit": ("ViTConfig", "ViTModel", dict(image_size=32, patch_size=8), "pixels"),
    "mixtral": ("MixtralConfig", "MixtralModel", dict(num_local_experts=4, num_experts_per_tok=2), "ids"),
    "t5": ("T5Config", "T5EncoderModel", dict(d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4), "ids"),
    "switch_transformers": (
        "SwitchTransformersConfig",
        "SwitchTransformersEncoderModel",
        dict(d_model=32, d_kv=8, d_ff=64, num_layers=2, num_sparse_encoder_layers=1, num_heads=4, num_experts=4),
        "ids",
    ),
    "funnel": (
        "FunnelConfig",
        "FunnelBaseModel",
        dict(d_model=32, n_head=4, d_head=8, d_inner=64, block_sizes=[1, 1]),
        "ids",
    ),
    "big_bird": ("BigBirdConfig", "BigBirdModel", {}, "ids"),
    "longformer": ("LongformerConfig", "LongformerModel", dict(attention_window=4), "ids"),
    "reformer": (
        "ReformerConfig",
        "ReformerModel",
        dict(
            axial_pos_shape=[4, 3],
            axial_pos_embds_dim=[16, 16],
            attn_layers=["local", "lsh"],
            feed_forward_size=64,
            attention_head_size=8,
            local_attn_chunk_length=4,
            lsh_attn_chunk_length=4,
        ),
        "ids",
    ),
    "wav2vec2": (
        "Wav2Vec2Config",
        "Wav2Vec2Model",
        dict(conv_dim=[16, 16], conv_stride=[5, 4], conv_kernel=[10, 8], num_conv_pos_embeddings=16),
        "audio",
    ),
    "sew_d": (
        "SEWDConfig",
        "SEWDModel",
        dict(conv_dim=[16, 16], conv_stride=[5, 4], conv_kernel=[10, 8], num_conv_pos_embeddings=16, squeeze_factor=1),
        "audio",
    ),
    "mra": ("MraConfig", "MraModel", dict(block_per_row=2, approx_mode="sparse"), "ids"),
    "visual_bert": ("VisualBertConfig", "VisualBertModel", dict(visual_embedding_dim=16), "ids"),
}


@dataclass
class RealSource:
    label: str
    path: str
    code: str
    breaks: set[int]
    graphs: int
    error: str | None = None
    #: the break lines of each run: "eval" (eval + no_grad) and "train" (train + backward)
    by_mode: dict[str, set[int]] = field(default_factory=dict)


def _inputs(kind: str):
    import torch

    torch.manual_seed(0)
    if kind == "pixels":
        return (torch.randn(2, 3, 32, 32),), {}
    if kind == "audio":
        return (torch.randn(2, 1600),), {}
    ids = torch.randint(3, 120, (2, 12))
    return (ids,), {"attention_mask": torch.ones_like(ids)}


def build(name: str):
    import transformers

    config_name, model_name, extra, kind = MODELS[name]
    config_cls = getattr(transformers, config_name)
    known = set(inspect.signature(config_cls.__init__).parameters) | set(config_cls().to_dict())
    values = {k: v for k, v in TINY.items() if k in known}
    values.update(extra)
    config = config_cls(**values)
    if hasattr(config, "_attn_implementation"):
        config._attn_implementation = "eager"
    model = getattr(transformers, model_name)(config)
    path = inspect.getsourcefile(type(model))
    return model, path, _inputs(kind)


def measure(name: str) -> RealSource:
    from torchlint.dynamic.observe import observe

    model, path, (args, kwargs) = build(name)
    with open(path, encoding="utf-8") as handle:
        code = handle.read()
    label = f"transformers {os.path.basename(path)}"
    breaks: set[int] = set()
    by_mode: dict[str, set[int]] = {}
    graphs = 0
    # Both modes: the static pass does not know whether the model is trained or served, so a
    # line is a real break when dynamo breaks there in either (eval + no_grad, or train +
    # backward, as the corpus sweeps do).
    for train in (False, True):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                obs = observe(model, [args], kwarg_sets=[kwargs], user_files={path}, train=train)
        except Exception as exc:  # noqa: BLE001 (reported, scored as no break)
            error = f"{'train' if train else 'eval'}: {type(exc).__name__}: {str(exc).splitlines()[0][:80]}"
            return RealSource(label, path, code, breaks, graphs, error)
        by_mode["train" if train else "eval"] = obs.break_lines(path)
        breaks |= by_mode["train" if train else "eval"]
        graphs = max(graphs, obs.graphs)
    return RealSource(label, path, code, breaks, graphs, by_mode=by_mode)


def real_sources(names: list[str] | None = None) -> list[RealSource]:
    if importlib.util.find_spec("transformers") is None or importlib.util.find_spec("torch") is None:
        return []
    from torchlint.verify import silenced

    out = []
    for name in names or sorted(MODELS):
        with silenced():
            out.append(measure(name))
    return out


def main(argv: list[str]) -> int:
    from torchlint.rules import all_rules
    from torchlint.static.lint import lint_source_modes

    verbose = "-v" in argv
    rules = [r for r in all_rules() if r.severity == "error"]
    whole_lines = whole_findings = whole_eval = 0
    for s in real_sources([a for a in argv if not a.startswith("-")] or None):
        # both modes checked, as for a project that trains: a finding says where it holds
        static = lint_source_modes(s.code, s.path, rules)
        in_eval = [f for f in static if f.mode != "train"]
        lines = len(s.code.splitlines())
        whole = not s.breaks and s.graphs == 1 and s.error is None
        if whole:
            whole_lines += lines
            whole_findings += len(static)
            whole_eval += len(in_eval)
        print(
            f"{s.label:44s} lines={lines:5d} graphs={s.graphs} breaks={sorted(s.breaks)} "
            f"static={sorted({f.line for f in static})}{'  whole' if whole else ''}"
            f"{'  ERROR ' + s.error if s.error else ''}"
        )
        if verbose:
            code = s.code.splitlines()
            for f in static:
                print(f"    {f.rule} {f.line}{' ' + f.mode if f.mode else ''}: {code[f.line - 1].strip()[:90]}")
    if whole_lines:
        print(
            f"models that compile whole: {whole_eval} findings that hold in eval in {whole_lines} lines = "
            f"{1000 * whole_eval / whole_lines:.2f} per 1,000 lines ({whole_findings} in both modes = "
            f"{1000 * whole_findings / whole_lines:.2f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
