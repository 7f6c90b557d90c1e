"""``gdl new``: every template writes a file that checks clean and solves."""

from __future__ import annotations

from pathlib import Path

import pytest

import gdl
from gdl.cli import main
from gdl.templates import TEMPLATES, game_name


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_new_file_checks_and_solves(template: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / f"my-{template}.gdl"
    assert main(["new", str(tmp_path / f"my-{template}"), "--template", template]) == 0
    text = path.read_text(encoding="utf-8")
    assert f"game My{template.capitalize()} " in text and "docs/language.md" in text
    capsys.readouterr()
    assert main(["check", str(path), "--playouts", "30", "--time", "0"]) == 0
    assert "0 errors, 0 warnings" in capsys.readouterr().out
    assert main(["solve", str(path)]) == 0
    out = capsys.readouterr().out
    expected = {"puzzle": "shortest solution", "simultaneous": "optimal mixed strategies"}
    assert expected.get(template, "principal variation") in out
    assert main(["fmt", "--check", str(path)]) == 0  # templates are in the canonical layout


def test_new_refuses_to_overwrite_and_unknown_templates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "g.gdl"
    path.write_text("keep me", encoding="utf-8")
    assert main(["new", str(path)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == "keep me"
    assert main(["new", str(path), "--force"]) == 0
    assert main(["new", str(tmp_path / "x"), "--template", "cards"]) == 2


def test_the_simultaneous_template_is_a_matrix_game_with_a_mixed_strategy(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", str(tmp_path / "s"), "--template", "simultaneous"]) == 0
    game = gdl.load(str(tmp_path / "s.gdl"))
    assert game.simultaneous and not game.warnings
    from solver.simultaneous import solve_simultaneous

    result = solve_simultaneous(game)
    assert result.value[0] == pytest.approx(0) and list(result.strategies[0].values()) == pytest.approx([0.5, 0.5])


def test_game_names_from_file_names() -> None:
    assert game_name("my-game") == "MyGame"
    assert game_name("2048") == "Game2048"
    assert game_name("---") == "MyGame"


def test_section_numbers_cited_by_the_templates_exist_in_the_language_doc() -> None:
    import re

    doc = (Path(__file__).resolve().parent.parent / "docs" / "language.md").read_text(encoding="utf-8")
    headings = set(re.findall(r"^#{2,4} ([0-9]+\.[0-9]+) ", doc, re.MULTILINE))
    for template in TEMPLATES.values():
        cited = set(re.findall(r"\b(2\.[0-9]+)\b", template))
        assert cited and cited <= headings, cited - headings
