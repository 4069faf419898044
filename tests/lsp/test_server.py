"""`torchlint server` driven by a real LSP client (pytest-lsp) over stdio, in its own process."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

from torchlint.lsp import core  # noqa: E402

MODEL = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x):
        return x * x.sum().item()
"""

PRINTS = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x):
        y = x + 1
        print("y", y)
        return y * x.sum().item()
"""


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "torchlint", "server", "--debounce", "150"])
)
async def client(lsp_client: LanguageClient, tmp_path):
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params):  # the server asks to watch pyproject.toml files
        lsp_client.registrations.extend(params.registrations)

    lsp_client.registrations = []
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=tmp_path.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=tmp_path.as_uri(), name="ws")],
        )
    )
    yield
    await lsp_client.shutdown_session()


def open_doc(client: LanguageClient, path: Path, text: str) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        )
    )
    return uri


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def diagnostics_for(client: LanguageClient, uri: str, want, timeout: float = 20.0):
    """Wait until the published diagnostics of ``uri`` satisfy ``want``."""

    async def wait():
        while True:
            got = client.diagnostics.get(uri)
            if got is not None and want(list(got)):
                return list(got)
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    return await asyncio.wait_for(wait(), timeout)


async def stats(client: LanguageClient) -> dict:
    result = await client.protocol.send_request_async("torchlint/stats", None)
    if isinstance(result, dict):
        return result
    return {key: getattr(result, key) for key in ("lint_runs", "pending", "project_builds")}


async def until_settled(client: LanguageClient, runs_before: int, timeout: float = 20.0) -> dict:
    """The server's stats once no lint waits or runs and at least one ran since ``runs_before``."""

    async def wait():
        while True:
            now = await stats(client)
            if now["pending"] == 0 and now["lint_runs"] > runs_before:
                return now
            await asyncio.sleep(0.05)

    return await asyncio.wait_for(wait(), timeout)


def apply(text: str, edits) -> str:
    """Apply LSP edits (UTF-16 positions; the test texts are ASCII) as an editor would."""
    return core.apply_edits(
        text,
        [
            core.TextEdit(
                (e.range.start.line, e.range.start.character), (e.range.end.line, e.range.end.character), e.new_text
            )
            for e in edits
        ],
    )


@pytest.mark.asyncio
async def test_item_in_forward_is_flagged_and_the_code_action_clears_it(client: LanguageClient, tmp_path):
    path = tmp_path / "model.py"
    path.write_text("")  # on disk the file is empty: the server must read the buffer
    uri = open_doc(client, path, MODEL)
    diags = await diagnostics_for(client, uri, lambda d: len(d) > 0)
    assert [(d.code, d.range.start.line, d.range.start.character) for d in diags] == [("TL001", 6, 19)]
    d = diags[0]
    assert d.severity == types.DiagnosticSeverity.Error and d.source == "torchlint"
    assert d.code_description.href.startswith("file:") and d.code_description.href.endswith("TL001-tensor-item.md")
    assert Path(core.rule_page_uri("TL001")[len("file://") :]).is_file()

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=d.range,
            context=types.CodeActionContext(diagnostics=[d]),
        )
    )
    titles = [a.title for a in actions]
    fix = next(a for a in actions if "(unsafe)" in a.title)
    assert not fix.is_preferred  # TL001's fix changes a number to a tensor: unsafe
    assert "TL001: add `# torchlint: ignore[TL001]`" in titles
    new = apply(MODEL, fix.edit.changes[uri])
    assert "return x * x.sum()\n" in new
    change(client, uri, 2, new)
    assert await diagnostics_for(client, uri, lambda d: len(d) == 0) == []

    # the ignore comment, applied through the client, silences it too
    change(client, uri, 3, MODEL)
    diags = await diagnostics_for(client, uri, lambda d: len(d) == 1)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diags[0].range,
            context=types.CodeActionContext(diagnostics=diags),
        )
    )
    ignore = next(a for a in actions if "ignore" in a.title)
    new = apply(MODEL, ignore.edit.changes[uri])
    assert "        return x * x.sum().item()  # torchlint: ignore[TL001]\n" in new
    change(client, uri, 4, new)
    assert await diagnostics_for(client, uri, lambda d: len(d) == 0) == []


