"""The answer type the worker and torchlint.explain both produce and the results read."""

import json

import pytest

from torchlint.dynamic.answer import Answer
from torchlint.dynamic.results import result_from_answer


def test_an_answer_survives_the_json_line_between_the_processes():
    answer = Answer(
        id=3,
        error=None,
        graphs=2,
        ops_per_graph=[4, 1],
        total_graphs=3,
        explain_graph_breaks=1,
        breaks=[
            {
                "path": "/m.py",
                "line": 7,
                "gb_type": "Unsupported Tensor.item() call",
                "gb_code": "GB0124",
                "reason": "Tensor.item",
                "explanation": "e",
                "hints": ["h"],
                "frame_skipped": False,
                "seen_by": ["explain", "log"],
            }
        ],
        recompiles=[{"function": "forward", "path": "/m.py", "line": 5, "guard": "g", "words": "w", "fix": "f"}],
        path="/m.py",
        cudagraphs={"skips": [], "splits": [], "rerecordings": 0},
        recycle=True,
    )
    line = json.dumps(answer.to_json())
    assert Answer.from_json(json.loads(line)) == answer
    assert Answer.from_json({"id": 1, "error": "boom", "from_a_newer_worker": 1}) == Answer(id=1, error="boom")


def test_an_error_answer_is_a_result_with_the_error_and_no_findings(tmp_path):
    result, findings = result_from_answer("m.py:Net", Answer(error="raised ValueError: x"), 0.5, str(tmp_path))
    assert (result.target, result.error, result.seconds, findings) == ("m.py:Net", "raised ValueError: x", 0.5, [])


@pytest.mark.dynamo
def test_the_observation_answer_round_trips_to_the_same_result(tmp_path):
    pytest.importorskip("torch")
    from torchlint.dynamic.observe import observe_source

    code = "import torch\n\ndef f(x):\n    y = x + 1\n    print('hi')\n    return y * x.sum().item()\n"
    obs, path = observe_source(code, "f", ["f32[4]"])
    answer = obs.answer(id=0, path=path)
    again = Answer.from_json(json.loads(json.dumps(answer.to_json())))
    assert again == answer
    direct = result_from_answer("snippet.py:f", answer, 0.0, str(tmp_path))
    wired = result_from_answer("snippet.py:f", again, 0.0, str(tmp_path))
    assert direct[0] == wired[0] and direct[1] == wired[1]
    assert direct[0].graph_breaks == 2 and [f.line for f in direct[1]] == [5, 6]
    assert [f.source_line.strip() for f in direct[1]] == ["print('hi')", "return y * x.sum().item()"]


def test_source_lines_are_numbered_as_python_numbers_them(tmp_path):
    # a form feed is not a line break for Python: the line after it keeps its number
    path = tmp_path / "m.py"
    path.write_text("import torch\n\x0c\ndef f(x):\n    return x.item()\n")
    site = {"path": str(path), "line": 4, "reason": "item", "hints": []}
    _, (finding,) = result_from_answer("m.py:f", Answer(breaks=[site]), 0.0, str(tmp_path))
    assert finding.source_line == "    return x.item()" and finding.column == 5
    path.write_text("import torch\n\ndef f(x):\n    return x.sum().item()  # edited\n")
    _, (again,) = result_from_answer("m.py:f", Answer(breaks=[site]), 0.0, str(tmp_path))
    assert again.source_line == "    return x.sum().item()  # edited"  # no stale copy of the file
