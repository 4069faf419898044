"""Confident predictions picked with the same boolean mask, one `x[mask]` at a time."""
import torch
from torch import nn


class Filter(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.score = nn.Linear(8, 3)

    def forward(self, feats: torch.Tensor):
        scores, labels = self.score(feats).sigmoid().max(dim=-1)
        keep = (scores > 0.5) & ~torch.isnan(scores)
        kept = scores[keep]
        kept_feats = feats[keep] * 2
        where = keep.nonzero()
        return kept, kept_feats, labels[keep], where


def build():
    return Filter()


def example_inputs():
    return [(torch.randn(2, 6, 8),), (torch.randn(3, 4, 8),)]
