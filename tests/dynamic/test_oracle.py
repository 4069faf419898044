"""The break oracle on torch's real behaviour: what breaks, what does not, and where.

Each snippet marks the line dynamo must break on with ``# break``; snippets without a mark
must compile to one graph with no break. The counts are checked against
``torch._dynamo.explain`` called directly, and where explain is blind (an empty graph
closed by the break, a frame dynamo gives up), the log artifact must still see the break.
"""

import textwrap

import pytest

pytestmark = pytest.mark.dynamo
torch = pytest.importorskip("torch")

from torchlint.dynamic.observe import break_lines_of_source, observe_source  # noqa: E402

HEADER = "import torch, time, random, warnings, logging, copy\nimport torch.nn as nn\nlog = logging.getLogger('t')\n"

BREAKS = {
    "item": "def f(x):\n    y = x * 2\n    s = y.sum().item()  # break\n    return y + s\n",
    "print_first": "def f(x):\n    print('hi')  # break\n    return x * 2\n",
    "print_middle": "def f(x):\n    y = x * 2\n    print('hi')  # break\n    return y + 1\n",
    "tolist": "def f(x):\n    y = x + 1\n    l = y.tolist()  # break\n    return y * len(l)\n",
    "branch": "def f(x):\n    y = x + 1\n    if y.sum() > 0:  # break\n        return y * 2\n    return y - 1\n",
    "time": "def f(x):\n    y = x + 1\n    t = time.time()  # break\n    return y * 2\n",
    "random": "def f(x):\n    y = x + 1\n    r = random.gauss(0.0, 1.0)  # break\n    return y * r\n",
    "warn": "def f(x):\n    y = x + 1\n    warnings.warn('w')  # break\n    return y * 2\n",
    "str": "def f(x):\n    y = x + 1\n    s = str(y)  # break\n    return y * 2\n",
    "mask": "def f(x):\n    y = x + 1\n    z = y[y > 0]  # break\n    return z * 2\n",
    "nonzero": "def f(x):\n    y = x + 1\n    z = torch.nonzero(y)  # break\n    return z * 2\n",
    "linear_in_forward": (
        "class M(nn.Module):\n    def forward(self, x):\n        l = nn.Linear(16, 4)  # break\n        return l(x)\n"
    ),
    "explicit": "def f(x):\n    y = x + 1\n    torch._dynamo.graph_break()  # break\n    return y * 2\n",
    "item_in_loop": (
        "def f(x):\n    t = 0.0\n    for i in range(3):\n        t += x[i].sum().item()  # break\n    return x * t\n"
    ),
    "logging": "def f(x):\n    y = x + 1\n    log.warning('hi')  # break\n    return y * 2\n",
    "manual_seed": "def f(x):\n    y = x + 1\n    torch.manual_seed(0)  # break\n    return y * 2\n",
    "deepcopy": "def f(x):\n    y = x + 1\n    z = copy.deepcopy(y)  # break\n    return z * 2\n",
    "print_in_try": (
        "def f(x):\n    try:\n        y = x + 1\n        print('in try')  # break\n"
        "    except ValueError:\n        y = x\n    return y * 2\n"
    ),
}

NOT_BREAKS = {
    "numpy": "def f(x):\n    n = (x + 1).numpy()\n    return torch.from_numpy(n) * 2\n",
    "cpu": "def f(x):\n    return (x + 1).cpu() * 2\n",
    "generator": "def f(x):\n    return sum(t * 2 for t in x.unbind(0))\n",
    "try_except": "def f(x):\n    try:\n        y = x + 1\n    except ValueError:\n        y = x\n    return y * 2\n",
    "fstring": "def f(x):\n    s = f'{x.shape}'\n    return x * 2\n",
    "relu_in_forward": "class M(nn.Module):\n    def forward(self, x):\n        return nn.ReLU()(x + 1)\n",
    "assert": "def f(x):\n    assert x.shape[0] == 8\n    return x * 2\n",
}


def marked(code):
    return {i for i, line in enumerate((HEADER + code).splitlines(), 1) if line.endswith("# break")}


@pytest.mark.dynamo
@pytest.mark.parametrize("name", sorted(BREAKS))
def test_pattern_breaks_on_its_line(name):
    code = HEADER + BREAKS[name]
    assert break_lines_of_source(code) == marked(BREAKS[name])


@pytest.mark.dynamo
@pytest.mark.parametrize("name", sorted(NOT_BREAKS))
def test_folklore_is_not_a_break(name):
    obs, _ = observe_source(HEADER + NOT_BREAKS[name])
    assert obs.breaks == [] and obs.graphs == 1


@pytest.mark.dynamo
def test_backward_in_region_breaks_in_train_mode():
    code = HEADER + (
        "def f(x):\n    w = torch.ones(16, requires_grad=True)\n"
        "    (x * w).sum().backward()  # break\n    return w.grad * 2\n"
    )
    lines = break_lines_of_source(code, train=True)
    # torch 2.13 also breaks on building a requires_grad leaf inside the region (line 5).
    assert marked(code[len(HEADER) :]) <= lines


