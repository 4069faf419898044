"""The server's project: summaries of the saved files are kept in the project's cache, shared
with ``torchlint check``, so a new session on a checked project does not summarise it again."""

from __future__ import annotations

import pytest
from support import run_cli, write

from torchlint.analysis import summary as summary_mod
from torchlint.config import Settings
from torchlint.lsp import project as lsp_project

MODEL = """
import torch
from torch import nn

from helpers import scale


class Net(nn.Module):
    def forward(self, x):
        return scale(x)
"""

HELPER = """
def scale(x):
    return x * x.sum().item()
"""


@pytest.fixture
def made(monkeypatch):
    """How many summaries were made (not taken from a cache)."""
    count = [0]
    real = summary_mod.summarize

    def spy(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(lsp_project, "summarize", spy)
    monkeypatch.setattr(summary_mod, "summarize", spy)
    return count


def facts(root):
    return lsp_project.WorkspaceProject(str(root), Settings()).facts(str(root / "helpers.py"))["eval"]


def test_a_second_session_takes_the_summaries_from_the_cache(project, made):
    write(project, "model.py", MODEL)
    write(project, "helpers.py", HELPER)
    first = facts(project)
    assert first["reached"] == {"scale": "Net.forward in model.py"}
    assert made[0] == 2 and (project / ".torchlint_cache").is_dir()
    made[0] = 0
    assert facts(project) == first
    assert made[0] == 0
    write(project, "helpers.py", HELPER.replace("scale", "grow"))  # edited since: made again
    assert "reached" not in facts(project)
    assert made[0] == 1


def test_the_check_and_the_server_share_the_summaries(project, made):
    write(project, "model.py", MODEL)
    write(project, "helpers.py", HELPER)
    assert run_cli(["check", ".", "--no-dynamic"]).exit_code == 1
    made[0] = 0
    assert facts(project)["reached"] == {"scale": "Net.forward in model.py"}
    assert made[0] == 0


def test_a_lone_file_gets_no_cache_folder(project, made):
    """Outside any project root (no config, no workspace folder) a saved file is summarised
    as before, and nothing is written beside it."""
    write(project, "model.py", MODEL)
    lone = lsp_project.WorkspaceProject(str(project), Settings(), scan=False)
    made[0] = 0
    lone.set_buffer(str(project / "model.py"), MODEL.replace("scale(x)", "scale(x) + 1"))
    assert made[0] == 2  # the buffer, and the saved file it is compared with
    assert not (project / ".torchlint_cache").exists()
