"""`torchlint run`'s parent side on hand-written records: placing, merging, failures (no torch)."""

from __future__ import annotations

import json
import os
import sys

from torchlint.run.program import (
    Places,
    ProcessRecords,
    ProgramRun,
    cache_warnings,
    command_of,
    observed,
    read_records,
)

GB_ITEM = "Unsupported Tensor.item() call with capture_scalar_outputs=False"


def project(tmp_path):
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "train.py").write_text("import torch\n\nstep(x)\nloss = model(x)\n")
    lib = tmp_path / "venv" / "lib" / "site-packages" / "transformers" / "models"
    lib.mkdir(parents=True)
    (lib / "modeling.py").write_text("\n" * 30)
    return str(tmp_path / "proj"), str(lib / "modeling.py")


def brk(frames, loc=None, gb_type=GB_ITEM):
    return {
        "kind": "break",
        "frames": frames,
        "loc": loc or (frames[-1] if frames else None),
        "gb_type": gb_type,
        "gb_code": "GB0124",
        "reason": gb_type,
        "explanation": "why",
        "hints": ["a hint"],
        "stack": [],
    }


def test_places_site_and_library_line(tmp_path):
    root, lib = project(tmp_path)
    train = os.path.join(root, "train.py")
    places = Places([root], root)
    assert places.place([(train, 3)]) == ((train, 3), None)
    assert places.place([(train, 4), (lib, 20)]) == ((train, 4), (lib, 20))
    assert places.show(lib) == "transformers/models/modeling.py"
    torch_file = os.path.join(os.path.dirname(os.__file__), "copy.py")  # the standard library is a library
    assert places.place([(train, 4), (torch_file, 7)]) == ((train, 4), (torch_file, 7))
    assert places.place([(lib, 20)]) == ((lib, 20), None)  # no project frame: the library's line
    assert places.place([("<string>", 1)]) == (None, None)


def test_repeated_break_uses_the_first_stack_and_ranks_are_marked(tmp_path):
    root, lib = project(tmp_path)
    train = os.path.join(root, "train.py")
    full = brk([[train, 4], [lib, 20]])
    repeat = dict(brk([], loc=[lib, 20]))
    only_zero = brk([[train, 3]], gb_type="Failed to trace builtin operator")
    ranks = [
        ProcessRecords({"pid": 1, "rank": 0, "world_size": 2}, [full, repeat, only_zero]),
        ProcessRecords({"pid": 2, "rank": 1, "world_size": 2}, [full]),
    ]
    result, findings, errors = observed(ranks, Places([root], root), name="torchrun train.py", run=None)
    assert errors == [] and result.graph_breaks == 2
    by_line = {f.line: f for f in findings}
    lib_break = by_line[4]
    assert lib_break.library == "transformers/models/modeling.py:20" and lib_break.hits == 3
    assert "at transformers/models/modeling.py:20, reached from train.py:4" in lib_break.message
    assert lib_break.ranks == [0, 1] and "only" not in lib_break.message
    assert by_line[3].ranks == [0] and "seen on rank 0 only, of 2" in by_line[3].message
    assert lib_break.to_dict()["hits"] == 3 and lib_break.to_dict()["library"].endswith(":20")


def test_recompiles_limits_and_cache_warnings(tmp_path):
    root, lib = project(tmp_path)
    train = os.path.join(root, "train.py")
    records = [
        {
            "kind": "recompile",
            "stack": [[train, 4]],
            "message": f"Recompiling function forward in {lib}:10\n    triggered by the following guard failure(s):\n"
            "    - 0/0: tensor 'input_ids' size mismatch at index 1. expected 8, actual 12",
        },
        {
            "kind": "limit",
            "stack": [[train, 3]],
            "message": f"torch._dynamo hit config.recompile_limit (8)\n   function: 'scale' ({train}:3)\n"
            "   last reason: 2/7: k == 7   # return x * k",
        },
        {
            "kind": "compile",
            "co_name": "forward",
            "co_filename": lib,
            "co_firstlineno": 10,
            "seconds": 1.5,
            "is_forward": True,
            "counters": {"stats.unique_graphs": 1, "inductor.fxgraph_cache_miss": 1},
        },
        {"kind": "cache_dir", "path": str(tmp_path / "gone"), "writable": True, "env": True},
    ]
    result, findings, _ = observed([ProcessRecords({"pid": 1}, records)], Places([root], root), name="p", run=None)
    (recompile,) = result.recompile_reasons
    assert (recompile.path, recompile.line) == ("train.py", 4)
    assert (
        "`forward` (transformers/models/modeling.py:10, reached from train.py:4): dimension 1 of "
        "`input_ids` changed from 8 to 12" in recompile.reason
    )
    (limit,) = [f for f in findings if f.name == "recompile-limit"]
    assert limit.path == "train.py" and limit.line == 3 and "RECOMPILE LIMIT HIT" in limit.message
    assert "runs it eagerly" in limit.message and "`k` was specialised to 7" in limit.message
    assert result.graphs == 1
    assert any("1.50 s  `forward` (transformers/models/modeling.py:10)" in d for d in result.details)
    assert any("FX graph cache 0 hits, 1 miss" in d for d in result.details)
    assert any(d.startswith("warning: inductor's cache folder") and "no longer exists" in d for d in result.details)


