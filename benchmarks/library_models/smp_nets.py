"""segmentation-models-pytorch where its users put it: a segmentation network (encoder built
locally, ``encoder_weights=None``) trained on one of the library's losses, or two of them
summed as its examples do (Dice + focal, Jaccard + soft BCE), plus a cross-entropy on the
auxiliary classification head where the model has one. ``forward`` returns the mask logits
(inference); ``loss`` what training minimizes."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class Segmenter(nn.Module):
    """``model(images)`` (mask logits, or ``(masks, labels)`` with ``aux_params``), scored by
    the sum of ``criteria`` against the target masks; ``labels`` train the auxiliary head."""

    def __init__(self, model: nn.Module, *criteria: nn.Module, aux: bool = False) -> None:
        super().__init__()
        self.model = model
        self.criteria = nn.ModuleList(criteria)
        self.aux = aux

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        out = self.model(images)
        return out[0] if self.aux else out

    def loss(self, images: torch.Tensor, masks: torch.Tensor, labels: torch.Tensor | None = None) -> torch.Tensor:
        out = self.model(images)
        logits, label_logits = out if self.aux else (out, None)
        total = sum(criterion(logits, masks) for criterion in self.criteria)
        if label_logits is not None and labels is not None:
            total = total + F.binary_cross_entropy_with_logits(label_logits, labels)
        return total
