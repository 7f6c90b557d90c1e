"""``gdl lsp`` over stdio, driven by pygls' own language client, as an editor would."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

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


def run_session(scenario: Callable[[Session], Awaitable[None]],
                command: tuple[str, ...] = ("-m", "gdl", "lsp")) -> None:
    """Run ``scenario`` against ``python COMMAND`` (by default ``gdl lsp``)."""

    async def main() -> None:
        client = LanguageClient("gdl-test", "1")
        session = Session(client)

        @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
            session.diagnostics.setdefault(params.uri, []).append((params.version, list(params.diagnostics)))
            session.changed.set()

        await client.start_io(sys.executable, *command)
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


THREE_FULL = (ROOT / "games" / "connect4.gdl").read_text().replace("symmetry mirror  # left-right\n", "").replace(
    "state disc[cell]: player? = none\n", "state disc[cell]: player? = none\nstate filled: 0..17 = 0\n").replace(
    "    disc[top(x)] = mover\n", "    disc[top(x)] = mover\n    filled = " + " + ".join(
        f"(count c in cells_in_column({i}): disc[c] != none)" for i in range(3)) + "\n")
"""Connect-Four whose rules fail once columns a to c are full: too big to explore, and the seeded playouts first
meet it after their first 40."""
SLOW_CPU_SERVER = ("import itertools, sys, time\n"
                   "real, reads = time.process_time, itertools.count(1)\n"
                   "time.process_time = lambda: real() + 0.1 * next(reads)\n"
                   "from gdl.cli import main\n"
                   "sys.exit(main(['lsp']))\n")
"""``gdl lsp`` in a process whose CPU clock runs 0.1 s further at every read (a busy machine, as tests/warp.py)."""


@pytest.mark.slow
def test_the_playouts_find_the_same_on_a_slow_machine(tmp_path: Path) -> None:
    """The server's playouts are bounded in steps, not 2 s of CPU: on a machine whose CPU clock runs fast they
    still meet the rule error (the seconds ran out after the first ten playouts, which miss it)."""
    uri = (tmp_path / "full.gdl").as_uri()
    found: list[list[str]] = []

    async def scenario(s: Session) -> None:
        s.open(uri, THREE_FULL)
        assert await s.next_diagnostics(uri, 1) == []
        found.append([str(d.code) for d in await s.next_diagnostics(uri, 1, count=2)])

    run_session(scenario)
    run_session(scenario, ("-c", SLOW_CPU_SERVER))
    assert found == [["runtime-error"], ["runtime-error"]]


# ------------------------------------------------------------------ the protocol byte by byte (issue 29)


class RawServer:
    """``gdl lsp`` as a subprocess spoken to byte by byte: pygls' client cannot send a malformed frame.

    A thread parses the server's frames into a queue; a reply is awaited for at most ``TIMEOUT`` (a bound
    on a hang, not a speed measurement). The server runs under a 2 GiB address-space limit, so a
    regression that reads ``/dev/zero`` ends in a MemoryError instead of taking the machine's memory.
    """

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "gdl", "lsp"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                                        preexec_fn=_limit_memory)
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []  # every message that was not the reply waited for
        self.stderr = b""
        self._next_id = 1000
        threading.Thread(target=self._read_frames, daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()

    def __enter__(self) -> RawServer:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()

    def _read_frames(self) -> None:
        out = self.process.stdout
        assert out is not None
        while True:
            length = None
            while (line := out.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if not line or length is None:
                self.messages.put(None)
                return
            self.messages.put(json.loads(out.read(length)))

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        self.stderr = self.process.stderr.read()

    def send(self, data: bytes | dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(frame(data) if isinstance(data, dict) else data)
        self.process.stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any = None) -> dict[str, Any]:
        """Send a request and return its reply (a result or an error)."""
        self._next_id += 1
        self.send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        return self.reply(self._next_id)

    def reply(self, msg_id: int | str | None) -> dict[str, Any]:
        """The reply to ``msg_id``; the messages before it go to ``seen``."""
        while True:
            try:
                message = self.messages.get(timeout=TIMEOUT)
            except queue.Empty:
                raise AssertionError(f"no reply to {msg_id!r} within {TIMEOUT} s") from None
            assert message is not None, f"the server closed its output before answering {msg_id!r}"
            if "method" not in message and message.get("id") == msg_id:
                return message
            self.seen.append(message)

    def initialize(self) -> None:
        assert "result" in self.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        self.notify("initialized", {})

    def open(self, uri: str, text: str) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "gdl", "version": 1,
                                                              "text": text}})

    def finish(self) -> tuple[int, str]:
        """Close the input; the exit status and everything written on standard error."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        code = self.process.wait(TIMEOUT)
        self._stderr_reader.join(TIMEOUT)  # it has every byte once the pipe is at its end
        return code, self.stderr.decode("utf-8", "replace")


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def hover_params(uri: str, line: int = 0, character: int = 0) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


