"""The texts of the files a static run reads, each read at most once, and what the run needs
to know of a file without reading it again when it has not changed.

What the run needs of a file before it decides to parse it is small: a digest of its text
(the cache keys), whether it may hold a compiled region (:func:`is_candidate`),
whether it trains a compiled model, how many lines it has and whether it may hold a
suppression comment (its findings' comments are then looked up). :class:`Sources` keeps these
per file in an *index* stored with the cache (``<cache-dir>/files-v1.json``), next to the
file's ``stat()``: size, modification and change times (nanoseconds), inode and mode. A
later run that finds the same ``stat()`` takes the facts from the index and does not open
the file; only the files it goes on to parse, or whose findings it shows, are read.

An entry is trusted only when it was recorded well after the file's last change (two
seconds, more than any filesystem's timestamp granularity): a file edited again within the
tick its timestamp records cannot keep a stale entry, because such an entry is re-read and
re-recorded first (git's "racy" index entries are handled the same way). The index is
rewritten atomically and only when it changed; an unreadable or foreign index is ignored.

This module must not import libcst (a warm run never does).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from torchlint.files import FileProblem, read_source
from torchlint.static.modes import has_training_loop, reads_mode

INDEX_NAME = "files-v1.json"
FORMAT = 2
#: an entry recorded less than this long after the file's last change is checked again
RACY_NS = 2_000_000_000
#: entries kept at most (the oldest go first): a cache shared by many trees stays small
MAX_ENTRIES = 200_000


def text_digest(source: str) -> str:
    """The digest that names a text in the cache (its entries, summaries and the index)."""
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Known:
    """What the static run needs of a file's text without reading it."""

    digest: str
    #: may hold a compiled region (else it is not parsed)
    candidate: bool
    #: holds a training loop (:func:`torchlint.static.modes.has_training_loop`): the project
    #: trains, so training mode is checked too
    trains: bool
    lines: int
    #: may hold a suppression comment (says ``noqa`` or ``torchlint``, in any case)
    comments: bool
    #: its code may differ between eval and training (:func:`torchlint.static.modes.reads_mode`)
    modal: bool = True


#: Top-level packages a compiled region needs an import of: ``nn.Module`` subclasses,
#: ``torch.compile`` and the Lightning module bases all resolve through one of them (the
#: import table reads absolute imports only). A test keeps this in step with regions.py.
REGION_PACKAGES = ("torch", "lightning", "pytorch_lightning")
_PACKAGES = "|".join(REGION_PACKAGES)
# `import a, torch.nn as nn` (also across backslash continuations) or `from torch... import`.
# Loose on purpose: a mention in a docstring only costs a parse.
_CANDIDATE = re.compile(
    rf"\bimport\b(?:[^\n]*\\\r?\n)*[^\n]*\b(?:{_PACKAGES})\b"
    rf"|\bfrom(?:[ \t\f]|\\\r?\n)+(?:{_PACKAGES})\b"
)


def is_candidate(source: str) -> bool:
    """Whether the file may hold a compiled region (else it is not parsed at all).

    The same answer as ``_CANDIDATE.search(source)``, found faster: only the (logical)
    lines around each mention of a package are searched.
    """
    for needle in ("torch", "lightning"):
        at = source.find(needle)
        checked = -1  # end of the last line searched
        while at >= 0:
            if at >= checked:
                start = _logical_line_start(source, at)
                end = source.find("\n", at)
                checked = len(source) if end < 0 else end
                if _CANDIDATE.search(source, start, checked) is not None:
                    return True
            at = source.find(needle, at + len(needle))
    return False


def _logical_line_start(source: str, at: int) -> int:
    """Where the line holding ``at`` starts, following backslash continuations back."""
    start = source.rfind("\n", 0, at) + 1
    while start > 1:
        before = source[max(0, start - 3) : start - 1]  # what precedes the newline
        if not before.endswith("\\") and not before.endswith("\\\r"):
            break
        start = source.rfind("\n", 0, start - 1) + 1
    return start


def line_count(source: str) -> int:
    return source.count("\n") + 1


def may_suppress(source: str) -> bool:
    """Whether ``source`` can hold a comment :mod:`torchlint.suppression` honours: each says
    `noqa` or `torchlint`, in any case (``lower()`` + ``in`` beats a case-blind search)."""
    low = source.lower()
    return "noqa" in low or "torchlint" in low


