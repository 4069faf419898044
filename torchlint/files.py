"""Find the Python files to check, and read them into text with one-line errors."""

from __future__ import annotations

import errno
import io
import os
import re
import stat
import tokenize
from collections.abc import Iterable, Sequence
from pathlib import Path

from torchlint.config import match_path

SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        ".env",
        "site-packages",
        "build",
        "dist",
        "__pycache__",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "node_modules",
        ".eggs",
        ".torchlint_cache",
        ".ipynb_checkpoints",
    }
)


class FileProblem(Exception):
    """A file that cannot be checked; ``str()`` is the one-line reason."""


def display_path(path: str | Path, cwd: str, *, absolute: bool = True) -> str:
    """``path`` as a user sees it: relative to the folder ``cwd`` when it lies inside it, else
    absolute (with ``absolute`` off: as given). The one home of the paths shown to users: the
    static pass, the dynamic pass, ``torchlint run``'s places, the editor and the Python API."""
    p = os.path.abspath(path)
    try:
        rel = os.path.relpath(p, cwd)
    except ValueError:  # another drive
        return str(path)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return p if absolute else str(path)
    return rel


def discover(paths: Sequence[str], exclude: Sequence[str], cwd: str) -> tuple[list[str], list[tuple[str, str]]]:
    """Files to check (sorted, unique) and (path, problem) pairs for paths that do not exist."""
    files: list[str] = []
    problems: list[tuple[str, str]] = []
    seen = set()

    def add(rel: str) -> None:
        if rel in seen or any(match_path(rel, pat) for pat in exclude):
            return
        seen.add(rel)
        files.append(rel)

    for raw in paths:
        if os.path.isdir(raw):
            for f in _walk(raw, exclude, cwd, problems):
                add(f)
        elif os.path.exists(raw):
            add(display_path(raw, cwd))
        else:
            try:
                os.stat(raw)
            except OSError as exc:
                problems.append((display_path(raw, cwd), _open_problem(raw, exc)))
            else:  # pragma: no cover - appeared meanwhile
                add(display_path(raw, cwd))
    files.sort()
    return files, problems


def _walk(root: str, exclude: Sequence[str], cwd: str, problems: list[tuple[str, str]]) -> Iterable[str]:
    """The Python files under ``root``, as :func:`display_path` shows them."""
    visited = set()

    def unreadable(exc: OSError) -> None:
        where = display_path(exc.filename or root, cwd)
        problems.append((where, f"cannot list folder: {_open_problem(exc.filename or root, exc)}"))

    for dirpath, dirnames, filenames in os.walk(root, followlinks=True, onerror=unreadable):
        real = os.path.realpath(dirpath)
        if real in visited:  # a symlink loop
            dirnames[:] = []
            continue
        visited.add(real)
        shown = display_path(dirpath, cwd)  # a file's display path is its folder's joined with its name
        dirnames[:] = sorted(
            d
            for d in dirnames
            if d not in SKIP_DIRS
            and not d.endswith(".egg-info")
            and not any(match_path(_joined(shown, d), pat) for pat in exclude)
        )
        for name in sorted(filenames):
            if name.endswith((".py", ".pyi", ".ipynb")):
                yield _joined(shown, name)


def _joined(folder: str, name: str) -> str:
    return name if folder == "." else os.path.join(folder, name)


#: files one project holds at most (a bigger one is analysed over its first ones, in path order)
MAX_PROJECT_FILES = 20_000


#: what marks a project's folder: a repository, or a Python project's own metadata
ROOT_MARKERS = (".git", ".hg", "pyproject.toml", "setup.py", "setup.cfg")


def project_root(paths: Sequence[str], config_root: str | None, cwd: str) -> str | None:
    """The folder of the project ``paths`` belong to: the config's folder (``config_root``),
    else the nearest folder above their common one that is a repository or a Python project
    (:data:`ROOT_MARKERS`: ``.git``, ``pyproject.toml``, ``setup.py``, ...), else the working
    folder when it holds their top package or is their folder (``cd project; torchlint check
    pkg``: the scripts beside the package are the project too; :func:`project_files` then
    reads only its scripts and packages), else their top package
    (walking up while folders hold ``__init__.py``); None when there is none (the given files
    are then the whole project)."""
    if config_root:
        return os.path.abspath(config_root)
    folders = []
    for p in paths or (".",):
        full = os.path.abspath(os.path.join(cwd, p))
        folders.append(full if os.path.isdir(full) else os.path.dirname(full))
    try:
        start = os.path.commonpath(folders)
    except ValueError:  # different drives
        return None
    folder = start
    while True:
        if any(os.path.exists(os.path.join(folder, marker)) for marker in ROOT_MARKERS):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    top = None
    folder = start
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        top = folder
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    here = os.path.abspath(cwd)
    if os.path.dirname(top or start) == here or (top is None and start == here):
        return here
    return top


def marked(root: str) -> bool:
    """Whether ``root`` is a repository or a Python project's folder (:data:`ROOT_MARKERS`)
    or a package: a folder :func:`project_root` takes for itself."""
    return any(os.path.exists(os.path.join(root, m)) for m in (*ROOT_MARKERS, "__init__.py"))


