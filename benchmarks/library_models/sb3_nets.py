"""stable-baselines3's policies where a user who compiles them puts them: the policy an
algorithm builds (``ActorCriticPolicy`` and its CNN and multi-input variants, ``DQNPolicy``,
``SACPolicy``, ``TD3Policy``), called on a batch of observations as rollouts and ``predict``
do, and trained on the loss of its algorithm's ``train()`` step written out as a user's
training step does (PPO's clipped surrogate with value clipping and the entropy bonus, A2C's
policy gradient, DQN's Huber TD error against the target network, SAC's soft Q and actor
losses with the entropy coefficient, TD3's clipped double-Q and deterministic actor losses),
on a replay or rollout batch. ``forward`` returns what acting reads, ``loss`` the training
loss."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from gymnasium import spaces
from torch import nn


class ActorCriticLearner(nn.Module):
    """A PPO (``clip_range`` set) or A2C learner over an ``ActorCriticPolicy``: ``forward``
    gives ``(actions, values, log_prob)``; ``loss`` evaluates a rollout batch's actions."""

    def __init__(
        self,
        policy: nn.Module,
        clip_range: float | None = 0.2,
        clip_range_vf: float | None = None,
        ent_coef: float = 0.01,
        vf_coef: float = 0.5,
        normalize_advantage: bool = True,
        deterministic: bool = False,
    ) -> None:
        super().__init__()
        self.policy = policy
        self.clip_range = clip_range
        self.clip_range_vf = clip_range_vf
        self.ent_coef = ent_coef
        self.vf_coef = vf_coef
        self.normalize_advantage = normalize_advantage
        self.deterministic = deterministic

    def forward(self, obs: torch.Tensor | dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.policy(obs, deterministic=self.deterministic)

    def loss(
        self,
        obs: torch.Tensor | dict[str, torch.Tensor],
        actions: torch.Tensor,
        old_values: torch.Tensor,
        old_log_prob: torch.Tensor,
        advantages: torch.Tensor,
        returns: torch.Tensor,
    ) -> torch.Tensor:
        if isinstance(self.policy.action_space, spaces.Discrete):
            actions = actions.long().flatten()
        values, log_prob, entropy = self.policy.evaluate_actions(obs, actions)
        values = values.flatten()
        if self.clip_range is None:  # A2C
            policy_loss = -(advantages * log_prob).mean()
            value_loss = F.mse_loss(returns, values)
        else:  # PPO
            if self.normalize_advantage and len(advantages) > 1:
                advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
            ratio = torch.exp(log_prob - old_log_prob)
            policy_loss_1 = advantages * ratio
            policy_loss_2 = advantages * torch.clamp(ratio, 1 - self.clip_range, 1 + self.clip_range)
            policy_loss = -torch.min(policy_loss_1, policy_loss_2).mean()
            if self.clip_range_vf is None:
                values_pred = values
            else:
                values_pred = old_values + torch.clamp(values - old_values, -self.clip_range_vf, self.clip_range_vf)
            value_loss = F.mse_loss(returns, values_pred)
        if entropy is None:
            entropy_loss = -torch.mean(-log_prob)
        else:
            entropy_loss = -torch.mean(entropy)
        return policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss


class DQNLearner(nn.Module):
    """DQN: ``forward`` gives the greedy actions (``policy(obs)``, deterministic), ``loss`` the
    Huber TD error of the taken actions' Q-values against the target network's."""

    def __init__(self, policy: nn.Module, gamma: float = 0.99) -> None:
        super().__init__()
        self.policy = policy
        self.gamma = gamma

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.policy(obs, deterministic=True)

    def loss(
        self,
        obs: torch.Tensor,
        actions: torch.Tensor,
        rewards: torch.Tensor,
        next_obs: torch.Tensor,
        dones: torch.Tensor,
    ) -> torch.Tensor:
        with torch.no_grad():
            next_q_values = self.policy.q_net_target(next_obs)
            next_q_values, _ = next_q_values.max(dim=1)
            next_q_values = next_q_values.reshape(-1, 1)
            target_q_values = rewards + (1 - dones) * self.gamma * next_q_values
        current_q_values = self.policy.q_net(obs)
        current_q_values = torch.gather(current_q_values, dim=1, index=actions.long())
        return F.smooth_l1_loss(current_q_values, target_q_values)


class SACLearner(nn.Module):
    """SAC: ``forward`` samples squashed actions from the actor; ``loss`` is the entropy
    coefficient's loss (learned, ``ent_coef="auto"``), the critics' soft TD error against the
    target critics, and the actor's loss through the first critic."""

    def __init__(self, policy: nn.Module, gamma: float = 0.99) -> None:
        super().__init__()
        self.policy = policy
        self.gamma = gamma
        self.log_ent_coef = nn.Parameter(torch.log(torch.ones(1) * 1.0))
        self.target_entropy = -float(math.prod(policy.action_space.shape))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.policy(obs)

    def loss(
        self,
        obs: torch.Tensor,
        actions: torch.Tensor,
        rewards: torch.Tensor,
        next_obs: torch.Tensor,
        dones: torch.Tensor,
    ) -> torch.Tensor:
        actor, critic = self.policy.actor, self.policy.critic
        if actor.use_sde:
            actor.reset_noise()
        actions_pi, log_prob = actor.action_log_prob(obs)
        log_prob = log_prob.reshape(-1, 1)
        ent_coef = torch.exp(self.log_ent_coef.detach())
        ent_coef_loss = -(self.log_ent_coef * (log_prob + self.target_entropy).detach()).mean()
        with torch.no_grad():
            next_actions, next_log_prob = actor.action_log_prob(next_obs)
            next_q_values = torch.cat(self.policy.critic_target(next_obs, next_actions), dim=1)
            next_q_values, _ = torch.min(next_q_values, dim=1, keepdim=True)
            next_q_values = next_q_values - ent_coef * next_log_prob.reshape(-1, 1)
            target_q_values = rewards + (1 - dones) * self.gamma * next_q_values
        current_q_values = critic(obs, actions)
        critic_loss = 0.5 * sum(F.mse_loss(current_q, target_q_values) for current_q in current_q_values)
        q_values_pi = torch.cat(critic(obs, actions_pi), dim=1)
        min_qf_pi, _ = torch.min(q_values_pi, dim=1, keepdim=True)
        actor_loss = (ent_coef * log_prob - min_qf_pi).mean()
        return ent_coef_loss + critic_loss + actor_loss


class TD3Learner(nn.Module):
    """TD3: ``forward`` is the deterministic actor; ``loss`` the critics' TD error against the
    target critics at the target actor's smoothed actions, and the actor's loss through the
    first critic (``q1_forward``)."""

    def __init__(self, policy: nn.Module, gamma: float = 0.99, noise: float = 0.2, noise_clip: float = 0.5) -> None:
        super().__init__()
        self.policy = policy
        self.gamma = gamma
        self.noise = noise
        self.noise_clip = noise_clip

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.policy(obs)

    def loss(
        self,
        obs: torch.Tensor,
        actions: torch.Tensor,
        rewards: torch.Tensor,
        next_obs: torch.Tensor,
        dones: torch.Tensor,
    ) -> torch.Tensor:
        with torch.no_grad():
            noise = actions.clone().data.normal_(0, self.noise)
            noise = noise.clamp(-self.noise_clip, self.noise_clip)
            next_actions = (self.policy.actor_target(next_obs) + noise).clamp(-1, 1)
            next_q_values = torch.cat(self.policy.critic_target(next_obs, next_actions), dim=1)
            next_q_values, _ = torch.min(next_q_values, dim=1, keepdim=True)
            target_q_values = rewards + (1 - dones) * self.gamma * next_q_values
        current_q_values = self.policy.critic(obs, actions)
        critic_loss = sum(F.mse_loss(current_q, target_q_values) for current_q in current_q_values)
        actor_loss = -self.policy.critic.q1_forward(obs, self.policy.actor(obs)).mean()
        return critic_loss + actor_loss