def assert_refused(reply: dict[str, Any], code: int, *words: str) -> str:
    """An error reply of ``code`` whose one-line message holds ``words``, with no traceback anywhere."""
    assert "error" in reply, reply
    error = reply["error"]
    assert error["code"] == code, error
    assert "\n" not in error["message"] and "Traceback" not in json.dumps(reply), error
    assert all(word in error["message"] for word in words), error
    assert "data" not in error or not error["data"], error
    return str(error["message"])


@pytest.mark.slow
def test_a_request_on_a_file_the_client_did_not_open_reads_only_a_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.gdl"
    os.mkfifo(fifo)
    with RawServer() as server:
        server.initialize()
        # A FIFO blocked the server for good; /dev/zero read until MemoryError; a missing file was an
        # internal error with a traceback.
        assert_refused(server.request("textDocument/hover", hover_params(fifo.as_uri())), -32803, "a FIFO")
        assert_refused(server.request("textDocument/hover", hover_params("file:///dev/zero")), -32803,
                       "/dev/zero", "character device")
        assert_refused(server.request("textDocument/formatting", {"textDocument": {"uri": tmp_path.as_uri()},
                                                                   "options": {"tabSize": 4, "insertSpaces": True}}),
                       -32803, "is a directory")
        assert_refused(server.request("textDocument/hover", hover_params((tmp_path / "gone.gdl").as_uri())),
                       -32803, "no such file")
        # pygls read the path of any URI: http://host/path and untitled:name (relative to the server's directory).
        assert_refused(server.request("textDocument/hover", hover_params("http://example.com" + KALAH.as_posix())),
                       -32803, "not a file: URI")
        assert_refused(server.request("textDocument/hover", hover_params("untitled:games/kalah.gdl")), -32803,
                       "not a file: URI")
        big = tmp_path / "big.gdl"
        big.write_text("# " + "x" * 5_000_000 + "\n", encoding="utf-8")
        assert_refused(server.request("textDocument/documentSymbol", {"textDocument": {"uri": big.as_uri()}}),
                       -32803, "too large")
        # A regular rule file is still read: hover on `pits` in kalah, which the client never opened.
        line = next(i for i, text in enumerate(KALAH.read_text(encoding="utf-8").split("\n"))
                    if text.startswith("param pits"))
        reply = server.request("textDocument/hover", hover_params(KALAH.as_uri(), line, 6))
        assert "**parameter** `pits`" in reply["result"]["contents"]["value"]
        assert "result" in server.request("shutdown")


@pytest.mark.slow
def test_did_save_of_a_file_the_client_did_not_open_reads_nothing(tmp_path: Path) -> None:
    secret = tmp_path / "secret.gdl"
    secret.write_text("root:x:0:0:the secret line\n", encoding="utf-8")
    fifo = tmp_path / "fifo.gdl"
    os.mkfifo(fifo)
    opened = (tmp_path / "counter.gdl").as_uri()
    with RawServer() as server:
        server.initialize()
        server.notify("textDocument/didSave", {"textDocument": {"uri": secret.as_uri()}})
        server.request("textDocument/hover", hover_params("file:///nowhere.gdl"))  # didSave has been handled
        # The file was read and its first token came back in a syntax error: "unexpected `root`".
        assert "0:0:the secret line" not in json.dumps(server.seen) and "`root`" not in json.dumps(server.seen)
        assert not any(m.get("method") == "textDocument/publishDiagnostics" for m in server.seen)
        server.notify("textDocument/didSave", {"textDocument": {"uri": fifo.as_uri()}})  # blocked the server
        server.open(opened, TYPO)
        server.notify("textDocument/didSave", {"textDocument": {"uri": opened}})  # an open document is checked
        assert "result" in server.request("shutdown")
        published = [m["params"] for m in server.seen if m.get("method") == "textDocument/publishDiagnostics"]
        assert {p["uri"] for p in published} == {opened} and len(published) >= 2  # didOpen, didSave (playouts?)


