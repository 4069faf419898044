"""A padded convolution that keeps its stride and kernel size as integer buffers (the shape of
the audio codecs' convolutions) and computes its padding from them on each call."""
import math

import torch
from torch import nn


class PaddedConv(nn.Module):
    def __init__(self, channels: int = 2, kernel_size: int = 5, stride: int = 2, dilation: int = 1) -> None:
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, kernel_size, stride, dilation=dilation)
        kernel_size = self.conv.kernel_size[0]
        stride = torch.tensor(self.conv.stride[0], dtype=torch.int64)
        kernel_size = torch.tensor((kernel_size - 1) * dilation + 1, dtype=torch.int64)
        self.stride = nn.Buffer(stride, persistent=False)
        self.kernel_size = nn.Buffer(kernel_size, persistent=False)
        self.padding_total = nn.Buffer(kernel_size - stride, persistent=False)
        self.padding_right = self.padding_total // 2

    def _extra_padding(self, x: torch.Tensor) -> torch.Tensor:
        length = x.shape[-1]
        n_frames = (length - self.kernel_size + self.padding_total) / self.stride + 1
        n_frames = torch.ceil(n_frames).to(torch.int64) - 1
        ideal_length = n_frames * self.stride + self.kernel_size - self.padding_total
        return ideal_length - length

    @staticmethod
    def _pad1d(x: torch.Tensor, paddings, mode: str = "reflect"):
        length = x.shape[-1]
        left, right = paddings
        max_pad = max(left, right)
        extra = 0
        if length <= max_pad:
            extra = max_pad - length + 1
            x = nn.functional.pad(x, (0, extra))
        padded = nn.functional.pad(x, paddings, mode)
        return padded[..., : padded.shape[-1] - extra]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        extra = self._extra_padding(x)
        left = self.padding_total - self.padding_right
        x = self._pad1d(x, (left, self.padding_right + extra))
        scale = math.sqrt(x.shape[-1])
        return self.conv(x) / scale


def build():
    return PaddedConv()


def example_inputs():
    return [(torch.randn(1, 2, 17),), (torch.randn(2, 2, 9),)]
