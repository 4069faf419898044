"""One element per row picked in Python loops, in the spellings people write."""
import torch
import torch.nn as nn


class Picker(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(5, 7)

    def forward(self, x: torch.Tensor, labels: torch.Tensor, pos: torch.Tensor):
        logits = self.fc(x)
        n = logits.shape[0]
        picked = logits[torch.arange(n, device=logits.device), labels[:n]]

        again = logits[torch.arange(logits.shape[0], device=logits.device), labels[:logits.shape[0]]]

        seq = torch.stack([x, x * 2, x * 3], dim=1)  # (batch, 3, 5)
        # One position per sequence.
        feats = seq[torch.arange(len(pos), device=seq.device), pos]
        total = picked.sum()
        gathered = feats
        return picked + again, gathered * total


def build():
    return Picker()


def example_inputs():
    torch.manual_seed(1)
    return [(torch.randn(6, 5), torch.randint(0, 7, (6,)), torch.randint(0, 3, (6,)))]
