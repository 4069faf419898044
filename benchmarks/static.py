"""Speed of the static pass at repository scale, against TorchFix and ruff.

Downloads (``pip download --no-deps``) the pinned wheels of timm and transformers, unpacks
``timm/models`` and ``transformers/models`` into a temporary folder and times, with several
repetitions and the median of each figure:

* torchlint cold (an empty cache folder), the same with ``--no-project`` (regions decided one
  file at a time: the cost of the project-wide analysis is the ratio of the two, printed),
  warm (nothing changed) and after one changed file, always ``--no-dynamic``;
* TorchFix and ``ruff check --select ALL --no-cache``, installed into a temporary venv.

Each run is a child process: wall seconds, CPU seconds (user + system of the whole process
tree, from ``wait4``), the largest single process (``ru_maxrss``) and the peak of the whole
tree's memory (the sum of each process's proportional set size, sampled from /proc every
20 ms). Ratios are CPU seconds against
TorchFix on the same folder in the same run. ``--cores 2`` pins every tool to two cores
(torchlint then uses two processes)::

    python benchmarks/static.py                      # timm and transformers, 3 repetitions
    python benchmarks/static.py --cores 2 --only timm --reps 5
    python benchmarks/static.py --torchfix-on transformers   # ~30 min of TorchFix

``--wheels DIR`` reads the wheels from DIR (``pip download --no-index --find-links``) for a
machine without network; ``--no-peers`` skips TorchFix and ruff.

``--against REV`` also runs torchlint as it was at commit REV, cold, beside the current
tree in the same run (each repetition runs the old one, then the new one, on the same
corpus): ``git archive`` exports REV's ``torchlint/`` into the work folder and it runs from
there (``PYTHONPATH``) in this same environment, installing nothing. It prints the CPU
ratio new/old and checks that both give the same report (a hash of the ``--format json``
output less any timing)::

    python benchmarks/static.py --cores 2 --reps 1 --no-peers --against 8373981 --against-per-file

``--against-per-file`` compares REV's cold runs with the current tree's ``--no-project`` cold
runs instead: like for like with a REV from before the project-wide analysis became the
default (it changes findings on purpose: regions across files).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

PINS = {"timm": "1.0.31", "transformers": "4.57.6"}
PEERS = {"torchfix": "0.7.0", "ruff": "0.17.6"}
CORPORA = {"timm": "timm/models", "transformers": "transformers/models"}
# The file edited for the one-changed-file figure (a typical model file).
EDITED = {"timm": "timm/models/resnet.py", "transformers": "transformers/models/llama/modeling_llama.py"}
MB = 1024 * 1024


# -- measuring one run -------------------------------------------------------------------
@dataclass
class Run:
    wall: float
    cpu: float
    max_rss: int  # bytes, largest single process
    tree_rss: int  # bytes, peak of the process tree's summed PSS (sampled)
    code: int
    report: str = ""  # a hash of what it printed (the report), kept instead of the text
    findings: str = ""  # a hash of the JSON report less timings (the same for the same findings)


def _children(pid: int) -> List[int]:
    out: List[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out.extend(int(c) for c in fh.read().split())
    except OSError:
        pass
    return out


def _memory(pid: int) -> int:
    """The process's proportional set size (shared pages split among their users, so a
    forked pool is not counted twice), else its resident set size."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        pass
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


def _tree_rss(root: int) -> int:
    total, stack, seen = 0, [root], set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += _memory(pid)
        stack.extend(_children(pid))
    return total


def measure(cmd: Sequence[str], cwd: str, env=None) -> Run:
    """One run of ``cmd``. This process stays small (it keeps hashes, not reports, and pins
    cores on itself rather than in a ``preexec_fn``): a child's peak RSS counts the pages it
    shares with its parent between fork and exec."""
    start = time.perf_counter()
    proc = subprocess.Popen(list(cmd), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    peak = [0]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            peak[0] = max(peak[0], _tree_rss(proc.pid))
            stop.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    digest = hashlib.sha256()
    with tempfile.TemporaryFile() as out:  # on disk, not in this process
        for chunk in iter(lambda: proc.stdout.read(1 << 16), b""):  # type: ignore[union-attr]
            digest.update(chunk)
            out.write(chunk)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        stop.set()
        sampler.join()
        out.seek(0)
        findings = findings_hash(out.read())
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, peak[0], proc.returncode,
               digest.hexdigest(), findings)


