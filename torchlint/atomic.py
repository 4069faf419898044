"""Write files so that an interrupted run never leaves a truncated one behind."""

from __future__ import annotations

import os
import tempfile


def write_text_atomic(path: str, text: str, encoding: str = "utf-8", *, durable: bool = True) -> None:
    """Write to a temporary file in the same folder, flush it to disk, then rename over ``path``
    (over the file a symbolic link points to, so the link stays a link).

    ``durable=False`` skips the flush to disk: still never a truncated file, but one a power
    cut may lose (what a cache entry, cheap to recompute, can afford)."""
    path = os.path.realpath(path)
    folder = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(prefix=".torchlint-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="") as fh:
            fh.write(text)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        if os.path.exists(path):
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
