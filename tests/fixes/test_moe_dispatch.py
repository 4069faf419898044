"""The mixture-of-experts dispatch fix: the forms it declines, each with why the dense loop
would differ there (the snapshot ``moe_dispatch`` proves the forms it takes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchlint.fixes.rounds import FixOptions, fix_source
from torchlint.rules import all_rules

FIXES = Path(__file__).resolve().parent
BEFORE = (FIXES / "moe_dispatch.in.py").read_text()
AFTER = (FIXES / "moe_dispatch.out.py").read_text()
TOP1 = 'self[f"expert_{expert_idx[0]}"](current_state) * routing_weights[top_x, idx, None]'
TOP1_FIXED = (
    'self[f"expert_{expert_idx}"](current_state) * (routing_weights * routed.transpose(0, 1)).sum(dim=1, keepdim=True)'
)


def _fix(src: str) -> str:
    return fix_source(src, "m.py", FixOptions(all_rules(), unsafe=True)).new


def _changed(src: str, old: str, new: str) -> str:
    assert old in src, old
    return src.replace(old, new)


def _top1_is_fixed(src: str) -> bool:
    return "for expert_idx in expert_hit:\n            idx, top_x" not in _fix(src)


def _run(tmp_path, name: str, src: str, x):
    import torch

    from torchlint.dynamic.load import load_module_from_path

    path = tmp_path / f"{name}.py"
    path.write_text(src)
    torch.manual_seed(0)
    model = load_module_from_path(str(path)).build()
    return model(x)


def test_the_snapshot_takes_both_layers_and_says_what_it_costs():
    outcome = fix_source(BEFORE, "m.py", FixOptions(all_rules(), unsafe=True))
    assert [a.code for a in outcome.applied] == ["TL008", "TL008"]
    assert {a.applicability for a in outcome.applied} == {"unsafe"}
    text = outcome.applied[0].description
    assert "every token" in text and "FLOPs" in text and "inf * 0" in text
    assert ".nonzero()" not in outcome.new and "torch.where(" not in outcome.new


def test_declines_when_the_hit_list_is_read_elsewhere():
    src = _changed(
        BEFORE,
        "        return final_hidden_states\n\n\nclass TopK",
        "        return final_hidden_states + len(expert_hit)\n\n\nclass TopK",
    )
    assert not _top1_is_fixed(src)  # `len(expert_hit)` counts the experts hit, not all experts


def test_declines_when_the_pair_position_is_read_beyond_the_weight():
    src = _changed(
        BEFORE, "routing_weights[top_x, idx, None]", "routing_weights[top_x, idx, None] * (idx[:, None] + 1)"
    )
    assert not _top1_is_fixed(src)  # `idx` would be missing; no per-token form of it exists


def test_declines_when_the_routed_token_count_is_read():
    src = _changed(
        BEFORE,
        "            final_hidden_states.index_add_(0, top_x, current_hidden_states.to(hidden_states.dtype))",
        "            final_hidden_states.index_add_(0, top_x, current_hidden_states / len(top_x))",
    )
    assert not _top1_is_fixed(src)  # len(top_x) is the number of routed tokens: all tokens after the fix


def test_declines_when_the_mask_is_rebound_between_the_hit_list_and_the_loop():
    src = _changed(
        BEFORE,
        "        expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()\n        for",
        "        expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()\n"
        "        expert_mask = expert_mask[:-1]\n        for",
    )
    assert not _top1_is_fixed(src)


def test_declines_a_hit_list_over_dimension_zero():
    src = _changed(
        BEFORE,
        "expert_mask.sum(dim=(-1, -2)), 0).nonzero()\n        for",
        "expert_mask.sum(dim=0), 0).nonzero()\n        for",
    )
    assert not _top1_is_fixed(src)  # the hit list no longer counts the experts


@pytest.mark.dynamo
def test_declines_a_nonlinear_step_after_the_weighting_which_would_change_the_result(tmp_path):
    torch = pytest.importorskip("torch")
    src = _changed(
        BEFORE,
        "            final_hidden_states.index_add_(0, top_x, current_hidden_states.to(hidden_states.dtype))",
        "            current_hidden_states = torch.tanh(current_hidden_states)\n"
        "            final_hidden_states.index_add_(0, top_x, current_hidden_states.to(hidden_states.dtype))",
    )
    assert not _top1_is_fixed(src)
    # what the dense loop would compute there: tanh(sum of weighted rows) is not the sum of tanh
    # (the not-routed rows give tanh(0) = 0, but a capacity-dropped token differs from skipping)
    dense = _changed(
        AFTER,
        "            final_hidden_states.index_add_(0, top_x, current_hidden_states.to(hidden_states.dtype))",
        "            current_hidden_states = torch.tanh(current_hidden_states)\n"
        "            final_hidden_states.index_add_(0, top_x, current_hidden_states.to(hidden_states.dtype))",
    )
    x = torch.randn(2, 6, 16)
    with torch.no_grad():
        same = _run(tmp_path, "orig", src, x), _run(tmp_path, "dense", dense, x)
    assert torch.allclose(*same, atol=1e-6)  # elementwise with f(0) = 0: still equal, but
    scaled = src.replace("torch.tanh(current_hidden_states)", "current_hidden_states + 1")
    dense_scaled = dense.replace("torch.tanh(current_hidden_states)", "current_hidden_states + 1")
    assert not _top1_is_fixed(scaled)
    with torch.no_grad():
        a, b = _run(tmp_path, "orig2", scaled, x), _run(tmp_path, "dense2", dense_scaled, x)
    assert not torch.allclose(a, b)  # `+ 1` on rows of tokens not routed adds 1 per expert


def test_a_dropout_after_the_weighting_is_taken_and_said():
    src = _changed(
        BEFORE,
        "            final_hidden_states.index_add_(0, top_x, current_hidden_states.to(hidden_states.dtype))",
        "            current_hidden_states = self.token_dropout(current_hidden_states)\n"
        "            current_hidden_states *= 0.5\n"
        "            final_hidden_states.index_add_(0, top_x, current_hidden_states.to(hidden_states.dtype))",
    )
    outcome = fix_source(src, "m.py", FixOptions(all_rules(), unsafe=True))
    assert TOP1_FIXED in outcome.new
    assert "one mask per token" in outcome.applied[0].description


def test_an_index_turned_into_a_number_is_taken():
    src = _changed(
        BEFORE,
        "            expert_idx = expert_idx[0]\n",
        "            expert_idx = int(expert_idx.item())\n",
    )
    new = _fix(src)
    assert "for expert_idx in range(expert_mask.shape[0]):\n            if expert_idx" in new
    squeezed = _changed(
        BEFORE,
        "0).nonzero()\n\n        for expert_idx in expert_hit:\n            expert_idx = expert_idx[0]\n",
        "0).nonzero().squeeze(-1)\n\n        for expert_idx in expert_hit:\n",
    )
    assert "for expert_idx in range(expert_mask.shape[0]):\n            if expert_idx" in _fix(squeezed)
    kept = _changed(
        BEFORE,
        "current_state = hidden_states[token_idx]",
        "current_state = hidden_states[token_idx] * expert_idx.float()",
    )
    assert "expert_idx = expert_idx[0]" in _fix(kept)  # a tensor use of the index: declined
