"""pytorch-metric-learning's losses, miners, distances, reducers and regularizers where their
users put them: a small embedding trunk whose L2-normalised output goes to a library loss
(with a miner's pairs or triplets, or a cross-batch memory), classification losses with
learnable proxies or class weights kept as submodules (their logits at inference), a SimCLR
style self-supervised head, and a model whose inference itself mines pairs and reads their
distances."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from pytorch_metric_learning import distances, losses, miners
from torch import nn


def mlp_trunk(in_dim: int = 32, hidden: int = 64, depth: int = 2) -> nn.Sequential:
    """A few Linear/BatchNorm/ReLU layers over feature vectors."""
    layers: list[nn.Module] = []
    for i in range(depth):
        layers += [nn.Linear(in_dim if i == 0 else hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU()]
    return nn.Sequential(*layers)


def conv_trunk(channels: int = 3, width: int = 16) -> nn.Sequential:
    """A tiny conv net over images, globally pooled to ``2 * width`` features."""
    return nn.Sequential(
        nn.Conv2d(channels, width, 3, padding=1),
        nn.BatchNorm2d(width),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(width, 2 * width, 3, padding=1),
        nn.BatchNorm2d(2 * width),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
    )


class Embedder(nn.Module):
    """Trunk, linear embedding head, L2 normalisation (inference); training applies the
    library loss to the embeddings, on the pairs or triplets a library miner picks when one
    is given (``loss_fn(embeddings, labels, miner(embeddings, labels))``)."""

    def __init__(
        self,
        loss_fn: nn.Module,
        miner: nn.Module | None = None,
        trunk: nn.Module | None = None,
        trunk_dim: int = 64,
        embedding_size: int = 16,
    ) -> None:
        super().__init__()
        self.trunk = trunk if trunk is not None else mlp_trunk(hidden=trunk_dim)
        self.head = nn.Linear(trunk_dim, embedding_size)
        self.loss_fn = loss_fn
        self.miner = miner

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.normalize(self.head(self.trunk(x)), p=2, dim=-1)

    def loss(self, x: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        embeddings = self(x)
        indices_tuple = self.miner(embeddings, labels) if self.miner is not None else None
        return self.loss_fn(embeddings, labels, indices_tuple)


class ProxyClassifier(Embedder):
    """An embedder trained with a classification-style metric loss that owns learnable class
    weights or proxies (ArcFace, CosFace, ProxyAnchor, NormalizedSoftmax, ...); inference
    returns the logits of the embeddings (``get_logits``) of ``classifier``, by default the
    loss itself (or one of the losses a ``MultipleLosses`` combines)."""

    def __init__(self, loss_fn: nn.Module, classifier: nn.Module | None = None, **config: object) -> None:
        super().__init__(loss_fn, **config)  # type: ignore[arg-type]
        self.classifier = classifier if classifier is not None else loss_fn

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier.get_logits(self.embed(x))

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        return F.normalize(self.head(self.trunk(x)), p=2, dim=-1)

    def predict(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The embeddings and the class each is nearest to (highest logit)."""
        embeddings = self.embed(x)
        return embeddings, self.classifier.get_logits(embeddings).argmax(dim=-1)

    def loss(self, x: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return self.loss_fn(self.embed(x), labels)


class SimCLR(nn.Module):
    """SimCLR: a backbone's features (inference), and in training a projection head whose
    outputs on two augmented views of a batch go to ``SelfSupervisedLoss(NTXentLoss)``, each
    view's positive being the other view of the same sample."""

    def __init__(self, trunk_dim: int = 32, projection_dim: int = 16, temperature: float = 0.1) -> None:
        super().__init__()
        self.backbone = conv_trunk(width=trunk_dim // 2)
        self.projector = nn.Sequential(nn.Linear(trunk_dim, trunk_dim), nn.ReLU(), nn.Linear(trunk_dim, projection_dim))
        self.loss_fn = losses.SelfSupervisedLoss(losses.NTXentLoss(temperature=temperature))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.backbone(x)

    def loss(self, view1: torch.Tensor, view2: torch.Tensor) -> torch.Tensor:
        z1 = self.projector(self.backbone(view1))
        z2 = self.projector(self.backbone(view2))
        return self.loss_fn(z1, z2)


class MinedPairDistances(nn.Module):
    """Embeddings whose inference mines a labelled batch: the distances (through a library
    distance) of the positive and of the negative pairs the miner picks, e.g. to monitor the
    hardness of a validation batch; training is a contrastive loss on the same pairs."""

    def __init__(
        self,
        in_dim: int = 32,
        embedding_size: int = 16,
        miner: nn.Module | None = None,
        distance: distances.BaseDistance | None = None,
    ) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 64), nn.ReLU(), nn.Linear(64, embedding_size))
        self.distance = distance if distance is not None else distances.LpDistance(normalize_embeddings=True)
        self.miner = (
            miner
            if miner is not None
            else miners.PairMarginMiner(pos_margin=0.2, neg_margin=0.8, distance=self.distance)
        )
        self.loss_fn = losses.ContrastiveLoss(pos_margin=0.0, neg_margin=1.0, distance=self.distance)

    def forward(self, x: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        embeddings = self.net(x)
        a1, p, a2, n = self.miner(embeddings, labels)
        mat = self.distance(embeddings)
        return mat[a1, p], mat[a2, n]

    def loss(self, x: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        embeddings = self.net(x)
        return self.loss_fn(embeddings, labels, self.miner(embeddings, labels))
