"""Regenerate docs/graph-map.png: the graph map of a shipped fixture, drawn by ``--format html``.

    python docs/make_screenshots.py            # needs /usr/bin/chromium (Debian's chromium)

Runs ``torchlint check`` with the dynamic pass on ``fixtures/cnn_item_branch.py:ConvNet``
(a ``.item()`` branch splits it into two graphs), writes the HTML report to a temporary folder
and has headless Chromium screenshot its graph map at 1280x900 (and 390x844 with ``--phone``).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
]


def report(out: Path, fixture: str, obj: str) -> None:
    cmd = [
        sys.executable,
        "-m",
        "torchlint",
        "check",
        fixture,
        "--target",
        f"{fixture}:{obj}",
        "--inputs-from",
        f"{fixture}:example_inputs",
        "--format",
        "html",
        "-o",
        str(out),
    ]
    got = subprocess.run(cmd, cwd=ROOT / "fixtures", capture_output=True, text=True)
    if got.returncode not in (0, 1):
        sys.exit(f"torchlint failed: {got.stderr.strip()}")


def screenshot(chromium: str, page: Path, png: Path, size: str, profile: str) -> None:
    cmd = [
        chromium,
        *FLAGS,
        f"--user-data-dir={profile}",
        f"--screenshot={png}",
        f"--window-size={size}",
        page.as_uri() + "#section=graphmap",
    ]
    got = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    if got.returncode != 0 or not png.exists():
        sys.exit(f"chromium failed: {got.stderr.strip()[-500:]}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--fixture", default="cnn_item_branch.py")
    ap.add_argument("--object", default="ConvNet")
    ap.add_argument("--phone", action="store_true", help="also docs/graph-map-phone.png at 390x844")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        report(page, args.fixture, args.object)
        shots = [("graph-map.png", "1280,900")] + ([("graph-map-phone.png", "390,844")] if args.phone else [])
        for name, size in shots:
            screenshot(args.chromium, page, ROOT / "docs" / name, size, str(Path(tmp) / "profile"))
            print(f"wrote docs/{name} ({size.replace(',', 'x')})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