_TIMINGS = frozenset({"seconds", "elapsed", "timings", "duration"})


def findings_hash(output: bytes) -> str:
    """A hash of a ``--format json`` report without its timings (keys named as times, at
    any depth), canonically written; of the raw bytes when it is not JSON."""
    try:
        report = json.loads(output)
    except ValueError:
        return "raw:" + hashlib.sha256(output).hexdigest()

    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in _TIMINGS}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return hashlib.sha256(json.dumps(strip(report), sort_keys=True).encode()).hexdigest()


@dataclass
class Row:
    tool: str
    corpus: str
    runs: List[Run] = field(default_factory=list)

    def median(self, attr: str) -> float:
        return statistics.median(getattr(r, attr) for r in self.runs)


# -- setting up --------------------------------------------------------------------------
def pip(python: str, *args: str) -> None:
    subprocess.run([python, "-m", "pip", "--disable-pip-version-check", "-q", *args], check=True)


def fetch_corpora(work: Path, wheels: Optional[Path], only: Sequence[str]) -> Dict[str, Path]:
    folder = work / "wheels"
    folder.mkdir(exist_ok=True)
    specs = [f"{name}=={PINS[name]}" for name in only if not list(folder.glob(f"{name}-{PINS[name]}-*.whl"))]
    where = ["--no-index", "--find-links", str(wheels)] if wheels else []
    if specs:  # (a kept --workdir has them already)
        pip(sys.executable, "download", "--no-deps", *where, "-d", str(folder), *specs)
    src = work / "src"
    out = {}
    for name in only:
        (wheel,) = folder.glob(f"{name}-{PINS[name]}-*.whl")
        prefix = CORPORA[name] + "/"
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(src, [m for m in zf.namelist() if m.startswith(prefix)])
        out[name] = src / CORPORA[name]
    return out


def make_peers(work: Path, wheels: Optional[Path]) -> Path:
    venv = work / "peers"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    where = ["--no-index", "--find-links", str(wheels)] if wheels else []
    pip(str(venv / "bin" / "python"), "install", *where, *(f"{n}=={v}" for n, v in PEERS.items()))
    return venv / "bin"


def count(folder: Path):
    files = sorted(folder.rglob("*.py"))
    return len(files), sum(p.read_bytes().count(b"\n") for p in files)


# -- the runs ----------------------------------------------------------------------------
def snapshot(work: Path) -> Dict[str, str]:
    """The environment to run a copy of torchlint taken now: edits to the working tree
    during the benchmark (which would rightly invalidate the cache) do not reach it."""
    import torchlint

    shutil.copytree(Path(torchlint.__file__).parent, work / "snapshot" / "torchlint",
                    ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True)
    path = os.pathsep.join(p for p in (str(work / "snapshot"), os.environ.get("PYTHONPATH")) if p)
    return dict(os.environ, PYTHONPATH=path)


def export(rev: str, work: Path) -> Dict[str, str]:
    """The environment to run torchlint as it was at commit ``rev`` (its ``torchlint/``
    exported with ``git archive``, first on ``PYTHONPATH``; nothing is installed)."""
    repo = Path(__file__).resolve().parents[1]
    folder = work / f"old-{rev}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", rev, "torchlint"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    path = os.pathsep.join(p for p in (str(folder), os.environ.get("PYTHONPATH")) if p)
    return dict(os.environ, PYTHONPATH=path)


def torchlint_cmd(target: Path, cache: Path, extra=()) -> List[str]:
    return [sys.executable, "-m", "torchlint", "check", str(target), "--no-dynamic", "--format", "json",
            "--exit-zero", "--cache-dir", str(cache), *extra]