@pytest.mark.asyncio
async def test_safe_fixes_are_preferred_and_fix_all_is_a_source_action(client: LanguageClient, tmp_path):
    uri = open_doc(client, tmp_path / "m.py", PRINTS)
    diags = await diagnostics_for(client, uri, lambda d: len(d) == 2)
    assert sorted(d.code for d in diags) == ["TL001", "TL004"]
    printed = next(d for d in diags if d.code == "TL004")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=printed.range,
            context=types.CodeActionContext(diagnostics=[printed], only=[types.CodeActionKind.QuickFix]),
        )
    )
    guard = next(a for a in actions if a.title.startswith("TL004:") and "ignore" not in a.title)
    assert guard.is_preferred and "(unsafe)" not in guard.title
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=printed.range,
            context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.SourceFixAll]),
        )
    )
    assert [a.kind for a in actions] == ["source.fixAll.torchlint"]
    new = apply(PRINTS, actions[0].edit.changes[uri])
    assert '        if not torch.compiler.is_compiling():\n            print("y", y)\n' in new
    assert ".item()" in new  # the unsafe fix is not part of "fix all safe"
    change(client, uri, 2, new)
    diags = await diagnostics_for(client, uri, lambda d: len(d) == 1)
    assert diags[0].code == "TL001"


@pytest.mark.asyncio
async def test_hover_shows_the_rule_page(client: LanguageClient, tmp_path):
    uri = open_doc(client, tmp_path / "m.py", MODEL)
    await diagnostics_for(client, uri, lambda d: len(d) == 1)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=6, character=25)
        )
    )
    assert hover is not None and "TL001" in hover.contents.value and "## What it does" in hover.contents.value
    none = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=2)
        )
    )
    assert none is None


@pytest.mark.asyncio
async def test_config_change_is_picked_up(client: LanguageClient, tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.torchlint]\nselect = ['TL0']\n")
    uri = open_doc(client, tmp_path / "m.py", PRINTS)
    await diagnostics_for(client, uri, lambda d: len(d) == 2)
    (tmp_path / "pyproject.toml").write_text("[tool.torchlint]\nselect = ['TL0']\nignore = ['TL001']\n")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=(tmp_path / "pyproject.toml").as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    diags = await diagnostics_for(client, uri, lambda d: len(d) == 1)
    assert diags[0].code == "TL004"
    # without a notification: the next lint re-stats the config
    (tmp_path / "pyproject.toml").write_text("[tool.torchlint]\nselect = ['TL0']\nignore = ['TL004']\n   \n")
    change(client, uri, 2, PRINTS + "\n")
    diags = await diagnostics_for(client, uri, lambda d: len(d) == 1 and d[0].code == "TL001")
    assert diags[0].code == "TL001"


@pytest.mark.asyncio
async def test_200_rapid_edits_do_not_queue_200_lint_runs(client: LanguageClient, tmp_path):
    uri = open_doc(client, tmp_path / "m.py", MODEL)
    await diagnostics_for(client, uri, lambda d: len(d) == 1)
    before = (await stats(client))["lint_runs"]
    text = MODEL
    for k in range(200):
        text = text + f"# edit {k}\n"
        change(client, uri, k + 2, text)
    final = text + "y = 1\n"
    change(client, uri, 202, final)
    # The old publish already has one diagnostic: wait for the server to settle instead (the
    # edits reached it before this request, so a waiting or running lint shows as pending).
    settled = await until_settled(client, before)
    runs = settled["lint_runs"] - before
    print(f"lint runs for 201 rapid edits: {runs}")
    assert 1 <= runs <= 10, runs
    assert len(client.diagnostics[uri]) == 1


@pytest.mark.asyncio
async def test_syntax_error_mid_edit_clears_diagnostics_and_the_server_lives_on(client: LanguageClient, tmp_path):
    uri = open_doc(client, tmp_path / "m.py", MODEL)
    await diagnostics_for(client, uri, lambda d: len(d) == 1)
    broken = MODEL.replace("return x * x.sum().item()", "return x * x.sum().item(")
    change(client, uri, 2, broken)
    assert await diagnostics_for(client, uri, lambda d: len(d) == 0) == []  # nothing stale
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=6, character=0), end=types.Position(line=6, character=5)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert not actions
    change(client, uri, 3, MODEL)
    diags = await diagnostics_for(client, uri, lambda d: len(d) == 1)
    assert diags[0].code == "TL001"


def test_text_edits_are_minimal_and_reproduce_the_new_text():
    old = "a = 1\nb = x.item()\nc = 3\n"
    new = "a = 1\nb = x\nc = 3\nd = 4\n"
    edits = core.text_edits(old, new)
    assert core.apply_edits(old, edits) == new
    assert edits[0] == core.TextEdit((1, 5), (1, 12), "")
    assert core.text_edits(old, old) == []


def test_server_command_without_the_extra_says_what_to_install(monkeypatch):
    import builtins

    from support import run_cli

    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name == "torchlint.lsp.server":
            err = ImportError("No module named 'pygls'")
            err.name = "pygls"
            raise err
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)
    result = run_cli(["server"])
    assert result.exit_code == 2
    assert "pip install 'torchlint[lsp]'" in result.stderr


