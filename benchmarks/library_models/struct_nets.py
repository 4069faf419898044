"""torch-struct's structured distributions where their users put them: a network scores the
parts of a structure (tag transitions, segments, arcs, spans), the distribution over all
structures gives the decoding (argmax, k-best, marginals) in eval and the likelihood of the
gold structure in training."""

from __future__ import annotations

import torch
import torch.nn.functional as F
import torch_struct
from torch import nn


class Encoder(nn.Module):
    """Token embeddings through a bidirectional LSTM: (batch, N) ids -> (batch, N, 2 * dim)."""

    def __init__(self, vocab: int = 20, dim: int = 16) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, dim, batch_first=True, bidirectional=True)

    def forward(self, words: torch.Tensor) -> torch.Tensor:
        return self.lstm(self.embed(words))[0]


class CRFTagger(nn.Module):
    """A BiLSTM-CRF sequence tagger: emission scores plus a learned transition matrix as the
    linear chain's edge potentials (batch x N-1 x C x C, indexed [t, z_t, z_t-1])."""

    def __init__(self, tags: int = 4, vocab: int = 20, dim: int = 16) -> None:
        super().__init__()
        self.tags = tags
        self.encoder = Encoder(vocab, dim)
        self.emit = nn.Linear(2 * dim, tags)
        self.transition = nn.Parameter(0.1 * torch.randn(tags, tags))

    def dist(self, words: torch.Tensor, lengths: torch.Tensor) -> torch_struct.LinearChainCRF:
        emissions = self.emit(self.encoder(words))  # (b, N, C)
        edges = emissions[:, 1:, :, None] + self.transition[None, None]
        first = torch.zeros_like(edges)
        first[:, 0] = emissions[:, 0, None, :]
        return torch_struct.LinearChainCRF(edges + first, lengths=lengths)

    def forward(self, words: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """The Viterbi tag sequence."""
        best = self.dist(words, lengths).argmax
        tags, _ = torch_struct.LinearChainCRF.struct.from_parts(best)
        return tags

    def loss(self, words: torch.Tensor, lengths: torch.Tensor, tags: torch.Tensor) -> torch.Tensor:
        """Negative log-likelihood of the gold tags (their edge indicators made in the step)."""
        gold = torch_struct.LinearChainCRF.struct.to_parts(tags, self.tags, lengths=lengths)
        return -self.dist(words, lengths).log_prob(gold).mean()


class CRFMarginals(CRFTagger):
    """Per-token posterior tag probabilities (the forward-backward marginals summed over the
    previous tag), trained by expected-count cross-entropy against gold edge indicators."""

    def forward(self, words: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        edge_marginals = self.dist(words, lengths).marginals  # (b, N-1, C, C)
        return edge_marginals.sum(-1)

    def loss(self, words: torch.Tensor, lengths: torch.Tensor, gold: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        marginals = self.dist(words, lengths).marginals
        return -(gold * marginals.clamp_min(1e-6).log()).sum() / words.shape[0]


class CRFKBest(CRFTagger):
    """K-best decoding (the k highest-scoring tag sequences and their scores), trained on the
    gold structure's likelihood with an entropy bonus."""

    def __init__(self, k: int = 3, **config: int) -> None:
        super().__init__(**config)
        self.k = k

    def forward(self, words: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        d = self.dist(words, lengths)
        return d.topk(self.k), d.kmax(self.k)

    def loss(self, words: torch.Tensor, lengths: torch.Tensor, gold: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        d = self.dist(words, lengths)
        return (-d.log_prob(gold) - 0.1 * d.entropy).mean()


class CRFDistillation(CRFTagger):
    """A student chain distilled from a fixed teacher chain: KL(student || teacher) and the
    cross-entropy between them (their semirings), the best path's score in eval."""

    def __init__(self, **config: int) -> None:
        super().__init__(**config)
        self.teacher = CRFTagger(**config)
        self.teacher.requires_grad_(False)

    def forward(self, words: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        student, teacher = self.dist(words, lengths), self.teacher.dist(words, lengths)
        return student.max, student.kl(teacher)

    def loss(self, words: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        student, teacher = self.dist(words, lengths), self.teacher.dist(words, lengths)
        return (student.kl(teacher) + 0.1 * student.cross_entropy(teacher)).mean()


class SemiMarkovSegmenter(nn.Module):
    """Labelled segmentation by a semi-Markov CRF: a segment of length k starting at t with
    label c scores the mean of its token features plus a label transition."""

    def __init__(self, labels: int = 3, max_len: int = 3, vocab: int = 20, dim: int = 16) -> None:
        super().__init__()
        self.labels, self.max_len = labels, max_len
        self.encoder = Encoder(vocab, dim)
        self.segment = nn.Linear(2 * dim, labels)
        self.transition = nn.Parameter(0.1 * torch.randn(labels, labels))

    def dist(self, words: torch.Tensor, lengths: torch.Tensor) -> torch_struct.SemiMarkovCRF:
        h = self.encoder(words)
        b, n, _ = h.shape
        scores = self.segment(h)  # (b, N, C)
        cum = F.pad(scores.cumsum(1), (0, 0, 1, 0))  # (b, N+1, C)
        spans = []
        for k in range(self.max_len):
            end = torch.clamp(torch.arange(n - 1) + k, max=n)
            spans.append((cum[:, end] - cum[:, : n - 1]) / max(k, 1))
        edges = torch.stack(spans, 2)[..., None] + self.transition  # (b, N-1, K, C, C)
        return torch_struct.SemiMarkovCRF(edges, lengths=lengths)

    def forward(self, words: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        labels, _ = torch_struct.SemiMarkovCRF.struct.from_parts(self.dist(words, lengths).argmax)
        return labels

    def loss(self, words: torch.Tensor, lengths: torch.Tensor, gold: torch.Tensor) -> torch.Tensor:
        return -self.dist(words, lengths).log_prob(gold).mean()


class BiaffineParser(nn.Module):
    """A biaffine dependency parser: arc scores head x dependent from the BiLSTM's states
    (root arcs on the diagonal), the projective tree CRF or the non-projective one (the
    matrix-tree theorem)."""

    def __init__(self, projective: bool = True, vocab: int = 20, dim: int = 16) -> None:
        super().__init__()
        self.projective = projective
        self.encoder = Encoder(vocab, dim)
        self.head = nn.Linear(2 * dim, dim)
        self.dep = nn.Linear(2 * dim, dim)
        self.bilinear = nn.Parameter(0.1 * torch.randn(dim, dim))
        self.root = nn.Linear(2 * dim, 1)

    def dist(self, words: torch.Tensor, lengths: torch.Tensor) -> torch_struct.StructDistribution:
        h = self.encoder(words)
        arcs = self.head(h) @ self.bilinear @ self.dep(h).transpose(1, 2)  # (b, head, dep)
        arcs = arcs + torch.diag_embed(self.root(h).squeeze(-1))
        if self.projective:
            return torch_struct.DependencyCRF(arcs, lengths=lengths)
        return torch_struct.NonProjectiveDependencyCRF(arcs, lengths=lengths)

    def forward(self, words: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():  # the tree CRF masks padded arcs in place: not on a leaf
            d = self.dist(words, lengths)
        if self.projective:  # the best tree, as each word's head
            heads, _ = torch_struct.DepTree.from_parts(d.argmax)
            return heads
        return d.marginals  # arc posteriors

    def loss(self, words: torch.Tensor, lengths: torch.Tensor, gold: torch.Tensor) -> torch.Tensor:
        d = self.dist(words, lengths)
        if self.projective:
            return -d.log_prob(gold).mean()
        # (the non-projective distribution has no log_prob: the gold tree's score less the
        # log-partition of the matrix-tree theorem)
        return (d.partition - (d.log_potentials * gold).sum((1, 2))).mean()


class SpanParser(nn.Module):
    """A constituency parser: labelled span scores from span endpoint features (a TreeCRF over
    the CKY chart), the best tree's spans in eval."""

    def __init__(self, labels: int = 3, vocab: int = 20, dim: int = 16) -> None:
        super().__init__()
        self.encoder = Encoder(vocab, dim)
        self.left = nn.Linear(2 * dim, dim)
        self.right = nn.Linear(2 * dim, dim)
        self.label = nn.Linear(dim, labels)

    def dist(self, words: torch.Tensor, lengths: torch.Tensor) -> torch_struct.TreeCRF:
        h = self.encoder(words)
        spans = torch.tanh(self.left(h)[:, :, None] + self.right(h)[:, None, :])  # (b, N, N, dim)
        return torch_struct.TreeCRF(self.label(spans), lengths=lengths)

    def forward(self, words: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return self.dist(words, lengths).argmax

    def loss(self, words: torch.Tensor, lengths: torch.Tensor, gold: torch.Tensor) -> torch.Tensor:
        return -self.dist(words, lengths).log_prob(gold).mean()


class NeuralHMM(nn.Module):
    """A hidden Markov model whose transition, emission and initial log-probabilities come
    from state embeddings (a neural HMM): the observations' log-likelihood in eval, its
    negative in training."""

    def __init__(self, states: int = 4, vocab: int = 12, dim: int = 8) -> None:
        super().__init__()
        self.states = nn.Parameter(torch.randn(states, dim))
        self.next = nn.Linear(dim, dim)
        self.words = nn.Parameter(torch.randn(vocab, dim))
        self.start = nn.Linear(dim, 1)

    def dist(self, observations: torch.Tensor) -> torch_struct.HMM:
        transition = (self.next(self.states) @ self.states.T).log_softmax(-1).T  # p(z_n | z_n-1), (C x C)
        emission = (self.words @ self.states.T).log_softmax(0)  # (V x C)
        init = self.start(self.states).squeeze(-1).log_softmax(0)
        return torch_struct.HMM(transition, emission, init, observations)

    def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        d = self.dist(observations)
        return d.partition, d.argmax

    def loss(self, observations: torch.Tensor) -> torch.Tensor:
        return -self.dist(observations).partition.mean()


class LatentChainAutoencoder(nn.Module):
    """A sequence autoencoder with a latent tag chain: a relaxed Gumbel-CRF sample of the
    chain (training) or its best path (eval) is decoded back into the tokens."""

    def __init__(self, tags: int = 4, vocab: int = 20, dim: int = 16) -> None:
        super().__init__()
        self.crf = CRFTagger(tags, vocab, dim)
        self.decode = nn.Linear(tags, vocab)

    def forward(self, words: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        d = self.crf.dist(words, lengths)
        edges = d.gumbel_crf(0.5) if self.training else d.argmax
        states = torch.cat([edges[:, :1].sum(-2), edges.sum(-1)], 1)  # (b, N, C) soft one-hots
        return self.decode(states)

    def loss(self, words: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        logits = self(words, lengths)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), words.reshape(-1))