def bench_torchlint(name: str, target: Path, work: Path, reps: int, rows: List[Row], log, env,
                    cross_check: bool, against: Optional[Row] = None, old_env=None) -> None:
    cwd = str(target.parents[1])
    cold, warm, changed = Row("torchlint cold", name), Row("torchlint warm", name), Row("torchlint 1 changed file", name)
    per_file = Row("torchlint cold, --no-project", name)
    reference = None
    for rep in range(reps):
        if against is not None:  # the old tree first, then the new one, in each repetition
            cache = work / f"cache-old-{name}-{rep}"
            shutil.rmtree(cache, ignore_errors=True)
            run = measure(torchlint_cmd(target, cache), cwd, old_env)
            against.runs.append(run)
            log(f"  {against.tool} #{rep + 1}: {run.wall:6.2f} s wall, {run.cpu:6.2f} s CPU")
        cache = work / f"cache-{name}-{rep}"
        shutil.rmtree(cache, ignore_errors=True)
        run = measure(torchlint_cmd(target, cache), cwd, env)
        cold.runs.append(run)
        reference = reference or run.report
        if run.report != reference:
            raise SystemExit(f"{name}: cold runs disagree")
        log(f"  torchlint cold   #{rep + 1}: {run.wall:6.2f} s wall, {run.cpu:6.2f} s CPU")
        # the same cold run with regions decided one file at a time (the project-wide cost)
        nocache = work / f"cache-{name}-{rep}-per-file"
        shutil.rmtree(nocache, ignore_errors=True)
        run = measure(torchlint_cmd(target, nocache, ["--no-project"]), cwd, env)
        shutil.rmtree(nocache, ignore_errors=True)
        per_file.runs.append(run)
        log(f"  torchlint cold --no-project #{rep + 1}: {run.wall:6.2f} s wall, {run.cpu:6.2f} s CPU")
    log(f"  project-wide / per-file cold CPU: {cold.median('cpu') / max(per_file.median('cpu'), 1e-9):.2f}x")
    cache = work / f"cache-{name}-0"
    for rep in range(reps):
        run = measure(torchlint_cmd(target, cache), cwd, env)
        warm.runs.append(run)
        if run.report != reference:
            raise SystemExit(f"{name}: the warm run's findings differ from the cold run's")
        log(f"  torchlint warm   #{rep + 1}: {run.wall:6.2f} s wall, {run.cpu:6.2f} s CPU")
    edited = target.parents[1] / EDITED[name]
    original = edited.read_bytes()
    try:
        for rep in range(reps):
            edited.write_bytes(original + f"\n# benchmark edit {rep} {time.time()}\n".encode())
            run = measure(torchlint_cmd(target, cache), cwd, env)
            changed.runs.append(run)
            log(f"  torchlint 1 file #{rep + 1}: {run.wall:6.2f} s wall, {run.cpu:6.2f} s CPU")
    finally:
        edited.write_bytes(original)
    if cross_check:
        for extra in (["--no-cache", "--jobs", "1"], ["--no-cache", "--jobs", "2"]):
            check = measure(torchlint_cmd(target, cache, extra), cwd, env)
            if check.report != reference:
                raise SystemExit(f"{name}: {' '.join(extra)} and the cached run disagree")
            log(f"  torchlint {' '.join(extra)}: same findings ({check.wall:.2f} s wall)")
    rows += ([against] if against is not None else []) + [cold, per_file, warm, changed]


def compare(rows: List[Row], rev: str, per_file: bool = False) -> List[str]:
    """Lines comparing each corpus's cold runs of the current tree (its ``--no-project`` ones
    with ``per_file``) with those of ``rev``; a line starting ``DIFFERENT`` when their findings differ."""
    lines = []
    mine = "torchlint cold, --no-project" if per_file else "torchlint cold"
    for old in (r for r in rows if r.tool.startswith("torchlint cold (")):
        new = next(r for r in rows if r.tool == mine and r.corpus == old.corpus)
        ratio = new.median("cpu") / old.median("cpu")
        same = {r.findings for r in old.runs} == {r.findings for r in new.runs} and len({r.findings for r in new.runs}) == 1
        lines.append(f"{CORPORA[old.corpus]}: {mine} CPU {new.median('cpu'):.2f} s vs {old.median('cpu'):.2f} s at {rev} "
                     f"= {ratio:.3f} ({(1 - ratio) * 100:.1f}% less CPU); wall {new.median('wall'):.2f} s vs "
                     f"{old.median('wall'):.2f} s")
        lines.append(f"{'  same findings' if same else 'DIFFERENT findings'}: json without timings sha256 "
                     f"{new.runs[0].findings[:16]} (new) {old.runs[0].findings[:16]} ({rev})")
    return lines


def bench_peer(tool: str, cmd: List[str], name: str, target: Path, reps: int, rows, log) -> None:
    row = Row(tool, name)
    for rep in range(reps):
        run = measure(cmd, str(target.parents[1]))
        row.runs.append(run)
        log(f"  {tool:16s} #{rep + 1}: {run.wall:6.2f} s wall, {run.cpu:6.2f} s CPU")
    rows.append(row)


