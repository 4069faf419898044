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
        picked = torch.stack([logits[i, labels[i]] for i in range(n)])

        rows = []
        for i in range(logits.shape[0]):
            rows.append(logits[i][labels[i]])
        again = torch.stack(rows)

        seq = torch.stack([x, x * 2, x * 3], dim=1)  # (batch, 3, 5)
        feats = []
        # One position per sequence.
        for b in range(len(pos)):
            feats.append(seq[b, pos[b]])
        total = picked.sum()
        gathered = torch.stack(feats, dim=0)
        return picked + again, gathered * total


def build():
    return Picker()


def example_inputs():
    torch.manual_seed(1)
    return [(torch.randn(6, 5), torch.randint(0, 7, (6,)), torch.randint(0, 3, (6,)))]