def test_cache_folder_not_writable():
    (line,) = cache_warnings("/ro", {"writable": False, "env": True})
    assert "/ro (TORCHINDUCTOR_CACHE_DIR) is not writable" in line


def test_records_cut_short_by_a_crash_are_read_up_to_the_cut(tmp_path):
    header = {"kind": "process", "pid": 7}
    (tmp_path / "7.jsonl").write_text(
        json.dumps(header) + "\n" + json.dumps(brk([["/p/a.py", 3]])) + "\n" + '{"kind": "break", "fra'
    )
    (tmp_path / "8.jsonl").write_text(json.dumps({"kind": "process", "pid": 8}) + "\n")  # compiled nothing
    (only,) = read_records(str(tmp_path))
    assert only.header["pid"] == 7 and len(only.records) == 1


def test_failed_program_is_one_line():
    run = ProgramRun(command=["python", "x.py"], returncode=-11, seconds=2.0, tail="step 1\nFatal Python error: x\n")
    assert run.describe() == (
        "the program was killed by SIGSEGV (segmentation fault) after 2.0 s; its last output: Fatal Python error: x"
    )
    assert ProgramRun(command=["x"], returncode=0).describe() == ""


def test_the_records_folder_has_one_name_on_both_sides():
    from torchlint.run import observer, program

    assert program.ENV_DIR == observer.ENV_DIR


def test_command_forms():
    assert command_of(["train.py", "--epochs", "1"]) == [sys.executable, "train.py", "--epochs", "1"]
    assert command_of(["-m", "pytest", "tests"]) == [sys.executable, "-m", "pytest", "tests"]
    assert command_of(["torchrun", "--nproc-per-node", "2", "t.py"])[0] == "torchrun"


def test_cudagraph_skips_and_rerecordings_become_warnings(tmp_path):
    root, _ = project(tmp_path)
    train = os.path.join(root, "train.py")
    skip = {
        "kind": "cudagraph",
        "event": "skip",
        "stack": [[train, 3]],
        "reason": "mutated inputs (1 instances)",
        "frames": [[train, 4]],
    }
    record = {"kind": "cudagraph", "event": "record", "function": "7", "stack": [[train, 4]]}
    result, findings, _ = observed(
        [ProcessRecords({"pid": 1}, [skip, skip, record, record, record])], Places([root], root), name="p", run=None
    )
    by_name = {f.name: f for f in findings}
    assert result.cudagraph_skips == 1
    assert by_name["cudagraph-skip"].line == 4 and "mutated inputs" in by_name["cudagraph-skip"].message
    assert by_name["cudagraph-skip"].severity == "warning" and by_name["cudagraph-skip"].hits == 2
    assert by_name["cudagraph-rerecord"].hits == 2 and "re-recorded 2 times" in by_name["cudagraph-rerecord"].message


def test_a_report_shows_the_line_as_the_file_is_now_not_as_an_earlier_report_read_it(tmp_path):
    """A long pytest session (or two `torchlint run`s in one process) reports twice: an edit of
    the model between them shows in the second report."""
    root, _ = project(tmp_path)
    train = os.path.join(root, "train.py")
    records = [ProcessRecords({"pid": 1}, [brk([[train, 4]])])]
    _, first, _ = observed(records, Places([root], root), name="p", run=None)
    assert first[0].source_line == "loss = model(x)"
    with open(train, "w") as f:
        f.write("import torch\n\nstep(x)\nloss = model(x).sum()  # edited\n")
    _, second, _ = observed(records, Places([root], root), name="p", run=None)
    assert second[0].source_line == "loss = model(x).sum()  # edited"
