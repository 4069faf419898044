"""``--format html`` in a real browser: headless Chromium (Debian's ``chromium``) loads reports.

Where ``/usr/bin/chromium`` is missing the browser tests skip, saying so (CI installs it with
apt-get before the tests). The report of the shipped fixtures is made
once, dynamic pass included (about a minute).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
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


@pytest.fixture(scope="session")
def chromium():
    if not os.path.exists(CHROMIUM):
        why = f"no {CHROMIUM}: install Debian's chromium to run the browser tests (.ci/run does)"
        print(f"\nskipping browser tests: {why}")
        pytest.skip(why)
    return CHROMIUM


class Browser:
    def __init__(self, exe: str, profile: Path) -> None:
        self.exe, self.profile = exe, profile

    def _run(self, *args: str) -> subprocess.CompletedProcess:
        cmd = [self.exe, *FLAGS, f"--user-data-dir={self.profile}", *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=180)

    def dom(self, page: Path, hash_: str = "", netlog: Path = None) -> str:
        extra = [f"--log-net-log={netlog}"] if netlog else []
        got = self._run(*extra, "--dump-dom", page.as_uri() + hash_)
        assert got.returncode == 0, got.stderr[-2000:]
        return got.stdout

    def screenshot(self, page: Path, out: Path, width: int, height: int, hash_: str = "") -> None:
        got = self._run(f"--screenshot={out}", f"--window-size={width},{height}", page.as_uri() + hash_)
        assert got.returncode == 0 and out.exists(), got.stderr[-2000:]


@pytest.fixture(scope="session")
def browser(chromium, tmp_path_factory):
    return Browser(chromium, tmp_path_factory.mktemp("chromium-profile"))


def torchlint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "torchlint", *args], cwd=cwd, capture_output=True, text=True, timeout=900
    )


@pytest.fixture(scope="session")
def fixtures_page(tmp_path_factory):
    out = tmp_path_factory.mktemp("html") / "r.html"
    got = torchlint(
        "check", "fixtures", "--config", "fixtures/pyproject.toml", "--format", "html", "-o", str(out), cwd=ROOT
    )
    assert got.returncode in (0, 1), got.stderr
    return out


def embedded(page_text: str, element_id: str) -> dict:
    m = re.search(rf'<script type="application/json" id="{element_id}">(.*?)</script>', page_text, re.S)
    assert m, element_id
    return json.loads(m.group(1))


class Elements(HTMLParser):
    """Every element's tag and attributes, and the text of the page."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.elements, self.text = [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def by_id(self, prefix: str):
        return {a["id"]: a for _, a in self.elements if a.get("id", "").startswith(prefix)}

    def body(self):
        return next(a for t, a in self.elements if t == "body")


def hidden(attrs) -> bool:
    return "hidden" in attrs.get("class", "").split()


@pytest.mark.dynamo  # the report of the fixtures runs their targets
def test_dom_holds_every_finding_and_target(browser, fixtures_page):
    doc = embedded(fixtures_page.read_text("utf-8"), "report")
    assert doc["findings"] and doc["targets"] and all("graph_lines" in t for t in doc["targets"] if not t["error"])
    dom = Elements(browser.dom(fixtures_page))
    assert dom.body().get("data-ready") == "1"
    findings = dom.by_id("finding-")
    assert len(findings) == len(doc["findings"])
    for i, f in enumerate(doc["findings"]):
        assert findings[f"finding-{i}"]["data-rule"] == (f["rule"] or f["gb_code"] or "dynamo")
        assert not hidden(findings[f"finding-{i}"])
    shown_targets = {a["data-target"] for _, a in dom.elements if "data-target" in a}
    assert shown_targets == {t["target"] for t in doc["targets"]}
    # the graph map shades lines by graph: a target with breaks has rows of more than one graph
    assert {a["data-graph"] for _, a in dom.elements if "data-graph" in a} >= {"0", "1"}


