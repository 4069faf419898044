"""diffusers' models as their users drive them: a few denoising steps under a scheduler, and
the noise-prediction loss of training."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class Sampler(nn.Module):
    """A few denoising steps of a UNet under a scheduler, the loop a pipeline runs."""

    def __init__(self, unet: nn.Module, scheduler, steps: int = 3) -> None:
        super().__init__()
        self.unet = unet
        self.scheduler = scheduler
        self.steps = steps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.scheduler.set_timesteps(self.steps)
        x = x * self.scheduler.init_noise_sigma
        for t in self.scheduler.timesteps:
            model_input = self.scheduler.scale_model_input(x, t)
            eps = self.unet(model_input, t).sample
            x = self.scheduler.step(eps, t, x).prev_sample
        return x


class NoisePrediction(nn.Module):
    """Training: noise clean samples at random timesteps and predict the noise."""

    def __init__(self, unet: nn.Module, scheduler) -> None:
        super().__init__()
        self.unet = unet
        self.scheduler = scheduler

    def forward(self, x0: torch.Tensor) -> torch.Tensor:
        noise = torch.randn_like(x0)
        t = torch.randint(0, self.scheduler.config.num_train_timesteps, (x0.shape[0],), device=x0.device)
        noisy = self.scheduler.add_noise(x0, noise, t)
        return F.mse_loss(self.unet(noisy, t).sample, noise)


def sampler(unet: nn.Module, name: str, train_steps: int = 50) -> Sampler:
    """A sampler under the scheduler ``name`` (as a script picks one from its arguments)."""
    from diffusers import DDIMScheduler, DDPMScheduler, DPMSolverMultistepScheduler, EulerDiscreteScheduler

    if name == "ddim":
        scheduler = DDIMScheduler(num_train_timesteps=train_steps)
    elif name == "euler":
        scheduler = EulerDiscreteScheduler(num_train_timesteps=train_steps)
    elif name == "dpm":
        scheduler = DPMSolverMultistepScheduler(num_train_timesteps=train_steps)
    else:
        scheduler = DDPMScheduler(num_train_timesteps=train_steps)
    return Sampler(unet, scheduler)


def noise_prediction(unet: nn.Module, train_steps: int = 50) -> NoisePrediction:
    """The training loss, with DDPM's noise schedule (as users train for any of the samplers)."""
    from diffusers import DDPMScheduler

    return NoisePrediction(unet, DDPMScheduler(num_train_timesteps=train_steps))