@pytest.mark.slow
def test_every_request_gets_a_reply() -> None:
    with RawServer() as server:
        server.initialize()
        # Params that do not fit the method: no reply at all before.
        assert_refused(server.request("textDocument/hover", {"textDocument": {"uri": "file:///x.gdl"}}), -32602,
                       "textDocument/hover", "position")
        assert_refused(server.request("textDocument/hover", {"textDocument": {"uri": "file:///x.gdl"},
                                                             "position": {"line": "one", "character": 0}}),
                       -32602, "line")
        assert_refused(server.request("textDocument/rename", [1, 2]), -32602, "textDocument/rename")
        assert_refused(server.request("textDocument/completion"), -32602)
        # Not JSON-RPC 2.0, or not JSON: an Invalid Request (-32600) or a parse error (-32700).
        server.send({"jsonrpc": "1.0", "id": 7, "method": "shutdown"})
        assert_refused(server.reply(7), -32600, "JSON-RPC 2.0")
        server.send({"id": 8, "method": "shutdown"})
        assert_refused(server.reply(8), -32600, "JSON-RPC 2.0")
        for body, code in ((b"[1, 2]", -32600), (b'"text"', -32600), (b"null", -32600), (b"{not json", -32700),
                           (b"\xff\xfe\xfd", -32700), (b"[" * 100_000, -32700)):
            server.send(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            assert_refused(server.reply(None), code)
        assert_refused(server.request("no/such/method", {}), -32601)
        assert "result" in server.request("shutdown")


@pytest.mark.slow
def test_requests_before_initialize_or_after_shutdown_are_refused() -> None:
    with RawServer() as server:
        # An internal error with a traceback before; no reply at all after shutdown.
        assert_refused(server.request("textDocument/hover", hover_params("file:///x.gdl")), -32002, "initialize")
        server.initialize()
        assert "result" in server.request("shutdown")
        assert_refused(server.request("textDocument/hover", hover_params("file:///x.gdl")), -32600, "shutdown")
        server.notify("exit", None)
        assert server.process.wait(TIMEOUT) == 0


@pytest.mark.slow
def test_a_malformed_header_is_skipped_and_later_messages_are_answered() -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "shutdown"}).encode()
    malformed = [
        b"Content-Length: abc\r\n\r\n" + body,  # stopped every later answer
        b"Content-Length: -5\r\n\r\n" + body,
        b"Content-Length: 99999999999999999999\r\n\r\n" + body,  # waited for bytes that never come
        b"Content-Length: 5e3\r\n\r\n" + body,
        b"Content-Type: application/vscode-jsonrpc\r\n\r\n" + body,  # no length at all
        b"Content-Length: %d\r\nContent-Length: 3\r\n\r\n" % len(body) + body,
        b"not a header\r\n\r\n" + body,
        b"X" * 5000 + b"\r\n",
        b"\x00\xff garbage without a line break",
    ]
    with RawServer() as server:
        server.initialize()
        for junk in malformed:
            server.send(junk)
            reply = server.request("textDocument/hover", hover_params("file:///nowhere.gdl"))
            assert_refused(reply, -32803, "no such file")
        # Header names are case-insensitive (as in HTTP), a Content-Type is accepted, a stray line break skipped.
        message = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover",
                              "params": hover_params("file:///nowhere.gdl")}).encode()
        server.send(b"\r\ncontent-length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
                    % len(message) + message)
        assert_refused(server.reply(2), -32803)
        assert not any(m.get("id") == 1 for m in server.seen)  # the skipped shutdowns were never handled
        assert "result" in server.request("shutdown")
        server.notify("exit", None)
        code, err = server.finish()
        assert code == 0 and "Traceback" not in err and "skipped a message" in err