@pytest.mark.dynamo  # the report of the fixtures runs their targets
def test_clicking_a_filter_hides_the_rest(browser, fixtures_page):
    doc = embedded(fixtures_page.read_text("utf-8"), "report")
    dynamic = {f"finding-{i}" for i, f in enumerate(doc["findings"]) if f["source"] != "static"}
    assert dynamic
    dom = Elements(browser.dom(fixtures_page, "#click=card-breaks"))
    findings = dom.by_id("finding-")
    assert {k for k, a in findings.items() if not hidden(a)} == dynamic
    assert dom.body()["data-shown"] == str(len(dynamic))
    # clicking the card again shows everything
    dom = Elements(browser.dom(fixtures_page, "#click=card-breaks,card-breaks"))
    assert not any(hidden(a) for a in dom.by_id("finding-").values())
    # a rule from the select: only that rule's findings stay
    rule = next(f["rule"] for f in doc["findings"] if f["rule"])
    dom = Elements(browser.dom(fixtures_page, f"#select=filter-rule:{rule}"))
    kept = {k for k, a in dom.by_id("finding-").items() if not hidden(a)}
    assert kept == {f"finding-{i}" for i, f in enumerate(doc["findings"]) if f["rule"] == rule}
    assert 0 < len(kept) < len(doc["findings"])
    # files whose findings are all hidden are hidden too
    paths = {f["path"] for f in doc["findings"] if f["rule"] == rule}
    files = {a["data-path"]: hidden(a) for _, a in dom.elements if "data-path" in a}
    assert {p for p, h in files.items() if not h} == paths
    # the search box
    dom = Elements(browser.dom(fixtures_page, "#select=search:transformer_block"))
    kept = {k for k, a in dom.by_id("finding-").items() if not hidden(a)}
    assert kept and kept == {
        f"finding-{i}"
        for i, f in enumerate(doc["findings"])
        if "transformer_block" in f["path"] or "transformer_block" in (f["target"] or "")
    }


def png_size(path: Path):
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


@pytest.mark.dynamo  # the report of the fixtures runs their targets
@pytest.mark.parametrize("width,height", [(1280, 900), (390, 844)])
def test_screenshots(browser, fixtures_page, width, height, tmp_path):
    out = tmp_path / f"report-{width}x{height}.png"
    browser.screenshot(fixtures_page, out, width, height, "#section=graphmap")
    assert png_size(out) == (width, height)
    assert out.stat().st_size > 20_000  # drawn, not blank
    keep = os.environ.get("TORCHLINT_SCREENSHOTS")
    if keep:
        shutil.copy(out, Path(keep) / out.name)


def page_requests(netlog: Path) -> set:
    """URLs the page itself asked for (a request for a site of ``file://``), from Chromium's
    net log; the browser's own background requests (updates, time) have no such site."""
    log = json.loads(netlog.read_text("utf-8", errors="replace"))
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    return {
        e["params"]["url"]
        for e in log["events"]
        if e["type"] == start
        and "site=file://" in e["params"].get("site_for_cookies", "")
        and not e["params"]["url"].startswith("file:")
    }


def test_the_request_check_sees_a_request(browser, tmp_path):
    probe = tmp_path / "probe.html"
    probe.write_text('<html><body><img src="http://127.0.0.1:9/probe.png"></body></html>', encoding="utf-8")
    netlog = tmp_path / "net.json"
    browser.dom(probe, netlog=netlog)
    assert page_requests(netlog) == {"http://127.0.0.1:9/probe.png"}


@pytest.mark.dynamo  # the report of the fixtures runs their targets
def test_page_makes_no_network_request(browser, fixtures_page, tmp_path):
    text = fixtures_page.read_text("utf-8")
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', text)
    assert csp and "default-src 'none'" in csp.group(1) and "unsafe-inline" not in csp.group(1).split("script-src")[1]
    netlog = tmp_path / "net.json"
    # every section drawn, a filter clicked, a rule page opened
    dom = Elements(browser.dom(fixtures_page, "#click=card-breaks,card-breaks&click=rule-0", netlog=netlog))
    assert dom.body().get("data-ready") == "1"
    assert any("rulepage" in a.get("class", "") for _, a in dom.elements)  # the rule page opened
    for tag, attrs in dom.elements:
        assert "src" not in attrs and tag != "link", (tag, attrs)
    assert page_requests(netlog) == set()


EVIL = """import torch


class Evil(torch.nn.Module):
    # <script>document.documentElement.setAttribute("data-xss", "1")</script>
    # <img src=x onerror="document.documentElement.setAttribute('data-xss', '2')"> & <!-- comment
    def forward(self, x):
        print("</script><script>alert(1)</script>")
        s = x.sum().item()  # <b>bold</b> </script>
        return x * s
"""


