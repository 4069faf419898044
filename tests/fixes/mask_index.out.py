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
        keep_idx = keep.nonzero(as_tuple=True)
        kept = scores[keep_idx]
        kept_feats = feats[keep_idx] * 2
        where = torch.stack(keep_idx, dim=1)
        return kept, kept_feats, labels[keep_idx], where


def build():
    return Filter()


def example_inputs():
    return [(torch.randn(2, 6, 8),), (torch.randn(3, 4, 8),)]