@pytest.mark.slow
def test_refusals_are_errors_of_one_line_without_a_traceback() -> None:
    uri = KALAH.as_uri()
    lines = KALAH.read_text(encoding="utf-8").split("\n")
    line = next(i for i, text in enumerate(lines) if text.startswith("def side_empty"))
    with RawServer() as server:
        server.initialize()
        server.open(uri, KALAH.read_text(encoding="utf-8"))
        position = {"line": line, "character": 4}
        rename = {"textDocument": {"uri": uri}, "position": position}
        # Both were internal errors (-32603) with a Python traceback.
        message = assert_refused(server.request("textDocument/rename", {**rename, "newName": "store"}), -32803,
                                 "`store` is already declared at line")
        assert message.startswith("`store`")
        assert_refused(server.request("textDocument/rename", {**rename, "newName": "move"}), -32602,
                       "`move` is not a valid name")
        assert_refused(server.request("textDocument/hover", hover_params("file:///nowhere/at/all.gdl")), -32803,
                       "/nowhere/at/all.gdl: no such file")
        assert "result" in server.request("shutdown")
        server.notify("exit", None)
        code, err = server.finish()
        assert code == 0 and "Traceback" not in err, err


@pytest.mark.slow
def test_shutdown_then_exit_exits_0_silently_and_exit_alone_exits_1() -> None:
    with RawServer() as server:
        server.initialize()
        assert server.request("shutdown") == {"jsonrpc": "2.0", "id": server._next_id, "result": None}
        server.notify("exit", None)
        assert server.finish() == (0, "")  # was 1 and `ValueError: I/O operation on closed file`
    with RawServer() as server:
        server.initialize()
        server.notify("exit", None)
        assert server.finish() == (1, "")  # the LSP spec: exit without shutdown is an error


HOSTILE_HOVER = """game G
players A
param p: 0..3 = 1 + (0  # [click](http://evil.example) ![x](http://evil.example/x.png) <b>bold</b>
    )
state s: 0..9 = 0
move m when s < 3:
    let t = s + (1  # **strong** <img src=x> \x1b]52;c;aGk=\x07 ``` `tick`
        )
    s += t
win A when s == 3
"""


@pytest.mark.slow
def test_hover_shows_rule_file_text_as_code_not_markdown() -> None:
    markdown_it = pytest.importorskip("markdown_it")
    uri = "file:///hostile.gdl"
    lines = HOSTILE_HOVER.split("\n")
    with RawServer() as server:
        server.initialize()
        server.open(uri, HOSTILE_HOVER)
        for line, start, shown in ((2, "param p", "click"), (6, "    let t", "\\x1b]52;c;aGk=\\x07"),
                                   (8, "    s += t", "**strong**")):
            character = lines[line].index(start) + len(start) - 1
            reply = server.request("textDocument/hover", hover_params(uri, line, character))
            value = reply["result"]["contents"]["value"]
            html = markdown_it.MarkdownIt("commonmark").render(value)
            # Before, the comments inside the expressions were Markdown: a link, an image, HTML, a control.
            assert "<a " not in html and "<img" not in html and "<b>" not in html and "<strong>strong" not in html
            assert "\x1b" not in value and "\x07" not in value
            assert shown in html  # the text is shown, as code
        assert "result" in server.request("shutdown")


# ------------------------------------------------------------------ malformed messages, generated

REQUESTS = ("textDocument/hover", "textDocument/definition", "textDocument/references", "textDocument/rename",
            "textDocument/completion", "textDocument/documentSymbol", "textDocument/formatting",
            "textDocument/codeAction", "textDocument/prepareRename")
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=12)
# The shapes each example mixes: the recoverable malformed frames (a header without a usable length, a
# stray or over-long line, a body shorter than its length: the rest runs into the next header), bodies that
# are not JSON-RPC, requests with params that do not fit, requests and didSave on hostile paths (a FIFO,
# /dev/zero, /dev/stdin: the server's own input, a directory, a missing file, an http: URI), responses
# nobody asked for.
# A length longer than the body is left out: no server can tell it from a slow client.
MALFORMED_SHAPES = ("bad-length", "no-length", "garbage-line", "long-line", "stray-breaks", "short-body",
                    "not-json", "json-value", "wrong-version", "invalid-params", "hostile-path", "did-save",
                    "unknown-method", "response", "bad-notification")