@pytest.mark.dynamo
@pytest.mark.parametrize("name", ["item", "print_middle", "branch", "mask", "explicit"])
def test_counts_agree_with_explain_where_explain_sees(name):
    obs, path = observe_source(HEADER + BREAKS[name])
    namespace = {}
    exec(compile(HEADER + BREAKS[name], path, "exec"), namespace)
    x = torch.randn(8, 16)
    with torch.no_grad():
        explained = torch._dynamo.explain(namespace["f"])(x)
    assert obs.graphs == explained.graph_count
    assert obs.explain_graph_breaks == explained.graph_break_count
    assert obs.graph_breaks == len(
        {(r.user_stack[-1].filename, r.user_stack[-1].lineno) for r in explained.break_reasons}
    )
    assert all(b.gb_code and b.gb_code.startswith("GB") for b in obs.breaks)


@pytest.mark.dynamo
@pytest.mark.parametrize("name", ["print_first", "item_in_loop", "print_in_try"])
def test_log_catches_what_explain_misses(name):
    obs, path = observe_source(HEADER + BREAKS[name])
    namespace = {}
    exec(compile(HEADER + BREAKS[name], path, "exec"), namespace)
    with torch.no_grad():
        explained = torch._dynamo.explain(namespace["f"])(torch.randn(8, 16))
    assert explained.break_reasons == []  # explain is blind here
    assert [b.seen_by >= {"log"} for b in obs.breaks] == [True]
    if name != "print_first":
        assert obs.breaks[0].frame_skipped and explained.graph_count == 0


@pytest.mark.dynamo
def test_break_in_helper_is_placed_on_the_helper_line_and_torch_frames_on_the_user_line():
    code = HEADER + textwrap.dedent("""\
        def helper(y):
            return y * y.sum().item()  # break
        class M(nn.Module):
            def forward(self, x):
                y = helper(x + 1)
                l = nn.Linear(16, 4)  # break
                return l(y)
        """)
    assert break_lines_of_source(code, "M") == marked(code[len(HEADER) :])


@pytest.mark.dynamo
def test_site_hit_twice_counts_once_and_has_dynamo_words():
    code = HEADER + "def h(y):\n    return y * y.sum().item()\ndef f(x):\n    return h(h(x))\n"
    obs, _ = observe_source(code, "f")
    assert obs.graph_breaks == 1
    brk = obs.breaks[0]
    assert brk.gb_code == "GB0124" and "item" in brk.reason and brk.explanation and brk.hints


@pytest.mark.dynamo
def test_recompiles_are_counted_and_said_in_words():
    code = "def f(x):\n    return x.softmax(-1)\n"
    obs, _ = observe_source(code, input_sets=[["f32[2,16]"], ["f32[2,32]"], ["f32[2,64]"], ["f32[4,64]"]])
    words = [r.words for r in obs.recompiles]
    # automatic dynamic: 16 -> 32 recompiles once with a symbolic size, 64 reuses it,
    # then the batch dimension changes and recompiles once more.
    assert words == ["dimension 1 of `x` changed from 16 to 32", "dimension 0 of `x` changed from 2 to 4"]
    assert all("mark_dynamic" in r.fix and "dynamic=True" in r.fix for r in obs.recompiles)


def test_describe_guard_forms():
    from torchlint.dynamic.recompiles import describe_guard, parse_recompile_message

    assert (
        describe_guard("tensor 'x' dtype mismatch. expected Float, actual Half")[0]
        == "dtype of `x` changed from Float to Half"
    )
    assert (
        describe_guard("tensor 'x' rank mismatch. expected 1, actual 2")[0]
        == "number of dimensions of `x` changed from 1 to 2"
    )
    assert describe_guard("n == 1  # x * n  # f.py:3 in f")[0] == "`n` was specialised to 1 and changed"
    msg = (
        "Recompiling function forward in /p/m.py:20\n    triggered by the following guard failure(s):\n"
        "    - 0/1: tensor 'x' size mismatch at index 0. expected 8, actual 4\n"
        "    - 0/0: tensor 'x' size mismatch at index 0. expected 8, actual 4"
    )
    (event,) = parse_recompile_message(msg)
    assert (event.function, event.path, event.line) == ("forward", "/p/m.py", 20)
    assert event.words == "dimension 0 of `x` changed from 8 to 4"


@pytest.mark.dynamo
def test_a_program_that_disables_logging_keeps_its_breaks_placed():
    import logging

    code = HEADER + "def h(y):\n    print('x')  # break\n    return y * 2\ndef f(x):\n    return h(x) + 1\n"
    logging.disable(logging.WARNING)
    try:
        assert break_lines_of_source(code, "f") == marked(code[len(HEADER) :])
    finally:
        logging.disable(logging.NOTSET)
