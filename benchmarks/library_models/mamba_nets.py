"""mambapy's selective state-space models where their users put them: a Mamba backbone under a
classifier, a forecaster or a small language model (its parallel scan, its sequential scan,
its recurrent step with caches), Jamba's mix of Mamba, attention and mixture-of-experts
layers, and the bidirectional Vision Mamba over image patches. (``mambapy.lm`` imports the
Mamba-2 module, which needs the CUDA ``mamba_ssm`` package: the language model here is the
user's own.)"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from mambapy.jamba import JambaLM, JambaLMConfig, load_balancing_loss
from mambapy.mamba import Mamba, MambaConfig, RMSNorm
from mambapy.vim import MambaConfig as VimConfig
from mambapy.vim import VMamba
from torch import nn


class SequenceClassifier(nn.Module):
    """Token ids -> Mamba -> mean over time -> class logits."""

    def __init__(self, vocab: int = 32, classes: int = 4, **config: object) -> None:
        super().__init__()
        self.config = MambaConfig(**{"d_model": 16, "n_layers": 2, "d_state": 8, **config})
        self.embed = nn.Embedding(vocab, self.config.d_model)
        self.mamba = Mamba(self.config)
        self.norm = RMSNorm(self.config.d_model)
        self.head = nn.Linear(self.config.d_model, classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        h = self.norm(self.mamba(self.embed(tokens)))
        if self.config.mup:
            h = h / self.config.mup_width_mult
        return self.head(h.mean(1))

    def loss(self, tokens: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self(tokens), labels)


class Forecaster(nn.Module):
    """Multivariate time series -> Mamba -> the next value of every series at every step."""

    def __init__(self, series: int = 3, **config: object) -> None:
        super().__init__()
        config = {"d_model": 16, "n_layers": 2, "d_state": 8, **config}
        self.inp = nn.Linear(series, config["d_model"])  # type: ignore[arg-type]
        self.mamba = Mamba(MambaConfig(**config))  # type: ignore[arg-type]
        self.out = nn.Linear(config["d_model"], series)  # type: ignore[arg-type]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.mamba(self.inp(x)))

    def loss(self, x: torch.Tensor) -> torch.Tensor:
        return F.mse_loss(self(x[:, :-1]), x[:, 1:])


class MambaLM(nn.Module):
    """A small causal language model: embedding, Mamba, final RMSNorm, a tied head; next-token
    loss in training; ``generate`` decodes greedily one token at a time through ``Mamba.step``
    and its per-layer caches (the convolution's inputs and the SSM's hidden state)."""

    def __init__(self, vocab: int = 32, **config: object) -> None:
        super().__init__()
        self.config = MambaConfig(**{"d_model": 16, "n_layers": 2, "d_state": 8, **config})
        self.embedding = nn.Embedding(vocab, self.config.d_model)
        self.mamba = Mamba(self.config)
        self.norm_f = RMSNorm(self.config.d_model)
        self.lm_head = nn.Linear(self.config.d_model, vocab, bias=False)
        self.lm_head.weight = self.embedding.weight

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.lm_head(self.norm_f(self.mamba(self.embedding(tokens))))

    def loss(self, tokens: torch.Tensor) -> torch.Tensor:
        logits = self(tokens[:, :-1])
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))


class MambaGenerator(nn.Module):
    """Greedy decoding of ``steps`` tokens after a prompt, one ``Mamba.step`` per token (the
    prompt too, as mambapy's own ``generate`` feeds it)."""

    def __init__(self, steps: int = 4, **config: object) -> None:
        super().__init__()
        self.lm = MambaLM(**config)
        self.steps = steps

    def forward(self, prompt: torch.Tensor) -> torch.Tensor:
        cfg = self.lm.config
        b = prompt.shape[0]
        caches = [(None, torch.zeros(b, cfg.d_inner, cfg.d_conv - 1)) for _ in range(cfg.n_layers)]
        logits = []
        token = prompt[:, 0]
        for i in range(prompt.shape[1] + self.steps - 1):
            x, caches = self.lm.mamba.step(self.lm.embedding(token), caches)
            step_logits = self.lm.lm_head(self.lm.norm_f(x))
            logits.append(step_logits)
            token = prompt[:, i + 1] if i + 1 < prompt.shape[1] else step_logits.argmax(-1)
        return torch.stack(logits, 1)


class JambaModel(nn.Module):
    """A tiny JambaLM (Mamba and attention layers, mixture-of-experts MLPs on every other
    layer): next-token loss plus its router load-balancing loss in training, the logits in eval."""

    def __init__(self, vocab: int = 32, experts: int = 4, **config: object) -> None:
        super().__init__()
        self.config = JambaLMConfig(
            **{
                "d_model": 16,
                "n_layers": 4,
                "mlp_size": 32,
                "d_state": 8,
                "num_attention_heads": 4,
                "num_key_value_heads": 2,
                "num_experts": experts,
                "num_experts_per_tok": 2 if experts > 1 else 1,
                "attn_layer_offset": 1,
                "attn_layer_period": 2,
                "expert_layer_offset": 1,
                "expert_layer_period": 2,
                "vocab_size": vocab,
                **config,
            }
        )
        self.lm = JambaLM(self.config)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        out = self.lm(tokens)
        return out[0] if isinstance(out, tuple) else out

    def loss(self, tokens: torch.Tensor) -> torch.Tensor:
        out = self.lm(tokens[:, :-1])
        logits, router_logits = out if isinstance(out, tuple) else (out, None)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))
        if router_logits is not None:
            aux = load_balancing_loss(router_logits, self.config.num_experts, self.config.num_experts_per_tok)
            loss = loss + 0.01 * aux
        return loss


class VisionMamba(nn.Module):
    """Vision Mamba: patch embedding, a class token in the middle of the sequence, the
    bidirectional VMamba blocks, the class token's logits."""

    def __init__(self, image: int = 16, patch: int = 4, classes: int = 5, **config: object) -> None:
        super().__init__()
        cfg = VimConfig(**{"d_model": 16, "n_layers": 2, "d_state": 8, **config})
        self.patch = nn.Conv2d(3, cfg.d_model, patch, stride=patch)
        n = (image // patch) ** 2
        self.cls = nn.Parameter(torch.zeros(1, 1, cfg.d_model))
        self.pos = nn.Parameter(0.02 * torch.randn(1, n + 1, cfg.d_model))
        self.vim = VMamba(cfg)
        self.head = nn.Linear(cfg.d_model, classes)
        self.middle = n // 2

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        x = self.patch(images).flatten(2).transpose(1, 2)
        cls = self.cls.expand(x.shape[0], -1, -1)
        x = torch.cat([x[:, : self.middle], cls, x[:, self.middle :]], 1) + self.pos
        return self.head(self.vim(x)[:, self.middle])

    def loss(self, images: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self(images), labels)