# -- the README's editor snippets ------------------------------------------------------------
def _snippet_commands():
    import json
    import re

    import tomllib
    from readme_snippets import snippet

    vscode = json.loads(snippet("vscode"))
    neovim = re.search(r"cmd = \{ (.*?) \}", snippet("neovim")).group(1)
    helix = tomllib.loads(snippet("helix"))["language-server"]["torchlint"]
    return {
        "vscode": [vscode["glspc.serverCommand"], *vscode["glspc.serverCommandArguments"]],
        "neovim": [s.strip().strip('"') for s in neovim.split(",")],
        "helix": [helix["command"], *helix["args"]],
    }, vscode


def _initialize(argv):
    """Start ``argv`` (``torchlint`` run as this Python's module) and do initialize/shutdown."""
    import json
    import subprocess

    def frame(obj):
        body = json.dumps(obj).encode()
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": None, "capabilities": {}},
        },
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None},
        {"jsonrpc": "2.0", "method": "exit", "params": None},
    ]
    proc = subprocess.run(
        [sys.executable, "-m", *argv], input=b"".join(frame(m) for m in messages), capture_output=True, timeout=60
    )
    out = proc.stdout.decode()
    start = out.index("{")
    return json.JSONDecoder().raw_decode(out, start)[0]


@pytest.mark.parametrize("editor", ["vscode", "neovim", "helix"])
def test_editor_snippets_start_the_server(editor):
    import tomllib

    commands, _ = _snippet_commands()
    argv = commands[editor]
    scripts = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]["scripts"]
    assert argv[0] in scripts and scripts[argv[0]] == "torchlint.cli:main"  # the installed command
    reply = _initialize(argv)
    assert reply["result"]["serverInfo"]["name"] == "torchlint"
    kinds = reply["result"]["capabilities"]["codeActionProvider"]["codeActionKinds"]
    if editor == "vscode":  # the on-save action the snippet names is one the server offers
        _, vscode = _snippet_commands()
        assert set(vscode["editor.codeActionsOnSave"]) <= set(kinds)
        # the settings the Generic LSP Client extension (llllvvuu.llllvvuu-glspc, 0.1.x) reads
        glspc = {k for k in vscode if k.startswith("glspc.")}
        assert glspc <= {
            "glspc.serverCommand",
            "glspc.serverCommandArguments",
            "glspc.languageId",
            "glspc.environmentVariables",
            "glspc.initializationOptions",
            "glspc.trace.server",
        }
        assert vscode["glspc.languageId"] == "python"  # one language id, a string


# -- regions across files: the workspace's saved files plus the open buffers -----------------
HELPER = """\
import torch


def scale(x):
    return x / x.abs().max().item()
"""

CALLER = """\
import torch
import torch.nn as nn

from helper import scale


class Net(nn.Module):
    def forward(self, x):
        return scale(x) + 1
"""


@pytest.mark.asyncio
async def test_a_helper_called_from_a_forward_in_another_open_document_is_flagged(client: LanguageClient, tmp_path):
    helper = tmp_path / "helper.py"
    helper.write_text(HELPER)
    model = tmp_path / "model.py"
    model.write_text("import torch\n")  # as saved, nothing calls the helper: the buffer must count
    helper_uri = open_doc(client, helper, HELPER)
    await asyncio.sleep(0.5)
    assert list(client.diagnostics.get(helper_uri, [])) == []  # no compiled caller anywhere yet

    model_uri = open_doc(client, model, CALLER)
    diags = await diagnostics_for(client, helper_uri, lambda d: len(d) == 1)
    assert diags[0].code == "TL001" and diags[0].range.start.line == 4
    assert "called from Net.forward in model.py" in diags[0].message
    assert list(client.diagnostics.get(model_uri, [])) == []  # the caller itself is clean

    # editing the caller so that it no longer calls the helper clears the helper's finding
    change(client, model_uri, 2, CALLER.replace("return scale(x) + 1", "return x + 1"))
    assert await diagnostics_for(client, helper_uri, lambda d: len(d) == 0) == []

    # a saved file of the workspace that is not open counts too
    (tmp_path / "other.py").write_text(CALLER.replace("class Net", "class Other"))
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=(tmp_path / "other.py").as_uri(), type=types.FileChangeType.Created)]
        )
    )
    diags = await diagnostics_for(client, helper_uri, lambda d: len(d) == 1)
    assert "called from Other.forward in other.py" in diags[0].message
    # and an edit inside an expression of the caller re-summarises it without re-deciding regions
    before = await stats(client)
    change(client, model_uri, 3, CALLER.replace("return scale(x) + 1", "return x + 2"))
    for _ in range(200):
        after = await stats(client)
        if after["lint_runs"] > before["lint_runs"] and not after["pending"]:
            break
        await asyncio.sleep(0.05)
    assert after["lint_runs"] > before["lint_runs"] and after["project_builds"] == before["project_builds"]


