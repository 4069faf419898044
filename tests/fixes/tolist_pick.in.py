"""Index lists pulled to Python and used one row at a time."""
import torch
from torch import nn


class Picker(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(6, 6)

    def forward(self, x: torch.Tensor, idx: torch.Tensor, rows: torch.Tensor):
        h = self.proj(x)
        # one column per row
        cols = idx.tolist()
        out = torch.stack([h[i, c] for i, c in enumerate(cols)])
        order = rows.tolist()
        picked = torch.stack([h[r] for r in order], dim=0)
        ids = idx.tolist()
        nested = torch.stack([h[i][ids[i]] for i in range(len(ids))])
        chosen = rows.tolist()
        acc = []
        for k, r in enumerate(chosen):
            acc.append(h[r, k])
        looped = torch.stack(acc)
        return out, picked, nested, looped


def build():
    return Picker()


def example_inputs():
    return [(torch.randn(5, 6), torch.tensor([0, 5, 2, 2, 1]), torch.tensor([4, 0, 0])),
            (torch.randn(3, 6), torch.tensor([-1, 3, 0]), torch.tensor([2]))]
