"""The static pass never imports torch or the user's code, and works without torch installed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from support import FIXTURES, REPO, write


def test_static_check_does_not_import_torch():
    code = textwrap.dedent(f"""
        import sys
        from click.testing import CliRunner
        from torchlint.cli import main
        result = CliRunner().invoke(main, ["check", {str(FIXTURES)!r}, "--no-dynamic", "--format", "json"])
        assert result.exit_code == 1, result.output
        loaded = [m for m, mod in sys.modules.items() if mod is not None]
        print(json.dumps(sorted(m for m in loaded if m == "torch" or m.startswith("torch."))))
    """)
    proc = subprocess.run([sys.executable, "-c", "import json\n" + code], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []


def test_works_when_torch_cannot_be_imported(tmp_path):
    blocker = tmp_path / "blocker"
    write(blocker, "torch/__init__.py", "raise ImportError('torch is not installed here')\n")
    write(
        tmp_path,
        "model.py",
        """
        import torch
        class Net(torch.nn.Module):
            def forward(self, x):
                return x * x.sum().item()
    """,
    )
    env = dict(os.environ, PYTHONPATH=str(blocker))
    proc = subprocess.run(
        [sys.executable, "-m", "torchlint", "check", "model.py", "--format", "json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["findings"][0]["rule"] == "TL001"
