"""The worker process, seen from the parent: start it, send a request, wait for the answer.

The parent never imports torch. One worker (:mod:`torchlint.dynamic.worker`) imports it once
and serves every target in turn (:func:`torchlint.dynamic.target_pass.run_targets` sends them). A
request that outlives its timeout is stopped; one that crashes the process (``os._exit``, a
segfault) is reported with the exit status and the error line the process wrote last; one
that runs out of memory (``max_memory``) is reported as such; in each case the worker is
started again for the next target. What the worker prints is drained by a thread and only
its tail kept, so floods of output neither block nor pile up.
"""

from __future__ import annotations

import io
import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from typing import Any

from torchlint.config import format_size

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
            data = bytes(self._tail[len(self._tail) - keep :]) if keep > 0 else b""
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

    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.env = env
        self.proc: subprocess.Popen[bytes] | None = None
        self.torch_version: str | None = None
        #: whether the worker's torch sees a CUDA GPU (known once it is ready)
        self.cuda = False
        self._reader: int | None = None
        self._writer: io.FileIO | None = None
        self._buffer = b""
        self._output: _OutputTail | None = None
        self._ready = False
        self._log_mark = 0
        self.starts = 0

    # ----------------------------------------------------------------- life cycle
    def start(self) -> Worker:
        """Start the process without waiting for torch to import (call early, overlap work)."""
        if self.proc is not None and self.proc.poll() is None:
            return self
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        output_r, output_w = os.pipe()
        env = dict(os.environ if self.env is None else self.env)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
        env.setdefault("PYTHONUNBUFFERED", "1")
        code = "import sys; from torchlint.dynamic.worker import main; main(int(sys.argv[1]), int(sys.argv[2]))"
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", code, str(to_child_r), str(from_child_w)],
                stdin=subprocess.DEVNULL,
                stdout=output_w,
                stderr=output_w,
                pass_fds=(to_child_r, from_child_w),
                env=env,
                start_new_session=True,
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
                if self._ready and self._writer is not None:
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

    def __enter__(self) -> Worker:
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
        lines = [line.strip() for line in self.output_tail().splitlines() if line.strip()]
        # Only a line that explains the death: a fatal error, or an exception's last line
        # (not whatever warning happened to be printed last).
        fatal = [line for line in lines if line.startswith("Fatal Python error")]
        errors = [line for line in lines if _EXCEPTION_LINE.match(line)]
        last = (fatal or errors or [""])[-1]
        return f"{how}" + (f" ({last[:200]})" if last else "")

    def _receive(self, timeout: float, doing: str) -> dict[str, Any]:
        reader = self._reader
        if reader is None:
            raise WorkerError(f"the worker is not running {doing}")
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self._kill()
                raise WorkerError(f"timed out after {timeout:g} s {doing}")
            ready, _, _ = select.select([reader], [], [], min(left, 1.0))
            if not ready:
                continue
            chunk = os.read(reader, 1 << 16)
            if not chunk:
                reason = self._death_reason()
                raise WorkerError(f"{reason} {doing}")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        answer: dict[str, Any] = json.loads(line.decode("utf-8"))
        return answer

    def request(self, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send one request and wait for its answer; on death or timeout the worker is stopped
        (the next request starts a fresh one) and :class:`WorkerError` says why."""
        self.wait_ready()
        try:
            self._log_mark = self._output.total if self._output is not None else 0
            if self._writer is None:
                raise WorkerError("the worker is not running while running the target")
            self._writer.write((json.dumps(payload) + "\n").encode("utf-8"))
            return self._receive(timeout, "while running the target")
        except (WorkerError, BrokenPipeError, OSError) as e:
            message = str(e) if isinstance(e, WorkerError) else f"{self._death_reason()} while running the target"
            self.close()
            raise WorkerError(message) from None


def with_memory_hint(message: str, memory: int) -> str:
    """A process killed outright (not by our timeout) was most likely the kernel's
    out-of-memory killer."""
    if "killed by SIGKILL" in message:
        limit = f"; --max-memory is {format_size(memory)}" if memory else ""
        return f"{message}; the system probably ran out of memory{limit}"
    return message
