"""snnTorch where its tutorials put it: spiking networks whose ``forward`` runs a loop over
time steps, feeding each layer's current to a spiking neuron (``snntorch.Leaky``,
``Synaptic``, ``Alpha``, ``RLeaky``, ``RSynaptic``, ``Lapicque``, ``SLSTM``, ``SConv2dLSTM``,
``LeakyParallel``) and recording the output spikes and membrane potentials, which its
``snntorch.functional`` losses score against class labels. States are kept either by the
user (``reset_mem()`` before the loop, passed back each step) or by the neurons
(``init_hidden=True``, reset by ``snntorch.utils.reset``); inputs are static currents, spike
trains made by ``snntorch.spikegen`` in the forward, or event frames. ``forward`` returns the
recordings (what inference reads), ``loss`` is the training loss."""

from __future__ import annotations

from typing import Any

import snntorch as snn
import snntorch.functional as SF
import torch
from snntorch import spikegen, surrogate, utils
from snntorch.functional import quant
from torch import nn


class SpikingClassifier(nn.Module):
    """Base: ``forward`` returns ``(spikes, membranes)`` recorded over time ``(T, B, C)``;
    ``loss`` scores them with ``criterion`` (on the spikes unless ``on_membrane``)."""

    criterion: Any = None
    on_membrane = False

    def loss(self, x: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        spk, mem = self(x)
        return self.criterion(mem if self.on_membrane else spk, targets)


class LeakyMLP(SpikingClassifier):
    """Tutorial 5: two linear layers, each into a Leaky neuron whose membrane the user keeps,
    a static input current repeated for ``num_steps``; the cross-entropy rate loss."""

    def __init__(self, inputs: int = 16, hidden: int = 32, outputs: int = 4, num_steps: int = 6) -> None:
        super().__init__()
        self.num_steps = num_steps
        self.fc1 = nn.Linear(inputs, hidden)
        self.lif1 = snn.Leaky(beta=0.9)
        self.fc2 = nn.Linear(hidden, outputs)
        self.lif2 = snn.Leaky(beta=0.9)
        self.criterion = SF.ce_rate_loss()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mem1 = self.lif1.reset_mem()
        mem2 = self.lif2.reset_mem()
        spk2_rec, mem2_rec = [], []
        for _step in range(self.num_steps):
            cur1 = self.fc1(x)
            spk1, mem1 = self.lif1(cur1, mem1)
            cur2 = self.fc2(spk1)
            spk2, mem2 = self.lif2(cur2, mem2)
            spk2_rec.append(spk2)
            mem2_rec.append(mem2)
        return torch.stack(spk2_rec, dim=0), torch.stack(mem2_rec, dim=0)


class ConvRateCoded(SpikingClassifier):
    """Tutorial 6/7: an ``nn.Sequential`` convolutional SNN of Leaky neurons that keep their
    own state (``init_hidden=True``, the last one ``output=True``), reset by
    ``utils.reset(net)``; images rate-coded into spikes by ``spikegen.rate`` in the forward;
    the fast-sigmoid surrogate; the mean-squared spike count loss."""

    def __init__(self, num_steps: int = 5, classes: int = 4) -> None:
        super().__init__()
        self.num_steps = num_steps
        grad = surrogate.fast_sigmoid(slope=25)
        self.net = nn.Sequential(
            nn.Conv2d(1, 4, 3, padding=1),
            nn.MaxPool2d(2),
            snn.Leaky(beta=0.5, spike_grad=grad, init_hidden=True),
            nn.Conv2d(4, 8, 3, padding=1),
            nn.MaxPool2d(2),
            snn.Leaky(beta=0.5, spike_grad=grad, init_hidden=True),
            nn.Flatten(),
            nn.Linear(8 * 4 * 4, classes),
            snn.Leaky(beta=0.5, spike_grad=grad, init_hidden=True, output=True),
        )
        self.criterion = SF.mse_count_loss(correct_rate=0.8, incorrect_rate=0.2)

    def forward(self, images: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        spikes = spikegen.rate(images, num_steps=self.num_steps)
        utils.reset(self.net)
        spk_rec, mem_rec = [], []
        for step in range(self.num_steps):
            spk_out, mem_out = self.net(spikes[step])
            spk_rec.append(spk_out)
            mem_rec.append(mem_out)
        return torch.stack(spk_rec), torch.stack(mem_rec)


class SynapticLearnable(SpikingClassifier):
    """Second-order Synaptic neurons with learnable decays and thresholds, reset to zero, the
    sigmoid surrogate; the cross-entropy spike count loss."""

    def __init__(self, inputs: int = 16, hidden: int = 24, outputs: int = 4, num_steps: int = 6) -> None:
        super().__init__()
        self.num_steps = num_steps
        grad = surrogate.sigmoid(slope=10)
        self.fc1 = nn.Linear(inputs, hidden)
        self.lif1 = snn.Synaptic(
            alpha=0.8,
            beta=0.9,
            spike_grad=grad,
            learn_alpha=True,
            learn_beta=True,
            learn_threshold=True,
            reset_mechanism="zero",
        )
        self.fc2 = nn.Linear(hidden, outputs)
        self.lif2 = snn.Synaptic(alpha=0.8, beta=0.9, spike_grad=grad, reset_mechanism="zero")
        self.criterion = SF.ce_count_loss()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        syn1, mem1 = self.lif1.reset_mem()
        syn2, mem2 = self.lif2.reset_mem()
        spk_rec, mem_rec = [], []
        for _step in range(self.num_steps):
            spk1, syn1, mem1 = self.lif1(self.fc1(x), syn1, mem1)
            spk2, syn2, mem2 = self.lif2(self.fc2(spk1), syn2, mem2)
            spk_rec.append(spk2)
            mem_rec.append(mem2)
        return torch.stack(spk_rec), torch.stack(mem_rec)


class AlphaSequential(SpikingClassifier):
    """Alpha neurons in an ``nn.Sequential`` that keep their state, as the Alpha docstring
    builds them; the cross-entropy loss of the maximum membrane potential."""

    on_membrane = True

    def __init__(self, inputs: int = 16, hidden: int = 24, outputs: int = 4, num_steps: int = 6) -> None:
        super().__init__()
        self.num_steps = num_steps
        self.net = nn.Sequential(
            nn.Linear(inputs, hidden),
            snn.Alpha(alpha=0.9, beta=0.8, init_hidden=True),
            nn.Linear(hidden, outputs),
            snn.Alpha(alpha=0.9, beta=0.8, init_hidden=True, output=True),
        )
        self.criterion = SF.ce_max_membrane_loss()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        utils.reset(self.net)
        spk_rec, mem_rec = [], []
        for _step in range(self.num_steps):
            spk, _syn_exc, _syn_inh, mem = self.net(x)
            spk_rec.append(spk)
            mem_rec.append(mem)
        return torch.stack(spk_rec), torch.stack(mem_rec)


class RecurrentSNN(SpikingClassifier):
    """Recurrent spiking layers: an RLeaky with an all-to-all linear recurrence, an
    RSynaptic with one-to-one recurrent weights, over a time-varying input ``(T, B, F)``; the
    mean-squared membrane loss."""

    on_membrane = True

    def __init__(self, inputs: int = 8, hidden: int = 16, outputs: int = 4) -> None:
        super().__init__()
        self.fc1 = nn.Linear(inputs, hidden)
        self.lif1 = snn.RLeaky(beta=0.9, linear_features=hidden)
        self.fc2 = nn.Linear(hidden, outputs)
        self.lif2 = snn.RSynaptic(alpha=0.8, beta=0.9, all_to_all=False, V=0.5)
        self.criterion = SF.mse_membrane_loss(on_target=1.0, off_target=0.0)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        spk1, mem1 = self.lif1.reset_mem()
        spk2, syn2, mem2 = self.lif2.reset_mem()
        spk_rec, mem_rec = [], []
        for step in range(x.size(0)):
            spk1, mem1 = self.lif1(self.fc1(x[step]), spk1, mem1)
            spk2, syn2, mem2 = self.lif2(self.fc2(spk1), spk2, syn2, mem2)
            spk_rec.append(spk2)
            mem_rec.append(mem2)
        return torch.stack(spk_rec), torch.stack(mem_rec)


class SpikingLSTM(SpikingClassifier):
    """Two SLSTM layers over a sequence ``(B, T, F)``, a population code of 3 output neurons
    per class, scored by the spike count loss with ``population_code=True``."""

    def __init__(self, inputs: int = 8, hidden: int = 16, classes: int = 2, per_class: int = 3) -> None:
        super().__init__()
        self.slstm1 = snn.SLSTM(inputs, hidden)
        self.slstm2 = snn.SLSTM(hidden, classes * per_class, spike_grad=surrogate.straight_through_estimator())
        self.criterion = SF.mse_count_loss(
            correct_rate=0.9, incorrect_rate=0.1, population_code=True, num_classes=classes
        )

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        syn1, mem1 = self.slstm1.reset_mem()
        syn2, mem2 = self.slstm2.reset_mem()
        spk_rec, mem_rec = [], []
        for step in range(x.size(1)):
            spk1, syn1, mem1 = self.slstm1(x[:, step], syn1, mem1)
            spk2, syn2, mem2 = self.slstm2(spk1, syn2, mem2)
            spk_rec.append(spk2)
            mem_rec.append(mem2)
        return torch.stack(spk_rec), torch.stack(mem_rec)


class EventConvLSTM(SpikingClassifier):
    """The SConv2dLSTM docstring's network on event frames ``(B, T, C, H, W)``: two spiking
    convolutional LSTMs (max- and average-pooled), a linear layer into a Leaky output; the
    cross-entropy spike time loss (the correct class should fire first)."""

    def __init__(self, classes: int = 4) -> None:
        super().__init__()
        self.sclstm1 = snn.SConv2dLSTM(2, 4, 3, max_pool=2)
        self.sclstm2 = snn.SConv2dLSTM(4, 8, 3, avg_pool=2)
        self.fc1 = nn.Linear(8 * 4 * 4, classes)
        self.lif1 = snn.Leaky(beta=0.5)
        self.criterion = SF.ce_temporal_loss()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        syn1, mem1 = self.sclstm1.reset_mem()
        syn2, mem2 = self.sclstm2.reset_mem()
        mem3 = self.lif1.reset_mem()
        spk_rec, mem_rec = [], []
        for step in range(x.size()[1]):
            spk1, syn1, mem1 = self.sclstm1(x[:, step, :, :, :], syn1, mem1)
            spk2, syn2, mem2 = self.sclstm2(spk1, syn2, mem2)
            spk3, mem3 = self.lif1(self.fc1(spk2.flatten(1)), mem3)
            spk_rec.append(spk3)
            mem_rec.append(mem3)
        return torch.stack(spk_rec), torch.stack(mem_rec)


class ParallelLeaky(SpikingClassifier):
    """LeakyParallel: a whole sequence ``(T, B, F)`` through one call (an ``nn.RNN`` with a
    diagonal recurrence) per layer, learnable beta; the cross-entropy rate loss."""

    def __init__(self, inputs: int = 8, hidden: int = 16, outputs: int = 4) -> None:
        super().__init__()
        self.lif1 = snn.LeakyParallel(inputs, hidden, beta=0.9, learn_beta=True)
        self.lif2 = snn.LeakyParallel(hidden, outputs, beta=0.8)
        self.criterion = SF.ce_rate_loss()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        spk1 = self.lif1(x)
        spk2 = self.lif2(spk1)
        return spk2, spk2.cumsum(0)


class LatencyLapicque(SpikingClassifier):
    """Inputs in [0, 1] latency-coded by ``spikegen.latency`` (normalized, linear) in the
    forward, Lapicque neurons given R and C; the mean-squared spike time loss with a
    tolerance."""

    def __init__(self, inputs: int = 16, hidden: int = 24, outputs: int = 4, num_steps: int = 8) -> None:
        super().__init__()
        self.num_steps = num_steps
        self.fc1 = nn.Linear(inputs, hidden)
        self.lif1 = snn.Lapicque(R=5.0, C=5e-3, time_step=1e-3)
        self.fc2 = nn.Linear(hidden, outputs)
        self.lif2 = snn.Lapicque(beta=0.9)
        self.criterion = SF.mse_temporal_loss(on_target=1, off_target=num_steps - 1, tolerance=1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        spikes = spikegen.latency(x, num_steps=self.num_steps, normalize=True, linear=True)
        mem1 = self.lif1.reset_mem()
        mem2 = self.lif2.reset_mem()
        spk_rec, mem_rec = [], []
        for step in range(self.num_steps):
            spk1, mem1 = self.lif1(self.fc1(spikes[step]), mem1)
            spk2, mem2 = self.lif2(self.fc2(spk1), mem2)
            spk_rec.append(spk2)
            mem_rec.append(mem2)
        return torch.stack(spk_rec), torch.stack(mem_rec)


class QuantizedLeaky(SpikingClassifier):
    """Quantization-aware: Leaky neurons whose membranes ``quant.state_quant`` rounds to 4-bit
    levels, reset right after the spike (``reset_delay=False``), learnable graded spikes, and
    a winner-take-all output layer (``inhibition=True``); the cross-entropy rate loss."""

    def __init__(self, inputs: int = 16, hidden: int = 24, outputs: int = 4, num_steps: int = 5) -> None:
        super().__init__()
        self.num_steps = num_steps
        q = quant.state_quant(num_bits=4, uniform=True, threshold=1.0)
        self.fc1 = nn.Linear(inputs, hidden)
        self.lif1 = snn.Leaky(beta=0.8, state_quant=q, reset_delay=False, learn_graded_spikes_factor=True)
        self.fc2 = nn.Linear(hidden, outputs)
        self.lif2 = snn.Leaky(beta=0.8, inhibition=True, reset_mechanism="none")
        self.criterion = SF.ce_rate_loss()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mem1 = self.lif1.reset_mem()
        mem2 = self.lif2.reset_mem()
        spk_rec, mem_rec = [], []
        for _step in range(self.num_steps):
            spk1, mem1 = self.lif1(self.fc1(x), mem1)
            spk2, mem2 = self.lif2(self.fc2(spk1), mem2)
            spk_rec.append(spk2)
            mem_rec.append(mem2)
        return torch.stack(spk_rec), torch.stack(mem_rec)