def describe(source: str) -> Known:
    return Known(
        text_digest(source),
        is_candidate(source),
        has_training_loop(source),
        line_count(source),
        may_suppress(source),
        reads_mode(source),
    )


def _stamp(info: os.stat_result) -> list[int]:
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_mode]


class Sources:
    """Texts and :class:`Known` facts of files by absolute path.

    ``index``: the index file (None: nothing is remembered between runs; every file is read);
    ``given``: texts to use instead of what is on disk (open editor buffers, tests, files
    already read by the caller)."""

    def __init__(
        self, index: str | None = None, given: dict[str, str | None] | None = None, namespace: str = ""
    ) -> None:
        self.index_path = index
        self.namespace = namespace
        self._texts: dict[str, str | None] = dict(given or {})
        self._given = frozenset(self._texts)
        self._known: dict[str, Known | None] = {}
        self._problems: dict[str, str] = {}
        self._entries: dict[str, list] = self._load() if index else {}
        self._changed = False
        self._learnt: set = set()  # files whose facts another process read (:meth:`learn`)
        self._moved: set = set()  # ... and whose text has changed since
        #: how many files the run opened (the rest came from the index)
        self.reads = 0

    @classmethod
    def of(cls, files: Sequence[str], sources: Sequence[str | None]) -> Sources:
        """The texts a caller already read (None: unreadable), by the files' absolute paths."""
        return cls(given={os.path.abspath(p): s for p, s in zip(files, sources)})

    # -- reading ------------------------------------------------------------------------
    def known(self, path: str) -> Known | None:
        """The file's facts, from the index when its ``stat()`` is unchanged, else read (None
        when it cannot be read: :meth:`problem` says why)."""
        path = os.path.abspath(path)
        if path in self._known:
            return self._known[path]
        known = None
        if path not in self._given and self.index_path:
            known = self._from_index(path)
        if known is None:
            text = self.text(path)
            known = describe(text) if text is not None else None
        self._known[path] = known
        return known

    def known_unread(self, path: str) -> Known | None:
        """The file's facts when they are had without opening it (learnt this run, given, or
        from the index with an unchanged ``stat()``), else None."""
        path = os.path.abspath(path)
        if path in self._known or path in self._given:
            return self.known(path)
        if self.index_path:
            known = self._from_index(path)
            if known is not None:
                self._known[path] = known
            return known
        return None

    def given_text(self, path: str) -> str | None:
        """The text given for the file instead of what is on disk, else None."""
        path = os.path.abspath(path)
        return self._texts.get(path) if path in self._given else None

    def needs_reading(self, path: str) -> bool:
        """Whether :meth:`known` would open the file (it is neither learnt, given nor indexed)."""
        return self.known_unread(path) is None and os.path.abspath(path) not in self._problems

    def learn(self, path: str, read: Read, text: str | None = None) -> None:
        """What another process read of the file (:func:`read_file`): its facts (and its index
        entry) or why it cannot be read, and its ``text`` when sent (else it is read again
        only if asked for)."""
        path = os.path.abspath(path)
        if read.problem is not None:
            self._problems[path] = read.problem
            self._known[path] = None
            return
        known = read.known
        assert known is not None
        self._known.setdefault(path, known)
        self._learnt.add(path)
        if text is not None and path not in self._texts:
            self._texts[path] = text
        self.reads += 1
        if read.stamp is not None and self.index_path:
            self._enter(
                path,
                [
                    read.stamp,
                    read.recorded,
                    known.digest,
                    known.candidate,
                    known.trains,
                    known.lines,
                    known.comments,
                    known.modal,
                ],
            )

    def digest(self, path: str) -> str | None:
        known = self.known(path)
        return known.digest if known is not None else None

    def text(self, path: str) -> str | None:
        """The file's text, read once (None when it cannot be read: :meth:`problem` says why)."""
        path = os.path.abspath(path)
        if path not in self._texts:
            self._texts[path] = self._read(path)
        return self._texts[path]

    def problem(self, path: str) -> str | None:
        """Why the file cannot be read (the one-line reason), or None."""
        return self._problems.get(os.path.abspath(path))

    def _read(self, path: str) -> str | None:
        self.reads += 1
        try:  # the stat taken before reading: an edit made meanwhile shows as a changed stat
            before: os.stat_result | None = os.stat(path) if self.index_path else None
        except OSError:
            before = None  # read_source says why in words
        try:
            text = read_source(path)
        except FileProblem as exc:
            self._problems[path] = str(exc)
            return None
        learnt = self._known.get(path)
        if learnt is not None and path in self._learnt:
            # read on the pool before: the same text is not described again; an edit made
            # since is recorded, and said (what was decided from the other text is not stored)
            if text_digest(text) == learnt.digest:
                return text
            self._moved.add(path)
        if before is not None:
            self._record(path, before, text)
        return text

    def moved(self, path: str) -> bool:
        """Whether the file's text changed between its reading on the pool (what its facts
        say) and its reading here (:meth:`text`)."""
        return os.path.abspath(path) in self._moved

    # -- the index ------------------------------------------------------------------------
    def _from_index(self, path: str) -> Known | None:
        entry = self._entries.get(path)
        if entry is None:
            return None
        try:
            info = os.stat(path)
        except OSError:
            return None
        stamp, recorded, digest, candidate, trains, lines, comments, modal = entry
        if stamp != _stamp(info) or recorded - max(info.st_mtime_ns, info.st_ctime_ns) < RACY_NS:
            return None
        return Known(digest, candidate, trains, lines, comments, modal)

    def _record(self, path: str, info: os.stat_result, text: str) -> None:
        known = describe(text)
        self._known.setdefault(path, known)
        self._enter(
            path,
            [
                _stamp(info),
                time.time_ns(),
                known.digest,
                known.candidate,
                known.trains,
                known.lines,
                known.comments,
                known.modal,
            ],
        )

    def _enter(self, path: str, entry: list) -> None:
        if self._entries.get(path) != entry:
            self._entries.pop(path, None)  # re-inserted last: the newest entries are kept
            self._entries[path] = entry
            self._changed = True

    def _load(self) -> dict[str, list]:
        try:
            with open(self.index_path, "rb") as fh:  # type: ignore[arg-type]
                doc = json.loads(fh.read())
        except (OSError, ValueError, RecursionError):
            return {}
        if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("namespace") != self.namespace:
            return {}
        entries = doc.get("files")
        if not isinstance(entries, dict):
            return {}
        return {p: e for p, e in entries.items() if _well_formed(e)}

    def save(self) -> None:
        """Write the index when this run changed it (a cache that cannot be written is
        quietly not used)."""
        if not self.index_path or not self._changed:
            return
        from torchlint.atomic import write_text_atomic

        entries = self._entries
        if len(entries) > MAX_ENTRIES:
            entries = dict(list(entries.items())[-MAX_ENTRIES:])
        doc = {"format": FORMAT, "namespace": self.namespace, "files": entries}
        try:
            os.makedirs(os.path.dirname(self.index_path), exist_ok=True)
            write_text_atomic(self.index_path, json.dumps(doc, separators=(",", ":")), durable=False)
        except OSError:
            pass
        self._changed = False


