"""Run declared targets in a reused worker process, with a timeout each; build the results.

The parent never imports torch. One worker (:mod:`torchlint.dynamic.worker`) imports it once
and serves every target in turn. A target that hangs is stopped at its timeout; one that
crashes the process (``os._exit``, a segfault) is reported with the exit status and the error
line the process wrote last; one that runs out of memory (``max_memory``) is reported as such;
in each case the worker is started again for the next target. What the worker prints is
drained by a thread and only its tail kept, so floods of output neither block nor pile up.
"""
from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from torchlint.findings import FileError, Finding, Recompile, TargetResult
from torchlint.dynamic.targets import TargetSpec

DEFAULT_TIMEOUT = 120.0
STARTUP_TIMEOUT = 180.0
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


#: what the worker printed that is kept, per request, to explain a crash
OUTPUT_TAIL_BYTES = 64 * 1024


class WorkerError(RuntimeError):
    """The worker died, hung or could not start; ``str()`` is one line."""


def default_max_memory() -> int:
    """Bytes a target may allocate when ``--max-memory`` is not given: half the machine's
    memory (0, no limit, where its size cannot be read)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return 0
    return max(total // 2, 0)


def format_size(size: int) -> str:
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            return f"{size / (1 << shift):.3g} {unit}"
    return f"{size} B"


class _OutputTail:
    """Drains the worker's stdout+stderr pipe on a thread and keeps only the last bytes, so a
    target printing megabytes neither blocks on a full pipe nor fills a disk."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._tail = bytearray()
        self._lock = threading.Lock()
        self.total = 0
        self._thread = threading.Thread(target=self._drain, name="torchlint-worker-output", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self._fd, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                break
            with self._lock:
                self.total += len(chunk)
                self._tail += chunk
                if len(self._tail) > 2 * OUTPUT_TAIL_BYTES:
                    del self._tail[:-OUTPUT_TAIL_BYTES]
        try:
            os.close(self._fd)
        except OSError:
            pass

    def since(self, mark: int, limit: int = 4000) -> str:
        """Up to ``limit`` of the last characters written after ``total`` was ``mark``."""
        with self._lock:
            keep = min(limit, self.total - mark, len(self._tail))
            data = bytes(self._tail[len(self._tail) - keep:]) if keep > 0 else b""
        return data.decode("utf-8", "replace")

    def wait_closed(self, timeout: float) -> None:
        self._thread.join(timeout)


_EXCEPTION_LINE = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt)\b(?::|$)")


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


