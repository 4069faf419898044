"""Small graph networks as torch_geometric's users write them: node and graph classifiers."""

from __future__ import annotations

import torch
from torch import nn
from torch_geometric import nn as gnn


class GraphClassifier(nn.Module):
    """Message passing, then one pooled vector per graph of the batch."""

    def __init__(self, conv: str = "gcn", pool: str = "mean", channels: int = 16) -> None:
        super().__init__()
        make = {
            "gcn": lambda i, o: gnn.GCNConv(i, o),
            "sage": lambda i, o: gnn.SAGEConv(i, o),
            "gat": lambda i, o: gnn.GATConv(i, o, heads=2, concat=False),
            "gin": lambda i, o: gnn.GINConv(nn.Sequential(nn.Linear(i, o), nn.ReLU(), nn.Linear(o, o))),
            "transformer": lambda i, o: gnn.TransformerConv(i, o, heads=2, concat=False),
        }[conv]
        self.convs = nn.ModuleList([make(8, channels), make(channels, channels)])
        self.pool = {"mean": gnn.global_mean_pool, "max": gnn.global_max_pool, "add": gnn.global_add_pool}[pool]
        self.head = nn.Linear(channels, 3)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor, batch: torch.Tensor) -> torch.Tensor:
        for conv in self.convs:
            x = torch.relu(conv(x, edge_index))
        return self.head(self.pool(x, batch))


class NodeClassifier(nn.Module):
    """One of the library's ready-made stacks (``GCN``, ``GAT``, ...) over a single graph."""

    def __init__(self, model: str) -> None:
        super().__init__()
        cls = getattr(gnn.models, model)
        self.net = cls(in_channels=8, hidden_channels=16, num_layers=2, out_channels=3)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        return self.net(x, edge_index)


def graph_batch(graphs: int = 3, nodes: int = 6) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Node features, a ring's edges per graph, and the graph each node belongs to."""
    x = torch.randn(graphs * nodes, 8)
    src = torch.arange(graphs * nodes)
    dst = (src % nodes + 1) % nodes + (src // nodes) * nodes
    edge_index = torch.stack([torch.cat([src, dst]), torch.cat([dst, src])])
    batch = torch.arange(graphs).repeat_interleave(nodes)
    return x, edge_index, batch
