"""``gdl lsp`` over stdio, driven by pygls' own language client, as an editor would."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls")

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parent.parent
KALAH = ROOT / "games" / "kalah.gdl"
TIMEOUT = 60.0

TYPO = """game Counter
players A
state count: 0..3 = 0
move add when count < 3:
    count += 1
win A when cuont == 3
"""


class Session:
    """A started server and a client that collects published diagnostics."""

    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.diagnostics: dict[str, list[tuple[int | None, list[lsp.Diagnostic]]]] = {}
        self.changed = asyncio.Event()

    async def next_diagnostics(self, uri: str, version: int, count: int = 1) -> list[lsp.Diagnostic]:
        """The ``count``-th diagnostics published for ``version`` of the document."""
        while True:
            got = [d for v, d in self.diagnostics.get(uri, []) if v == version]
            if len(got) >= count:
                return got[count - 1]
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), TIMEOUT)

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=uri, language_id="gdl", version=version, text=text)))

    def change(self, uri: str, text: str, version: int) -> None:
        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))


def run_session(scenario: Callable[[Session], Awaitable[None]]) -> None:
    async def main() -> None:
        client = LanguageClient("gdl-test", "1")
        session = Session(client)

        @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
            session.diagnostics.setdefault(params.uri, []).append((params.version, list(params.diagnostics)))
            session.changed.set()

        await client.start_io(sys.executable, "-m", "gdl", "lsp")
        try:
            await asyncio.wait_for(client.initialize_async(lsp.InitializeParams(
                capabilities=lsp.ClientCapabilities(), root_uri=ROOT.as_uri())), TIMEOUT)
            client.initialized(lsp.InitializedParams())
            await scenario(session)
            await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
            client.exit(None)
        finally:
            server = client._server  # pygls keeps the process here; stop() waits for it to exit
            if server is not None and server.returncode is None:
                try:
                    await asyncio.wait_for(server.wait(), 5)
                except asyncio.TimeoutError:
                    server.kill()  # a failed scenario never sent `exit`
            await client.stop()

    asyncio.run(main())


async def within(request: Awaitable[Any]) -> Any:
    """A request's answer, or a failure after ``TIMEOUT`` (a server error must not hang the test)."""
    return await asyncio.wait_for(request, TIMEOUT)


def at(line: int, character: int) -> lsp.Position:
    return lsp.Position(line=line, character=character)


def doc(uri: str) -> lsp.TextDocumentIdentifier:
    return lsp.TextDocumentIdentifier(uri=uri)


@pytest.mark.slow
def test_typo_gives_one_diagnostic_with_the_hint_and_a_quick_fix_and_clears_when_fixed(tmp_path: Path) -> None:
    uri = (tmp_path / "counter.gdl").as_uri()

    async def scenario(s: Session) -> None:
        s.open(uri, TYPO)
        (diagnostic,) = await s.next_diagnostics(uri, 1)
        assert diagnostic.code == "undefined-name"
        assert diagnostic.severity == lsp.DiagnosticSeverity.Error
        assert diagnostic.range == lsp.Range(start=at(5, 11), end=at(5, 16))
        assert "`cuont` is not defined" in diagnostic.message and "did you mean `count`?" in diagnostic.message
        params = lsp.CodeActionParams(text_document=doc(uri), range=diagnostic.range,
                                      context=lsp.CodeActionContext(diagnostics=[diagnostic]))
        actions = await within(s.client.text_document_code_action_async(params))
        (action,) = actions
        assert action.kind == lsp.CodeActionKind.QuickFix and action.title == "Change to `count`"
        assert list(action.edit.changes[uri]) == [lsp.TextEdit(range=diagnostic.range, new_text="count")]
        s.change(uri, TYPO.replace("cuont", "count"), 2)
        assert await s.next_diagnostics(uri, 2) == []
        assert await s.next_diagnostics(uri, 2, count=2) == []  # the playouts after the pause find nothing

    run_session(scenario)


