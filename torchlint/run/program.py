"""``torchlint run``: run the user's own program and report what dynamo did to it (parent side).

The program runs unchanged in a child process: its argv, environment (plus
``PYTHONPATH`` for the bootstrap and ``TORCHLINT_WATCH_DIR``), working directory and stdin
are its own; stdout and stderr pass through to ours while the last bytes are kept to explain
a failure. The observer (:mod:`torchlint.run.observer`, installed at interpreter start in
every Python process the program starts) writes JSON lines per process; this module reads
them back, merges processes (torchrun ranks, pytest-xdist workers) and turns them into the
dynamic half of a :class:`~torchlint.findings.Report`:

* one finding per distinct graph break: placed on the innermost frame in the user's project;
  when the breaking line itself is in an installed library (or torch), the message names it
  too: "at transformers/models/xlm/modeling_xlm.py:793, reached from train.py:17";
* one finding per frame that hit dynamo's recompile limit (it runs eagerly from then on);
* on a GPU, the CUDA-graph warnings of ``check --mode reduce-overhead`` per compiled frame:
  skips, splits (a graph cut around host work) and re-recordings;
* the recompilations, with the failed guard in words, compile time per frame and the
  compile caches' hits and misses, on the run's :class:`~torchlint.findings.TargetResult`.

Imports no torch.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from torchlint.dynamic import costs
from torchlint.dynamic.records import Findings, Places, SourceLines, group_recompiles
from torchlint.findings import CUDAGRAPH_RERECORD, FileError, Finding, Recompile, TargetResult

#: names the records folder to the observer (the same name as ``torchlint.run.observer.ENV_DIR``;
#: the parent side does not import the child side)
ENV_DIR = "TORCHLINT_WATCH_DIR"
BOOTSTRAP_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bootstrap")
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TAIL_BYTES = 64 * 1024
TAIL_LINES = 20

Frame = tuple[str, int]


# --------------------------------------------------------------------------- the command


def command_of(args: Sequence[str]) -> list[str]:
    """The argv to run: ``script.py ARGS`` and ``-m mod ARGS`` / ``-c CODE`` run under this
    interpreter; anything else (``python train.py``, ``torchrun ...``, ``pytest``) as given."""
    args = list(args)
    if not args:
        raise ValueError("no program to run: give `torchlint run script.py`, `-m module` or `-- COMMAND`")
    if args[0] in ("-m", "-c") or args[0].endswith((".py", ".pyw")):
        return [sys.executable] + args
    return args


def display_command(command: Sequence[str]) -> str:
    shown = list(command)
    if shown and shown[0] == sys.executable:
        shown[0] = "python"
    return " ".join(shlex.quote(a) for a in shown)


@dataclass
class ProgramRun:
    """How the program ended, and what it printed last."""

    command: list[str]
    returncode: int | None = None
    timed_out: bool = False
    seconds: float = 0.0
    tail: str = ""
    start_error: str | None = None

    @property
    def failed(self) -> bool:
        return self.start_error is not None or self.timed_out or self.returncode != 0

    def describe(self) -> str:
        """One line: how the program failed ("" when it did not)."""
        if self.start_error:
            return self.start_error
        if self.timed_out:
            how = f"did not finish within --timeout {self.seconds:.0f} s and was stopped"
        elif self.returncode is not None and self.returncode < 0:
            try:
                name = signal.Signals(-self.returncode).name
            except ValueError:
                name = f"signal {-self.returncode}"
            what = {
                "SIGSEGV": " (segmentation fault)",
                "SIGKILL": " (out of memory?)",
                "SIGABRT": " (aborted)",
                "SIGBUS": " (bus error)",
            }.get(name, "")
            how = f"was killed by {name}{what} after {self.seconds:.1f} s"
        elif self.returncode:
            how = f"exited with status {self.returncode} after {self.seconds:.1f} s"
        else:
            return ""
        last = [line.strip() for line in self.tail.splitlines() if line.strip()]
        return f"the program {how}" + (f"; its last output: {last[-1][:200]}" if last else "; it printed nothing")

    def tail_lines(self, limit: int = TAIL_LINES) -> list[str]:
        return [line.rstrip() for line in self.tail.splitlines()[-limit:]]


class _Tee:
    """Copies a pipe to one of our streams as it comes, keeping the last bytes."""

    def __init__(self, fd: int, stream: Any, tail: bytearray, lock: threading.Lock) -> None:
        self.fd, self.stream, self.tail, self.lock = fd, stream, tail, lock
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        out = getattr(self.stream, "buffer", None)
        while True:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except OSError:
                break
            if not chunk:
                break
            try:
                if out is not None:
                    out.write(chunk)
                    out.flush()
                else:
                    self.stream.write(chunk.decode("utf-8", "replace"))
                    self.stream.flush()
            except (OSError, ValueError):
                pass
            with self.lock:
                self.tail += chunk
                if len(self.tail) > 2 * TAIL_BYTES:
                    del self.tail[:-TAIL_BYTES]
        os.close(self.fd)


def _descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (read from /proc; empty where there is none)."""
    children: dict[int, list[int]] = defaultdict(list)
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read().decode("ascii", "replace")
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children[ppid].append(int(name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _kill_tree(proc: subprocess.Popen[bytes]) -> None:
    for pid in [proc.pid] + _descendants(proc.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def watch_env(records_dir: str, base: dict[str, str] | None = None) -> dict[str, str]:
    """The program's environment: its own, with the bootstrap first on PYTHONPATH."""
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (BOOTSTRAP_DIR, _PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
    env[ENV_DIR] = records_dir
    env.setdefault("PYTHONUNBUFFERED", "1")  # a crash must not swallow what it printed last
    return env


def run_program(
    command: Sequence[str], records_dir: str, *, cwd: str | None = None, timeout: float | None = None
) -> ProgramRun:
    """Run ``command`` with the observer installed; stdin is the program's, stdout and stderr
    go through to ours. On ``timeout`` (seconds) the program and every process it started
    are killed. Never raises for the program's own failure."""
    run = ProgramRun(command=list(command))
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    started = time.monotonic()
    try:
        proc = subprocess.Popen(list(command), cwd=cwd, env=watch_env(records_dir), stdout=out_w, stderr=err_w)
    except OSError as e:
        for fd in (out_r, err_r):
            os.close(fd)
        run.start_error = f"cannot start `{command[0]}`: {e.strerror or e}"
        return run
    finally:
        os.close(out_w)
        os.close(err_w)
    tail, lock = bytearray(), threading.Lock()
    tees = [_Tee(out_r, sys.stdout, tail, lock), _Tee(err_r, sys.stderr, tail, lock)]
    # Ctrl-C reaches the program (same process group); we wait for it to finish and report.
    previous = (
        signal.signal(signal.SIGINT, signal.SIG_IGN) if threading.current_thread() is threading.main_thread() else None
    )
    try:
        try:
            run.returncode = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            run.timed_out = True
            _kill_tree(proc)
            run.returncode = proc.wait()
        for pid in _descendants(proc.pid):  # orphans left holding our pipes
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    for tee in tees:
        tee.thread.join(5)
    run.seconds = time.monotonic() - started if not run.timed_out else float(timeout or 0)
    with lock:
        run.tail = bytes(tail[-TAIL_BYTES:]).decode("utf-8", "replace")
    return run


# --------------------------------------------------------------------------- records


@dataclass
class ProcessRecords:
    """What one process of the program recorded."""

    header: dict[str, Any]
    records: list[dict[str, Any]] = field(default_factory=list)

    @property
    def rank(self) -> int | None:
        return self.header.get("rank") if (self.header.get("world_size") or 0) > 1 else None

    @property
    def label(self) -> str:
        if self.rank is not None:
            return f"rank {self.rank}"
        if self.header.get("xdist_worker"):
            return f"worker {self.header['xdist_worker']}"
        return f"pid {self.header.get('pid')}"


def read_records(directory: str) -> list[ProcessRecords]:
    """Every process's records; a line cut short by a crash is skipped."""
    out: list[ProcessRecords] = []
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".jsonl"))
    except OSError:
        return out
    for name in names:
        header: dict[str, Any] | None = None
        records: list[dict[str, Any]] = []
        try:
            with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    try:
                        record = json.loads(line)
                    except ValueError:
                        continue
                    if not isinstance(record, dict):
                        continue
                    if record.get("kind") == "process":
                        header = header or record
                    else:
                        records.append(record)
        except OSError:
            continue
        if header is not None and records:
            out.append(ProcessRecords(header, records))
    out.sort(key=lambda p: (p.rank if p.rank is not None else -1, p.header.get("time") or 0))
    return out


# --------------------------------------------------------------------------- results


@dataclass
class _Break:
    site: Frame
    library: Frame | None
    loc: Frame
    record: dict[str, Any]
    hits: int = 0
    processes: set[str] = field(default_factory=set)
    ranks: set[int] = field(default_factory=set)


def observed(
    processes: Sequence[ProcessRecords],
    places: Places,
    *,
    name: str,
    run: ProgramRun | None,
    cache_gone: bool | None = None,
) -> tuple[TargetResult, list[Finding], list[FileError]]:
    """The run's result line, its findings and errors, from every process's records."""
    from torchlint.dynamic.recompiles import parse_recompile_message

    result = TargetResult(target=name, seconds=run.seconds if run else 0.0)
    errors: list[FileError] = []
    if run is not None and run.failed:
        result.error = run.describe()
        errors.append(FileError(path=name, message=result.error))
    world = max((p.header.get("world_size") or 1 for p in processes), default=1)
    ranks_seen = {p.rank for p in processes if p.rank is not None}
    breaks: dict[tuple[Any, ...], _Break] = {}
    full_frames: dict[Frame, list[Frame]] = {}
    findings: list[Finding] = []
    unplaced = 0
    limits: dict[tuple[str, int], dict[str, Any]] = {}
    frames_compiled: dict[tuple[str, str, int], dict[str, Any]] = {}
    cache: Counter[str] = Counter()
    cache_dirs: dict[str, dict[str, Any]] = {}
    cudagraph: list[tuple[ProcessRecords, dict[str, Any]]] = []
    recompiles: list[dict[str, Any]] = []
    for proc in processes:
        for r in proc.records:
            kind = r.get("kind")
            if kind == "break":
                frames = [(f, int(n)) for f, n in r.get("frames") or []]
                loc = tuple(r["loc"]) if r.get("loc") else (frames[-1] if frames else None)
                if loc is None:
                    unplaced += 1
                    continue
                loc = (loc[0], int(loc[1]))
                if frames:
                    full_frames.setdefault(loc, frames)
                else:  # a repeat: dynamo printed the stack the first time only
                    frames = full_frames.get(loc) or [(f, int(n)) for f, n in r.get("stack") or []] + [loc]
                site, library = places.place(frames)
                if site is None:
                    unplaced += 1
                    continue
                key = (site, library, r.get("gb_type") or r.get("reason"))
                entry = breaks.get(key)
                if entry is None:
                    entry = breaks[key] = _Break(site, library, loc, r)
                entry.hits += 1
                entry.processes.add(proc.label)
                if proc.rank is not None:
                    entry.ranks.add(proc.rank)
            elif kind == "recompile":
                for event in parse_recompile_message(r.get("message") or ""):
                    recompiles.append(event.to_dict())
                    frames = [(f, int(n)) for f, n in r.get("stack") or []]
                    if event.path and event.line:
                        frames.append((event.path, event.line))
                    site, library = places.place(frames)
                    words = event.words + (f"; fix: {event.fix}" if event.fix else "")
                    where = _where(places, event.path, event.line, site) if library is not None else ""
                    prefix = f"`{event.function}`" + (f" ({where})" if where else "")
                    result.recompile_reasons.append(
                        Recompile(
                            target=name,
                            reason=f"{prefix}: {words}",
                            path=places.show(site[0]) if site else None,
                            line=site[1] if site else None,
                        )
                    )
            elif kind == "limit":
                _add_limit(limits, r, places)
            elif kind == "compile":
                _add_compile(frames_compiled, r, cache)
            elif kind == "autotune":
                cache["autotune.hit" if r.get("hit") else "autotune.miss"] += 1
            elif kind == "cache_dir" and r.get("path"):
                cache_dirs.setdefault(r["path"], r)
            elif kind == "cudagraph":
                cudagraph.append((proc, r))
    result.recompiles = len(result.recompile_reasons)
    # one count with `check`: the distinct sites in the project (file, line), and every hit
    result.graph_breaks = len({entry.site for entry in breaks.values()})
    result.graph_break_hits = sum(entry.hits for entry in breaks.values())
    result.graphs = sum(f["graphs"] for f in frames_compiled.values())
    # it trains: autograd ran backward, or a backward graph was compiled
    result.run_mode = (
        "training"
        if any(
            r.get("kind") == "backward" or (r.get("kind") == "compile" and r.get("is_forward") is False)
            for p in processes
            for r in p.records
        )
        else "eval"
    )
    result.compile_mode = "reduce-overhead" if cudagraph else None
    result.recompile_causes = group_recompiles(recompiles, places.show, mode=result.compile_mode)
    build = Findings(name, places.show, SourceLines())  # read afresh for each report: files change between runs
    timed = costs.frame_costs(r for p in processes for r in p.records)
    stacks = []
    for entry in sorted(breaks.values(), key=lambda b: (b.site, b.library or ("", 0))):
        findings.append(_break_finding(build, entry, world, ranks_seen))
        stack = full_frames.get(entry.loc) or [entry.site]
        stacks.append((findings[-1], stack if stack[-1] == entry.loc else [*stack, entry.loc]))
    frame_figures = costs.apply(timed, stacks, show=places.show)
    for limit in limits.values():
        findings.append(build.recompile_limit(limit["site"], limit, limit["hits"]))
        costs.apply_to_limit(findings[-1], limit.get("function"), limit.get("path"), timed, frames_compiled)
    skips, more = _cudagraph_findings(cudagraph, places, build)
    for finding in more:
        if finding.name == CUDAGRAPH_RERECORD:
            costs.apply_to_rerecord(finding, None, timed)
    findings.extend(more)
    if skips is not None:
        result.cudagraph_skips = skips
    result.details = _details(frames_compiled, cache, cache_dirs, places, processes, unplaced, cache_gone)
    if run is not None and run.failed and run.tail.strip():
        result.details.append("last lines of its output:")
        result.details.extend(f"| {line}" for line in run.tail_lines())
    for f in findings:  # the mode it was seen in: a static finding of that mode alone matches it
        f.seen_in(("train",) if result.run_mode == "training" else ("eval",))
    result.program = {
        "command": run.command if run else None,
        "exit_code": run.returncode if run else None,
        "timed_out": run.timed_out if run else False,
        "processes": [
            {
                "pid": p.header.get("pid"),
                "rank": p.rank,
                "xdist_worker": p.header.get("xdist_worker"),
                "records": len(p.records),
            }
            for p in processes
        ],
        "frames": sorted(frames_compiled.values(), key=lambda f: -f["seconds"]),
        "cache": dict(cache),
        "cache_dirs": list(cache_dirs.values()),
        "output_tail": run.tail_lines() if run is not None and run.failed else [],
    }
    result.costs = frame_figures
    result.details.extend(costs.frame_words(frame_figures))
    return result, findings, errors


def _where(places: Places, path: str | None, line: int | None, site: Frame | None) -> str:
    """``path:line`` of a frame, with ``reached from SITE`` when the frame is a library's."""
    if not path or not line:
        return f"{places.show(site[0])}:{site[1]}" if site else ""
    text = f"{places.show(path)}:{line}"
    if site is not None and (os.path.realpath(site[0]), site[1]) != (os.path.realpath(path), line):
        text += f", reached from {places.show(site[0])}:{site[1]}"
    return text


def _break_finding(build: Findings, entry: _Break, world: int, ranks_seen: set[int]) -> Finding:
    note = ""
    if world > 1 and entry.ranks and len(entry.ranks) < max(world, len(ranks_seen)):
        shown = ", ".join(str(x) for x in sorted(entry.ranks))
        note = f"; seen on rank{'s' if len(entry.ranks) != 1 else ''} {shown} only, of {world}"
    return build.graph_break(
        entry.site,
        entry.record,
        entry.hits,
        library=entry.library,
        note=note,
        ranks=sorted(entry.ranks) if world > 1 else None,
    )


def _add_limit(limits: dict[tuple[str, int], dict[str, Any]], r: dict[str, Any], places: Places) -> None:
    from torchlint.dynamic.gb_registry import load_registry
    from torchlint.dynamic.recompiles import describe_guard, parse_limit_message

    hit = parse_limit_message(r.get("message") or "")
    frames = [(f, int(n)) for f, n in r.get("stack") or []]
    if hit is not None and hit.get("path"):
        frames.append((hit["path"], int(hit["line"])))
    site, _ = places.place(frames)
    if site is None:
        return
    entry = limits.get(site)
    if entry is None:
        hit = dict(hit or {"function": "?"})
        if hit.get("path"):
            hit["where"] = _where(places, hit["path"], int(hit["line"]), site)
        hit["fix"] = describe_guard(hit["guard"])[1] if hit.get("guard") else ""
        code = load_registry().lookup("Dynamo recompile limit exceeded")
        hit["gb_code"] = code.code if code else None
        entry = limits[site] = dict(hit, site=site, hits=0)
    entry["hits"] += 1


def _add_compile(frames: dict[tuple[str, str, int], dict[str, Any]], r: dict[str, Any], cache: Counter[str]) -> None:
    key = (r.get("co_name") or "?", r.get("co_filename") or "?", int(r.get("co_firstlineno") or 0))
    if r.get("is_runtime") or not r.get("co_name"):
        return  # runtime autotuning, or a frame dynamo refused before tracing (a limit hit)
    entry = frames.setdefault(
        key,
        {"function": key[0], "path": key[1], "line": key[2], "compiles": 0, "seconds": 0.0, "graphs": 0, "failures": 0},
    )
    counters = r.get("counters") or {}
    if r.get("is_forward") is not False:
        entry["compiles"] += 1
        entry["graphs"] += int(counters.get("stats.unique_graphs", 0))
    entry["seconds"] = round(entry["seconds"] + float(r.get("seconds") or 0.0), 4)
    if r.get("fail_type"):
        entry["failures"] += 1
    for name, value in counters.items():
        if name != "stats.unique_graphs":
            cache[name] += int(value)


def _details(
    frames: dict[tuple[str, str, int], dict[str, Any]],
    cache: Counter[str],
    cache_dirs: dict[str, dict[str, Any]],
    places: Places,
    processes: Sequence[ProcessRecords],
    unplaced: int,
    cache_gone: bool | None,
) -> list[str]:
    lines: list[str] = []
    if len(processes) > 1:
        lines.append(f"merged {len(processes)} processes: " + ", ".join(p.label for p in processes))
    total = sum(f["seconds"] for f in frames.values())
    if frames:
        lines.append(f"compile time {total:.2f} s over {len(frames)} frame{'s' if len(frames) != 1 else ''}:")
        for f in sorted(frames.values(), key=lambda f: -f["seconds"])[:10]:
            failed = f", {f['failures']} failed" if f["failures"] else ""
            lines.append(
                f"  {f['seconds']:.2f} s  `{f['function']}` ({places.show(f['path'])}:{f['line']}): "
                f"{f['compiles']} compile{'s' if f['compiles'] != 1 else ''}, "
                f"{f['graphs']} graph{'s' if f['graphs'] != 1 else ''}{failed}"
            )
        if len(frames) > 10:
            lines.append(f"  ... and {len(frames) - 10} more frames (JSON: targets[].program.frames)")
    parts = []
    for label, prefix in (
        ("FX graph cache", "inductor.fxgraph_cache"),
        ("AOT autograd cache", "aot_autograd.autograd_cache"),
        ("autotune cache", "autotune"),
    ):
        hit, miss, bypass = (
            cache[f"{prefix}_hit" if prefix != "autotune" else "autotune.hit"],
            cache[f"{prefix}_miss" if prefix != "autotune" else "autotune.miss"],
            cache.get(f"{prefix}_bypass", 0),
        )
        if hit or miss or bypass:
            parts.append(
                f"{label} {hit} hit{'s' if hit != 1 else ''}, {miss} miss{'es' if miss != 1 else ''}"
                + (f", {bypass} bypassed" if bypass else "")
            )
    if parts:
        lines.append("; ".join(parts))
    for path, d in cache_dirs.items():
        lines.extend(cache_warnings(path, d, cache_gone))
    if unplaced:
        lines.append(f"{unplaced} graph break record{'s' if unplaced != 1 else ''} without a location outside torch")
    return lines


def cache_warnings(path: str, d: dict[str, Any], gone: bool | None = None) -> list[str]:
    """Warnings about inductor's cache folder: not writable, deleted when the program ended
    (a temporary folder), or in memory (tmpfs): each means the next run compiles from scratch."""
    out = []
    where = f"inductor's cache folder {path}" + (" (TORCHINDUCTOR_CACHE_DIR)" if d.get("env") else "")
    if not d.get("writable", True):
        out.append(
            f"warning: {where} is not writable: nothing compiled is cached, every run "
            "compiles from scratch; point TORCHINDUCTOR_CACHE_DIR at a writable folder"
        )
    elif gone if gone is not None else not os.path.isdir(path):
        out.append(
            f"warning: {where} no longer exists after the run: the compiled artifacts were "
            "lost, so the next run compiles from scratch; point TORCHINDUCTOR_CACHE_DIR at a "
            "folder that outlives the program"
        )
    elif _filesystem(path) in ("tmpfs", "ramfs"):
        out.append(
            f"warning: {where} is in memory ({_filesystem(path)}): lost on reboot or container "
            "restart, so each fresh start compiles from scratch; point TORCHINDUCTOR_CACHE_DIR at a "
            "folder on disk (and cache it in CI)"
        )
    if d.get("fx_graph_cache") is False:
        out.append(
            "warning: inductor's FX graph cache is off (torch._inductor.config.fx_graph_cache / "
            "TORCHINDUCTOR_FX_GRAPH_CACHE=0): every run compiles every graph from scratch"
        )
    return out


def _filesystem(path: str) -> str | None:
    """The type of the filesystem holding ``path``, from /proc/mounts (None when unknown)."""
    best, kind = "", None
    real = os.path.realpath(path)
    try:
        with open("/proc/mounts", encoding="utf-8") as handle:
            for line in handle:
                parts = line.split()
                if len(parts) >= 3 and (real == parts[1] or real.startswith(parts[1].rstrip("/") + "/")):
                    if len(parts[1]) > len(best):
                        best, kind = parts[1], parts[2]
    except OSError:
        return None
    return kind


_COMPILE_ID = re.compile(r"^(?:!\d+/)?(?P<frame>\d+)/(?P<attempt>\d+)")


def _frame_of(compile_id: str | None) -> str | None:
    """The frame part of a compile id ("0" of "0/1"): one per code object dynamo compiles."""
    m = _COMPILE_ID.match(compile_id or "")
    return m.group("frame") if m else None


def _compiled_frames(proc: ProcessRecords) -> dict[str, tuple[str, str, int]]:
    """frame id -> (function, file, first line), from the process's compile records."""
    out: dict[str, tuple[str, str, int]] = {}
    for r in proc.records:
        frame = _frame_of(r.get("compile_id")) if r.get("kind") == "compile" and r.get("co_name") else None
        if frame is not None and r.get("co_filename"):
            out.setdefault(frame, (r["co_name"], r["co_filename"], int(r.get("co_firstlineno") or 0)))
    return out


def _cudagraph_findings(
    events: Sequence[tuple[ProcessRecords, dict[str, Any]]], places: Places, build: Findings
) -> tuple[int | None, list[Finding]]:
    """CUDA-graph skips (inductor's "skipping cudagraphs due to ..."), splits (a graph cut in
    partitions around host work) and re-recordings (one compiled frame recorded again: a new
    shape, a recompilation, a failed replay check), as the warnings ``--mode reduce-overhead``
    reports, placed in the project and named after the compiled frame."""
    if not events:
        return None, []
    from torchlint.dynamic.cudagraph_text import Partitions, frames_in, parse_partitions

    frames_of = {id(proc): _compiled_frames(proc) for proc in {id(p): p for p, _ in events}.values()}

    def frame_site(proc: ProcessRecords, compile_id: str | None, stack: Sequence[Any]) -> tuple[Frame | None, str]:
        """(site, name) of a compiled frame: its ``def`` when in the project, else where the
        program called it; the name is "`fn`", with its place when that is a library's."""
        frame = frames_of[id(proc)].get(_frame_of(compile_id) or "")
        if frame is not None and places.is_project(frame[1]):
            return (frame[1], frame[2]), f"`{frame[0]}`"
        site, _ = places.place([(f, int(n)) for f, n in stack or []])
        return site, (f"`{frame[0]}` ({places.show(frame[1])}:{frame[2]})" if frame is not None else "")

    def inside(name: str) -> str:
        return f"; in {name}" if name else ""

    findings: list[Finding] = []
    skips: dict[tuple[Frame, str], dict[str, Any]] = {}
    partition_logs: dict[tuple[int, str], list[str]] = defaultdict(list)
    recordings: dict[tuple[int, str], list[dict[str, Any]]] = defaultdict(list)
    owners: dict[tuple[int, str], ProcessRecords] = {}
    reasons: dict[tuple[int, str], list[str]] = defaultdict(list)
    sizes: dict[tuple[int, str], int] = {}
    for proc, r in events:
        event = r.get("event")
        if event == "skip":
            frames = [(f, int(n)) for f, n in r.get("frames") or []]
            site, name = frame_site(proc, r.get("compile_id"), r.get("stack") or [])
            where = inside(name)
            site = places.place(frames)[0] or site
            if site is not None:
                entry = skips.setdefault(
                    (site, r.get("reason") or "an unnamed reason"),
                    {"hits": 0, "where": where, "message": r.get("message")},
                )
                entry["hits"] += 1
        elif event == "partition_log":
            partition_logs[(id(proc), r.get("compile_id") or "?")].append(r.get("message") or "")
            owners[(id(proc), r.get("compile_id") or "?")] = proc
        elif event in ("record", "rerecord_reason", "sizes"):
            frame = _frame_of(r.get("compile_id"))
            key = (id(proc), f"frame {frame}" if frame is not None else f"function {r.get('function')}")
            owners[key] = proc
            if event == "record":
                recordings[key].append(r)
            elif event == "rerecord_reason" and r.get("reason") and r["reason"] not in reasons[key]:
                reasons[key].append(r["reason"])
            elif event == "sizes":
                sizes[key] = max(sizes.get(key, 0), int(r.get("sizes") or 0))
    for (site, reason), entry in sorted(skips.items()):
        findings.append(
            build.cudagraph_skip(site, reason, where=entry["where"], message=entry["message"], hits=entry["hits"])
        )
    splits: dict[Frame, dict[str, Any]] = {}
    for key, messages in partition_logs.items():
        blocks: list[list[str]] = []
        for message in messages:  # a compile id's graphs (forward, backward) one block each
            if message.lstrip().startswith("Created ") or not blocks:
                blocks.append([])
            blocks[-1].append(message)
        for block in blocks:
            parsed = parse_partitions(block)
            placed = [(places.place(frames_in(n.trace))[0], n) for n in parsed.nodes]
            located = [(site, n) for site, n in placed if site is not None]
            if not parsed.costs(bool(located)):
                continue
            where = inside(frame_site(owners[key], key[1], [])[1])
            for site, node in located:
                entry = splits.setdefault(site, {"parsed": parsed, "why": node.why, "hits": 0, "where": where})
                entry["hits"] += 1
    logged = {key[1] for key in partition_logs}
    cut: dict[tuple[tuple[int, str], Any, Any], dict[str, dict[str, Any]]] = defaultdict(dict)
    for key, recs in recordings.items():
        for r in recs:
            if re.fullmatch(r"partition_\d+", r.get("name") or "") and r.get("compile_id") not in logged:
                cut[(key, r.get("compile_id"), r.get("mode"))].setdefault(r["name"], r)
    for (key, compile_id, _), names in cut.items():
        # inductor writes no partition log for a graph loaded from its FX graph cache; its CUDA
        # graphs (partition_0, partition_1, ...) still show it was cut, but not where
        if len(names) < 2:
            continue
        site, name = frame_site(owners[key], compile_id, next(iter(names.values())).get("stack") or [])
        if site is None or site in splits:
            continue
        splits[site] = {
            "parsed": Partitions(pieces=len(names)),
            "why": None,
            "hits": 1,
            "where": inside(name) + "; this graph came from inductor's FX graph cache, which keeps no record of "
            "the lines that cut it: run once with TORCHINDUCTOR_FX_GRAPH_CACHE=0 to see them",
        }
    for site, entry in sorted(splits.items()):
        parsed = entry["parsed"]
        findings.append(
            build.cudagraph_split(
                site, parsed.pieces or 1, parsed.reason, entry["why"], where=entry["where"], hits=entry["hits"]
            )
        )
    rerecords: dict[Frame, dict[str, Any]] = {}
    for key, recs in recordings.items():
        # one recording per CUDA graph of each compiled graph is expected (partition_0, partition_1...)
        count = len(recs) - len({(r.get("mode"), r.get("name") or r.get("function")) for r in recs})
        if count <= 0:
            continue
        proc = owners[key]
        site, name = frame_site(proc, recs[0].get("compile_id"), recs[0].get("stack") or [])
        if site is None:
            continue
        shapes: list[str] = []
        for r in recs:
            text = "(" + ", ".join(r.get("shapes") or []) + ")"
            if r.get("shapes") and text not in shapes:
                shapes.append(text)
        versions = len({r.get("compile_id") for r in recs})
        detail = f"in {len(recs)} recordings"
        if versions > 1:
            detail += f" of {versions} compiled versions"
        if shapes:
            detail += ", for inputs " + ", ".join(shapes[:8]) + (", ..." if len(shapes) > 8 else "")
        if reasons[key]:
            detail += "; inductor's reason: " + reasons[key][0][:300]
        if sizes.get(key):
            detail += f"; inductor warned of {sizes[key]} distinct sizes"
        entry = rerecords.setdefault(site, {"count": 0, "detail": detail, "called": f" of {name}" if name else ""})
        entry["count"] += count
    for site, entry in sorted(rerecords.items()):
        findings.append(build.cudagraph_rerecord(site, entry["count"], entry["detail"], entry["called"]))
    return len(skips) + len(splits), findings