MODAL = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x):
        if self.training:
            x = x * x.sum().item()
        else:
            x = x + len(x.tolist())
        return x
"""

TRAINS = """\
import torch

from model import Net

model = torch.compile(Net())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.randn(2, 4)).sum().backward()
opt.step()
"""


def check_json(cwd: Path, *files: str, only: str | None = None) -> list[tuple]:
    """What ``torchlint check`` finds (``only``: in that one file)."""
    import json
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "torchlint", "check", "--no-dynamic", "--format", "json", *files],
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    found = json.loads(done.stdout)["findings"]
    return sorted((f["line"], f["rule"], f.get("mode")) for f in found if only is None or f["path"] == only)


def seen(diags) -> list[tuple]:
    return sorted((d.range.start.line + 1, d.code, d.data.get("mode")) for d in diags)


@pytest.mark.asyncio
async def test_the_editor_checks_the_modes_the_project_trains_in_as_check_does(client: LanguageClient, tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.torchlint]\n")  # the project root, for check too
    model = tmp_path / "model.py"
    model.write_text(MODAL)
    (tmp_path / "train.py").write_text(TRAINS)  # saved, never opened: the project trains
    uri = open_doc(client, model, MODAL)
    want = check_json(tmp_path, "model.py")
    assert {m for _, _, m in want} == {"train", "eval"}  # both branches, each labelled
    diags = await diagnostics_for(client, uri, lambda d: len(d) == len(want))
    assert seen(diags) == want
    assert any(d.message.endswith("(training only)") for d in diags)

    # the training script stops training: eval alone, nothing labelled, as check says
    (tmp_path / "train.py").write_text(TRAINS.replace("model(torch.randn(2, 4)).sum().backward()\nopt.step()\n", ""))
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=(tmp_path / "train.py").as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    want = check_json(tmp_path, "model.py")
    assert want and all(m is None for _, _, m in want)
    diags = await diagnostics_for(client, uri, lambda d: all(x.data.get("mode") is None for x in d))
    assert seen(diags) == want


LOSSES = """\
import torch
from torch import nn


class PairLoss(nn.Module):
    def forward(self, emb, labels):
        return emb[labels > 0].pow(2).mean()
"""


@pytest.mark.asyncio
async def test_a_loss_holds_in_training_in_the_editor_as_check_says(client: LanguageClient, tmp_path):
    """In a project that trains, a loss no model's forward calls runs in the training step."""
    (tmp_path / "pyproject.toml").write_text("[tool.torchlint]\n")
    (tmp_path / "model.py").write_text(MODAL)
    (tmp_path / "train.py").write_text(TRAINS)
    losses = tmp_path / "losses.py"
    losses.write_text(LOSSES)
    want = check_json(tmp_path, "losses.py")
    assert want == [(7, "TL008", "train")]
    uri = open_doc(client, losses, LOSSES)
    diags = await diagnostics_for(client, uri, lambda d: len(d) == len(want))
    assert seen(diags) == want


SOLVER = """\
import torch


class Euler:
    def __init__(self, dt):
        self.dt = dt

    def integrate(self, y):
        return y * float(y.sum()) * self.dt
"""

SOLVING = """\
import torch
import torch.nn as nn

from solver import Euler


class Net(nn.Module):
    def forward(self, y):
        solver = Euler(0.1)
        return solver.integrate(y)
"""


@pytest.mark.asyncio
async def test_a_break_in_a_made_objects_method_is_flagged_at_the_call_as_check_does(client: LanguageClient, tmp_path):
    """TL021 needs the findings of the file that defines the method: the server lints it."""
    (tmp_path / "pyproject.toml").write_text("[tool.torchlint]\n")
    (tmp_path / "solver.py").write_text(SOLVER)  # saved, never opened
    model = tmp_path / "model.py"
    model.write_text(SOLVING)
    want = check_json(tmp_path, "model.py", only="model.py")
    assert (10, "TL021", None) in want
    uri = open_doc(client, model, SOLVING)
    diags = await diagnostics_for(client, uri, lambda d: len(d) == len(want))
    assert seen(diags) == want

    # the method no longer breaks: once the caller is linted again, the call is clean
    (tmp_path / "solver.py").write_text(SOLVER.replace("float(y.sum())", "y.sum()"))
    change(client, uri, 2, SOLVING + "\n")
    assert await diagnostics_for(client, uri, lambda d: len(d) == 0) == []


def test_the_server_package_ships_in_the_wheel():
    """``torchlint server`` from a wheel: every package folder is in setuptools' list."""
    import tomllib

    root = Path(__file__).resolve().parents[2]
    listed = set(tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {".".join(p.parent.relative_to(root).parts) for p in (root / "torchlint").rglob("__init__.py")}
    assert "torchlint.lsp" in folders and folders <= listed, folders - listed
