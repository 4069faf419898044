"""The worker process: imports torch once, then runs targets one request at a time.

Started by :mod:`torchlint.dynamic.runner` as ``python -c ... worker.main(rfd, wfd)`` with its
stdout and stderr pointing at a capture file, so nothing the user's model prints can garble
the report. Requests and answers are JSON lines on two dedicated pipes (``rfd`` / ``wfd``).

Request: ``{"id", "target", "input_sets": [[spec, ...], ...], "inputs_from", "input_sets_from", "train", "cwd",
"user_files"}``. Answer: ``{"id", "error", "graphs", "ops_per_graph", "total_graphs",
"explain_graph_breaks", "breaks": [...], "recompiles": [...], "path"}``.
"""
from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any, Dict


def _one_line(e: BaseException) -> str:
    lines = [l for l in str(e).strip().splitlines() if l.strip()]
    return f"{type(e).__name__}: {lines[0]}" if lines else type(e).__name__


def _user_line(e: BaseException, user_files: set) -> str:
    """`` at model.py:12`` for the innermost traceback frame in the user's files, if any."""
    frames = [f for f in traceback.extract_tb(e.__traceback__) if os.path.realpath(f.filename) in user_files]
    return f" (at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno})" if frames else ""


def handle(request: Dict[str, Any]) -> Dict[str, Any]:
    """Run one target; every failure becomes a one-line ``error``."""
    import torch

    from torchlint.dynamic.explain import observe
    from torchlint.dynamic.specs import materialize, parse_input
    from torchlint.dynamic.targets import TargetError, load_input_sets, load_inputs, load_target, parse_ref

    answer: Dict[str, Any] = {"id": request.get("id"), "error": None}
    cwd = request.get("cwd") or os.getcwd()
    user_files = {os.path.realpath(p) for p in request.get("user_files") or []}
    try:
        os.chdir(cwd)
        torch.manual_seed(0)
        ref = parse_ref(request["target"])
        fn, path = load_target(ref, cwd)
        answer["path"] = path
        user_files.add(path)
        calls = [
            ([materialize(parse_input(s), seed=i) for i, s in enumerate(call)], {})
            for call in request.get("input_sets") or []
        ]
        if request.get("inputs_from"):
            source = parse_ref(request["inputs_from"], "inputs-from function")
            calls.insert(0, load_inputs(source, cwd))
        if request.get("input_sets_from"):
            calls.extend(load_input_sets(parse_ref(request["input_sets_from"], "input-sets-from function"), cwd))
        if not calls:
            raise TargetError(ref.text, "no sample inputs: give --input, --input-set, --inputs-from or input-sets-from")
        obs = observe(
            fn, [list(a) for a, _ in calls], kwarg_sets=[k for _, k in calls],
            user_files=user_files, train=bool(request.get("train")),
        )
    except TargetError as e:
        answer["error"] = str(e)
        return answer
    except SystemExit as e:
        answer["error"] = f"the target called sys.exit({e.code!r})"
        return answer
    except Exception as e:
        answer["error"] = f"raised {_one_line(e)}{_user_line(e, user_files)}"
        return answer
    answer.update(
        graphs=obs.graphs,
        ops_per_graph=obs.ops_per_graph,
        total_graphs=obs.total_graphs,
        explain_graph_breaks=obs.explain_graph_breaks,
        breaks=[b.to_dict() for b in obs.breaks],
        recompiles=[r.to_dict() for r in obs.recompiles],
    )
    return answer


def main(rfd: int, wfd: int) -> None:
    reader = os.fdopen(rfd, "r", encoding="utf-8")
    writer = os.fdopen(wfd, "w", encoding="utf-8")

    def send(obj: Dict[str, Any]) -> None:
        writer.write(json.dumps(obj) + "\n")
        writer.flush()

    try:
        import torch

        from torchlint.dynamic.explain import observe

        # Pay dynamo's one-off start-up cost now, not in the first target's time.
        observe(lambda x: x + 1, [(torch.ones(2),)], user_files=())

        send({"ready": True, "torch_version": torch.__version__, "pid": os.getpid()})
    except BaseException as e:  # torch missing or broken: say so, then stop
        send({"ready": False, "error": _one_line(e)})
        return
    for line in reader:
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("quit"):
            break
        try:
            answer = handle(request)
        except BaseException as e:  # keep the protocol alive whatever the target did
            answer = {"id": request.get("id"), "error": f"raised {_one_line(e)}"}
        sys.stdout.flush()
        sys.stderr.flush()
        send(answer)


if __name__ == "__main__":  # pragma: no cover - the runner starts it with -c
    main(int(sys.argv[1]), int(sys.argv[2]))
