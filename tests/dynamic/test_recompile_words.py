"""Recompilations in words for real guard texts (keyword inputs, symbolic guards, values
carried over a graph break), recompilations within one call, and the recompile limit."""

import pytest

from torchlint.dynamic.recompiles import (
    FIX_WITHIN_CALL,
    FIXES_FOR_SHAPES,
    RecompileEvent,
    describe_guard,
    mark_within_call,
    parse_limit_message,
)


@pytest.mark.parametrize(
    "guard, words, fix",
    [
        # forward(**kwargs) (every Hugging Face model): the name holds quotes
        (
            "tensor 'kwargs['input_ids']' size mismatch at index 1. expected 8, actual 16",
            "dimension 1 of `kwargs['input_ids']` changed from 8 to 16",
            "dynamic=True",
        ),
        (
            "tensor 'L['kwargs']['pixel_values']' size mismatch at index 2. expected 32, actual 64",
            "dimension 2 of `kwargs['pixel_values']` changed from 32 to 64",
            "dynamic=True",
        ),
        (
            "tensor 'dict.__getitem__(___stack0, list(dict.keys(___stack0))[0])' size mismatch at index 2. "
            "expected 160, actual 320",
            "dimension 2 of the value handed over at a graph break changed from 160 to 320",
            "dynamic=True",
        ),
        (
            "tensor 'hidden_states' stride mismatch at index 2. expected 1, actual 16",
            "stride of dimension 2 of `hidden_states` changed from 1 to 16",
            ".contiguous()",
        ),
        # symbolic guards
        (
            "2 <= hidden_states.size()[1]  # length = hidden_states.shape[-1]  # modeling_encodec.py:131 in f",
            "dimension 1 of `hidden_states` was assumed to be at least 2 and no longer is",
            "mark_unbacked",
        ),
        ("L['x'].size()[1] <= 64", "dimension 1 of `x` was assumed to be at most 64 and no longer is", "dynamic=True"),
        (
            "(L['tokens'].size()[1] % 8) == 0  # if n % 8:  # m.py:4 in f",
            "(dimension 1 of `tokens` % 8) was specialised to 0 and changed",
            "pad inputs",
        ),
        (
            "hidden_states.stride()[0] == hidden_states.size()[2]*hidden_states.size()[1]  # (unknown source)",
            "the stride of dimension 0 of `hidden_states` was specialised to dimension 2 of "
            "`hidden_states`*dimension 1 of `hidden_states` and changed",
            ".contiguous()",
        ),
        (
            "___check_type_id(self._modules['conv'], 94634990915312), type=<class 'torch.nn.utils.parametrize."
            "ParametrizedConv1d'>  # hidden_states = self.conv(hidden_states)  # m.py:171 in f",
            "the type of `self.conv` changed (now ParametrizedConv1d)",
            "one type",
        ),
    ],
)
def test_guards_in_words_with_a_fitting_fix(guard, words, fix):
    got_words, got_fix = describe_guard(guard)
    assert got_words == words
    assert fix in got_fix
    assert "guard failed" not in got_words


def test_a_recompile_within_one_call_gets_no_dynamic_shapes_advice():
    def event(call, line, words="dimension 1 of `x` changed from 8 to 16"):
        return RecompileEvent("forward", "m.py", line, "g", words, FIXES_FOR_SHAPES, call=call)

    events = [event(0, 10), event(1, 20), event(1, 20), event(2, 20), event(1, 30, "the type of `self.conv` changed")]
    mark_within_call(events)
    assert [e.within_call for e in events] == [True, False, True, False, False]
    for e in events:
        assert (e.fix == FIXES_FOR_SHAPES) != e.within_call
    assert events[0].fix == FIX_WITHIN_CALL.format(what="shape") and events[0].words.endswith("(within one call)")


def test_the_recompile_limit_warning_is_read():
    message = (
        "torch._dynamo hit config.recompile_limit (8)\n"
        "   function: 'forward' (/site-packages/transformers/models/encodec/modeling_encodec.py:162)\n"
        "   last reason: 3/7: tensor 'x' size mismatch at index 1. expected 4, actual 8\n"
        'To log all recompilation reasons, use TORCH_LOGS="recompiles".'
    )
    hit = parse_limit_message(message)
    assert hit == {
        "function": "forward",
        "path": "/site-packages/transformers/models/encodec/modeling_encodec.py",
        "line": 162,
        "limit": 8,
        "kind": "recompile_limit",
        "guard": "tensor 'x' size mismatch at index 1. expected 4, actual 8",
        "words": "dimension 1 of `x` changed from 4 to 8",
    }
    assert parse_limit_message("Recompiling function forward in m.py:3") is None


LIMIT_MODEL = """
import torch
from torch import nn


class Step(nn.Module):
    def forward(self, x, name):
        torch._dynamo.graph_break()
        return x * len(name)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.step = Step()

    def forward(self, x):
        for name in ("a", "bb", "ccc", "dddd", "eeeee", "f", "g", "h", "i", "j", "k"):
            x = self.step(x, name)
        return x
"""


@pytest.mark.dynamo
def test_a_function_past_the_recompile_limit_is_reported_and_within_call_recompiles_say_so():
    pytest.importorskip("torch")
    from torchlint.dynamic.observe import observe_source
    from torchlint.dynamic.results import result_from_answer

    obs, path = observe_source(LIMIT_MODEL, target="Net", inputs=["f32[2,4]"])
    assert obs.recompile_limit_hits and obs.recompile_limit_hits[0]["limit"] == 8
    assert obs.recompiles and all(e.within_call for e in obs.recompiles)
    assert all(not e.fix.startswith("compile with") for e in obs.recompiles)
    result, findings = result_from_answer("Net", obs.answer(), 1.0, "/")
    limit = [f for f in findings if f.name == "recompile-limit"]
    assert len(limit) == 1 and "runs it eagerly, uncompiled" in limit[0].message
    assert result.recompile_limit_hits and result.to_dict()["recompile_limit_hits"][0]["line"] == limit[0].line
    assert result.graph_break_hits >= result.graph_breaks >= 1
