"""Find the Python files to check, and read them into text with one-line errors."""
from __future__ import annotations

import io
import os
import tokenize
from pathlib import Path
from typing import Iterable, List, Sequence, Tuple, Union

from torchlint.config import match_path

SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", ".venv", "venv", ".env", "site-packages", "build", "dist",
     "__pycache__", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
     "node_modules", ".eggs", ".torchlint_cache", ".ipynb_checkpoints"}
)


class FileProblem(Exception):
    """A file that cannot be checked; ``str()`` is the one-line reason."""


def display_path(path: Union[str, Path], cwd: str) -> str:
    """Relative to the working directory when inside it, else as given."""
    p = os.path.abspath(path)
    try:
        rel = os.path.relpath(p, cwd)
    except ValueError:
        return str(path)
    return p if rel.startswith("..") else rel


def discover(paths: Sequence[str], exclude: Sequence[str], cwd: str) -> Tuple[List[str], List[Tuple[str, str]]]:
    """Files to check (sorted, unique) and (path, problem) pairs for paths that do not exist."""
    files: List[str] = []
    problems: List[Tuple[str, str]] = []
    seen = set()

    def add(p: str) -> None:
        rel = display_path(p, cwd)
        if rel in seen or any(match_path(rel, pat) for pat in exclude):
            return
        seen.add(rel)
        files.append(rel)

    for raw in paths:
        if os.path.islink(raw) and not os.path.exists(raw):
            problems.append((display_path(raw, cwd), "broken symbolic link"))
        elif os.path.isdir(raw):
            for f in _walk(raw, exclude, cwd):
                add(f)
        elif os.path.exists(raw):
            add(raw)
        else:
            problems.append((display_path(raw, cwd), "no such file or directory"))
    files.sort()
    return files, problems


def _walk(root: str, exclude: Sequence[str], cwd: str) -> Iterable[str]:
    visited = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        real = os.path.realpath(dirpath)
        if real in visited:  # a symlink loop
            dirnames[:] = []
            continue
        visited.add(real)
        dirnames[:] = sorted(
            d for d in dirnames
            if d not in SKIP_DIRS and not d.endswith(".egg-info")
            and not any(match_path(display_path(os.path.join(dirpath, d), cwd), pat) for pat in exclude)
        )
        for name in sorted(filenames):
            if name.endswith((".py", ".pyi")):
                yield os.path.join(dirpath, name)


def read_source(path: str) -> str:
    """The file's text, decoded as Python would; raises :class:`FileProblem` with a reason."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except IsADirectoryError:
        raise FileProblem("is a directory") from None
    except PermissionError:
        raise FileProblem("permission denied") from None
    except OSError as exc:
        raise FileProblem(f"cannot read: {exc.strerror or exc}") from None
    return decode_source(data)


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
        reason = exc.reason if isinstance(exc, UnicodeDecodeError) else str(exc)
        pos = getattr(exc, "start", None)
        where = f" at byte {pos}" if pos is not None else ""
        raise FileProblem(f"cannot decode as {encoding}{where}: {reason}") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text
