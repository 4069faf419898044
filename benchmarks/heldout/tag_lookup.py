# dynamo: target=Tagger inputs=i64[4]:0..3
import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.names = ["pad", "noun", "verb"]

    def forward(self, tags):
        labels = [self.names[t] for t in tags.tolist()]
        return tags * len(labels)