class Worker:
    """One child process serving JSON requests. Use as a context manager or call close()."""

    def __init__(self, env: Optional[Dict[str, str]] = None) -> None:
        self.env = env
        self.proc: Optional[subprocess.Popen] = None
        self.torch_version: Optional[str] = None
        #: whether the worker's torch sees a CUDA GPU (known once it is ready)
        self.cuda = False
        self._reader = None
        self._writer = None
        self._buffer = b""
        self._output: Optional[_OutputTail] = None
        self._ready = False
        self._log_mark = 0
        self.starts = 0

    # ----------------------------------------------------------------- life cycle
    def start(self) -> "Worker":
        """Start the process without waiting for torch to import (call early, overlap work)."""
        if self.proc is not None and self.proc.poll() is None:
            return self
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        output_r, output_w = os.pipe()
        env = dict(os.environ if self.env is None else self.env)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
        env.setdefault("PYTHONUNBUFFERED", "1")
        code = ("import sys; from torchlint.dynamic.worker import main; "
                "main(int(sys.argv[1]), int(sys.argv[2]))")
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", code, str(to_child_r), str(from_child_w)],
                stdin=subprocess.DEVNULL, stdout=output_w, stderr=output_w,
                pass_fds=(to_child_r, from_child_w), env=env, start_new_session=True,
            )
        except BaseException:
            os.close(output_r)
            raise
        finally:
            os.close(to_child_r)
            os.close(from_child_w)
            os.close(output_w)
        self._output = _OutputTail(output_r)
        self._writer = os.fdopen(to_child_w, "wb", buffering=0)
        self._reader = from_child_r
        self._buffer = b""
        self._ready = False
        self.starts += 1
        return self

    def wait_ready(self, timeout: float = STARTUP_TIMEOUT) -> None:
        if self._ready:
            return
        self.start()
        hello = self._receive(timeout, "starting the worker (importing torch)")
        if not hello.get("ready"):
            self.close()
            raise WorkerError(f"the dynamic pass needs torch: {hello.get('error', 'it did not start')}")
        self.torch_version = hello.get("torch_version")
        self.cuda = bool(hello.get("cuda"))
        self._ready = True

    def close(self) -> None:
        """Stop the process (politely if idle, else by killing its process group)."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            try:
                if self._ready:
                    self._writer.write(b'{"quit": true}\n')
                    proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired, ValueError):
                pass
            if proc.poll() is None:
                self._kill()
        try:
            if self._writer is not None:
                self._writer.close()
        except OSError:
            pass
        if self._output is not None:
            self._output.wait_closed(2)
        if self._reader is not None:
            try:
                os.close(self._reader)
            except OSError:
                pass
        self.proc, self._writer, self._reader, self._output, self._ready = None, None, None, None, False

    def _kill(self) -> None:
        proc = self.proc
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError):
            try:
                proc.kill()
            except OSError:
                pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass

    def __enter__(self) -> "Worker":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ----------------------------------------------------------------- protocol
    def output_tail(self, limit: int = 4000) -> str:
        """What the worker printed since the current request began (prints, warnings, a crash)."""
        return self._output.since(self._log_mark, limit) if self._output is not None else ""

    def _death_reason(self) -> str:
        try:
            code = self.proc.wait(timeout=10) if self.proc else None
        except subprocess.TimeoutExpired:
            code = None
        if code is None:
            how = "the worker stopped answering"
        elif code < 0:
            how = f"the worker was killed by {_signal_name(code)}"
        else:
            how = f"the worker process exited with status {code} (the target or code it called ended it)"
        if self._output is not None:
            self._output.wait_closed(1)  # let the drain thread read the last words
        lines = [l.strip() for l in self.output_tail().splitlines() if l.strip()]
        # Only a line that explains the death: a fatal error, or an exception's last line
        # (not whatever warning happened to be printed last).
        fatal = [l for l in lines if l.startswith("Fatal Python error")]
        errors = [l for l in lines if _EXCEPTION_LINE.match(l)]
        last = (fatal or errors or [""])[-1]
        return f"{how}" + (f" ({last[:200]})" if last else "")

    def _receive(self, timeout: float, doing: str) -> Dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self._kill()
                raise WorkerError(f"timed out after {timeout:g} s {doing}")
            ready, _, _ = select.select([self._reader], [], [], min(left, 1.0))
            if not ready:
                continue
            chunk = os.read(self._reader, 1 << 16)
            if not chunk:
                reason = self._death_reason()
                raise WorkerError(f"{reason} {doing}")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line.decode("utf-8"))

    def request(self, payload: Dict[str, Any], timeout: float) -> Dict[str, Any]:
        """Send one request and wait for its answer; on death or timeout the worker is stopped
        (the next request starts a fresh one) and :class:`WorkerError` says why."""
        self.wait_ready()
        try:
            self._log_mark = self._output.total if self._output is not None else 0
            self._writer.write((json.dumps(payload) + "\n").encode("utf-8"))
            return self._receive(timeout, "while running the target")
        except (WorkerError, BrokenPipeError, OSError) as e:
            message = str(e) if isinstance(e, WorkerError) else f"{self._death_reason()} while running the target"
            self.close()
            raise WorkerError(message) from None


# --------------------------------------------------------------------------- results

def _relpath(path: Optional[str], cwd: str) -> Optional[str]:
    if path is None:
        return None
    try:
        rel = os.path.relpath(path, cwd)
    except ValueError:
        return path
    return path if rel.startswith(os.pardir + os.sep) else rel


_LINES: Dict[str, List[str]] = {}


def _source_line(path: str, line: int) -> Optional[str]:
    if path not in _LINES:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                _LINES[path] = handle.read().splitlines()
        except OSError:
            _LINES[path] = []
    lines = _LINES[path]
    return lines[line - 1] if 0 < line <= len(lines) else None


def break_finding(site: Dict[str, Any], target: str, cwd: str) -> Finding:
    """A dynamic finding for one break site; its suggestion is dynamo's hint (merge may
    replace it with a rule's fix)."""
    text = _source_line(site["path"], site["line"]) or ""
    stripped = text.strip()
    column = len(text) - len(text.lstrip()) + 1 if stripped else 1
    end_column = len(text.rstrip()) + 1 if stripped else 1
    reason = site.get("reason") or "graph break"
    message = f"graph break: {reason}"
    if site.get("frame_skipped"):
        message += " (dynamo gave up the whole function and ran it eagerly)"
    hints = [h for h in site.get("hints") or [] if h]
    suggestion = hints[0] if hints else (site.get("explanation") or "move this out of the compiled region")
    return Finding(
        rule=None, name="graph-break", path=_relpath(site["path"], cwd), line=site["line"],
        column=column, end_line=site["line"], end_column=end_column, message=message,
        suggestion=suggestion, source="dynamic", gb_code=site.get("gb_code"), target=target,
        severity="error", reason=reason, explanation=site.get("explanation") or None,
        hints=hints, source_line=text or None,
    )


