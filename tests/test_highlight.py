"""Highlighting: the Pygments lexer and the TextMate grammar both know every keyword of the Lark grammar."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pygments.token import Comment, Keyword, Name, String

from gdl import highlight
from gdl.cli import main
from gdl.compiler import BUILTIN_FUNCTIONS
from gdl.highlight import GdlLexer
from gdl.parser import _lark

ROOT = Path(__file__).resolve().parent.parent
TM_GRAMMAR = ROOT / "editors" / "vscode" / "syntaxes" / "gdl.tmLanguage.json"
WORD = re.compile(r"[a-z_]+")


def grammar_keywords() -> set[str]:
    """Every word the Lark grammar lexes as a keyword: literal terminals and word alternations (SHAPE)."""
    parser, _ = _lark()
    found: set[str] = set()
    for terminal in parser.terminals:
        pattern = terminal.pattern
        if pattern.type == "str" and WORD.fullmatch(pattern.value):
            found.add(pattern.value)
        elif pattern.type == "re" and terminal.name != "NAME":
            alternatives = re.fullmatch(r"\(\?:([a-z_|]+)\)", pattern.value)
            if alternatives:
                found.update(alternatives.group(1).split("|"))
    return found


KEYWORDS = sorted(grammar_keywords())


def in_context(word: str) -> tuple[str, int]:
    """A line where ``word`` is a keyword, and its column: `x` and shapes only on a board line."""
    if word == "x":
        return "board 3 x 3", 8
    if word in highlight.SHAPES:
        return f"board 3 x 3 {word}", 12
    if word == "board":
        return "board 3 x 3", 0
    return f"{word} ", 0


def test_the_grammar_has_the_keywords_we_expect() -> None:
    assert {"game", "move", "when", "otherwise", "zero_sum", "x", "hex", "true"} <= set(KEYWORDS)
    assert set(KEYWORDS) == {*highlight.KEYWORDS, *highlight.CONSTANTS, *highlight.SHAPES, "x"}


def test_builtin_lists_match_the_compiler() -> None:
    assert set(highlight.BUILTIN_FUNCTIONS) == set(BUILTIN_FUNCTIONS)


# ------------------------------------------------------------------ Pygments


def pygments_type_at(line: str, column: int) -> Any:
    position = 0
    for token_type, text in GdlLexer().get_tokens(line + "\n"):
        if position <= column < position + len(text):
            return token_type
        position += len(text)
    raise AssertionError(f"no token at {column} in {line!r}")


@pytest.mark.parametrize("word", KEYWORDS)
def test_pygments_lexer_highlights_keyword(word: str) -> None:
    line, column = in_context(word)
    assert pygments_type_at(line, column) in Keyword


def test_pygments_lexer_on_a_bundled_game() -> None:
    source = (ROOT / "games" / "kalah.gdl").read_text(encoding="utf-8")
    tokens = list(GdlLexer().get_tokens(source))
    assert "".join(text for _, text in tokens) == source
    kinds = {text: kind for kind, text in tokens}
    assert kinds['"Sow seeds around the board; capture from the opposite pit"'] in String
    assert kinds["# Kalah: each player owns a row of pits and a store (kalah) on their right."] in Comment
    assert kinds["opponent"] in Name.Builtin and kinds["side_empty"] in Name.Function
    assert kinds["board"] in Name  # a state variable named `board` is a name, not the keyword
    assert pygments_type_at("move sow(i: 0..pits-1) when board[i] > 0:", 0) in Keyword


def test_pygments_finds_the_lexer_by_name_and_file_name() -> None:
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename

    assert isinstance(get_lexer_by_name("gdl"), GdlLexer)
    assert isinstance(get_lexer_for_filename("games/kalah.gdl"), GdlLexer)


def test_pygmentize_command() -> None:
    kalah = str(ROOT / "games" / "kalah.gdl")
    result = subprocess.run([sys.executable, "-m", "pygments", "-l", "gdl", "-f", "html", kalah],
                            capture_output=True, text=True, check=True)
    assert '<span class="kd">game</span>' in result.stdout


# ------------------------------------------------------------------ TextMate


class TextMate:
    """A small interpreter of the tmLanguage JSON: `match`, `captures`, one level of `begin`/`end`, `include`."""

    def __init__(self, grammar: dict[str, Any]) -> None:
        self.grammar = grammar

    def _resolve(self, patterns: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for pattern in patterns:
            if "include" in pattern:
                rule = self.grammar["repository"][pattern["include"].lstrip("#")]
                out.extend(self._resolve(rule["patterns"]) if "patterns" in rule and "begin" not in rule else [rule])
            else:
                out.append(pattern)
        return out

    def scopes(self, line: str) -> list[str | None]:
        """The innermost scope of each character of ``line``."""
        scopes: list[str | None] = [None] * len(line)
        self._scan(line, 0, len(line), self._resolve(self.grammar["patterns"]), scopes)
        return scopes

    def _scan(self, line: str, start: int, stop: int, patterns: list[dict[str, Any]], scopes: list[str | None]) -> None:
        pos = start
        while pos < stop:
            best: tuple[int, int, dict[str, Any], re.Match[str]] | None = None
            for order, pattern in enumerate(patterns):
                match = re.compile(pattern.get("match") or pattern["begin"], re.MULTILINE).search(line, pos, stop)
                if match and (best is None or (match.start(), order) < (best[0], best[1])):
                    best = (match.start(), order, pattern, match)
            if best is None:
                return
            _, _, pattern, match = best
            self._paint(match, pattern, scopes, "captures" if "match" in pattern else "beginCaptures")
            end = match.end()
            if "begin" in pattern:
                close = re.compile(pattern["end"], re.MULTILINE).search(line, end) if end < stop else None
                inner_stop = close.start() if close else stop
                self._scan(line, end, inner_stop, self._resolve(pattern["patterns"]), scopes)
                end = inner_stop
            pos = max(end, pos + 1)

    @staticmethod
    def _paint(match: re.Match[str], pattern: dict[str, Any], scopes: list[str | None], key: str) -> None:
        if "name" in pattern:
            for i in range(match.start(), match.end()):
                scopes[i] = pattern["name"]
        for group, capture in pattern.get(key, {}).items():
            if match.group(int(group)) is not None:
                for i in range(match.start(int(group)), match.end(int(group))):
                    scopes[i] = capture["name"]


@pytest.fixture(scope="module")
def textmate() -> TextMate:
    return TextMate(json.loads(TM_GRAMMAR.read_text(encoding="utf-8")))


@pytest.mark.parametrize("word", KEYWORDS)
def test_textmate_grammar_highlights_keyword(word: str, textmate: TextMate) -> None:
    line, column = in_context(word)
    scopes = textmate.scopes(line)
    wanted = ("keyword.", "constant.language.") if word in highlight.CONSTANTS else ("keyword.",)
    assert all((scope or "").startswith(wanted) for scope in scopes[column:column + len(word)]), scopes


def test_textmate_grammar_on_a_rule_line(textmate: TextMate) -> None:
    line = 'move sow(i: 0..pits-1) when board[first(mover) + i] > 0:  # sow "seeds"'
    scopes = textmate.scopes(line)

    def scope(word: str) -> str | None:
        return scopes[line.index(word)]

    assert scope("move").startswith("keyword.") and scope("sow") == "entity.name.function.gdl"
    assert scope("when").startswith("keyword.") and scope("board") is None  # a name here
    assert scope("first") == "entity.name.function.call.gdl" and scope("mover").startswith("support.")
    assert scope("# sow") == scope('"seeds"') == "comment.line.number-sign.gdl"
    scopes = textmate.scopes("def n = count k in 0..3: k > 1")
    assert scopes[8].startswith("keyword.") and scopes[14].startswith("variable.")


def test_vscode_extension_points_at_the_grammar_and_the_server() -> None:
    folder = TM_GRAMMAR.parent.parent
    package = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    (language,) = package["contributes"]["languages"]
    assert language["extensions"] == [".gdl"]
    assert (folder / language["configuration"]).exists()
    json.loads((folder / language["configuration"]).read_text(encoding="utf-8"))
    (grammar,) = package["contributes"]["grammars"]
    assert (folder / grammar["path"]).resolve() == TM_GRAMMAR.resolve()
    assert package["contributes"]["configuration"]["properties"]["gdl.server.command"]["default"] == ["gdl", "lsp"]
    assert "vscode-languageclient" in package["dependencies"]
    assert (folder / package["main"]).exists()


# ------------------------------------------------------------------ the CLI


def test_show_prints_the_file_plain_when_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "kalah"]) == 0
    assert capsys.readouterr().out == (ROOT / "games" / "kalah.gdl").read_text(encoding="utf-8")


def colours(text: str) -> set[int]:
    """The colour codes (foreground/background SGR parameters) in ``text``; bold, dim etc. are not colours."""
    codes = {int(code) for params in re.findall(r"\x1b\[([0-9;]*)m", text) for code in params.split(";") if code}
    return {code for code in codes if 30 <= code <= 49 or 90 <= code <= 107}


def run_gdl(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    environ.update(env)
    return subprocess.run([sys.executable, "-m", "gdl", *args], capture_output=True, text=True, env=environ)


@pytest.mark.slow
def test_show_and_check_colour_on_a_terminal_and_not_with_no_color(tmp_path: Path) -> None:
    coloured = run_gdl(["show", "tictactoe"], FORCE_COLOR="1", TERM="xterm-256color")
    assert coloured.returncode == 0 and colours(coloured.stdout)
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured.stdout).rstrip() == \
        (ROOT / "games" / "tictactoe.gdl").read_text(encoding="utf-8").rstrip()
    plain = run_gdl(["show", "tictactoe", "-n"], FORCE_COLOR="1", TERM="xterm-256color", NO_COLOR="1")
    assert not colours(plain.stdout) and "# Tic-tac-toe" in plain.stdout
    bad = tmp_path / "bad.gdl"
    bad.write_text("game X\nplayers A\nstate n: 0..3 = 0\nmove m: n = nn + 1\nwin A when n == 3\n", encoding="utf-8")
    checked = run_gdl(["check", str(bad)], FORCE_COLOR="1", TERM="xterm-256color")
    assert checked.returncode == 1 and colours(checked.stderr + checked.stdout)
    excerpt = next(line for line in (checked.stdout + checked.stderr).splitlines() if "move" in line and "|" in line)
    assert re.sub(r"\x1b\[[0-9;]*m", "", excerpt) == "   4 | move m: n = nn + 1"
    assert len(colours(excerpt)) >= 2  # the code line is highlighted, not only the gutter
    no_color = run_gdl(["check", str(bad)], FORCE_COLOR="1", TERM="xterm-256color", NO_COLOR="1")
    assert not colours(no_color.stdout + no_color.stderr)
    unstyled = run_gdl(["check", str(bad)])
    assert "\x1b[" not in unstyled.stdout + unstyled.stderr
    assert "   4 | move m: n = nn + 1" in unstyled.stdout + unstyled.stderr
