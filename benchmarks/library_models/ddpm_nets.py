"""denoising-diffusion-pytorch where its users put it: the diffusion wrapper's forward is the
training loss (``loss = diffusion(images)``), and images come from its samplers
(``diffusion.sample(batch_size=...)``), which a user calls from a module of their own to
compile the whole sampling run. ``Sampler`` is that module: the sampler of the wrapper it is
given (DDPM's ancestral loop, DDIM, Karras et al.'s Heun sampler or DPM++, the 1-D wrapper's);
``GuidedSampler`` the classifier-free guided one for given classes."""

from __future__ import annotations

import torch
from torch import nn


class Sampler(nn.Module):
    """``diffusion.sample(batch_size=...)``, or with ``dpmpp`` the elucidated wrapper's
    DPM++ sampler: a batch of samples in ``[0, 1]``, as a user's evaluation loop draws them."""

    def __init__(self, diffusion: nn.Module, batch_size: int = 2, dpmpp: bool = False) -> None:
        super().__init__()
        self.diffusion = diffusion
        self.batch_size = batch_size
        self.dpmpp = dpmpp

    def forward(self) -> torch.Tensor:
        if self.dpmpp:
            return self.diffusion.sample_using_dpmpp(batch_size=self.batch_size)
        return self.diffusion.sample(batch_size=self.batch_size)


class GuidedSampler(nn.Module):
    """The classifier-free guidance wrapper's sampler for a batch of class labels, under a
    guidance scale and its rescaling."""

    def __init__(self, diffusion: nn.Module, cond_scale: float = 3.0, rescaled_phi: float = 0.7) -> None:
        super().__init__()
        self.diffusion = diffusion
        self.cond_scale = cond_scale
        self.rescaled_phi = rescaled_phi

    def forward(self, classes: torch.Tensor) -> torch.Tensor:
        return self.diffusion.sample(classes, cond_scale=self.cond_scale, rescaled_phi=self.rescaled_phi)


def unet(**config: object) -> nn.Module:
    """The library's image Unet, small: two stages of 8 and 16 channels."""
    from denoising_diffusion_pytorch import Unet

    return Unet(dim=8, dim_mults=(1, 2), attn_dim_head=8, attn_heads=2, **config)


def sampler(kind: str) -> tuple[Sampler, nn.Module]:
    """A sampler and the diffusion wrapper it draws from (whose forward is the training loss),
    built as a script builds them from its arguments: DDPM's ancestral loop with a
    self-conditioned Unet, DDIM over 3 of 10 steps, Karras et al.'s Heun sampler and DPM++ of
    the elucidated wrapper, the 1-D wrapper's ancestral loop."""
    from denoising_diffusion_pytorch import ElucidatedDiffusion, GaussianDiffusion, GaussianDiffusion1D, Unet1D

    if kind == "ddim":
        diffusion = GaussianDiffusion(
            unet(flash_attn=True), image_size=16, timesteps=10, sampling_timesteps=3, ddim_sampling_eta=0.5
        )
    elif kind in ("heun", "dpmpp"):
        net = unet(random_fourier_features=True) if kind == "heun" else unet(learned_sinusoidal_cond=True)
        diffusion = ElucidatedDiffusion(net, image_size=16, num_sample_steps=3)
    elif kind == "1d":
        net = Unet1D(dim=8, dim_mults=(1, 2), channels=2, attn_dim_head=8, attn_heads=2, self_condition=True)
        diffusion = GaussianDiffusion1D(net, seq_length=16, timesteps=4, objective="pred_v")
    else:
        diffusion = GaussianDiffusion(unet(self_condition=True), image_size=16, timesteps=4)
    return Sampler(diffusion, dpmpp=kind == "dpmpp"), diffusion


def guided_sampler(classes: int = 3) -> tuple[GuidedSampler, nn.Module]:
    """The classifier-free guidance wrapper (its own Unet, conditioned on a class dropped half
    of the time in training) and its guided sampler."""
    from denoising_diffusion_pytorch.classifier_free_guidance import GaussianDiffusion, Unet

    net = Unet(dim=8, dim_mults=(1, 2), num_classes=classes, cond_drop_prob=0.5, attn_dim_head=8, attn_heads=2)
    diffusion = GaussianDiffusion(net, image_size=16, timesteps=4, objective="pred_v")
    return GuidedSampler(diffusion), diffusion
