"""pytorch-crf where its users put it: a CRF layer over a sequence encoder's emission scores
(``torchcrf.CRF``), trained on the negative log-likelihood of the gold tags and decoded with
Viterbi at inference. BiLSTM, convolutional and Transformer encoders, time-major and
batch-first layouts, padded batches under a mask, each of the CRF's reductions, the decoded
paths padded back into a tensor, re-ranking by the gold path's likelihood, two CRF heads over
one encoder. ``forward`` decodes (what inference reads), ``loss`` is the training loss."""

from __future__ import annotations

import torch
from torch import nn
from torchcrf import CRF


def pad_paths(paths: list[list[int]], length: int, fill: int = -1) -> torch.Tensor:
    """The decoded tag lists as one ``(batch, length)`` tensor, ``fill`` past each path's end."""
    return torch.tensor([p + [fill] * (length - len(p)) for p in paths])


class Encoder(nn.Module):
    """Token embeddings, then a BiLSTM, a 1D convolution stack or a Transformer encoder;
    ``(batch, length, hidden)`` out."""

    def __init__(self, kind: str = "lstm", vocab: int = 50, dim: int = 16, hidden: int = 16) -> None:
        super().__init__()
        self.kind = kind
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        if kind == "lstm":
            self.net = nn.LSTM(dim, hidden // 2, batch_first=True, bidirectional=True)
        elif kind == "cnn":
            self.net = nn.Sequential(
                nn.Conv1d(dim, hidden, 3, padding=1), nn.ReLU(), nn.Conv1d(hidden, hidden, 3, padding=1)
            )
        else:
            layer = nn.TransformerEncoderLayer(dim, 2, 2 * dim, dropout=0.0, batch_first=True)
            self.net = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
            self.out = nn.Linear(dim, hidden)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        x = self.embed(tokens)
        if self.kind == "lstm":
            return self.net(x)[0]
        if self.kind == "cnn":
            return self.net(x.transpose(1, 2)).transpose(1, 2)
        pad = None if mask is None else ~mask
        return self.out(self.net(x, src_key_padding_mask=pad))


class CRFTagger(nn.Module):
    """An encoder, a linear layer to tag scores, a CRF. ``batch_first``: the CRF reads
    ``(batch, length, tags)``; else the emissions are transposed to time-major first, as the
    CRF's default layout wants. ``masked``: the batch is padded (token 0) and the CRF gets the
    mask. ``forward`` returns the Viterbi paths (``padded``: as a tensor)."""

    def __init__(
        self,
        encoder: str = "lstm",
        tags: int = 5,
        batch_first: bool = True,
        masked: bool = False,
        reduction: str = "mean",
        padded: bool = False,
    ) -> None:
        super().__init__()
        self.encoder = Encoder(encoder)
        self.hidden2tag = nn.Linear(16, tags)
        self.crf = CRF(tags, batch_first=batch_first)
        self.batch_first = batch_first
        self.masked = masked
        self.reduction = reduction
        self.padded = padded

    def emissions(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        mask = tokens.ne(0) if self.masked else None
        scores = self.hidden2tag(self.encoder(tokens, mask))
        if not self.batch_first:
            scores = scores.transpose(0, 1)
            mask = None if mask is None else mask.transpose(0, 1)
        return scores, mask

    def forward(self, tokens: torch.Tensor) -> list[list[int]] | torch.Tensor:
        scores, mask = self.emissions(tokens)
        paths = self.crf.decode(scores, mask=mask)
        return pad_paths(paths, tokens.shape[1]) if self.padded else paths

    def loss(self, tokens: torch.Tensor, tags: torch.Tensor) -> torch.Tensor:
        scores, mask = self.emissions(tokens)
        if not self.batch_first:
            tags = tags.transpose(0, 1)
        return -self.crf(scores, tags, mask=mask, reduction=self.reduction)


class Reranker(nn.Module):
    """Scores candidate tag sequences by their CRF log-likelihood (``reduction="none"``), one
    per sentence, and the best path's: how n-best lists are re-ranked."""

    def __init__(self, tags: int = 5) -> None:
        super().__init__()
        self.tagger = CRFTagger("lstm", tags, batch_first=True, masked=True)

    def forward(self, tokens: torch.Tensor, candidates: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        scores, mask = self.tagger.emissions(tokens)
        llh = self.tagger.crf(scores, candidates, mask=mask, reduction="none")
        best = pad_paths(self.tagger.crf.decode(scores, mask=mask), tokens.shape[1], fill=0)
        return llh, self.tagger.crf(scores, best, mask=mask, reduction="none")

    def loss(self, tokens: torch.Tensor, candidates: torch.Tensor) -> torch.Tensor:
        return self.tagger.loss(tokens, candidates)


class JointTagger(nn.Module):
    """One BiLSTM, two CRF heads (part-of-speech and named entities): both decoded, the two
    likelihoods summed in training."""

    def __init__(self, pos_tags: int = 6, ner_tags: int = 4) -> None:
        super().__init__()
        self.encoder = Encoder("lstm")
        self.pos = nn.Linear(16, pos_tags)
        self.ner = nn.Linear(16, ner_tags)
        self.pos_crf = CRF(pos_tags, batch_first=True)
        self.ner_crf = CRF(ner_tags, batch_first=True)

    def forward(self, tokens: torch.Tensor) -> tuple[list[list[int]], list[list[int]]]:
        mask = tokens.ne(0)
        h = self.encoder(tokens, mask)
        return self.pos_crf.decode(self.pos(h), mask), self.ner_crf.decode(self.ner(h), mask)

    def loss(self, tokens: torch.Tensor, pos: torch.Tensor, ner: torch.Tensor) -> torch.Tensor:
        mask = tokens.ne(0)
        h = self.encoder(tokens, mask)
        return -self.pos_crf(self.pos(h), pos, mask, reduction="token_mean") - self.ner_crf(
            self.ner(h), ner, mask, reduction="token_mean"
        )
