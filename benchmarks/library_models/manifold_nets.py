"""geoopt where its users put it: networks whose parameters live on a manifold
(``ManifoldParameter`` on the Poincaré ball, the Stiefel manifold, the sphere, the hyperboloid,
which its Riemannian optimizers keep there) and whose forward maps between the manifold and
its tangent spaces (``expmap0``, ``logmap0``, ``expmap``, ``logmap``, ``proju``, ``projx``) and
measures on it (``dist``, ``dist2plane``): hyperbolic multinomial logistic regression over
geoopt's own hyperplane layer, a Möbius linear layer, a Stiefel-constrained projection, spherical
and hyperboloid prototype classifiers, Poincaré embeddings of a graph, attention that averages
on the ball with a learned curvature (``weighted_midpoint``). Training: cross-entropy or a
reconstruction loss."""

from __future__ import annotations

import geoopt
import torch
import torch.nn.functional as F
from geoopt.layers.stereographic import Distance2StereographicHyperplanes
from torch import nn


class HyperbolicMLR(nn.Module):
    """A Euclidean encoder mapped onto the Poincaré ball (``expmap0``) and classified by the
    signed distances to learned hyperplanes of the ball (geoopt's
    ``Distance2StereographicHyperplanes``, its points ``ManifoldParameter`` on the ball)."""

    def __init__(self, features: int = 16, dim: int = 4, classes: int = 5, c: float = 1.0) -> None:
        super().__init__()
        self.ball = geoopt.PoincareBall(c=c)
        self.encoder = nn.Sequential(nn.Linear(features, 32), nn.ReLU(), nn.Linear(32, dim))
        self.mlr = Distance2StereographicHyperplanes(dim, classes, ball=self.ball, init_std=0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mlr(self.ball.expmap0(0.1 * self.encoder(x)))

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self(x), y)


class MobiusLinear(nn.Module):
    """A hyperbolic linear layer (Ganea et al.): a Möbius matrix-vector product, a Möbius
    addition of a bias that is a point of the ball, a Möbius nonlinearity."""

    def __init__(self, ball: geoopt.PoincareBall, dim_in: int, dim_out: int, nonlinearity: bool = True) -> None:
        super().__init__()
        self.ball = ball
        self.weight = nn.Parameter(torch.randn(dim_out, dim_in) * 0.1)
        self.bias = geoopt.ManifoldParameter(torch.zeros(dim_out), manifold=ball)
        self.nonlinearity = nonlinearity

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.ball.mobius_add(self.ball.mobius_matvec(self.weight, x), self.bias)
        if self.nonlinearity:
            h = self.ball.mobius_fn_apply(torch.tanh, h)
        return h


class HyperbolicNet(nn.Module):
    """Two Möbius linear layers and distances to class prototypes on the ball (logits: minus
    the distance)."""

    def __init__(self, features: int = 16, dim: int = 8, classes: int = 5) -> None:
        super().__init__()
        self.ball = geoopt.PoincareBall(c=1.0)
        self.layer1 = MobiusLinear(self.ball, features, dim)
        self.layer2 = MobiusLinear(self.ball, dim, dim, nonlinearity=False)
        self.prototypes = geoopt.ManifoldParameter(self.ball.random_normal(classes, dim, std=0.1), manifold=self.ball)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.layer2(self.layer1(self.ball.expmap0(0.1 * x)))
        return -self.ball.dist(h[:, None, :], self.prototypes[None])

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self(x), y)


class StiefelProjection(nn.Module):
    """A linear projection with orthonormal columns (a ``ManifoldParameter`` on the Stiefel
    manifold), projected back onto it in the forward (``projx``, as when it is trained by a
    Euclidean optimizer): the codes (eval); the reconstruction error, and the Riemannian
    gradient of a tangent direction (``proju``) kept small, in training."""

    def __init__(self, features: int = 16, rank: int = 4) -> None:
        super().__init__()
        self.manifold = geoopt.Stiefel()
        self.weight = geoopt.ManifoldParameter(self.manifold.random(features, rank), manifold=self.manifold)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x @ self.manifold.projx(self.weight)

    def loss(self, x: torch.Tensor) -> torch.Tensor:
        w = self.manifold.projx(self.weight)
        recon = x @ w @ w.transpose(0, 1)
        direction = self.manifold.proju(w, x.transpose(0, 1) @ (x @ w))
        return F.mse_loss(recon, x) + 1e-3 * direction.pow(2).sum()


class OrthogonalRNN(nn.Module):
    """An RNN whose square recurrent matrix is orthogonal (``ManifoldParameter`` on the exact
    Euclidean Stiefel manifold), moved along a learned tangent direction by the exponential map
    at each call (``expmap``), over a sequence; the last state's class logits."""

    def __init__(self, features: int = 6, hidden: int = 8, classes: int = 3) -> None:
        super().__init__()
        self.manifold = geoopt.EuclideanStiefelExact()
        self.recurrent = geoopt.ManifoldParameter(self.manifold.random(hidden, hidden), manifold=self.manifold)
        self.drift = nn.Parameter(torch.zeros(hidden, hidden))
        self.inp = nn.Linear(features, hidden)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = self.manifold.expmap(self.recurrent, self.manifold.proju(self.recurrent, 0.01 * self.drift))
        h = x.new_zeros(x.shape[0], w.shape[0])
        for t in range(x.shape[1]):
            h = torch.tanh(h @ w + self.inp(x[:, t]))
        return self.head(h)

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self(x), y)


