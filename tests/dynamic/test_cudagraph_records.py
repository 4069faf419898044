"""`torchlint run`'s CUDA-graph records, read from texts torch really wrote (no GPU, no torch needed).

``data/cudagraph_logs_h200.json`` holds what torch 2.11 logged on an H200 for four programs under
``mode="reduce-overhead"`` (the tagger of ``fixtures/cudagraphs/host_copy.py`` with graph partitions
on and off, the encoder of ``varlen_encoder.py`` fed five lengths, a function that scales its input
in place) and the CUDA-graph recordings cudagraph trees made. Each log record goes through the
observer's own handler (child side) into records, and those through the parent into findings.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import re
from pathlib import Path

import pytest

from torchlint.dynamic import cudagraph_text as text
from torchlint.run import observer
from torchlint.run.program import Places, ProcessRecords, observed

REPO = Path(__file__).resolve().parents[2]
CG = REPO / "fixtures" / "cudagraphs"
DATA = json.loads((Path(__file__).parent / "data" / "cudagraph_logs_h200.json").read_text())


def scenario(name):
    return [
        {k: (v.replace("{repo}", str(REPO)) if isinstance(v, str) else v) for k, v in r.items()}
        for r in DATA["scenarios"][name]
    ]


def messages(name, logger=""):
    return [r["message"] for r in scenario(name) if "message" in r and r["logger"].endswith(logger)]


def line_of(path, needle):
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


class Sink:
    def __init__(self):
        self.records = []

    def write(self, record):
        self.records.append(json.loads(json.dumps(record, default=str)))


def observe(name, compile_id, monkeypatch, *, cudagraphs_on=True):
    """The observer's records of one scenario: its log records through watch's handler, its
    recordings as the record hook writes them, all under ``compile_id``."""
    sink = Sink()
    monkeypatch.setattr(observer, "_compile_id", lambda: compile_id)
    monkeypatch.setattr(observer, "_cudagraphs_on", lambda: cudagraphs_on)
    for r in scenario(name):
        if "record" in r:
            sink.write({"kind": "cudagraph", "event": "record", "function": "?", "stack": [], **r["record"]})
            continue
        record = logging.LogRecord(r["logger"], getattr(logging, r["level"]), "x.py", 1, "%s", (r["message"],), None)
        observer._on_cudagraph_log(sink, record)
    return sink.records


def compile_record(compile_id, path, function="forward"):
    return {
        "kind": "compile",
        "compile_id": compile_id,
        "co_name": function,
        "co_filename": str(path),
        "co_firstlineno": line_of(path, f"def {function}"),
        "is_forward": True,
        "counters": {},
    }


# --------------------------------------------------------------------------- the texts


def test_skip_texts_give_the_reason_in_words_and_the_users_line():
    (said_twice,) = messages("host_copy_nopartition")
    assert said_twice.count("skipping cudagraphs due to") == 2  # inductor's own doubling
    assert text.is_skip(said_twice) and text.skip_reason(said_twice) == "cpu device (device_put)"
    assert text.frames_in(said_twice) == [(str(CG / "host_copy.py"), line_of(CG / "host_copy.py", ".cpu().clamp("))]
    mutated = [m for m in messages("mutated") if text.is_skip(m)]
    assert [text.skip_reason(m) for m in mutated] == ["mutated inputs (1 instances)"]
    assert not any(text.is_skip(m) for m in messages("host_copy") + messages("varlen_warnlimit"))


def test_partition_log_of_a_host_round_trip_is_a_cut_in_two():
    parsed = text.parse_partitions(messages("host_copy", "scheduler.__cudagraphs"))
    assert parsed.pieces == 2 and len(parsed.nodes) == 3
    assert parsed.kinds == ["device copies", "CPU kernels"] and parsed.costs(has_sites=True)
    cpu_line = line_of(CG / "host_copy.py", ".cpu().clamp(")
    assert {text.frames_in(n.trace)[-1][1] for n in parsed.nodes if n.trace} == {cpu_line}
    whole = text.parse_partitions(messages("varlen_warnlimit", "scheduler.__cudagraphs")[:2])
    assert whole.pieces == 1 and not whole.nodes and not whole.costs(has_sites=False)


def test_distinct_sizes_warning():
    sizes = [text.distinct_sizes(m) for m in messages("varlen_warnlimit")]
    assert [s for s in sizes if s is not None] == [3]


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="reads the installed torch's source")
def test_rerecording_text_of_the_installed_torch():
    """The "Re-recording function=..." format as the installed torch's cudagraph_trees writes it."""
    source = Path(
        importlib.util.find_spec("torch").submodule_search_locations[0], "_inductor", "cudagraph_trees.py"
    ).read_text()
    (fmt,) = re.findall(r'"(\[%s\] Re-recording function=[^"]*)"', source)
    args = ["0/1", "partition_0"] + (["INFERENCE"] if "mode=" in fmt else []) + ["static input data pointer changed."]
    assert text.rerecord(fmt % tuple(args)) == ("0/1", "partition_0", "static input data pointer changed.")
    assert text.rerecord("[0/1] Recording function=partition_0, cuda_graph_id=1, inputs: ") is None


# --------------------------------------------------------------------------- records -> findings


def findings_of(records):
    places = Places([str(CG)], str(CG))
    result, findings, _ = observed([ProcessRecords({"pid": 1}, records)], places, name="python serve.py", run=None)
    return result, [
        (f.name, os.path.basename(f.path), f.line, f.message) for f in findings if f.name.startswith("cudagraph")
    ]


