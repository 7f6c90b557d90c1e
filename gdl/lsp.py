"""``gdl lsp``: a language server for rule files over stdio, on pygls.

* Diagnostics: the static checks (parse, names, types, bounds, dead code) on open and on every
  change; after a pause without edits (``PLAYOUT_DELAY`` seconds) the random playouts of
  ``gdl check`` too, bounded by ``PLAYOUT_SECONDS`` of CPU and cancelled by the next edit. Each
  diagnostic has its code and, as ``gdl check`` prints them, its hint and notes.
* Hover (a declaration's kind, domain, range and default; a keyword's or builtin's one-line doc),
  go to definition, find references, rename (defs, state variables and every other declared name,
  locals included), completion (keywords, names in scope, builtins, board directions), document
  symbols (the outline), a quick fix for each did-you-mean hint, and formatting (``gdl fmt``).

Names come from :mod:`gdl.lsp_index` (the AST and its spans); diagnostics from
:func:`gdl.loader.check_source` and :func:`gdl.check.check_source`. LSP positions are 0-based;
columns are counted in characters (identical to UTF-16 units for the ASCII of rule files).

The protocol is pygls'; around it (docs/editors.md, "What the server answers"): every request gets a
reply, a refusal is an error with one clear line (never a traceback), a document the client has not
opened is read only as :func:`gdl.loader.read_source` reads rule files, and a malformed frame is skipped
(:class:`FramedInput`) without stopping the answers to the next ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
import sys
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

from lsprotocol import types as lsp

from gdl.diagnostics import Diagnostic, GdlError, RuleFileError, Span, visible
from gdl.loader import MAX_FILE_BYTES, read_source
from gdl.lsp_index import ALL_KEYWORDS, BUILTIN_DOCS, KEYWORD_DOCS, NAME_RE, Index, describe, word_doc

PLAYOUT_DELAY = 1.0  # seconds without an edit before the playouts run
PLAYOUT_SECONDS = 2.0  # CPU budget of the playouts of one check
PLAYOUTS = 100
# A message carries at most a rule file at the size cap with every byte JSON-escaped (`\u001b` is six
# bytes), plus the envelope; a longer Content-Length is refused unread.
MAX_MESSAGE_BYTES = 6 * MAX_FILE_BYTES + 1_000_000
MAX_HEADER_LINE = 1000  # bytes of one header line (`Content-Length: 30000000` is 24)
MAX_HEADER_LINES = 16
log = logging.getLogger("gdl.lsp")
DID_YOU_MEAN = re.compile(r"did you mean `([A-Za-z_][A-Za-z0-9_]*)`")
SYMBOL_KINDS = {
    "param": lsp.SymbolKind.Constant, "player": lsp.SymbolKind.Class, "enum": lsp.SymbolKind.Enum,
    "state": lsp.SymbolKind.Variable, "def": lsp.SymbolKind.Function, "move": lsp.SymbolKind.Method,
}
COMPLETION_KINDS = {
    "param": lsp.CompletionItemKind.Constant, "player": lsp.CompletionItemKind.Class,
    "enum": lsp.CompletionItemKind.Enum, "member": lsp.CompletionItemKind.EnumMember,
    "state": lsp.CompletionItemKind.Variable, "def": lsp.CompletionItemKind.Function,
    "move": lsp.CompletionItemKind.Method, "local": lsp.CompletionItemKind.Variable,
}


# ------------------------------------------------------------------ conversions


def to_range(span: Span) -> lsp.Range:
    return lsp.Range(start=lsp.Position(line=span.line - 1, character=span.column - 1),
                     end=lsp.Position(line=span.end_line - 1, character=max(span.end_column - 1, 0)))


def to_lsp_diagnostic(diagnostic: Diagnostic) -> lsp.Diagnostic:
    message = diagnostic.message
    if diagnostic.hint:
        message += f"\nhint: {diagnostic.hint}"
    for note in diagnostic.notes:
        message += f"\nnote: {note}"
    severity = lsp.DiagnosticSeverity.Error if diagnostic.is_error else lsp.DiagnosticSeverity.Warning
    return lsp.Diagnostic(range=to_range(diagnostic.span), message=message, severity=severity,
                          code=diagnostic.code, source="gdl", data={"hint": diagnostic.hint})


def static_diagnostics(source: str, filename: str) -> list[Diagnostic]:
    from gdl.loader import check_source

    try:
        return check_source(source, filename)
    except RuleFileError as error:  # defensive: check_source reports, it should not raise
        return error.diagnostics


class _Cancelled(Exception):
    """An edit made a playout run out of date: stop it between two playouts."""


def playout_diagnostics(source: str, filename: str,
                        cancelled: threading.Event | None = None) -> list[Diagnostic] | None:
    """The static diagnostics plus what random playouts find, within ``PLAYOUT_SECONDS``; None if cancelled."""
    from gdl.check import check_source

    def progress(_done: int) -> None:
        if cancelled is not None and cancelled.is_set():
            raise _Cancelled

    try:
        return check_source(source, filename, playouts=PLAYOUTS, time_budget=PLAYOUT_SECONDS,
                            progress=progress).diagnostics
    except _Cancelled:
        return None
    except Exception:  # a parameter problem or a crash must not stop the server
        return static_diagnostics(source, filename)


def parse_index(source: str) -> Index | None:
    from gdl.parser import parse

    try:
        return Index(parse(source), source)
    except RuleFileError:
        return None


class Refusal(ValueError):
    """A request the server declines for a reason the user can act on (a rename to a taken name, a file
    it will not read): a JSON-RPC error with this one-line message, never an internal error."""

    def __init__(self, message: str, code: int = lsp.LSPErrorCodes.RequestFailed) -> None:
        super().__init__(message)
        self.code = int(code)


# ------------------------------------------------------------------ framing


class FramedInput:
    """The client's byte stream as pygls reads it (``readline``/``read``), one checked message at a time.

    pygls 2.1 takes a header only in the exact form ``Content-Length: N\\r\\n``; after a malformed one
    (``Content-Length: abc``, a missing length) it read each later body as a header line, so nothing
    was answered again, and a huge length made it wait for bytes that never come. Here a header block
    is read with caps on its lines and on the length. A malformed block is logged and skipped, then
    everything up to the next ``Content-Length:`` (its body, whose length is unknown: a body never ends
    with a line break, so the next header follows it on the same line); bytes before a header on its
    first line (the tail of a body whose length was too short) are skipped the same way. pygls sees only
    well-formed frames. A frame whose body is not JSON reaches pygls, which answers it (-32700).
    """

    MARKER = b"content-length:"

    def __init__(self, raw: BinaryIO, chunk: int = 65536) -> None:
        self._raw = raw
        self._chunk = chunk
        self._buffer = bytearray()  # read from the client, not parsed yet
        self._out = b""  # the current message, re-framed, not yet read by pygls

    def readline(self) -> bytes:
        if not self._out:
            self._out = self._next_frame()
        end = self._out.find(b"\n") + 1 or len(self._out)
        line, self._out = self._out[:end], self._out[end:]
        return line

    def read(self, size: int) -> bytes:
        data, self._out = self._out[:size], self._out[size:]
        return data

    def _fill(self) -> bool:
        """Read what the client has sent so far (at least a byte); False at the end of the stream."""
        read1 = getattr(self._raw, "read1", self._raw.read)
        data = read1(self._chunk)
        self._buffer += data
        return bool(data)

    def _next_frame(self) -> bytes:
        """The next well-formed message as ``Content-Length: N\\r\\n\\r\\n`` + body; empty at the end."""
        while (length := self._header()) is not None and length < 0:
            if not self._skip_to_header():
                return b""
        if length is None:
            return b""
        while len(self._buffer) < length:
            if not self._fill():
                return b""
        body = bytes(self._buffer[:length])
        del self._buffer[:length]
        return b"Content-Length: %d\r\n\r\n" % length + body

    def _line_end(self, start: int) -> int:
        """The index of the line feed ending the line at ``start``; -1 if too long, -2 at the end of the stream."""
        while True:
            end = self._buffer.find(b"\n", start, start + MAX_HEADER_LINE + 1)
            if end >= 0:
                return end
            if len(self._buffer) - start > MAX_HEADER_LINE:
                return -1
            if not self._fill():
                return -2

    def _header(self) -> int | None:
        """The body length the header block at the front declares, the block consumed; -1 if it was malformed
        (consumed as far as its end can be told); None at the end of the stream."""
        start, count, length, problem = 0, 0, None, ""
        while True:
            end = self._line_end(start)
            if end == -2:
                return None
            if end == -1:
                problem, start = problem or f"a header line longer than {MAX_HEADER_LINE} bytes", start + 1
                break
            line = bytes(self._buffer[start:end]).rstrip(b"\r")
            if count == 0 and not line:  # a stray line break between two messages
                del self._buffer[:end + 1]
                continue
            if count == 0 and (junk := line.lower().find(self.MARKER)) > 0:  # a body's tail: its length was short
                log.warning("skipped %d bytes before a header", junk)
                del self._buffer[:junk]
                continue
            if problem and line.lower().startswith(self.MARKER):
                break  # the next message: the malformed block had no empty line to end it
            start, count = end + 1, count + 1
            if not line:
                break
            if not problem:
                problem, length = self._header_line(line, length)
            if count > MAX_HEADER_LINES:
                problem = problem or f"more than {MAX_HEADER_LINES} header lines"
                break
        del self._buffer[:start]
        if not problem and length is not None:
            return length
        log.warning("skipped a message with %s", problem or "no Content-Length header")
        return -1

    @classmethod
    def _header_line(cls, line: bytes, length: int | None) -> tuple[str, int | None]:
        """What is wrong with a header line ("" if nothing), and the length declared so far."""
        name, colon, value = line.partition(b":")
        if not colon:
            return "a malformed header", length
        if name.strip().lower() != cls.MARKER[:-1]:
            return "", length  # Content-Type and others are not needed
        number = value.strip()
        if not number.isdigit() or len(number) > 12 or not 0 < int(number) <= MAX_MESSAGE_BYTES:
            shown = _shown_text(number.decode("latin-1"))
            return f"Content-Length `{shown}` (a whole number of bytes, 1 to {MAX_MESSAGE_BYTES})", length
        if length is not None and length != int(number):
            return "two different Content-Length headers", length
        return "", int(number)

    def _skip_to_header(self) -> bool:
        """Drop everything up to the next ``Content-Length:`` (a skipped message's body); False at the end."""
        keep = len(self.MARKER) - 1  # a header may straddle two reads
        while True:
            found = self._buffer.lower().find(self.MARKER)
            if found >= 0:
                del self._buffer[:found]
                return True
            del self._buffer[:max(0, len(self._buffer) - keep)]
            if not self._fill():
                return False


# ------------------------------------------------------------------ the server


def build_server() -> Any:
    """The pygls server with every feature registered (pygls is imported only here: an optional extra)."""
    import gdl

    server = _server_class()("gdl", gdl.__version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Full,
                             protocol_cls=_protocol_class())
    indexes: dict[str, Index] = {}  # the last index of each open document that parsed (for edits that do not)
    pending: dict[str, tuple[asyncio.Task[None], threading.Event]] = {}

    def feature(name: str, options: Any = None) -> Callable[[Callable[[Any], Any]], Any]:
        return lambda handler: server.feature(name, options)(_guarded(name, handler))

    def publish(uri: str, version: int | None, diagnostics: list[Diagnostic]) -> None:
        items = [to_lsp_diagnostic(d) for d in diagnostics]
        params = lsp.PublishDiagnosticsParams(uri=uri, diagnostics=items, version=version)
        if hasattr(server, "text_document_publish_diagnostics"):
            server.text_document_publish_diagnostics(params)
        else:  # pragma: no cover - pygls 1.x
            server.publish_diagnostics(uri, items, version)

    def opened(uri: str) -> Any | None:
        """pygls' copy of a document the client opened; None if it did not open it (pygls then makes a
        document that would read the file on every use: a FIFO blocked the server, /dev/zero never ended)."""
        doc = server.workspace.get_text_document(uri)
        return doc if doc.version is not None else None  # didOpen's text always has a version

    def source(uri: str) -> str:
        """The text of a document: the client's copy if it opened it, else the file as ``gdl check`` reads it
        (:func:`gdl.loader.read_source`: a regular file, without blocking, at most 5 MB, UTF-8)."""
        from pygls.uris import to_fs_path

        doc = opened(uri)
        if doc is not None:
            return str(doc.source)
        path = to_fs_path(uri)  # (not the document's `path`: pygls makes one of any URI's path, http: too)
        if not path:
            raise Refusal(f"{_shown_text(uri)}: the document is not open and its URI is not a file: URI")
        try:
            return read_source(path)
        except GdlError as error:
            raise Refusal(visible(str(error))) from None

    def filename(uri: str) -> str:
        return server.workspace.get_text_document(uri).path or uri

    def index(uri: str, text: str) -> Index | None:
        fresh = parse_index(text)
        if opened(uri) is None:  # a file read for one request: nothing kept
            return fresh
        if fresh is not None:
            indexes[uri] = fresh
        return indexes.get(uri)

    async def later_playouts(uri: str, version: int | None, cancelled: threading.Event) -> None:
        await asyncio.sleep(PLAYOUT_DELAY)
        doc = opened(uri)
        if doc is None:
            return
        diagnostics = await asyncio.get_running_loop().run_in_executor(None, playout_diagnostics, doc.source,
                                                                       filename(uri), cancelled)
        doc = opened(uri)
        if diagnostics is not None and not cancelled.is_set() and doc is not None and doc.version == version:
            publish(uri, version, diagnostics)

    def cancel(uri: str) -> None:
        """Stop the pending playouts of a document: before they start, or between two playouts."""
        if uri in pending:
            task, cancelled = pending.pop(uri)
            cancelled.set()
            task.cancel()

    def check(uri: str) -> None:
        doc = opened(uri)
        if doc is None:
            return
        cancel(uri)
        publish(uri, doc.version, static_diagnostics(doc.source, filename(uri)))
        cancelled = threading.Event()
        pending[uri] = (asyncio.ensure_future(later_playouts(uri, doc.version, cancelled)), cancelled)

    @feature(lsp.SHUTDOWN)
    def shutdown(params: Any) -> None:
        server.protocol.shut_down = True  # `exit` after this is a clean stop (exit status 0)

    @feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: lsp.DidOpenTextDocumentParams) -> None:
        check(params.text_document.uri)

    @feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: lsp.DidChangeTextDocumentParams) -> None:
        check(params.text_document.uri)

    @feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: lsp.DidSaveTextDocumentParams) -> None:
        # Only an open document is checked: the file of any other path is not read (its first token
        # came back in a syntax error), and the spec sends didSave only for open documents.
        if opened(params.text_document.uri) is None:
            log.warning("ignored didSave of a document that is not open")
            return
        check(params.text_document.uri)

    @feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        cancel(uri)
        indexes.pop(uri, None)
        publish(uri, None, [])

    @feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(params: lsp.HoverParams) -> lsp.Hover | None:
        text = source(params.text_document.uri)
        return hover_at(index(params.text_document.uri, text), text, params.position)

    @feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def definition(params: lsp.DefinitionParams) -> lsp.Location | None:
        uri = params.text_document.uri
        found = occurrence(index(uri, source(uri)), params.position)
        return lsp.Location(uri=uri, range=to_range(found.symbol.span)) if found else None

    @feature(lsp.TEXT_DOCUMENT_REFERENCES)
    def references(params: lsp.ReferenceParams) -> list[lsp.Location]:
        uri = params.text_document.uri
        found = occurrence(index(uri, source(uri)), params.position)
        if found is None:
            return []
        spans = [s for s in found.symbol.refs if params.context.include_declaration or s != found.symbol.span]
        return [lsp.Location(uri=uri, range=to_range(s)) for s in spans]

    @feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
    def prepare_rename(params: lsp.PrepareRenameParams) -> lsp.Range | None:
        uri = params.text_document.uri
        found = occurrence(index(uri, source(uri)), params.position)
        return to_range(found.span) if found else None

    @feature(lsp.TEXT_DOCUMENT_RENAME)
    def rename(params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
        uri = params.text_document.uri
        return rename_edit(index(uri, source(uri)), params)

    @feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["("]))
    def completion(params: lsp.CompletionParams) -> lsp.CompletionList:
        uri = params.text_document.uri
        return completions(index(uri, source(uri)), params.position)

    @feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbol(params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        uri = params.text_document.uri
        return outline(index(uri, source(uri)))

    @feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]))
    def code_action(params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        return quick_fixes(params)

    @feature(lsp.TEXT_DOCUMENT_FORMATTING)
    def formatting(params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit] | None:
        return format_edits(source(params.text_document.uri))

    return server


def _guarded(name: str, handler: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A feature's handler whose refusal is an error of one line, and whose bug is an internal error without
    pygls' traceback in the reply (the traceback goes to the log, for a report)."""
    from pygls.exceptions import JsonRpcException, JsonRpcInternalError

    @functools.wraps(handler)
    def guarded(params: Any) -> Any:
        try:
            return handler(params)
        except Refusal as refusal:
            raise JsonRpcException(str(refusal), code=refusal.code) from None
        except JsonRpcException:
            raise
        except Exception as error:
            log.exception("internal error in %s", name)
            raise JsonRpcInternalError(f"internal error in gdl lsp ({name}): {type(error).__name__}: {error}") \
                from None

    return guarded


def _server_class() -> Any:
    """pygls' LanguageServer, answering a message that is not JSON with a parse error (-32700)."""
    try:
        from pygls.lsp.server import LanguageServer  # pygls >= 2
    except ImportError:  # pragma: no cover - pygls 1.x
        from pygls.server import LanguageServer  # type: ignore[no-redef,attr-defined]  # (1.x only)
    from pygls.exceptions import JsonRpcException

    class Server(LanguageServer):
        def report_server_error(self, error: Exception, source: Any) -> None:
            # pygls' read loop reports with `source=JsonRpcException` what failed before a message was
            # handled: a body that is not JSON (or nested too deep, or a number of thousands of digits),
            # which JSON-RPC answers with a parse error and a null id. The rest keeps pygls' default.
            if source is JsonRpcException and not isinstance(error, JsonRpcException):
                protocol: Any = self.protocol  # the Protocol of _protocol_class
                protocol.reply_error(None, lsp.ErrorCodes.ParseError,
                                     f"the message is not JSON ({type(error).__name__}: {error})")
                return
            super().report_server_error(error, source)

    return Server


def _protocol_class() -> Any:
    """pygls' LanguageServerProtocol, with a reply to every request.

    pygls 2.1 dropped without a word a request whose params did not fit the method's types, one whose
    ``jsonrpc`` was not "2.0", a message that was not a JSON object, and every request after
    ``shutdown``; a request before ``initialize`` got an internal error with a traceback. Each now gets
    the error JSON-RPC and LSP name (-32602, -32600, -32002); notifications among them are logged.
    """
    from pygls.exceptions import JsonRpcException
    from pygls.protocol import LanguageServerProtocol

    class Protocol(LanguageServerProtocol):
        initialized = False
        shut_down = False

        def structure_message(self, data: Any) -> Any:
            try:
                return super().structure_message(data)
            except JsonRpcException as error:
                return _Invalid.of(data, error)

        def handle_message(self, message: Any) -> None:
            problem = _problem(message) or self._out_of_turn(message)
            if problem is None:
                super().handle_message(message)
                return
            log.warning("%s", problem.text)
            if problem.id is not _NO_REPLY:
                self.reply_error(problem.id, problem.code, problem.text)

        def _out_of_turn(self, message: Any) -> _Invalid | None:
            """A message before ``initialize`` or after ``shutdown`` (``exit`` is always in turn)."""
            method = _member(message, "method")
            msg_id = _member(message, "id") if _has(message, "id") else _NO_REPLY
            if method == lsp.INITIALIZE:
                self.initialized = True
            elif method is None or method == lsp.EXIT:
                return None
            elif not self.initialized:
                return _Invalid(msg_id, lsp.ErrorCodes.ServerNotInitialized, f"{_shown_text(method)} before initialize")
            elif self.shut_down:
                return _Invalid(msg_id, lsp.ErrorCodes.InvalidRequest, f"{_shown_text(method)} after shutdown")
            return None

        def reply_error(self, msg_id: Any, code: int, message: str) -> None:
            self._send_response(msg_id, error=lsp.ResponseError(code=int(code), message=message))

    return Protocol


class _NoReply:
    """The id of a notification: there is nobody to answer."""


_NO_REPLY = _NoReply()
NOT_JSON_RPC = 'not a JSON-RPC 2.0 message (an object with "jsonrpc": "2.0" and a "method")'


class _Invalid:
    """A message answered with an error (or only logged, when its id is ``_NO_REPLY``)."""

    def __init__(self, msg_id: Any, code: int, text: str) -> None:
        self.id, self.code, self.text = msg_id, int(code), text

    @classmethod
    def of(cls, data: Any, error: Exception) -> _Invalid:
        """A message pygls could not read into its method's types."""
        method = _shown_text(data.get("method")) if isinstance(data, dict) else ""
        if isinstance(data, dict) and "method" in data:
            reason = _cause(error)
            if "id" in data:
                return cls(_reply_id(data["id"]), lsp.ErrorCodes.InvalidParams,
                           f"invalid params for {method}: {reason}")
            return cls(_NO_REPLY, lsp.ErrorCodes.InvalidParams, f"ignored {method} with invalid params: {reason}")
        if isinstance(data, dict) and "id" in data:
            return cls(_NO_REPLY, lsp.ErrorCodes.InvalidRequest, "ignored a malformed response")
        return cls(None, lsp.ErrorCodes.InvalidRequest, NOT_JSON_RPC)


def _problem(message: Any) -> _Invalid | None:
    """Why pygls cannot handle a message as it is: params that did not fit, or not JSON-RPC 2.0 at all."""
    if isinstance(message, _Invalid):
        return message
    if _member(message, "jsonrpc") == "2.0":
        return None
    if _has(message, "method") or not (_has(message, "result") or _has(message, "error")):
        return _Invalid(_reply_id(_member(message, "id")), lsp.ErrorCodes.InvalidRequest, NOT_JSON_RPC)
    return _Invalid(_NO_REPLY, lsp.ErrorCodes.InvalidRequest, "ignored a response that is not JSON-RPC 2.0")


def _member(message: Any, name: str) -> Any:
    """A member of a message, structured by pygls (an attrs object) or not (a dict); None if absent."""
    return message.get(name) if isinstance(message, dict) else getattr(message, name, None)


def _has(message: Any, name: str) -> bool:
    return name in message if isinstance(message, dict) else hasattr(message, name)


def _reply_id(msg_id: Any) -> int | str | None:
    """The id to answer with: the request's if it is one JSON-RPC allows (a number or a string), else null."""
    return msg_id if isinstance(msg_id, int | str) and not isinstance(msg_id, bool) else None


def _shown_text(value: Any) -> str:
    """Client text for a message or the log: control characters escaped, at most 100 characters."""
    return visible(str(value)[:100])


def _cause(error: Exception) -> str:
    """Which member of the params is wrong, in cattrs' words (`expected int @ $.position.line`)."""
    from cattrs import transform_error

    cause = error.__cause__
    reason = str(cause or error)
    if cause is not None and hasattr(cause, "exceptions"):  # cattrs' ClassValidationError, a group
        with contextlib.suppress(Exception):
            reason = "; ".join(transform_error(cause))
    return visible(reason[:500])


# ------------------------------------------------------------------ features (plain functions, tested directly too)


def occurrence(index: Index | None, position: lsp.Position) -> Any:
    return index.at(position.line + 1, position.character + 1) if index else None


def hover_at(index: Index | None, source: str, position: lsp.Position) -> lsp.Hover | None:
    found = occurrence(index, position)
    if found is not None and index is not None:
        text = describe(found.symbol, index)
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text),
                         range=to_range(found.span))
    lines = source.split("\n")
    if position.line >= len(lines):
        return None
    line = lines[position.line]
    for match in NAME_RE.finditer(line):
        if match.start() <= position.character <= match.end():
            doc = word_doc(match.group(0))
            if doc is None:
                return None
            span = Span(position.line + 1, match.start() + 1, position.line + 1, match.end() + 1)
            return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=doc), range=to_range(span))
    return None


