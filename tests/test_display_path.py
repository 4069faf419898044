"""The paths shown to users have one home, ``torchlint.files.display_path``: the static pass,
the dynamic pass's answers, ``torchlint run``'s places, the editor and the Python API agree."""

from __future__ import annotations

import os

from torchlint.dynamic.records import Places, relpath
from torchlint.files import display_path


def test_inside_is_relative_and_outside_is_absolute_or_as_given(tmp_path):
    cwd = tmp_path / "work"
    (cwd / "pkg").mkdir(parents=True)
    inside, outside = str(cwd / "pkg" / "m.py"), str(tmp_path / "other.py")
    assert display_path(inside, str(cwd)) == display_path(inside, str(cwd), absolute=False) == "pkg/m.py"
    assert display_path(outside, str(cwd)) == outside
    assert display_path("../other.py", str(cwd), absolute=False) == "../other.py"  # as given
    assert display_path(str(cwd), str(cwd)) == "."


def test_a_folder_whose_name_starts_with_two_dots_is_inside(tmp_path):
    # "..cache/m.py" lies inside the folder: only a ".." component leads out of it
    path = str(tmp_path / "..cache" / "m.py")
    assert display_path(path, str(tmp_path)) == os.path.join("..cache", "m.py")
    assert display_path(path, str(tmp_path), absolute=False) == os.path.join("..cache", "m.py")


def test_the_dynamic_pass_and_run_show_paths_as_the_static_pass_does(tmp_path):
    model = tmp_path / "models" / "net.py"
    model.parent.mkdir()
    model.write_text("x = 1\n")
    assert relpath(str(model), str(tmp_path)) == display_path(str(model), str(tmp_path)) == "models/net.py"
    assert relpath(None, str(tmp_path)) is None and relpath("", str(tmp_path)) == ""
    places = Places([str(tmp_path)], str(tmp_path))
    assert places.show(str(model)) == "models/net.py"


def test_the_editor_sees_paths_as_the_check_does(tmp_path):
    from torchlint.config import Settings
    from torchlint.lsp.core import relative_path

    settings = Settings(root=str(tmp_path), source=str(tmp_path / "pyproject.toml"))
    path = str(tmp_path / "..cache" / "m.py")
    assert relative_path(path, settings) == display_path(path, str(tmp_path)) == os.path.join("..cache", "m.py")
