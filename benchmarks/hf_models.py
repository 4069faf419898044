"""The dynamic pass on 16 Hugging Face models built from tiny configs (nothing downloaded).

For each model of ``benchmarks/hf/hf_targets.py`` (bert, gpt2, swin, funnel, longformer,
big_bird, reformer, ctrl, switch_transformers, nllb_moe, encodec, distilbert, xlm, led, t5,
bart; keyword inputs, as a tokenizer's output is passed):

* torchlint: the model as a target (``hf_targets.py:build_bert`` with ``inputs-from``) in
  torchlint's worker; its break sites;
* dynamo directly, in another process with no torchlint code: ``torch.compile`` with a
  recording backend and dynamo's ``graph_breaks`` log on, each break placed on the innermost
  frame in the linted file, else the innermost library line (never torch's, never
  torchlint's, never the standard library's);

and says whether the two sets of sites are equal and that no site is a torch or torchlint
file. bert, gpt2, swin, funnel and longformer also run three sequence lengths (8, 16, 32):
every recompile reason must be in words with a fix. Recompile-limit hits are counted.
Needs ``pip install transformers`` (checked with 5.24.0). Prints one table; exits 1 when a
check fails.

    .venv/bin/python benchmarks/hf_models.py [--models bert,gpt2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HF = os.path.join(ROOT, "benchmarks", "hf")
TARGETS = os.path.join(HF, "hf_targets.py")
RECOMPILE_MODELS = ("bert", "gpt2", "swin", "funnel", "longformer")

DIRECT = r"""
import json, logging, os, re, sys, sysconfig
import torch
sys.path.insert(0, sys.argv[1])
import hf_targets as h

linted = os.path.realpath(os.path.join(sys.argv[1], "hf_targets.py"))
torch_dir = os.path.dirname(os.path.realpath(torch.__file__))
own_dir = os.path.realpath(sys.argv[2])  # torchlint's package
stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
site = {os.path.realpath(sysconfig.get_paths()[k]) for k in ("purelib", "platlib")}
FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def inside(path, folder):
    return path == folder or path.startswith(folder + os.sep)


def place(frames):
    frames = [(os.path.realpath(f), int(n)) for f, n in frames if not f.startswith("<")]
    mine = [f for f in frames if f[0] == linted]
    if mine:
        return mine[-1]
    lib = [f for f in frames if not inside(f[0], torch_dir) and not inside(f[0], own_dir)
           and (not inside(f[0], stdlib) or any(inside(f[0], s) for s in site))]
    return lib[-1] if lib else None


class Keep(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record)


out = {}
for name in sys.argv[3].split(","):
    torch._dynamo.reset()
    torch._logging.set_logs(graph_breaks=True)
    keep = Keep()
    loggers = [logging.getLogger(n) for n in list(logging.root.manager.loggerDict) if n.endswith("__graph_breaks")]
    for lg in loggers:
        lg.addHandler(keep)
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    model = h.build(name)
    sites = set()
    try:
        with torch.no_grad():
            torch.compile(model, backend=backend)(**h.inputs(name))
        for gm in graphs:
            reason = getattr(gm, "compile_subgraph_reason", None)
            if reason is not None and reason.graph_break:
                sites.add(place([(f.filename, f.lineno) for f in reason.user_stack or []]))
        for record in keep.records:
            error = record.exc_info[1] if record.exc_info else None
            stack = [(f.filename, f.lineno) for f in getattr(error, "real_stack", None) or []]
            text = record.getMessage()
            stack = stack or FRAME.findall(text)
            at = re.search(r"in user code at (.+):(\d+)", text)
            if not stack and at:
                stack = [(at.group(1), at.group(2))]
            sites.add(place(stack))
        out[name] = {"sites": sorted([list(s) for s in sites if s is not None]),
                     "unplaced": sum(1 for s in sites if s is None), "graphs": len(graphs)}
    except Exception as e:
        out[name] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"}
    for lg in loggers:
        lg.removeHandler(keep)
