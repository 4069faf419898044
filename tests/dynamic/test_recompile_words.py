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
        # a Python number carried over a graph break (`x.repeat(int(x.sum().item()), 1)`)
        (
            "___stack0 == 0.3813025951385498",
            "the value handed over at a graph break was specialised to 0.3813025951385498 and changed",
            "pass the value as a tensor",
        ),
        ("L['n'] == 3", "`n` was specialised to 3 and changed", "pass the value as a tensor"),
        ("len(L['xs']) == 3", "`len(xs)` is no longer 3", "container length"),
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


def test_a_cause_names_the_break_whose_handed_over_value_changed_and_its_rule():
    """The code after a break (dynamo's ``torch_dynamo_resume_in_<f>_at_<line>``) guards on the
    value handed over there: the cause names that break, and the rule that flags its line."""
    from torchlint.dynamic.records import break_of_resume, group_recompiles
    from torchlint.findings import Finding
    from torchlint.output import cause_words

    words, fix = describe_guard("___stack0 == 0.38")
    events = [
        {"function": "torch_dynamo_resume_in_forward_at_7", "path": "/p/m.py", "line": 7, "words": words, "fix": fix},
        {"function": "forward", "path": "/p/m.py", "line": 6, "words": "dimension 0 of `x` changed from 8 to 4"},
    ]
    causes = group_recompiles(events, show=lambda p: p.rsplit("/", 1)[1])
    handed = next(c for c in causes if "handed over" in c["cause"])
    assert handed["breaks"] == [{"path": "m.py", "line": 7}]
    assert next(c for c in causes if c is not handed)["breaks"] == []  # an input change names no break
    item = Finding(
        rule="TL001",
        name="tensor-item",
        path="m.py",
        line=7,
        column=17,
        end_line=7,
        end_column=30,
        message="",
        suggestion="",
    )
    other = Finding(
        rule="TL004",
        name="tensor-to-string",
        path="m.py",
        line=9,
        column=9,
        end_line=9,
        end_column=20,
        message="",
        suggestion="",
    )
    assert cause_words(handed, [item, other]).endswith("; handed over at the graph break at m.py:7 (TL001)")
    assert cause_words(handed).endswith("; handed over at the graph break at m.py:7")
    assert break_of_resume("torch_dynamo_resume_in_forward_at_41") == 41
    assert break_of_resume("forward") is None and break_of_resume(None) is None