def result_from_answer(spec: TargetSpec, answer: Dict[str, Any], seconds: float, cwd: str
                       ) -> Tuple[TargetResult, List[Finding]]:
    result = TargetResult(target=spec.name, seconds=seconds)
    if answer.get("error"):
        result.error = answer["error"]
        return result, []
    result.graphs = int(answer.get("graphs", 0))
    result.ops_per_graph = list(answer.get("ops_per_graph", []))
    breaks = answer.get("breaks", [])
    result.graph_breaks = len(breaks)
    for event in answer.get("recompiles", []):
        words = event["words"] + (f"; fix: {event['fix']}" if event.get("fix") else "")
        result.recompile_reasons.append(Recompile(
            target=spec.name, reason=words, path=_relpath(event.get("path"), cwd), line=event.get("line"),
        ))
    result.recompiles = len(result.recompile_reasons)
    for path, line in answer.get("traced", []):
        result.traced.setdefault(_relpath(path, cwd), set()).add(int(line))
    findings = [break_finding(b, spec.name, cwd) for b in breaks if b.get("path") and b.get("line")]
    if answer.get("cudagraphs") is not None:
        from torchlint.dynamic.cudagraphs import findings_of

        result.cudagraph_skips, more = findings_of(answer["cudagraphs"], spec.name, cwd)
        findings.extend(more)
    return result, findings


def run_targets(
    specs: Sequence[TargetSpec],
    *,
    cwd: Optional[str] = None,
    timeout: Optional[float] = None,
    train: bool = False,
    user_files: Iterable[str] = (),
    worker: Optional[Worker] = None,
    progress: Any = None,
    max_memory: Optional[int] = None,
) -> Tuple[List[TargetResult], List[Finding], List[FileError]]:
    """Run every target in one reused worker; never raises for a target's own failure.

    ``timeout``: seconds per target (a target's own ``timeout`` wins; default 120).
    ``train``: forward + backward for every target (or per target via its spec).
    ``user_files``: the linted files; a break is placed on the innermost frame inside them
    (the target's own file always counts). ``worker``: an already started :class:`Worker` to
    reuse (it is left running); by default one is started and stopped here. ``progress``: an
    optional callable taking one line of text (for stderr). ``max_memory``: bytes each target
    may allocate in the worker (data beyond what the worker already holds; None:
    :func:`default_max_memory`, 0: no limit); a target over it is reported as out of memory.

    Returns per-target results (in order), dynamic findings (one per distinct break site and
    target; the same site from several targets is one finding naming them all) and errors
    (targets that could not be loaded, raised, exited, crashed or timed out).
    """
    cwd = os.path.abspath(cwd or os.getcwd())
    own = worker is None
    worker = worker or Worker()
    worker.start()
    results: List[TargetResult] = []
    findings: Dict[Tuple[str, int, Optional[str], str], Finding] = {}
    errors: List[FileError] = []
    files = sorted({os.path.realpath(os.path.join(cwd, p)) for p in user_files})
    memory = default_max_memory() if max_memory is None else max_memory
    try:
        for number, spec in enumerate(specs):
            limit = float(spec.timeout or timeout or DEFAULT_TIMEOUT)
            payload = dict(spec.to_wire(), id=number, cwd=cwd, user_files=files)
            payload["train"] = bool(spec.train or train)
            payload["max_memory"] = memory
            if progress:
                progress(f"dynamo: running {spec.name}")
            try:
                worker.wait_ready()
            except WorkerError as e:  # no torch, or it cannot import: nothing can run
                for rest in specs[number:]:
                    results.append(TargetResult(target=rest.name, error=str(e)))
                    errors.append(FileError(path=_relpath(rest.ref.path, cwd) or rest.ref.path,
                                            message=f"target {rest.name!r}: {e}"))
                break
            started = time.monotonic()
            try:
                answer = worker.request(payload, limit)
            except WorkerError as e:
                answer = {"error": _with_memory_hint(str(e), memory)}
            if answer.get("recycle"):  # after running out of memory: a fresh process next
                worker.close()
            result, found = result_from_answer(spec, answer, time.monotonic() - started, cwd)
            results.append(result)
            if result.error:
                message = result.error if result.error.startswith("target ") else f"target {spec.name!r}: {result.error}"
                errors.append(FileError(path=_relpath(os.path.join(cwd, spec.ref.path), cwd) or spec.ref.path,
                                        message=message))
            for finding in found:
                key = (finding.path, finding.line, finding.gb_code, finding.name)
                if key in findings:
                    known = findings[key]
                    names = known.target.split(", ") if known.target else []
                    if finding.target not in names:
                        known.target = ", ".join(names + [finding.target])
                else:
                    findings[key] = finding
    finally:
        if own:
            worker.close()
    return results, sorted(findings.values(), key=lambda f: f.sort_key), errors


def _with_memory_hint(message: str, memory: int) -> str:
    """A process killed outright (not by our timeout) was most likely the kernel's
    out-of-memory killer."""
    if "killed by SIGKILL" in message:
        limit = f"; --max-memory is {format_size(memory)}" if memory else ""
        return f"{message}; the system probably ran out of memory{limit}"
    return message


def torch_version_of(worker: Worker) -> Optional[str]:
    """The worker's torch version (after it started), for ``Report.torch_version``."""
    return worker.torch_version