@pytest.mark.slow
def test_hover_definition_references_completion_rename_symbols_on_kalah() -> None:
    uri = KALAH.as_uri()
    lines = KALAH.read_text(encoding="utf-8").split("\n")
    here = doc(uri)

    def find(line_text: str, word: str) -> lsp.Position:
        """Where ``word`` starts on the first line starting with ``line_text``."""
        line = next(i for i, text in enumerate(lines) if text.startswith(line_text))
        return at(line, lines[line].index(word))

    async def scenario(s: Session) -> None:
        s.open(uri, KALAH.read_text(encoding="utf-8"))
        assert await s.next_diagnostics(uri, 1) == []
        c = s.client

        async def hover(position: lsp.Position) -> str:
            result = await within(c.text_document_hover_async(lsp.HoverParams(text_document=here, position=position)))
            return result.contents.value

        async def definition(position: lsp.Position) -> lsp.Location:
            params = lsp.DefinitionParams(text_document=here, position=position)
            return await within(c.text_document_definition_async(params))

        async def rename(position: lsp.Position, new_name: str) -> list[lsp.TextEdit]:
            params = lsp.RenameParams(text_document=here, position=position, new_name=new_name)
            return list((await within(c.text_document_rename_async(params))).changes[uri])

        # Hover: a parameter's range and default; a state variable's domain; a keyword's and a builtin's doc.
        assert "**parameter** `pits`: `1..8`, default `6`" in await hover(find("def store", "pits"))
        assert "**state variable** `board` indexed by `[0..N-1]`: `0..N*seeds`, initially `0`" in \
            await hover(find("    let n = board", "board"))
        assert "`terminal when C`" in await hover(find("terminal when", "terminal"))
        assert "`opponent(p)`" in await hover(find("        if pos == store(opp", "opponent"))
        # Definition of a def used in a move, of a local, of a player.
        location = await definition(find("    elif mine(", "mine"))
        assert location.uri == uri and location.range.start == find("def mine", "mine")
        assert (await definition(find("    board[pos] = 0", "pos"))).range.start == find("    let pos", "pos")
        assert (await definition(find("def store", "South"))).range.start == find("players", "South")
        # References of a def: the declaration and every use.
        params = lsp.ReferenceParams(text_document=here, position=find("def side_empty", "side_empty"),
                                     context=lsp.ReferenceContext(include_declaration=True))
        refs = await within(c.text_document_references_async(params))
        assert len(refs) == sum(line.count("side_empty(") for line in lines) == 5
        # Completion inside a move: its locals, the globals, builtins and keywords.
        params = lsp.CompletionParams(text_document=here, position=find("    let across", "="))
        completion = await within(c.text_document_completion_async(params))
        labels = {item.label: item for item in completion.items}
        assert {"pos", "n", "i", "board", "pits", "store", "side_empty", "South", "opponent", "mover", "when",
                "any"} <= set(labels)
        assert labels["board"].kind == lsp.CompletionItemKind.Variable
        assert labels["store"].kind == lsp.CompletionItemKind.Function
        # Rename a def: every occurrence, nothing else.
        edits = await rename(find("def side_empty", "side_empty"), "empty_side")
        assert len(edits) == len(refs) and all(e.new_text == "empty_side" for e in edits)
        renamed = apply_edits(lines, edits)
        assert "side_empty" not in renamed and renamed.count("empty_side(") == len(refs)
        # Rename a state variable: the same program under another name.
        renamed = apply_edits(lines, await rename(find("state board", "board"), "pit"))
        assert "state pit[0..N-1]" in renamed and "board[" not in renamed
        import gdl

        assert gdl.load_source(renamed).program.source == gdl.load_source("\n".join(lines)).program.source
        # The outline: moves, defs, state, parameters, end rules.
        params = lsp.DocumentSymbolParams(text_document=here)
        symbols = await within(c.text_document_document_symbol_async(params))
        names = {(sym.name, sym.kind) for sym in symbols}
        assert {("sow", lsp.SymbolKind.Method), ("store", lsp.SymbolKind.Function),
                ("board", lsp.SymbolKind.Variable), ("pits", lsp.SymbolKind.Constant),
                ("terminal", lsp.SymbolKind.Event)} <= names

    run_session(scenario)


def apply_edits(lines: list[str], edits: list[Any]) -> str:
    """The text after non-overlapping single-line edits."""
    out = list(lines)
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start, end = edit.range.start, edit.range.end
        assert start.line == end.line
        text = out[start.line]
        out[start.line] = text[:start.character] + edit.new_text + text[end.character:]
    return "\n".join(out)


@pytest.mark.slow
def test_syntax_error_then_playout_error(tmp_path: Path) -> None:
    uri = (tmp_path / "broken.gdl").as_uri()
    overflow = "game G\nplayers A\nstate n: 0..3 = 0\nmove inc: n += 2\nwin A when n == 3\n"

    async def scenario(s: Session) -> None:
        s.open(uri, "game G\nplayers A B\n")
        (diagnostic,) = await s.next_diagnostics(uri, 1)
        assert diagnostic.code == "syntax" and diagnostic.range.start == at(1, 10)
        s.change(uri, overflow, 2)
        static = await s.next_diagnostics(uri, 2)
        later = await s.next_diagnostics(uri, 2, count=2)  # the playouts run the rules and meet the overflow
        assert len(later) > len(static)
        assert any("outside" in d.message and d.range.start.line == 3 for d in later)

    run_session(scenario)
