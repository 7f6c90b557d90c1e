"""The name index behind the language server: declarations, references and scopes from the AST."""

from __future__ import annotations

import pytest

pytest.importorskip("lsprotocol")  # comes with pygls: pip install -e '.[test]' (or '.[lsp]')

from lsprotocol import types as lsp

from gdl.lsp import completions, format_edits, hover_at, outline, rename_edit
from gdl.lsp_index import Index
from gdl.parser import parse

SOURCE = """game Scopes
param size: 2..5 = 3
players A, B
state total: 0..20 = 0
state i: 0..9 = 0
def twice(x: 0..9) = 2 * x
move add(k: 1..3):
    for i in 0..1:
        total += k
    for i in 0..2:
        total += twice(i)
    let t = total
    if t > 10:
        let u = 1
        total = u
    else:
        let u = 2
        total = u
win p when total >= 20 and p == A
"""


def index() -> Index:
    return Index(parse(SOURCE), SOURCE)


def position(line_start: str, word: str, nth: int = 0) -> tuple[int, int]:
    """1-based (line, column) of the ``nth`` ``word`` on the first line starting with ``line_start``."""
    lines = SOURCE.split("\n")
    line = next(n for n, text in enumerate(lines) if text.startswith(line_start))
    column = -1
    for _ in range(nth + 1):
        column = lines[line].index(word, column + 1)
    return line + 1, column + 1


def refs_at(ix: Index, line_start: str, word: str, nth: int = 0) -> list[tuple[int, int]]:
    found = ix.at(*position(line_start, word, nth))
    assert found is not None
    return [(span.line, span.column) for span in found.symbol.refs]


def test_sibling_loops_have_their_own_variable_and_the_state_variable_is_not_theirs() -> None:
    ix = index()
    first = refs_at(ix, "    for i in 0..1", "i")
    second = refs_at(ix, "    for i in 0..2", "i")
    assert len(first) == 1 and len(second) == 2 and not set(first) & set(second)
    assert refs_at(ix, "state i", "i") == [position("state i", "i")]  # the loops only shadow it


def test_branches_have_their_own_let_and_defs_are_hygienic() -> None:
    ix = index()
    first_u = [position("        let u = 1", "u"), position("        total = u", "u")]
    assert refs_at(ix, "        let u = 1", "u") == first_u
    assert len(refs_at(ix, "def twice", "x")) == 2
    assert len(refs_at(ix, "def twice", "twice")) == 2  # the declaration and the call
    assert ix.at(*position("win p", "p")).symbol.how == "binder"
    assert ix.at(*position("win p", "A")).symbol.kind == "player"


def test_rename_checks_the_new_name() -> None:
    ix = index()
    uri = "file:///scopes.gdl"

    def rename(line_start: str, word: str, new: str) -> list[lsp.TextEdit]:
        line, column = position(line_start, word)
        params = lsp.RenameParams(text_document=lsp.TextDocumentIdentifier(uri=uri),
                                  position=lsp.Position(line=line - 1, character=column - 1), new_name=new)
        edit = rename_edit(ix, params)
        assert edit is not None
        return list(edit.changes[uri])

    assert len(rename("state total", "total", "sum_so_far")) == SOURCE.count("total") == 7
    for bad in ("move", "2x", "size", "k"):
        with pytest.raises(ValueError):
            rename("    let t = total", "t =", bad)


def test_hover_completion_outline_and_formatting_without_a_server() -> None:
    ix = index()
    line, column = position("move add", "k")
    hover = hover_at(ix, SOURCE, lsp.Position(line=line - 1, character=column - 1))
    assert hover is not None and "**parameter** `k`: `1..3`" in hover.contents.value
    hover = hover_at(ix, SOURCE, lsp.Position(line=line - 1, character=0))
    assert hover is not None and "`move name(params) when guard: effects`" in hover.contents.value
    line, column = position("        total += twice", "twice")
    labels = {item.label for item in completions(ix, lsp.Position(line=line - 1, character=column - 1)).items}
    assert {"k", "i", "total", "twice", "size", "A", "abs", "for"} <= labels
    assert "north" not in labels  # no board, no directions
    assert [s.name for s in outline(ix)] == ["size", "players A, B", "total", "i", "twice", "add", "win p"]
    (edit,) = format_edits(SOURCE.replace("total += k", "total+=k"))
    assert edit.new_text == SOURCE
    assert format_edits(SOURCE) == [] and format_edits("game G\nplayers A B\n") is None


def test_playouts_stop_when_cancelled_and_find_run_time_errors() -> None:
    import threading

    from gdl.lsp import playout_diagnostics

    overflow = "game G\nplayers A\nstate n: 0..3 = 0\nmove inc: n += 2\nwin A when n == 3\n"
    stop = threading.Event()
    found = playout_diagnostics(overflow, "g.gdl", stop)
    assert found and any("outside" in d.message for d in found)
    stop.set()
    assert playout_diagnostics(overflow, "g.gdl", stop) is None