def test_untrusted_text_is_shown_as_text(browser, tmp_path):
    (tmp_path / "evil.py").write_text(EVIL, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("[tool.torchlint]\n", encoding="utf-8")
    out = tmp_path / "r.html"
    got = torchlint("check", "evil.py", "--format", "html", "-o", str(out), cwd=tmp_path)
    assert got.returncode == 1, got.stderr
    text = out.read_text("utf-8")
    # only the page's own three script elements, and the JSON cannot close its tag
    assert text.count("<script") == 3 and text.count("</script>") == 3
    for element_id in ("report", "extras"):
        body = re.search(rf'id="{element_id}">(.*?)</script>', text, re.S).group(1)
        assert "<" not in body and ">" not in body
    doc = embedded(text, "report")
    assert doc["findings"] and doc["findings"][0]["path"] == "evil.py"
    dom_text = browser.dom(out)
    dom = Elements(dom_text)
    html_attrs = next(a for t, a in dom.elements if t == "html")
    assert "data-xss" not in html_attrs and dom.body().get("data-ready") == "1"
    assert [t for t, _ in dom.elements].count("script") == 3
    assert not any(t == "img" for t, _ in dom.elements)
    shown = "".join(dom.text)
    assert 'print("</script><script>alert(1)</script>")' in shown
    assert "s = x.sum().item()  # <b>bold</b> </script>" in shown
    assert "<img src=x onerror=\"document.documentElement.setAttribute('data-xss', '2')\"> & <!-- comment" in shown


def test_embedded_json_is_the_json_document(tmp_path):
    from torchlint.api import check  # noqa: F401  (the public API builds the same Report)

    (tmp_path / "m.py").write_text(EVIL, encoding="utf-8")
    html = torchlint("check", "m.py", "--format", "html", cwd=tmp_path)
    js = torchlint("check", "m.py", "--format", "json", cwd=tmp_path)
    assert embedded(html.stdout, "report") == json.loads(js.stdout)


GRAPHS = """import torch


def helper(x):
    return x.cos()


def f(x):
    y = x.sin()
    z = helper(y)
    print("break")
    w = z * 2
    return w + 1
"""


@pytest.mark.dynamo
def test_graph_lines_say_which_user_lines_landed_in_which_graph():
    pytest.importorskip("torch")
    from torchlint.dynamic.observe import observe_source

    obs, path = observe_source(GRAPHS, "f", ["f32[4]"])
    assert obs.graphs == 2 and len(obs.graph_lines) == 2
    path = os.path.realpath(path)
    first, second = ({g["path"]: g["lines"] for g in graph} for graph in obs.graph_lines)
    assert first == {path: [5, 9, 10]}  # helper's line and the call that led to it
    assert second == {path: [12, 13]}
    assert obs.answer().graph_lines == obs.graph_lines


def test_fix_diffs_make_the_same_edits_as_the_fixer(tmp_path, monkeypatch):
    from torchlint.api import check
    from torchlint.fixes.edits import apply_edits
    from torchlint.output.html import _edited, extras

    (tmp_path / "m.py").write_text(EVIL, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    report = check(["m.py"], dynamic=False)
    fixed = [f for f in report.findings if f.fix is not None and f.fix.edits]
    assert fixed
    for f in fixed:
        assert _edited(EVIL, f.fix.edits) == apply_edits(EVIL, f.fix.edits) != EVIL
    diffs = extras(report)["diffs"]
    assert set(diffs) == {str(i) for i, f in enumerate(report.findings) if f.fix is not None and f.fix.edits}


def test_the_page_leads_with_the_break_to_fix_first_and_shows_each_cost(browser, tmp_path):
    from torchlint.findings import Report
    from torchlint.output import fix_first
    from torchlint.output.html import page
    from torchlint.run.program import Places, ProcessRecords, observed

    (tmp_path / "serve.py").write_text("\n" * 30, "utf-8")
    serve = str(tmp_path / "serve.py")
    records = [
        {"kind": "break", "frames": [[serve, n]], "loc": [serve, n], "gb_type": r, "reason": r}
        for n, r in ((12, "print"), (14, "item"))
    ]
    records.append(
        {
            "kind": "cost", "pid": 1, "frame": "forward", "path": serve, "calls": 40, "timed": 30, "kept": 30,
            "wall_ns": 30 * 1_300_000, "p50_ns": 1_250_000, "p95_ns": 1_600_000, "graph_ns": 30 * 150_000,
            "other_ns": 0, "breaks": [[serve, 12, 30 * 30_000], [serve, 14, 30 * 1_100_000]],
            "compile_calls": 1, "record_calls": 0,
        }
    )  # fmt: skip
    cwd = os.getcwd()
    os.chdir(tmp_path)  # paths in the report relative to the project, as the CLI makes them
    try:
        places = Places([str(tmp_path)], str(tmp_path))
        result, findings, _ = observed([ProcessRecords({"pid": 1}, records)], places, name="p", run=None)
        report = Report(findings=findings, targets=[result], dynamic_ran=True)
        out = tmp_path / "r.html"
        out.write_text(page(report), "utf-8")
    finally:
        os.chdir(cwd)
    first = fix_first(findings)
    assert first == "fix this first: serve.py:14, 1.1 ms per call (85% of `forward`)"
    dom = Elements(browser.dom(out))
    ids = [a.get("id") for _, a in dom.elements if a.get("id")]
    assert ids.index("fix-first") < ids.index("cards")  # the page leads with it
    shown = "".join(dom.text)
    assert first in shown and "then: serve.py:12, 0.03 ms per call (2% of `forward`)" in shown
    costs = dom.by_id("cost-")
    assert len(costs) == 2
    assert "cost: 1.1 ms per call (85% of `forward`) over 30 timed calls" in shown
