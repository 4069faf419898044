"""fast-pytorch-kmeans where its users put it: clustering a network's features inside the
forward (``KMeans.fit_predict`` on the detached features, as DeepCluster-style training and
token clustering do; its Euclidean and cosine modes, random, Gaussian and k-means++ starts,
minibatches), a codebook fitted once and then queried (``predict``) to quantize features, and
``MultiKMeans`` clustering each head's features at once. The library's objects are plain Python
objects kept on the module; its loop stops when the centroids move less than ``tol``."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from fast_pytorch_kmeans import KMeans, MultiKMeans
from torch import nn


class ClusteredFeatures(nn.Module):
    """An MLP encoder and ``KMeans(n_clusters, **kmeans)`` fitted on its (detached) features
    at each call: the cluster of each sample and the centroids (eval); the features' squared
    distance to their cluster's centroid, a compactness loss, in training. ``init``: start
    ``fit_predict`` from these centroids instead of the library's initialization. With
    ``minibatch``, ``fit`` then ``predict``."""

    def __init__(
        self, features: int = 16, dim: int = 8, n_clusters: int = 4, init: bool = False, **kmeans: Any
    ) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(features, 32), nn.ReLU(), nn.Linear(32, dim))
        self.kmeans = KMeans(n_clusters=n_clusters, **kmeans)
        self.init = nn.Parameter(torch.randn(n_clusters, dim)) if init else None

    def cluster(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        z = self.encoder(x)
        start = None if self.init is None else self.init.detach().clone()
        if self.kmeans.minibatch is None:
            labels = self.kmeans.fit_predict(z.detach(), centroids=start)
        else:  # (fit_predict labels the last minibatch only)
            self.kmeans.fit(z.detach(), centroids=start)
            labels = self.kmeans.predict(z.detach())
        return z, labels, self.kmeans.centroids

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        _, labels, centroids = self.cluster(x)
        return labels, centroids

    def loss(self, x: torch.Tensor) -> torch.Tensor:
        z, labels, centroids = self.cluster(x)
        return (z - centroids[labels]).pow(2).sum(-1).mean()


class KMeansQuantizer(nn.Module):
    """A codebook fitted once by k-means on sample features (at construction, as a user
    fits it on a first batch) and queried in the forward: each encoded feature replaced by its
    nearest centroid (``predict``), with a straight-through gradient, then decoded;
    reconstruction plus commitment loss in training."""

    def __init__(self, sample: torch.Tensor, features: int = 16, dim: int = 8, n_clusters: int = 8) -> None:
        super().__init__()
        self.encoder = nn.Linear(features, dim)
        self.decoder = nn.Linear(dim, features)
        self.kmeans = KMeans(n_clusters=n_clusters, max_iter=20, mode="euclidean")
        with torch.no_grad():
            self.kmeans.fit(self.encoder(sample))
        self.register_buffer("codebook", self.kmeans.centroids.clone())

    def quantize(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        z = self.encoder(x)
        codes = self.kmeans.predict(z.detach())
        q = self.codebook[codes]
        return z, z + (q - z).detach()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.decoder(self.quantize(x)[1])

    def loss(self, x: torch.Tensor) -> torch.Tensor:
        z, q = self.quantize(x)
        return F.mse_loss(self.decoder(q), x) + 0.25 * F.mse_loss(z, q.detach())


class HeadClustering(nn.Module):
    """Token features split into heads, each head's tokens clustered by one ``MultiKMeans``
    (``fit_predict`` over ``(heads, tokens, dim)``), the tokens pooled within their clusters
    (eval); in training, each token's distance to its head's centroid. ``fitted``: the
    clusterer is fitted once at construction and only ``predict`` runs in the forward."""

    def __init__(self, dim: int = 16, heads: int = 2, n_clusters: int = 4, fitted: bool = False, **kmeans: Any) -> None:
        super().__init__()
        self.heads = heads
        self.proj = nn.Linear(dim, dim)
        self.kmeans = MultiKMeans(n_clusters=n_clusters, **kmeans)
        self.fitted = fitted
        if fitted:
            with torch.no_grad():
                self.kmeans.fit(self.split(self.proj(torch.randn(32, dim))))

    def split(self, x: torch.Tensor) -> torch.Tensor:
        n, d = x.shape
        return x.view(n, self.heads, d // self.heads).transpose(0, 1)

    def cluster(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.split(self.proj(x))
        if self.fitted:
            labels = self.kmeans.predict(h.detach())
        else:
            labels = self.kmeans.fit_predict(h.detach())
        return h, labels

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, labels = self.cluster(x)
        onehot = F.one_hot(labels, self.kmeans.n_clusters).to(h.dtype)  # (heads, n, k)
        pooled = onehot.transpose(1, 2) @ h / onehot.sum(1)[..., None].clamp_min(1.0)
        return (onehot @ pooled).transpose(0, 1).reshape(x.shape)

    def loss(self, x: torch.Tensor) -> torch.Tensor:
        h, labels = self.cluster(x)
        centroids = torch.gather(self.kmeans.centroids, 1, labels[..., None].expand(-1, -1, h.shape[-1]))
        return (h - centroids).pow(2).sum(-1).mean()
