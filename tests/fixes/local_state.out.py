"""A positional table kept as a buffer and converted to the input's dtype and device on each call."""
import torch
from torch import nn


class PositionalEmbed(nn.Module):
    def __init__(self, positions: int = 32, dim: int = 8) -> None:
        super().__init__()
        self.embed = nn.Embedding(50, dim)
        self.pos_encoding = nn.Buffer(torch.randn(positions, dim))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.embed(ids)
        position_ids = torch.arange(ids.shape[-1], device=ids.device)
        # the table does not follow the model's dtype: convert it here
        pos_encoding = self.pos_encoding.to(device=x.device, dtype=x.dtype)
        pos = pos_encoding[position_ids, :]
        return x + pos


def build():
    return PositionalEmbed()


def example_inputs():
    return [(torch.randint(0, 50, (2, 10)),), (torch.randint(0, 50, (3, 7)),)]
