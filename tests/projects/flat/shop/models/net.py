import torch.nn as nn

from .. import disable, scale_by_max
from ..base import Base
from ..utils import log_stats, quiet_stats


class Net(Base):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(self.width, 8)

    def forward(self, x):
        x = self.lin(x)
        x = self.normalize(x)
        x = scale_by_max(x)
        x = log_stats(x)
        x = quiet_stats(x)
        return self.record(x)  # graph break

    @disable(recursive=False)
    def record(self, x):
        self.last = x.detach()
        return x