class SphericalPrototypes(nn.Module):
    """Embeddings projected onto the unit sphere (``projx``), moved a step along a learned
    tangent direction (``proju``, ``expmap``), classified by geodesic distance to prototypes
    on the sphere (``ManifoldParameter``); training adds the pull of each embedding towards
    its class's prototype (``logmap``)."""

    def __init__(self, features: int = 16, dim: int = 8, classes: int = 5, scale: float = 4.0) -> None:
        super().__init__()
        self.sphere = geoopt.Sphere()
        self.encoder = nn.Sequential(nn.Linear(features, 32), nn.ReLU(), nn.Linear(32, dim))
        self.step = nn.Linear(dim, dim)
        self.prototypes = geoopt.ManifoldParameter(self.sphere.random(classes, dim), manifold=self.sphere)
        self.scale = scale

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        z = self.sphere.projx(self.encoder(x))
        return self.sphere.expmap(z, 0.1 * self.sphere.proju(z, self.step(z)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return -self.scale * self.sphere.dist(self.embed(x)[:, None, :], self.prototypes[None])

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        z = self.embed(x)
        pull = self.sphere.logmap(z, self.prototypes[y]).pow(2).sum(-1).mean()
        logits = -self.scale * self.sphere.dist(z[:, None, :], self.prototypes[None])
        return F.cross_entropy(logits, y) + 0.1 * pull


class LorentzClassifier(nn.Module):
    """Features lifted onto the hyperboloid (a tangent vector at the origin, its time
    coordinate zero, through ``expmap0``), classified by distance to prototypes on the
    hyperboloid (``ManifoldParameter``, ``random_normal``); training adds a decoder of the
    point's tangent vector at the origin (``logmap0``)."""

    def __init__(self, features: int = 16, dim: int = 4, classes: int = 5) -> None:
        super().__init__()
        self.lorentz = geoopt.Lorentz(k=1.0)
        self.encoder = nn.Sequential(nn.Linear(features, 32), nn.ReLU(), nn.Linear(32, dim))
        self.decoder = nn.Linear(dim, features)
        self.prototypes = geoopt.ManifoldParameter(
            self.lorentz.random_normal(classes, dim + 1, std=0.5), manifold=self.lorentz
        )

    def lift(self, x: torch.Tensor) -> torch.Tensor:
        u = self.encoder(x)
        return self.lorentz.expmap0(F.pad(u, (1, 0)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return -self.lorentz.dist(self.lift(x)[:, None, :], self.prototypes[None])

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        p = self.lift(x)
        logits = -self.lorentz.dist(p[:, None, :], self.prototypes[None])
        recon = self.decoder(self.lorentz.logmap0(p)[..., 1:])
        return F.cross_entropy(logits, y) + F.mse_loss(recon, x)


class PoincareEmbedding(nn.Module):
    """Poincaré embeddings of a graph's nodes (Nickel and Kiela): a ``ManifoldParameter`` table
    on the ball, each row of ``pairs`` a node, its neighbour and sampled non-neighbours; scores
    minus the distances (eval), the neighbour's softmax against the negatives (training)."""

    def __init__(self, nodes: int = 20, dim: int = 2) -> None:
        super().__init__()
        self.ball = geoopt.PoincareBall()
        self.weight = geoopt.ManifoldParameter(torch.empty(nodes, dim).uniform_(-1e-3, 1e-3), manifold=self.ball)

    def forward(self, pairs: torch.Tensor) -> torch.Tensor:
        e = self.weight[pairs]
        return -self.ball.dist(e[:, :1], e[:, 1:])

    def loss(self, pairs: torch.Tensor) -> torch.Tensor:
        scores = self(pairs)
        return F.cross_entropy(scores, torch.zeros(scores.shape[0], dtype=torch.long))


class HyperbolicAttention(nn.Module):
    """Self-attention on the Poincaré ball with a learned curvature: tokens mapped onto the
    ball (``expmap0``), attention weights from the distances between queries and keys, values
    averaged by the weighted Möbius gyromidpoint (``weighted_midpoint``), mapped back
    (``logmap0``) to a class head."""

    def __init__(self, dim: int = 8, classes: int = 3) -> None:
        super().__init__()
        self.ball = geoopt.PoincareBall(c=1.0, learnable=True)
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = (self.ball.expmap0(0.1 * f(x)) for f in (self.q, self.k, self.v))
        weights = torch.softmax(-self.ball.dist(q[:, :, None], k[:, None]), dim=-1)  # (b, n, n)
        out = self.ball.weighted_midpoint(v[:, None], weights, reducedim=[2])  # (b, n, d)
        return self.head(self.ball.logmap0(out).mean(1))

    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self(x), y)