@dataclass(frozen=True)
class Read:
    """One file as :func:`read_file` read it (in another process): its facts, the
    ``stat()`` taken before reading and when (for the index), or why it cannot be read."""

    known: Known | None = None
    stamp: list[int] | None = None
    recorded: int = 0
    problem: str | None = None


def read_file(path: str, index: bool) -> tuple[Read, str | None]:
    """Read one file as :class:`Sources` does (``index``: with the ``stat()`` its index
    keeps): what :meth:`Sources.learn` takes, and the text (None when it cannot be read)."""
    try:  # the stat taken before reading: an edit made meanwhile shows as a changed stat
        before: os.stat_result | None = os.stat(path) if index else None
    except OSError:
        before = None
    try:
        text = read_source(path)
    except FileProblem as exc:
        return Read(problem=str(exc)), None
    return Read(describe(text), _stamp(before) if before is not None else None, time.time_ns()), text


def _well_formed(entry: object) -> bool:
    if not isinstance(entry, list) or len(entry) != 8:
        return False
    stamp, recorded, digest, candidate, trains, lines, comments, modal = entry
    return (
        isinstance(stamp, list)
        and len(stamp) == 5
        and all(_is_int(v) for v in stamp)
        and _is_int(recorded)
        and isinstance(digest, str)
        and len(digest) == 64
        and isinstance(candidate, bool)
        and isinstance(trains, bool)
        and _is_int(lines)
        and isinstance(comments, bool)
        and isinstance(modal, bool)
    )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
