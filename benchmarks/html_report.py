"""How fast a large ``--format html`` report opens and filters in headless Chromium.

    python benchmarks/html_report.py             # transformers/models (pinned wheel), static pass
    python benchmarks/html_report.py --workdir /tmp/tl-html   # keep the wheel and the cache for reruns

Downloads the pinned transformers wheel (as benchmarks/static.py does), writes the static
report of ``transformers/models`` as HTML, then loads it in Debian's headless ``chromium``
several times: once as is (time to parse, draw and lay out the page, from navigation start)
and once per filter, replaying a click on a summary card or a choice in a select through the
page's ``#click=`` / ``#select=`` hash (time from the click to the filtered page laid out).
Prints the figures and the verdict against the 1 s bar; the times are the page's own
``performance.now()`` readings, not the browser's start-up.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from static import PINS, fetch_corpora

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
]


def load(chromium: str, page: Path, profile: Path, hash_: str = "") -> dict:
    t0 = time.perf_counter()
    got = subprocess.run(
        [chromium, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri() + hash_],
        capture_output=True,
        text=True,
        timeout=300,
    )
    wall = time.perf_counter() - t0
    body = re.search(r"<body([^>]*)>", got.stdout)
    if got.returncode != 0 or not body:
        sys.exit(f"chromium failed: {got.stderr.strip()[-500:]}")
    attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', body.group(1)))
    return {
        "render": float(attrs["data-render-ms"]),
        "action": float(attrs.get("data-action-ms", "nan")),
        "shown": int(attrs["data-shown"]),
        "wall": wall,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--wheels", type=Path, help="read the wheel from this folder (no index)")
    ap.add_argument("--workdir", type=Path, help="keep downloads here")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--select", default="TL0,TL1", help="rules to run (default: breaks and performance rules)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        target = fetch_corpora(work, args.wheels, ["transformers"])["transformers"]
        page = Path(tmp) / "report.html"
        t0 = time.perf_counter()
        got = subprocess.run(
            [
                sys.executable,
                "-m",
                "torchlint",
                "check",
                str(target),
                "--select",
                args.select,
                "--cache-dir",
                str(work / "cache"),
                "--format",
                "html",
                "-o",
                str(page),
            ],
            cwd=target.parent,
            capture_output=True,
            text=True,
        )
        if got.returncode not in (0, 1):
            sys.exit(f"torchlint failed: {got.stderr.strip()}")
        findings = int(re.search(r'"summary":\{"files":\d+,"findings":(\d+)', page.read_text("utf-8")).group(1))
        print(
            f"transformers {PINS['transformers']} models: {findings} findings, "
            f"{page.stat().st_size / 1e6:.1f} MB page, written in {time.perf_counter() - t0:.1f} s"
        )
        profile = Path(tmp) / "profile"
        rule = re.search(r'"findings":\[\{"rule":"(TL\d+)"', page.read_text("utf-8")).group(1)
        cases = [
            ("open", ""),
            ("filter: severity warning", "#select=filter-severity:warning"),
            (f"filter: rule {rule}", f"#select=filter-rule:{rule}"),
            ("filter: search 'item'", "#select=search:item"),
        ]
        worst = 0.0
        for label, hash_ in cases:
            runs = [load(args.chromium, page, profile, hash_) for _ in range(args.reps)]
            key = "render" if not hash_ else "action"
            ms = statistics.median(r[key] for r in runs)
            total = statistics.median(r["render"] + (r["action"] if hash_ else 0) for r in runs)
            worst = max(worst, total)
            print(
                f"  {label:28s} {ms:8.1f} ms   (open+action {total:7.1f} ms, {runs[0]['shown']} shown, "
                f"browser process {statistics.median(r['wall'] for r in runs):.2f} s)"
            )
        print(f"worst open+filter: {worst:.0f} ms  -> {'under' if worst < 1000 else 'OVER'} the 1 s bar")
    return 0


if __name__ == "__main__":
    sys.exit(main())