def project_files(root: str, exclude: Sequence[str], packages_only: bool = False) -> list[str]:
    """The Python files of the project at ``root`` (absolute, sorted): what :func:`discover`
    finds under it (``.venv``, ``site-packages`` and ``exclude`` left out) less what git
    ignores there (one ``git`` call lists the ignored paths; without git, nothing is taken
    as ignored), at most :data:`MAX_PROJECT_FILES`. ``packages_only``: the root is a working
    folder nothing marks as a project (:func:`marked`), so only its own scripts and the
    packages in it (folders with an ``__init__.py``) are taken; the rest of it is not walked."""
    if packages_only:
        found: list[str] = []
        try:
            entries = sorted(os.scandir(root), key=lambda e: e.name)
        except OSError:
            entries = []
        for entry in entries:
            try:
                folder = entry.is_dir()
            except OSError:  # a link to itself: what discover says of it
                folder = False
            if (entry.name.endswith((".py", ".pyi")) and not folder) or (
                folder and os.path.isfile(os.path.join(entry.path, "__init__.py"))
            ):
                found.extend(discover([entry.path], exclude, root)[0])
        found.sort()
    else:
        found, _ = discover([root], exclude, root)
    ignored = _git_ignored(root)
    out = []
    for rel in found:
        if not rel.endswith((".py", ".pyi")):
            continue
        if ignored and _ignored(rel, ignored):
            continue
        out.append(os.path.join(root, rel))
        if len(out) >= MAX_PROJECT_FILES:
            break
    return out


def _ignored(rel: str, ignored: frozenset[str]) -> bool:
    """Whether ``rel`` (or a folder above it) is among git's ignored paths."""
    rel = rel.replace(os.sep, "/")
    if rel in ignored:
        return True
    at = rel.find("/")
    while at >= 0:
        if rel[: at + 1] in ignored:
            return True
        at = rel.find("/", at + 1)
    return False


def _git_ignored(root: str) -> frozenset[str]:
    """The paths under ``root`` that git ignores, relative to it (an ignored folder as
    ``name/``, its files not listed), from one ``git ls-files`` call; empty outside a
    repository or without git."""
    import subprocess

    try:
        proc = subprocess.run(
            ["git", "-C", root, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    if proc.returncode != 0:
        return frozenset()
    return frozenset(p for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p)


#: bigger files are reported, not read: the parser's time grows with size and cannot be stopped
MAX_FILE_BYTES = 8 * 1024 * 1024

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def source_lines(text: str) -> list[str]:
    """``text`` split into lines as Python numbers them: only ``\\n``, ``\\r\\n`` and ``\\r``
    end a line (``str.splitlines`` also splits at form feeds and U+2028, which would shift
    every line number after them)."""
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def line_at(lines: Sequence[str], number: int) -> str | None:
    """Line ``number`` (1-based) of ``lines`` (:func:`source_lines`), or None past the end."""
    return lines[number - 1] if 0 < number <= len(lines) else None


def read_line(path: str, number: int) -> str | None:
    """Line ``number`` of the file at ``path``, numbered as :func:`source_lines` numbers it
    (None when the file cannot be read or is shorter)."""
    try:
        return line_at(source_lines(read_source(path)), number)
    except FileProblem:
        return None


def read_source(path: str) -> str:
    """The file's text, decoded as Python would; raises :class:`FileProblem` with a reason."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise FileProblem(_open_problem(path, exc)) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise FileProblem("is a directory")
        if not stat.S_ISREG(info.st_mode):  # a FIFO would block, /dev/zero never end
            raise FileProblem(f"not a regular file ({_kind(info.st_mode)}), not Python source")
        if info.st_size > MAX_FILE_BYTES:
            raise FileProblem(
                f"file is {info.st_size / 2**20:.1f} MiB; torchlint checks files up to {MAX_FILE_BYTES // 2**20} MiB"
            )
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise FileProblem(f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    return decode_source(data)


def _open_problem(path: str, exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symbolic link loop"
    if isinstance(exc, FileNotFoundError) and os.path.islink(path):
        try:
            return f"broken symbolic link (to {os.readlink(path)})"
        except OSError:
            return "broken symbolic link"
    if isinstance(exc, FileNotFoundError):
        return "no such file or directory"
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, IsADirectoryError):
        return "is a directory"
    return f"cannot read: {exc.strerror or exc}"


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "a special file"


def decode_source(data: bytes) -> str:
    if b"\x00" in data:
        raise FileProblem("binary file (contains NUL bytes), not Python source")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        raise FileProblem(f"bad encoding declaration: {exc.msg}") from None
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        if isinstance(exc, UnicodeDecodeError):
            line = data.count(b"\n", 0, exc.start) + 1
            hint = "; declare it with a `# -*- coding: ... -*-` line" if encoding == "utf-8" else ""
            raise FileProblem(
                f"cannot decode line {line} as {encoding} (byte {exc.start}: {exc.reason}){hint}"
            ) from None
        raise FileProblem(f"cannot decode as {encoding}: {exc}") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def read_json(path: str) -> object:
    """The JSON document in ``path``; a ValueError whose text says, in words, why it cannot be
    had ("cannot read it (...)", "not valid JSON (...)") for the caller to prefix with what
    the file was meant to be."""
    import json

    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as e:
        raise ValueError(f"cannot read it ({e.strerror or e})") from None
    except ValueError as e:
        raise ValueError(f"not valid JSON ({e})") from None
