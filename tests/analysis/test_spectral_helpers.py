"""Kinds read through a package's helpers, as nnAudio's inverse STFT has them.

Its ``inverse_stft`` takes the overlap-added frames from ``overlap_add`` and the window's sum
of squares from ``window_sumsquare``, both star-imported from ``..utils``, where each returns a
call of a function imported bare from ``torch.nn.functional`` (``fold(...)``, and
``fold(...).flatten(1)``). It keeps ``self.nonzero = self.w_sum > 1e-10`` on the module in the
same method and indexes the frames with it below: a boolean mask, so dynamo breaks there
(TL008). What those helpers return is a tensor, and what the method stores on ``self`` is read
back below it.

The look-alikes: an index of positions stored the same way (``torch.arange``: no mask, no
break), and ``length=None``, which the method slices with. The model passes an int or leaves
it out; the inverse module compiled on its own hands on its ``forward``'s optional input, a
length taken for a tensor by assumption only there, and so here too: silent. And a scheduler
the model keeps, as diffusers' are: ``self.sigmas = self.sigmas.to(device)`` after the method
stored a tensor there is a plain object's attribute, not a buffer's store (TL007): silent.
"""

from __future__ import annotations

from support import marked_package_tests, write_package

UTILS = """import torch
from torch.nn.functional import fold


def window_sumsquare(w, frames, stride, n_fft):
    stacks = w.unsqueeze(-1).repeat((1, frames)).unsqueeze(0)
    out_len = stacks.shape[1] + stride * (stacks.shape[2] - 1)
    return fold(stacks**2, (1, out_len), kernel_size=(1, n_fft), stride=stride)


def overlap_add(frames, stride):
    n_fft = frames.shape[1]
    out_len = n_fft + stride * (frames.shape[2] - 1)
    return fold(frames, (1, out_len), kernel_size=(1, n_fft), stride=stride).flatten(1)
"""

STFT = """import torch
from torch import nn

from ..utils import *


class STFTBase(nn.Module):
    def __init__(self, n_fft=8, stride=2):
        super().__init__()
        self.n_fft = n_fft
        self.stride = stride
        self.pad = n_fft // 4
        self.register_buffer("window", torch.hann_window(n_fft) + 0.1)

    def inverse_stft(self, frames, length=None, refresh=True):
        real = overlap_add(frames * self.window[None, :, None], self.stride)
        if not hasattr(self, "w_sum") or refresh:
            self.w_sum = window_sumsquare(self.window, frames.shape[2], self.stride, self.n_fft).flatten()
            self.nonzero = self.w_sum > 1e-10
            self.kept = torch.arange(self.w_sum.shape[0])
        real = real / self.w_sum[self.kept]
        real[:, self.nonzero] = real[:, self.nonzero].div(self.w_sum[self.nonzero])  # graph break
        if length is None:
            real = real[:, self.pad : -self.pad]
        else:
            real = real[:, self.pad : self.pad + length]
        return real


class STFT(STFTBase):
    def inverse(self, frames, length=None):
        return self.inverse_stft(frames, length)

    def forward(self, frames):
        return frames.flatten(1)


class ISTFT(STFTBase):
    def forward(self, frames, length=None):
        return self.inverse_stft(frames, length)
"""

MODEL = """import torch
from torch import nn

from .features import STFT


class Schedule:
    def __init__(self, steps):
        self.steps = steps

    def set_timesteps(self, device):
        self.sigmas = torch.linspace(1.0, 0.0, self.steps)
        self.sigmas = self.sigmas.to(device)
        return self.sigmas


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Conv1d(8, 8, 1)
        self.stft = STFT()
        self.schedule = Schedule(12)

    def forward(self, frames):
        masked = frames * torch.sigmoid(self.gate(frames))
        out = self.stft.inverse(masked, 12) + self.stft.inverse(masked)[:, :12]
        return out * self.schedule.set_timesteps(frames.device)
"""


def make(root):
    files = {
        "spectral/__init__.py": "",
        "spectral/utils.py": UTILS,
        "spectral/features/__init__.py": "from .stft import *\n",
        "spectral/features/stft.py": STFT,
        "spectral/model.py": MODEL,
    }
    oracle = [
        {"path": ".", "module": "spectral.model", "target": "Denoiser", "inputs": ["f32[2,8,5]"]},
        {"path": ".", "module": "spectral.features.stft", "target": "ISTFT", "inputs": ["f32[2,8,5]"]},
    ]
    return write_package(root, files, oracle)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