def rename_edit(index: Index | None, params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
    from lsprotocol.types import TextEdit, WorkspaceEdit

    found = occurrence(index, params.position)
    new = params.new_name
    if found is None or index is None:
        return None
    if not NAME_RE.fullmatch(new) or new in ALL_KEYWORDS:
        raise Refusal(f"`{_shown_text(new)}` is not a valid name (a letter or _, then letters, digits or _; "
                      "not a keyword)", lsp.ErrorCodes.InvalidParams)
    clash = index.globals.get(new)
    if clash is None:  # a local of the same declaration with that name would capture or be captured
        clash = next((s for _, symbols in index.scopes for s in symbols
                      if s.name == new and s.decl.line <= found.symbol.decl.line <= s.decl.end_line), None)
    if clash is not None and clash is not found.symbol:
        raise Refusal(f"`{new}` is already declared at line {clash.span.line}")
    spans = sorted(set(found.symbol.refs), key=lambda s: (s.line, s.column))
    edits = [TextEdit(range=to_range(span), new_text=new) for span in spans]
    return WorkspaceEdit(changes={params.text_document.uri: edits})


def completions(index: Index | None, position: lsp.Position) -> lsp.CompletionList:
    items: list[lsp.CompletionItem] = []
    seen: set[str] = set()

    def add(label: str, kind: lsp.CompletionItemKind, detail: str) -> None:
        if label not in seen:
            seen.add(label)
            items.append(lsp.CompletionItem(label=label, kind=kind, detail=detail))

    if index is not None:
        for symbol in index.locals_at(position.line + 1, position.character + 1):
            add(symbol.name, COMPLETION_KINDS["local"], f"local ({symbol.how})")
        for symbol in index.globals.values():
            add(symbol.name, COMPLETION_KINDS[symbol.kind], index.first_line(symbol.decl))
    from gdl import ast

    has_board = index is not None and any(isinstance(d, ast.BoardDecl) for d in index.rules.decls)
    for name, doc in BUILTIN_DOCS.items():
        if has_board or name in ("abs", "len", "next", "opponent", "mover", "turn", "player", "bool"):
            add(name, lsp.CompletionItemKind.Function if "(" in doc.split(":")[0] else lsp.CompletionItemKind.Constant,
                doc)
    for word in ALL_KEYWORDS:
        add(word, lsp.CompletionItemKind.Keyword, KEYWORD_DOCS.get(word, "keyword"))
    return lsp.CompletionList(is_incomplete=False, items=items)


def outline(index: Index | None) -> list[lsp.DocumentSymbol]:
    from gdl import ast

    if index is None:
        return []
    out: list[lsp.DocumentSymbol] = []
    for decl in index.rules.decls:
        symbol = next((s for s in index.symbols if s.decl == decl.span and s.kind in SYMBOL_KINDS), None)
        if symbol is not None and symbol.kind != "player":
            name, kind, selection = symbol.name, SYMBOL_KINDS[symbol.kind], symbol.span
        elif isinstance(decl, ast.PlayersDecl):
            name, kind, selection = "players " + ", ".join(n for n, _ in decl.names), lsp.SymbolKind.Class, decl.span
        elif isinstance(decl, ast.EndDecl):
            name, kind, selection = index.first_line(decl.span).split(" when ")[0], lsp.SymbolKind.Event, decl.span
        elif isinstance(decl, ast.SetupDecl | ast.AfterDecl | ast.UtilityDecl | ast.HeuristicDecl | ast.BoardDecl):
            name, kind, selection = index.first_line(decl.span).split(":")[0], lsp.SymbolKind.Namespace, decl.span
        else:
            continue
        full = to_range(decl.span)
        sel = to_range(selection)
        if (sel.start.line, sel.start.character) < (full.start.line, full.start.character) or \
                (sel.end.line, sel.end.character) > (full.end.line, full.end.character):
            sel = full
        out.append(lsp.DocumentSymbol(name=name, kind=kind, range=full, selection_range=sel,
                                      detail=index.first_line(decl.span)))
    return out


def quick_fixes(params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    actions: list[lsp.CodeAction] = []
    for diagnostic in params.context.diagnostics:
        hint = (diagnostic.data or {}).get("hint") if isinstance(diagnostic.data, dict) else None
        match = DID_YOU_MEAN.search(hint or diagnostic.message)
        if not match:
            continue
        name = match.group(1)
        fix = lsp.TextEdit(range=diagnostic.range, new_text=name)
        edit = lsp.WorkspaceEdit(changes={params.text_document.uri: [fix]})
        actions.append(lsp.CodeAction(title=f"Change to `{name}`", kind=lsp.CodeActionKind.QuickFix,
                                      diagnostics=[diagnostic], edit=edit, is_preferred=True))
    return actions


def format_edits(source: str) -> list[lsp.TextEdit] | None:
    from gdl.fmt import FormatError, format_source

    try:
        result = format_source(source)
    except (RuleFileError, FormatError):
        return None
    if result == source:
        return []
    lines = source.split("\n")
    end = lsp.Position(line=len(lines) - 1, character=len(lines[-1]))
    return [lsp.TextEdit(range=lsp.Range(start=lsp.Position(line=0, character=0), end=end), new_text=result)]


def serve() -> int:
    """Run the server on stdin/stdout until the client exits: 0 after a ``shutdown`` request, 1 otherwise
    (the LSP spec's exit status for ``exit``; also when the client just closes the stream)."""
    _log_to_stderr()
    server = build_server()
    server.start_io(FramedInput(sys.stdin.buffer), _Output(sys.stdout.buffer))
    return 0 if server.protocol.shut_down else 1


class _Output:
    """Standard output for pygls, which closes it on ``exit``: closing only flushes, so the CLI's own
    flush of ``sys.stdout`` afterwards does not fail (`ValueError: I/O operation on closed file`)."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def write(self, data: bytes) -> int:
        return self._stream.write(data)

    def flush(self) -> None:
        self._stream.flush()

    def close(self) -> None:
        self._stream.flush()


class _LogFormat(logging.Formatter):
    """One line per record. pygls logs each refused request and each malformed message with a traceback;
    those are the client's doing (or the user's), so only the error's own line is kept. A bug keeps its
    traceback (logged by :func:`build_server`'s guard under ``gdl.lsp``) for the report."""

    def format(self, record: logging.LogRecord) -> str:
        error = record.exc_info[1] if record.exc_info else None
        if record.name.startswith("pygls") and (error is not None or record.args):
            text = record.getMessage().split("\n")[0]  # "Unable to deserialize message\n<traceback>"
            if error is not None:
                text += f": {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
            record = logging.makeLogRecord({**record.__dict__, "msg": visible(text), "args": (),
                                            "exc_info": None, "exc_text": None})
        return super().format(record)


def _log_to_stderr() -> None:
    """Warnings and errors to standard error (an editor shows it as the server's log), one line each."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_LogFormat("gdl lsp: %(levelname)s: %(message)s"))
    # pygls' own line for params that do not fit says only that; the protocol logs which member is wrong
    handler.addFilter(lambda record: not str(record.msg).startswith("Unable to deserialize message"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
