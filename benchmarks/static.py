"""Speed of the static pass at repository scale, against TorchFix and ruff.

Downloads (``pip download --no-deps``) the pinned wheels of timm and transformers, unpacks
``timm/models`` and ``transformers/models`` into a temporary folder and times, with several
repetitions and the median of each figure:

* torchlint cold (an empty cache folder), the same with ``--no-project`` (regions decided one
  file at a time: the cost of the project-wide analysis is the ratio of the two, printed),
  warm (nothing changed), after one changed file (a comment added to a model file) and
  after one changed helper (``_probe = <parameter>.item()`` added to a function of the file
  whose functions the most regions of other files reach, chosen by torchlint's own
  analysis; the run must find exactly one finding more) and after the same edit with a new
  function added beside it (the file's summary changes: the files that read it, through
  their imports, are analysed again, the regions decided anew, and the files whose facts
  change re-checked), always ``--no-dynamic``;
* torchlint on one model file alone (``EDITED``), cold (its project, the whole package, is
  summarised and analysed) and warm after a comment is added to it (a hook's run on a
  one-file change), with the ratio of the cold wall time to ruff's on the whole corpus
  folder (``--one-file``: only these and ruff's figures);
* TorchFix and ``ruff check --select ALL --no-cache``, installed into a temporary venv.

The wheel's whole package is unpacked (the project of a file checked alone is its top
package); the corpus folder is what the folder figures check.

Each run is a child process: wall seconds, CPU seconds (user + system of the whole process
tree, from ``wait4``), the largest single process (``ru_maxrss``) and the peak of the whole
tree's memory (the sum of each process's proportional set size, sampled from /proc every
20 ms). Ratios are CPU seconds against
TorchFix on the same folder in the same run. ``--cores 2`` pins every tool to two cores
(torchlint then uses two processes)::

    python benchmarks/static.py                      # timm and transformers, 3 repetitions
    python benchmarks/static.py --cores 2 --only timm --reps 5
    python benchmarks/static.py --torchfix-on transformers   # ~30 min of TorchFix

``--cross-check`` also runs ``--jobs 1`` and ``--jobs 2`` without the cache and compares
their findings with the cached runs' (a hash of the JSON report less timings). The end of
the output checks the project-wide bar in words: cold CPU at most 1.25x ``--no-project``,
the changed helper re-checked in under 1 s wall, the same findings with ``--jobs 1`` and
``--jobs 2`` and with and without the cache; the load average is printed beside it (the
figures are CPU seconds, which other work on a shared machine disturbs less than wall)::

    python benchmarks/static.py --only transformers --cores 2 --reps 1 --no-peers --cross-check

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
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

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
    count: int = -1  # the number of findings in a JSON report


def _children(pid: int) -> list[int]:
    out: list[int] = []
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
        data = out.read()
        findings = findings_hash(data)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Run(
        wall,
        usage.ru_utime + usage.ru_stime,
        usage.ru_maxrss * 1024,
        peak[0],
        proc.returncode,
        digest.hexdigest(),
        findings,
        _count(data),
    )


def _count(output: bytes) -> int:
    try:
        return len(json.loads(output)["findings"])
    except (ValueError, KeyError, TypeError):
        return -1


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
    runs: list[Run] = field(default_factory=list)

    def median(self, attr: str) -> float:
        return statistics.median(getattr(r, attr) for r in self.runs)


# -- setting up --------------------------------------------------------------------------
def pip(python: str, *args: str) -> None:
    subprocess.run([python, "-m", "pip", "--disable-pip-version-check", "-q", *args], check=True)


def fetch_corpora(work: Path, wheels: Path | None, only: Sequence[str]) -> dict[str, Path]:
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
        # the whole package: it is the project of a file checked alone (its top package)
        prefix = CORPORA[name].split("/")[0] + "/"
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(src, [m for m in zf.namelist() if m.startswith(prefix)])
        out[name] = src / CORPORA[name]
    return out


def make_peers(work: Path, wheels: Path | None) -> Path:
    venv = work / "peers"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    where = ["--no-index", "--find-links", str(wheels)] if wheels else []
    pip(str(venv / "bin" / "python"), "install", *where, *(f"{n}=={v}" for n, v in PEERS.items()))
    return venv / "bin"


def count(folder: Path):
    files = sorted(folder.rglob("*.py"))
    return len(files), sum(p.read_bytes().count(b"\n") for p in files)


# -- the runs ----------------------------------------------------------------------------
def snapshot(work: Path) -> dict[str, str]:
    """The environment to run a copy of torchlint taken now: edits to the working tree
    during the benchmark (which would rightly invalidate the cache) do not reach it."""
    from importlib import resources

    import torchlint

    package = work / "snapshot" / "torchlint"
    shutil.copytree(
        Path(torchlint.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True
    )
    # the rule pages hold the rules' words (docs/rules in a checkout)
    shutil.copytree(
        str(resources.files("torchlint.rule_pages")),
        package / "rule_pages",
        ignore=shutil.ignore_patterns("__pycache__"),
        dirs_exist_ok=True,
    )
    # compiled to bytecode as an installed wheel is (pip compiles on install): a copy without
    # it would pay for compiling every module on each run (PYTHONDONTWRITEBYTECODE keeps it so)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)
    path = os.pathsep.join(p for p in (str(work / "snapshot"), os.environ.get("PYTHONPATH")) if p)
    return dict(os.environ, PYTHONPATH=path)


def export(rev: str, work: Path) -> dict[str, str]:
    """The environment to run torchlint as it was at commit ``rev`` (its ``torchlint/``, and
    its ``docs/rules/`` as ``torchlint/rule_pages``, exported with ``git archive``, first on
    ``PYTHONPATH``; nothing is installed)."""
    repo = Path(__file__).resolve().parents[1]
    folder = work / f"old-{rev}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", rev, "torchlint"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    pages = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", "--prefix=torchlint/rule_pages/", f"{rev}:docs/rules"],
        capture_output=True,
    )
    if pages.returncode == 0:  # where REV keeps its rule pages in docs/rules (they hold the rules' words)
        subprocess.run(["tar", "-x", "-C", str(folder)], input=pages.stdout, check=True)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder / "torchlint")], check=True)
    path = os.pathsep.join(p for p in (str(folder), os.environ.get("PYTHONPATH")) if p)
    return dict(os.environ, PYTHONPATH=path)


def torchlint_cmd(target: Path, cache: Path, extra=()) -> list[str]:
    return [
        sys.executable,
        "-m",
        "torchlint",
        "check",
        str(target),
        "--no-dynamic",
        "--format",
        "json",
        "--exit-zero",
        "--cache-dir",
        str(cache),
        *extra,
    ]


def bench_torchlint(
    name: str,
    target: Path,
    work: Path,
    reps: int,
    rows: list[Row],
    log,
    env,
    cross_check: bool,
    against: Row | None = None,
    old_env=None,
) -> None:
    cwd = str(target.parents[1])
    cold, warm, changed = (
        Row("torchlint cold", name),
        Row("torchlint warm", name),
        Row("torchlint 1 changed file", name),
    )
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
    helper_row = Row("torchlint 1 changed helper", name)
    widened_row = Row("torchlint 1 changed helper, new function", name)
    helper = pick_helper(target, cwd, env)
    if helper is None:
        log("  no function of one file is reached from regions in other files: no helper figure")
    else:
        rel, qualname, users = helper
        log(f"  helper: {qualname} in {rel}, reached from regions in {users} other files")
        edited = target.parents[1] / rel
        original = edited.read_bytes()
        try:
            # the probe inside the helper's body, then the same with a new function beside it:
            # the file's summary changes, so the whole project is analysed again
            for row, edit in ((helper_row, probe_edit), (widened_row, widening_edit)):
                for rep in range(reps):
                    measure(torchlint_cmd(target, cache), cwd, env)  # warm again (the last edit undone)
                    edited.write_bytes(edit(original, qualname, rep))
                    run = measure(torchlint_cmd(target, cache), cwd, env)
                    row.runs.append(run)
                    edited.write_bytes(original)
                    more = run.count - cold.runs[0].count
                    log(
                        f"  {row.tool} #{rep + 1}: {run.wall:6.2f} s wall, {run.cpu:6.2f} s CPU "
                        f"({more:+d} finding{'s' if abs(more) != 1 else ''}: the edit adds one)"
                    )
                    if more != 1:
                        raise SystemExit(f"{name}: the helper edit should add exactly one finding, it added {more}")
        finally:
            edited.write_bytes(original)
    checks: dict[str, str] = {"cold": cold.runs[0].findings, "warm": warm.runs[0].findings}
    if cross_check:
        for extra in (["--no-cache", "--jobs", "1"], ["--no-cache", "--jobs", "2"], ["--jobs", "1"], ["--jobs", "2"]):
            check = measure(torchlint_cmd(target, cache, extra), cwd, env)
            checks[" ".join(extra)] = check.findings
            same = check.findings == cold.runs[0].findings
            log(
                f"  torchlint {' '.join(extra)}: {'same' if same else 'DIFFERENT'} findings "
                f"({check.wall:.2f} s wall, {check.cpu:.2f} s CPU)"
            )
    rows += ([against] if against is not None else []) + [cold, per_file, warm, changed]
    rows += [helper_row, widened_row] if helper_row.runs else []
    BAR[name] = {
        "cold": cold,
        "per_file": per_file,
        "helper": helper_row if helper_row.runs else None,
        "widened": widened_row if widened_row.runs else None,
        "checks": checks if cross_check else None,
        "helper_file": helper,
    }


#: corpus -> what the project-wide bar reads (filled by bench_torchlint)
BAR: dict[str, dict] = {}
#: corpus -> the one-file rows (cold, warm after an edit; filled by bench_one_file)
ONE_FILE: dict[str, tuple] = {}


def bench_one_file(name: str, target: Path, work: Path, reps: int, rows: list[Row], log, env) -> None:
    """``torchlint check <one model file>`` with an empty cache (its project, the whole
    package, is summarised and analysed: the regions are decided over all of it), then warm
    after a comment is added to that file (the pre-commit hook's run on a one-file change)."""
    cwd = str(target.parents[1])
    rel = EDITED[name]
    edited = target.parents[1] / rel
    cold, warm = Row("torchlint 1 file cold", name), Row("torchlint 1 file edited, warm", name)
    original = edited.read_bytes()
    try:
        for rep in range(reps):
            cache = work / f"cache-one-{name}-{rep}"
            shutil.rmtree(cache, ignore_errors=True)
            run = measure(torchlint_cmd(Path(rel), cache), cwd, env)
            cold.runs.append(run)
            log(
                f"  torchlint {rel} cold #{rep + 1}: {run.wall:6.2f} s wall, {run.cpu:6.2f} s CPU "
                f"({run.count} findings)"
            )
            edited.write_bytes(original + f"\n# benchmark edit {rep} {time.time()}\n".encode())
            run = measure(torchlint_cmd(Path(rel), cache), cwd, env)
            warm.runs.append(run)
            log(f"  torchlint {rel} edited, warm #{rep + 1}: {run.wall:6.2f} s wall, {run.cpu:6.2f} s CPU")
            edited.write_bytes(original)
            shutil.rmtree(cache, ignore_errors=True)
    finally:
        edited.write_bytes(original)
    rows += [cold, warm]
    ONE_FILE[name] = (rel, cold, warm)


def one_file_lines(rows: list[Row]) -> list[str]:
    """The speed bar against ruff, measured in the same run: one file cold at most 1.5x ruff's
    wall time on the corpus folder, warm after an edit under half a second; the whole folder
    cold beside ruff (no slower than 5.0x ruff's wall time, aim 4x). CPU seconds beside wall."""
    lines = []
    for name in sorted(set(ONE_FILE) | set(BAR)):
        ruff = [r for r in rows if r.corpus == name and r.tool.startswith("ruff") and r.runs]
        base = ruff[0] if ruff else None
        against = (
            f"ruff's {base.median('wall'):.2f} s wall, {base.median('cpu'):.2f} s CPU on {CORPORA[name]}"
            if base is not None
            else "no ruff run to compare"
        )

        def ratio(row: Row, base: Row | None = base) -> float:
            return row.median("wall") / max(base.median("wall"), 1e-9) if base is not None else float("nan")

        def figures(row: Row) -> str:
            return f"{row.median('wall'):.2f} s wall, {row.median('cpu'):.2f} s CPU"

        if name in ONE_FILE:
            rel, cold, warm = ONE_FILE[name]
            verdict = "----" if base is None else "PASS" if ratio(cold) <= 1.5 else "FAIL"
            lines.append(f"{verdict} {rel} alone, cold: {figures(cold)} = {ratio(cold):.2f}x {against} (bar 1.5x)")
            wall = warm.median("wall")
            lines.append(
                f"{'PASS' if wall < 0.5 else 'FAIL'} {rel} alone, edited, warm: {figures(warm)} "
                f"= {ratio(warm):.3f}x ruff's wall (bar 0.5 s)"
            )
        if name in BAR:
            cold = BAR[name]["cold"]
            verdict = "----" if base is None else "PASS" if ratio(cold) <= 5.0 else "FAIL"
            lines.append(
                f"{verdict} {CORPORA[name]} whole folder, cold: {figures(cold)} = {ratio(cold):.2f}x {against} "
                f"(bar 5.0x, aim 4x)"
            )
            for old in (r for r in rows if r.corpus == name and r.tool.startswith("torchlint cold (") and r.runs):
                lines.append(
                    f"     the same at {old.tool[len('torchlint cold (') : -1]}, in this run: {figures(old)} "
                    f"= {ratio(old):.2f}x ruff's wall"
                )
    return lines


_PICK = """
import json, os, sys
from collections import Counter
from torchlint.config import Settings
from torchlint.files import discover, read_source
from torchlint.static.static_pass import project_facts
files, _ = discover([sys.argv[1]], Settings().exclude, os.getcwd())
facts, _ = project_facts(files, [read_source(f) for f in files], Settings())
users, by_file = {}, {}
for f, fact in zip(files, facts):
    for qualname, root in (fact or {}).get("reached", {}).items():
        if " in " in root:
            users.setdefault((f, qualname), set()).add(root.split(" in ", 1)[1])
            by_file.setdefault(f, set()).add(root)
# the file the most regions of other files reach, and in it the function the most files reach
best = max(sorted(by_file), key=lambda f: len(by_file[f]), default=None)
pick = max(sorted(k for k in users if k[0] == best), key=lambda k: len(users[k]), default=None)
print(json.dumps(None if pick is None
                 else [pick[0], pick[1], len({u for k in users if k[0] == best for u in users[k]})]))
"""


def pick_helper(target: Path, cwd: str, env) -> tuple | None:
    """(path from ``cwd``, qualname, how many other files reach the file) of a helper: the file
    whose functions the most regions of other files reach, and in it the function reached
    from the most files, by torchlint's own analysis (in a child process)."""
    out = subprocess.run(
        [sys.executable, "-c", _PICK, str(target.relative_to(cwd))],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    found = json.loads(out)
    return tuple(found) if found else None


def probe_edit(original: bytes, qualname: str, rep: int) -> bytes:
    """``original`` with ``_probe = <first parameter>.item()`` before the last statement of
    function ``qualname``: a host sync in a region reached from other files (one more finding)."""
    import ast

    text = original.decode("utf-8")
    node: ast.AST = ast.parse(text)
    for part in qualname.split("."):
        node = next(
            n
            for n in ast.iter_child_nodes(node)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == part
        )
    params = [a.arg for a in node.args.posonlyargs + node.args.args if a.arg not in ("self", "cls")]  # type: ignore[attr-defined]
    last = node.body[-1]  # type: ignore[attr-defined]
    lines = text.splitlines(keepends=True)
    indent = lines[last.lineno - 1][: last.col_offset]
    value = params[0] if params else "torch.ones(1)"
    lines.insert(last.lineno - 1, f"{indent}_probe_{rep} = {value}.item()\n")
    return "".join(lines).encode("utf-8")


def widening_edit(original: bytes, qualname: str, rep: int) -> bytes:
    """:func:`probe_edit`, and a new module-level function at the end of the file: what the
    file offers other files (its summary) changes, so the project is analysed again."""
    text = probe_edit(original, qualname, rep).decode("utf-8")
    return (text.rstrip("\n") + f"\n\n\ndef _probe_helper_{rep}(x):\n    return x\n").encode("utf-8")


def bar_lines(names: Sequence[str]) -> list[str]:
    """The project-wide bar in words, one line per point, with the figures."""
    lines = []
    for name in names:
        entry = BAR.get(name)
        if entry is None:
            continue
        cold, per_file, helper, checks = entry["cold"], entry["per_file"], entry["helper"], entry["checks"]
        ratio = cold.median("cpu") / max(per_file.median("cpu"), 1e-9)
        lines.append(
            f"{'PASS' if ratio <= 1.25 else 'FAIL'} {CORPORA[name]} cold CPU, project-wide / per-file: "
            f"{cold.median('cpu'):.2f} s / {per_file.median('cpu'):.2f} s = {ratio:.3f}x (bar 1.25x); "
            f"wall {cold.median('wall'):.2f} s / {per_file.median('wall'):.2f} s"
        )
        if helper is not None:
            rel, qualname, users = entry["helper_file"]
            wall = helper.median("wall")
            lines.append(
                f"{'PASS' if wall < 1.0 else 'FAIL'} {CORPORA[name]} one changed helper ({qualname} in {rel}, "
                f"reached from {users} files) re-checked warm: {wall:.2f} s wall, {helper.median('cpu'):.2f} s CPU "
                f"(bar 1 s)"
            )
            widened = entry.get("widened")
            if widened is not None:
                wall = widened.median("wall")
                lines.append(
                    f"{'PASS' if wall < 1.0 else 'FAIL'} {CORPORA[name]} the same edit with a new function "
                    f"beside it (the file's summary changes: the files that read it are analysed again) "
                    f"re-checked warm: {wall:.2f} s wall, {widened.median('cpu'):.2f} s CPU (bar 1 s)"
                )
        else:
            lines.append(f"---- {CORPORA[name]}: no helper reached from other files, no helper figure")
        if checks is not None:
            same = len(set(checks.values())) == 1
            lines.append(
                f"{'PASS' if same else 'FAIL'} {CORPORA[name]} findings with --jobs 1 / --jobs 2, with and "
                f"without the cache, cold and warm: {'one' if same else 'DIFFERENT'} hash of the JSON less timings "
                + ", ".join(f"{k} {v[:12]}" for k, v in checks.items())
            )
        else:
            lines.append(f"---- {CORPORA[name]}: --jobs / cache cross-check not run (--cross-check)")
    return lines


def compare(rows: list[Row], rev: str, per_file: bool = False) -> list[str]:
    """Lines comparing each corpus's cold runs of the current tree (its ``--no-project`` ones
    with ``per_file``) with those of ``rev``; a line starting ``DIFFERENT`` when their findings differ."""
    lines = []
    mine = "torchlint cold, --no-project" if per_file else "torchlint cold"
    for old in (r for r in rows if r.tool.startswith("torchlint cold (")):
        new = next(r for r in rows if r.tool == mine and r.corpus == old.corpus)
        ratio = new.median("cpu") / old.median("cpu")
        same = {r.findings for r in old.runs} == {r.findings for r in new.runs} and len(
            {r.findings for r in new.runs}
        ) == 1
        lines.append(
            f"{CORPORA[old.corpus]}: {mine} CPU {new.median('cpu'):.2f} s vs {old.median('cpu'):.2f} s at {rev} "
            f"= {ratio:.3f} ({(1 - ratio) * 100:.1f}% less CPU); wall {new.median('wall'):.2f} s vs "
            f"{old.median('wall'):.2f} s"
        )
        lines.append(
            f"{'  same findings' if same else 'DIFFERENT findings'}: json without timings sha256 "
            f"{new.runs[0].findings[:16]} (new) {old.runs[0].findings[:16]} ({rev})"
        )
    return lines


def bench_peer(tool: str, cmd: list[str], name: str, target: Path, reps: int, rows, log) -> None:
    row = Row(tool, name)
    for rep in range(reps):
        run = measure(cmd, str(target.parents[1]))
        row.runs.append(run)
        log(f"  {tool:16s} #{rep + 1}: {run.wall:6.2f} s wall, {run.cpu:6.2f} s CPU")
    rows.append(row)


def table(rows: list[Row], sizes) -> str:
    lines = [
        "| tool | folder | files | lines | wall s | CPU s | lines/CPU-s | largest process MB "
        "| process tree MB (PSS) | CPU vs TorchFix |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    torchfix = {r.corpus: r.median("cpu") for r in rows if r.tool == "TorchFix"}
    for r in rows:
        files, nlines = sizes[r.corpus]
        cpu = r.median("cpu")
        ratio = f"{torchfix[r.corpus] / cpu:.1f}x faster" if r.corpus in torchfix and r.tool != "TorchFix" else ""
        lines.append(
            f"| {r.tool} | {CORPORA[r.corpus]} | {files} | {nlines:,} | {r.median('wall'):.2f} | "
            f"{cpu:.2f} | {nlines / max(cpu, 1e-9):,.0f} | {r.median('max_rss') / MB:.0f} | "
            f"{r.median('tree_rss') / MB:.0f} | {ratio} |"
        )
    return "\n".join(lines)


def _load() -> str:
    return ", ".join(f"{v:.2f}" for v in os.getloadavg())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", choices=sorted(CORPORA), action="append", help="Only this corpus (repeatable).")
    ap.add_argument("--reps", type=int, default=3, help="Repetitions of each torchlint and ruff figure (median).")
    ap.add_argument("--torchfix-reps", type=int, default=3, help="Repetitions of TorchFix (slow).")
    ap.add_argument(
        "--torchfix-on",
        choices=sorted(CORPORA),
        action="append",
        help="Corpora to run TorchFix on (default: timm; on transformers it takes ~30 min).",
    )
    ap.add_argument("--cores", type=int, help="Pin every tool to this many cores.")
    ap.add_argument("--no-peers", action="store_true", help="Skip TorchFix and ruff.")
    ap.add_argument(
        "--cross-check",
        action="store_true",
        help="Also check that --jobs 1 and --jobs 2 without the cache find exactly the same.",
    )
    ap.add_argument(
        "--one-file",
        action="store_true",
        help="Only the one-file figures (cold, warm after an edit) and ruff's, not the whole folders.",
    )
    ap.add_argument("--wheels", type=Path, help="Read wheels from this folder instead of the index.")
    ap.add_argument("--workdir", type=Path, help="Work here (kept) instead of a temporary folder.")
    ap.add_argument(
        "--against",
        metavar="REV",
        help="Also run torchlint as of commit REV (git archive, same venv), cold, and compare.",
    )
    ap.add_argument(
        "--against-per-file",
        action="store_true",
        help="With --against: compare with this tree's --no-project cold runs (for a REV from "
        "before the project-wide analysis was the default).",
    )
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
        rows: list[Row] = []
        for name, target in corpora.items():
            log(f"{CORPORA[name]}: {sizes[name][0]} files, {sizes[name][1]:,} lines; load average {_load()}")
            against = Row(f"torchlint cold ({args.against})", name) if args.against else None
            bench_one_file(name, target, work, args.reps, rows, log, env)
            if not args.one_file:
                bench_torchlint(name, target, work, args.reps, rows, log, env, args.cross_check, against, old_env)
            if peers is not None:
                if name in (args.torchfix_on or ["timm"]) and not args.one_file:
                    bench_peer(
                        "TorchFix", [str(peers / "torchfix"), str(target)], name, target, args.torchfix_reps, rows, log
                    )
                bench_peer(
                    "ruff --select ALL",
                    [
                        str(peers / "ruff"),
                        "check",
                        "--select",
                        "ALL",
                        "--no-cache",
                        "--exit-zero",
                        "--quiet",
                        str(target),
                    ],
                    name,
                    target,
                    args.reps,
                    rows,
                    log,
                )
        cpus = len(cores) if cores else len(os.sched_getaffinity(0))
        print(
            f"\ntorchlint static pass, {cpus} cores, median of {args.reps} "
            f"(TorchFix {args.torchfix_reps}); timm {PINS['timm']}, transformers {PINS['transformers']}, "
            f"TorchFix {PEERS['torchfix']}, ruff {PEERS['ruff']}, Python {sys.version.split()[0]}\n"
        )
        print(table(rows, sizes))
        print(f"\nload average (1, 5, 15 min) at the end: {_load()} on {os.cpu_count()} CPUs of the machine")
        lines = one_file_lines(rows)
        if lines:
            print("\nbeside ruff, in this run (one file alone; the whole folder):\n" + "\n".join(lines))
        lines = bar_lines([name for name in corpora if name in BAR])
        if lines:
            print("\nproject-wide bar:\n" + "\n".join(lines))
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