@st.composite
def malformed(draw: st.DrawFn, paths: list[str]) -> tuple[bytes, str | None]:
    """One hostile chunk of input and the id of the request in it that must be answered (None if none)."""
    shape = draw(st.sampled_from(MALFORMED_SHAPES))
    msg_id = f"j{draw(st.integers(0, 10**9))}"
    request = {"jsonrpc": "2.0", "id": msg_id, "method": draw(st.sampled_from(REQUESTS)),
               "params": hover_params(draw(st.sampled_from(paths)))}
    body = json.dumps(request).encode()
    if shape == "bad-length":
        value = draw(st.sampled_from([b"abc", b"-5", b"", b"+3", b"1e3", b"0x10", b"0", b"10" * 20,
                                      b"%d" % (2 << 30)]) | st.binary(max_size=20).filter(lambda v: b"\n" not in v))
        return b"Content-Length: " + value + b"\r\n\r\n" + body, None
    if shape == "no-length":
        return b"Content-Type: application/vscode-jsonrpc\r\n\r\n" + body, None
    if shape == "garbage-line":
        line = draw(st.binary(min_size=1, max_size=300).filter(lambda v: b"\n" not in v and b"length" not in v.lower()))
        return line + b"\r\n", None
    if shape == "long-line":
        return b"X" * draw(st.integers(1001, 5000)) + b"\r\n", None
    if shape == "stray-breaks":
        return draw(st.sampled_from([b"\r\n", b"\n"])) * draw(st.integers(1, 5)), None
    if shape == "short-body":
        return b"Content-Length: %d\r\n\r\n" % draw(st.integers(1, len(body) - 1)) + body, None
    if shape == "not-json":
        junk = draw(st.binary(min_size=1, max_size=200).filter(lambda v: not _is_json(v)))
        return b"Content-Length: %d\r\n\r\n" % len(junk) + junk, None
    if shape == "json-value":
        return frame_bytes(json.dumps(draw(JSON)).encode()), None
    if shape == "wrong-version":
        return frame({**request, "jsonrpc": draw(st.sampled_from(["1.0", "2", "", None]))}), msg_id
    if shape == "invalid-params":
        return frame({**request, "params": draw(JSON)}), msg_id
    if shape in ("hostile-path", "unknown-method"):
        method = request["method"] if shape == "hostile-path" else draw(st.sampled_from(["gdl/x", "", "$/x"]))
        return frame({**request, "method": method}), msg_id
    if shape == "did-save":
        return frame({"jsonrpc": "2.0", "method": "textDocument/didSave", "params": request["params"]}), None
    if shape == "response":
        return frame({"jsonrpc": "2.0", "id": msg_id, "result": draw(JSON)}), None
    return frame({"jsonrpc": "2.0", "method": draw(st.sampled_from(["textDocument/didOpen",
                                                                     "textDocument/didChange"])),
                  "params": draw(JSON)}), None


def frame_bytes(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _is_json(data: bytes) -> bool:
    try:
        json.loads(data)
    except (ValueError, RecursionError):
        return False
    return True


@pytest.mark.slow
def test_the_server_keeps_answering_after_malformed_messages(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.gdl"
    os.mkfifo(fifo)
    paths = [fifo.as_uri(), "file:///dev/zero", "file:///dev/stdin", "file:///dev/urandom", tmp_path.as_uri(),
             (tmp_path / "missing.gdl").as_uri(), KALAH.as_uri(), "untitled:Untitled-1", "file:///proc/self/status",
             "http://example.com" + KALAH.as_posix()]
    with RawServer() as server:
        server.initialize()

        # One server for every example (a start per example would take minutes), so no shrinking: once it
        # stops answering, every smaller example would wait out TIMEOUT too.
        @settings(max_examples=200, deadline=None, derandomize=True, database=None, phases=[Phase.generate],
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
        @given(st.lists(malformed(paths), min_size=1, max_size=5))
        def keeps_answering(chunks: list[tuple[bytes, str | None]]) -> None:
            for data, _ in chunks:
                server.send(data)
            sentinel = server.request("textDocument/hover", hover_params((tmp_path / "missing.gdl").as_uri()))
            assert_refused(sentinel, -32803, "no such file")
            answered = {m.get("id"): m for m in server.seen if "method" not in m}
            for _, msg_id in chunks:
                if msg_id is not None:
                    assert msg_id in answered, (msg_id, chunks)
            for reply in answered.values():
                assert reply.get("error", {}).get("code") != -32603, reply  # an internal error is a bug
                assert "Traceback" not in json.dumps(reply), reply
            server.seen.clear()

        keeps_answering()
        assert "result" in server.request("shutdown")
        server.notify("exit", None)
        code, err = server.finish()
        assert code == 0 and "Traceback" not in err, err[-3000:]