print(json.dumps(out))
"""


def direct_sites(models):
    env = dict(os.environ, TORCHINDUCTOR_COMPILE_THREADS="1")
    proc = subprocess.run(
        [sys.executable, "-c", DIRECT, HF, os.path.join(ROOT, "torchlint"), ",".join(models)],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    if proc.returncode != 0:
        raise SystemExit(f"direct run failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def torchlint_runs(models):
    from torchlint.dynamic.target_pass import run_targets
    from torchlint.dynamic.targets import make_target

    specs = [make_target(f"{TARGETS}:build_{m}", inputs_from=f"{TARGETS}:inputs_{m}", name=m) for m in models]
    specs += [
        make_target(f"{TARGETS}:build_{m}", input_sets_from=f"{TARGETS}:lengths_{m}", name=f"{m}@3")
        for m in models
        if m in RECOMPILE_MODELS
    ]
    results, findings, errors = run_targets(specs, cwd=ROOT, timeout=600, user_files=[TARGETS])
    by_name = {r.target: r for r in results}
    sites = {}
    for f in findings:
        if f.name != "graph-break":
            continue
        for t in f.target_names():
            sites.setdefault(t, set()).add((os.path.realpath(os.path.join(ROOT, f.path)), f.line))
    return by_name, sites


def short(path):
    marker = "site-packages" + os.sep
    return path.split(marker, 1)[1] if marker in path else os.path.relpath(path, ROOT)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", help="comma-separated subset (default: all 16)")
    args = parser.parse_args()
    sys.path.insert(0, HF)
    import hf_targets

    models = args.models.split(",") if args.models else list(hf_targets.CONFIGS)
    started = time.monotonic()
    direct = direct_sites(models)
    results, sites = torchlint_runs(models)
    torch_dir = os.sep + "torch" + os.sep
    own_dir = os.path.join(ROOT, "torchlint") + os.sep
    failed = 0
    print(
        f"{'model':<20} {'graphs':>6} {'breaks':>13} {'sites equal':>11} {'ours/dynamo':>11} "
        f"{'recompiles':>10} {'in words':>8} {'limit hits':>10}  note"
    )
    for m in models:
        r = results.get(m)
        d = direct.get(m, {})
        note = []
        if r is None or r.error or "error" in d:
            failed += 1
            print(f"{m:<20} error: {(r.error if r else None) or d.get('error')}")
            continue
        ours = sites.get(m, set())
        theirs = {(p, n) for p, n in d["sites"]}
        equal = ours == theirs
        bad = [s for s in ours if torch_dir in s[0] or s[0].startswith(own_dir)]
        if not equal:
            note.append(
                f"only ours: {sorted((short(p), n) for p, n in ours - theirs)}; "
                f"only dynamo: {sorted((short(p), n) for p, n in theirs - ours)}"
            )
        if bad:
            note.append(f"torch/torchlint sites: {bad}")
        recompiles, words = "-", "-"
        limit = len(r.recompile_limit_hits)
        three = results.get(f"{m}@3")
        if three is not None:
            reasons = [x.reason for x in three.recompile_reasons]
            in_words = [x for x in reasons if not x.startswith("guard failed") and "; fix: " in x]
            recompiles, words = str(len(reasons)), f"{len(in_words)}/{len(reasons)}"
            limit += len(three.recompile_limit_hits)
            if len(in_words) != len(reasons) or three.error:
                note.append(f"raw: {[x for x in reasons if x not in in_words]} {three.error or ''}")
        if not equal or bad or note:
            failed += 1
        hits = f"{r.graph_break_hits} at {r.graph_breaks}"
        print(
            f"{m:<20} {r.graphs:>6} {hits:>13} {'yes' if equal else 'NO':>11} "
            f"{len(ours):>5}/{len(theirs):<5} {recompiles:>10} {words:>8} {limit:>10}  {' '.join(note)}"
        )
        for hit in r.recompile_limit_hits + (three.recompile_limit_hits if three else []):
            print(f"{'':<20} recompile limit: {short(hit.path or '?')}:{hit.line}: {hit.reason[:150]}")
    print(f"{len(models)} models, {failed} with a failed check, {time.monotonic() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