def table(rows: List[Row], sizes) -> str:
    lines = ["| tool | folder | files | lines | wall s | CPU s | lines/CPU-s | largest process MB | process tree MB (PSS) | CPU vs TorchFix |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    torchfix = {r.corpus: r.median("cpu") for r in rows if r.tool == "TorchFix"}
    for r in rows:
        files, nlines = sizes[r.corpus]
        cpu = r.median("cpu")
        ratio = f"{torchfix[r.corpus] / cpu:.1f}x faster" if r.corpus in torchfix and r.tool != "TorchFix" else ""
        lines.append(f"| {r.tool} | {CORPORA[r.corpus]} | {files} | {nlines:,} | {r.median('wall'):.2f} | "
                     f"{cpu:.2f} | {nlines / max(cpu, 1e-9):,.0f} | {r.median('max_rss') / MB:.0f} | "
                     f"{r.median('tree_rss') / MB:.0f} | {ratio} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", choices=sorted(CORPORA), action="append", help="Only this corpus (repeatable).")
    ap.add_argument("--reps", type=int, default=3, help="Repetitions of each torchlint and ruff figure (median).")
    ap.add_argument("--torchfix-reps", type=int, default=3, help="Repetitions of TorchFix (slow).")
    ap.add_argument("--torchfix-on", choices=sorted(CORPORA), action="append",
                    help="Corpora to run TorchFix on (default: timm; on transformers it takes ~30 min).")
    ap.add_argument("--cores", type=int, help="Pin every tool to this many cores.")
    ap.add_argument("--no-peers", action="store_true", help="Skip TorchFix and ruff.")
    ap.add_argument("--cross-check", action="store_true",
                    help="Also check that --jobs 1 and --jobs 2 without the cache find exactly the same.")
    ap.add_argument("--wheels", type=Path, help="Read wheels from this folder instead of the index.")
    ap.add_argument("--workdir", type=Path, help="Work here (kept) instead of a temporary folder.")
    ap.add_argument("--against", metavar="REV",
                    help="Also run torchlint as of commit REV (git archive, same venv), cold, and compare.")
    ap.add_argument("--against-per-file", action="store_true",
                    help="With --against: compare with this tree's --no-project cold runs (for a REV from "
                         "before the project-wide analysis was the default).")
    args = ap.parse_args(argv)

    only = args.only or sorted(CORPORA)
    cores = sorted(os.sched_getaffinity(0))[: args.cores] if args.cores else None
    if cores:
        os.sched_setaffinity(0, cores)  # every tool runs as a child and inherits it
    work = args.workdir or Path(tempfile.mkdtemp(prefix="torchlint-bench-"))
    work.mkdir(parents=True, exist_ok=True)

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        corpora = fetch_corpora(work, args.wheels, only)
        sizes = {name: count(path) for name, path in corpora.items()}
        peers = None if args.no_peers else make_peers(work, args.wheels)
        env = snapshot(work)
        old_env = export(args.against, work) if args.against else None
        rows: List[Row] = []
        for name, target in corpora.items():
            log(f"{CORPORA[name]}: {sizes[name][0]} files, {sizes[name][1]:,} lines")
            against = Row(f"torchlint cold ({args.against})", name) if args.against else None
            bench_torchlint(name, target, work, args.reps, rows, log, env, args.cross_check, against, old_env)
            if peers is not None:
                if name in (args.torchfix_on or ["timm"]):
                    bench_peer("TorchFix", [str(peers / "torchfix"), str(target)], name, target,
                               args.torchfix_reps, rows, log)
                bench_peer("ruff --select ALL", [str(peers / "ruff"), "check", "--select", "ALL", "--no-cache",
                                                 "--exit-zero", "--quiet", str(target)],
                           name, target, args.reps, rows, log)
        cpus = len(cores) if cores else len(os.sched_getaffinity(0))
        print(f"\ntorchlint static pass, {cpus} cores, median of {args.reps} "
              f"(TorchFix {args.torchfix_reps}); timm {PINS['timm']}, transformers {PINS['transformers']}, "
              f"TorchFix {PEERS['torchfix']}, ruff {PEERS['ruff']}, Python {sys.version.split()[0]}\n")
        print(table(rows, sizes))
        if args.against:
            lines = compare(rows, args.against, args.against_per_file)
            print("\n" + "\n".join(lines))
            if any(line.startswith("DIFFERENT") for line in lines):
                return 1
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
