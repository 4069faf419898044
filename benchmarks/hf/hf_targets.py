"""Sixteen Hugging Face models built from tiny configs (nothing downloaded), as torchlint
targets: ``build_<name>`` makes the model, ``inputs_<name>`` one call's keyword inputs,
``lengths_<name>`` three calls of growing sequence length (for recompilations)."""

import torch
import transformers as tf

V = 100  # vocabulary


def _text(length, batch=2, decoder=False):
    g = torch.Generator().manual_seed(length)
    call = {
        "input_ids": torch.randint(3, V, (batch, length), generator=g),
        "attention_mask": torch.ones(batch, length, dtype=torch.long),
    }
    if decoder:
        call["decoder_input_ids"] = torch.randint(3, V, (batch, length), generator=g)
    return call


SMALL = dict(vocab_size=V, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64)
CONFIGS = {
    "bert": lambda: tf.BertModel(tf.BertConfig(**SMALL)),
    "gpt2": lambda: tf.GPT2Model(
        tf.GPT2Config(vocab_size=V, n_embd=32, n_layer=2, n_head=2, bos_token_id=1, eos_token_id=2)
    ),
    "swin": lambda: tf.SwinModel(
        tf.SwinConfig(image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=2)
    ),
    "funnel": lambda: tf.FunnelModel(
        tf.FunnelConfig(
            vocab_size=V, d_model=32, n_head=2, d_head=16, d_inner=64, block_sizes=[1, 1], num_decoder_layers=1
        )
    ),
    "longformer": lambda: tf.LongformerModel(tf.LongformerConfig(**SMALL, attention_window=4)),
    "big_bird": lambda: tf.BigBirdModel(
        tf.BigBirdConfig(**SMALL, attention_type="block_sparse", block_size=2, num_random_blocks=1)
    ),
    "reformer": lambda: tf.ReformerModel(
        tf.ReformerConfig(
            vocab_size=V,
            hidden_size=32,
            attention_head_size=16,
            num_attention_heads=2,
            feed_forward_size=64,
            attn_layers=["local", "lsh"],
            axial_pos_embds=False,
            local_attn_chunk_length=4,
            lsh_attn_chunk_length=4,
            num_buckets=2,
            is_decoder=False,
        )
    ),
    "ctrl": lambda: tf.CTRLModel(tf.CTRLConfig(vocab_size=V, n_embd=32, n_layer=2, n_head=2, dff=64)),
    "switch_transformers": lambda: tf.SwitchTransformersModel(
        tf.SwitchTransformersConfig(
            vocab_size=V,
            d_model=32,
            d_kv=16,
            d_ff=64,
            num_layers=2,
            num_decoder_layers=2,
            num_heads=2,
            num_experts=2,
            decoder_start_token_id=0,
        )
    ),
    "nllb_moe": lambda: tf.NllbMoeModel(
        tf.NllbMoeConfig(
            vocab_size=V,
            d_model=32,
            encoder_layers=2,
            decoder_layers=2,
            encoder_attention_heads=2,
            decoder_attention_heads=2,
            encoder_ffn_dim=64,
            decoder_ffn_dim=64,
            num_experts=2,
            expert_capacity=4,
        )
    ),
    "encodec": lambda: tf.EncodecModel(
        tf.EncodecConfig(
            hidden_size=16,
            num_filters=4,
            num_residual_layers=1,
            upsampling_ratios=[2, 2],
            codebook_size=16,
            codebook_dim=16,
        )
    ),
    "distilbert": lambda: tf.DistilBertModel(
        tf.DistilBertConfig(vocab_size=V, dim=32, n_layers=2, n_heads=2, hidden_dim=64)
    ),
    "xlm": lambda: tf.XLMModel(tf.XLMConfig(vocab_size=V, emb_dim=32, n_layers=2, n_heads=2)),
    "led": lambda: tf.LEDModel(
        tf.LEDConfig(
            vocab_size=V,
            d_model=32,
            encoder_layers=2,
            decoder_layers=2,
            encoder_attention_heads=2,
            decoder_attention_heads=2,
            encoder_ffn_dim=64,
            decoder_ffn_dim=64,
            attention_window=4,
        )
    ),
    "t5": lambda: tf.T5Model(
        tf.T5Config(vocab_size=V, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_heads=2, decoder_start_token_id=0)
    ),
    "bart": lambda: tf.BartModel(
        tf.BartConfig(
            vocab_size=V,
            d_model=32,
            encoder_layers=2,
            decoder_layers=2,
            encoder_attention_heads=2,
            decoder_attention_heads=2,
            encoder_ffn_dim=64,
            decoder_ffn_dim=64,
        )
    ),
}
DECODERS = {"switch_transformers", "nllb_moe", "led", "t5", "bart"}


def inputs(name, length=16):
    if name == "swin":
        return {
            "pixel_values": torch.randn(1, 3, 2 * length, 2 * length, generator=torch.Generator().manual_seed(length))
        }
    if name == "encodec":
        return {"input_values": torch.randn(1, 1, 20 * length, generator=torch.Generator().manual_seed(length))}
    return _text(length, decoder=name in DECODERS)


def build(name):
    torch.manual_seed(0)
    return CONFIGS[name]().eval()


def lengths(name):
    return [inputs(name, n) for n in (8, 16, 32)]


for _name in CONFIGS:  # build_bert, inputs_bert, lengths_bert, ... (targets name plain functions)
    globals()[f"build_{_name}"] = (lambda n: lambda: build(n))(_name)
    globals()[f"inputs_{_name}"] = (lambda n: lambda: inputs(n))(_name)
    globals()[f"lengths_{_name}"] = (lambda n: lambda: lengths(n))(_name)
