"""Mixture-of-experts layers that dispatch tokens to experts with `nonzero()` and `torch.where`."""
import torch
import torch.nn.functional as F
from torch import nn


class Expert(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.up = nn.Linear(dim, 2 * dim)
        self.down = nn.Linear(2 * dim, dim)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Top1Experts(nn.ModuleDict):
    def __init__(self, dim: int, num_experts: int) -> None:
        super().__init__()
        for idx in range(num_experts):
            self[f"expert_{idx}"] = Expert(dim)

    def forward(self, hidden_states, selected_experts, routing_weights):
        final_hidden_states = torch.zeros_like(hidden_states)
        expert_mask = selected_experts.permute(2, 1, 0)

        expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()
        for expert_idx in expert_hit:
            idx, top_x = torch.where(expert_mask[expert_idx].squeeze(0))
            current_state = hidden_states[None, top_x].reshape(-1, hidden_states.shape[-1])
            current_hidden_states = self[f"expert_{expert_idx[0]}"](current_state) * routing_weights[top_x, idx, None]
            final_hidden_states.index_add_(0, top_x, current_hidden_states.to(hidden_states.dtype))
        return final_hidden_states


class TopKExperts(nn.Module):
    def __init__(self, dim: int, num_experts: int) -> None:
        super().__init__()
        self.num_experts = num_experts
        self.gate_up_proj = nn.Parameter(torch.randn(num_experts, 2 * dim, dim) / dim**0.5)
        self.down_proj = nn.Parameter(torch.randn(num_experts, dim, dim) / dim**0.5)

    def forward(self, hidden_states, top_k_index, top_k_weights):
        final_hidden_states = torch.zeros_like(hidden_states)
        with torch.no_grad():
            expert_mask = F.one_hot(top_k_index, num_classes=self.num_experts + 1)
            expert_mask = expert_mask.permute(2, 1, 0)
            expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()

        for expert_idx in expert_hit:
            expert_idx = expert_idx[0]
            if expert_idx == self.num_experts:
                continue
            top_k_pos, token_idx = torch.where(expert_mask[expert_idx])
            current_state = hidden_states[token_idx]
            gate, up = F.linear(current_state, self.gate_up_proj[expert_idx]).chunk(2, dim=-1)
            current_hidden_states = F.silu(gate) * up
            current_hidden_states = F.linear(current_hidden_states, self.down_proj[expert_idx])
            routing = top_k_weights[token_idx, top_k_pos, None]
            current_hidden_states = current_hidden_states * routing.to(current_hidden_states.dtype)
            final_hidden_states.index_add_(0, token_idx, current_hidden_states.to(final_hidden_states.dtype))
        return final_hidden_states


class MoeBlock(nn.Module):
    def __init__(self, dim: int = 16, num_experts: int = 4, top_k: int = 2, capacity: int = 5) -> None:
        super().__init__()
        self.num_experts, self.top_k, self.capacity = num_experts, top_k, capacity
        self.router1 = nn.Linear(dim, num_experts)
        self.router2 = nn.Linear(dim, num_experts)
        self.switch = Top1Experts(dim, num_experts)
        self.mixture = TopKExperts(dim, num_experts)

    def forward(self, x):
        b, s, d = x.shape
        h = x.reshape(-1, d)
        probs = self.router1(h).softmax(-1)
        choice = F.one_hot(probs.argmax(-1), self.num_experts)
        choice = choice * (torch.cumsum(choice, dim=0) <= self.capacity)  # over capacity: dropped
        top1 = probs.max(-1).values.view(-1, 1)
        h = h + self.switch(h, choice.view(-1, 1, self.num_experts), top1)
        weights, index = torch.topk(self.router2(h).softmax(-1), self.top_k, dim=-1)
        h = h + self.mixture(h, index, weights / weights.sum(-1, keepdim=True))
        return h.view(b, s, d)


def build():
    return MoeBlock()


def example_inputs():
    return [(torch.randn(2, 6, 16),), (torch.randn(1, 3, 16),)]