def test_observer_and_parent_turn_a_round_trip_into_a_split_at_its_line(monkeypatch):
    records = [compile_record("0/0", CG / "host_copy.py")] + observe("host_copy", "0/0", monkeypatch)
    logged = messages("host_copy", "scheduler.__cudagraphs")
    kept = [r["message"] for r in records if r.get("event") == "partition_log"]
    assert kept == [m for m in logged if "File" in m or "artition" in m or "reason=" in m]  # not the code lines
    result, found = findings_of(records)
    ((name, path, line, message),) = found  # two partitions recorded once each: no re-recording
    assert (name, path, line) == ("cudagraph-split", "host_copy.py", line_of(CG / "host_copy.py", ".cpu().clamp("))
    assert "the CUDA graph is cut in 2" in message and "device copies and CPU kernels" in message
    assert result.cudagraph_skips == 1


def test_a_graph_compiled_without_cuda_graphs_is_not_split(monkeypatch):
    records = [compile_record("0/0", CG / "host_copy.py")] + observe(
        "host_copy", "0/0", monkeypatch, cudagraphs_on=False
    )
    assert "partition_log" not in [r["event"] for r in records[1:]]


def test_from_the_fx_graph_cache_a_cut_is_still_seen_in_its_recordings(monkeypatch):
    records = [compile_record("0/0", CG / "host_copy.py")] + [
        r for r in observe("host_copy", "0/0", monkeypatch) if r["event"] == "record"
    ]
    _, found = findings_of(records)
    ((name, path, line, message),) = found
    assert (name, path, line) == ("cudagraph-split", "host_copy.py", line_of(CG / "host_copy.py", "def forward"))
    assert "cut in 2" in message and "TORCHINDUCTOR_FX_GRAPH_CACHE=0" in message


def test_skip_without_partitions_is_placed_on_the_cpu_line(monkeypatch):
    records = [compile_record("0/0", CG / "host_copy.py")] + observe("host_copy_nopartition", "0/0", monkeypatch)
    result, found = findings_of(records)
    ((name, path, line, message),) = found
    assert (name, path, line) == ("cudagraph-skip", "host_copy.py", line_of(CG / "host_copy.py", ".cpu().clamp("))
    assert "without a CUDA graph because of cpu device (device_put)" in message
    assert result.cudagraph_skips == 1


def test_five_lengths_are_four_rerecordings_of_the_frame(monkeypatch):
    records = [compile_record("0/0", CG / "varlen_encoder.py"), compile_record("0/1", CG / "varlen_encoder.py")]
    records += observe("varlen_warnlimit", "0/1", monkeypatch)
    result, found = findings_of(records)
    ((name, path, line, message),) = found
    assert (name, path, line) == (
        "cudagraph-rerecord",
        "varlen_encoder.py",
        line_of(CG / "varlen_encoder.py", "def forward"),
    )
    assert "re-recorded 4 times in 5 recordings of 2 compiled versions" in message
    assert "(4x16), (4x32), (4x64), (4x48), (4x40)" in message and "warned of 3 distinct sizes" in message
    assert result.cudagraph_skips == 0


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="reads the installed torch's source")
def test_rerecord_limit_skip_of_the_installed_torch():
    """cudagraph trees' "skipping cudagraph due to function N exceeding max re-recording limit"
    (singular "cudagraph"), built from the installed torch's f-string pieces."""
    source = Path(
        importlib.util.find_spec("torch").submodule_search_locations[0], "_inductor", "cudagraph_trees.py"
    ).read_text()
    start = source.index('f"skipping cudagraph due to function')
    pieces = re.findall(r'f"([^"]*)"', source[start : source.index(")\n", start)])
    values = iter(["7", "50", "3", "static input data pointer changed"])
    message = re.sub(r"\{[^}]*\}", lambda _: next(values), "".join(pieces))
    assert text.is_skip(message), message
    assert text.skip_reason(message) == (
        "re-recording more than cudagraph_unexpected_rerecord_limit (50) times (static input data pointer changed)"
    )


OWN_MESSAGES = r"""
import sys
from torchlint.run import observer
observer.install(sys.argv[1])
import torch._dynamo  # the observer attaches here
import torch._inductor.scheduler as scheduler
from torch._inductor import config, cudagraph_utils as utils

utils.log_cudagraph_skip_and_bump_counter(utils.format_default_skip_message("mutated inputs (1 instances)"))
with config.patch({"triton.cudagraph_dynamic_shape_warn_limit": 2}):
    utils.maybe_warning_due_to_dynamic_shape({(16,): None, (32,): None}, (64,))
for on in (False, True):
    with config.patch({"triton.cudagraphs": on}):
        scheduler.cudagraphs_log.debug("Created %d graph partitions: %d cudagraphable, %d non-cudagraphable", 3, 2, 1)
"""


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs torch")
def test_the_observer_hears_the_installed_torchs_own_loggers(tmp_path):
    """torch's own functions write the texts through its own loggers; the observer records the
    skip, the sizes warning, and the partition line only while compiling with CUDA graphs."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", OWN_MESSAGES, str(tmp_path)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr == "", done.stderr[-2000:]  # recorded, not printed
    (name,) = os.listdir(tmp_path)
    records = [json.loads(line) for line in (tmp_path / name).read_text().splitlines()][1:]
    events = [(r["event"], r.get("reason") or r.get("sizes") or r.get("message")) for r in records]
    assert events == [
        ("skip", "mutated inputs (1 instances)"),
        ("sizes", 3),
        ("partition_log", "Created 3 graph partitions: 2 cudagraphable, 1 non-cudagraphable"),
    ]
