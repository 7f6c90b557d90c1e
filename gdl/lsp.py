"""``gdl lsp``: a language server for rule files over stdio, on pygls.

* Diagnostics: the static checks (parse, names, types, bounds, dead code) on open and on every
  change; after a pause without edits (``PLAYOUT_DELAY`` seconds) the random playouts of
  ``gdl check`` too, bounded by ``PLAYOUT_STEPS`` (:mod:`gdl.steps`) and cancelled by the next edit. Each
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
(:class:`gdl.lsp_protocol.FramedInput`) without stopping the answers to the next ones.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
import threading
from collections.abc import Callable
from typing import Any

from lsprotocol import types as lsp

from gdl.diagnostics import Diagnostic, GdlError, RuleFileError, Span, visible
from gdl.loader import read_source
from gdl.lsp_index import ALL_KEYWORDS, BUILTIN_DOCS, KEYWORD_DOCS, NAME_RE, Index, describe, word_doc
from gdl.lsp_protocol import (
    ClosingOnlyFlushes,
    FramedInput,
    Refusal,
    guarded_handler,
    log_to_stderr,
    protocol_class,
    server_class,
    shown_text,
)

PLAYOUT_DELAY = 1.0  # seconds without an edit before the playouts run
PLAYOUT_STEPS = 500_000  # the playouts of one check: a second or two of CPU, counted (the same on any machine)
PLAYOUTS = 100
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
    """The static diagnostics plus what random playouts find, within ``PLAYOUT_STEPS``; None if cancelled."""
    from gdl.check import check_source

    def progress(_done: int) -> None:
        if cancelled is not None and cancelled.is_set():
            raise _Cancelled

    try:
        return check_source(source, filename, playouts=PLAYOUTS, playout_steps=PLAYOUT_STEPS,
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


# ------------------------------------------------------------------ the server


def build_server() -> Any:
    """The pygls server with every feature registered (pygls is imported only here: an optional extra)."""
    import gdl

    server = server_class()("gdl", gdl.__version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Full,
                             protocol_cls=protocol_class())
    indexes: dict[str, Index] = {}  # the last index of each open document that parsed (for edits that do not)
    pending: dict[str, tuple[asyncio.Task[None], threading.Event]] = {}

    def feature(name: str, options: Any = None) -> Callable[[Callable[[Any], Any]], Any]:
        return lambda handler: server.feature(name, options)(guarded_handler(name, handler))

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
            raise Refusal(f"{shown_text(uri)}: the document is not open and its URI is not a file: URI")
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
        raise Refusal(f"`{shown_text(new)}` is not a valid name (a letter or _, then letters, digits or _; "
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
    log_to_stderr()
    server = build_server()
    server.start_io(FramedInput(sys.stdin.buffer), ClosingOnlyFlushes(sys.stdout.buffer))
    return 0 if server.protocol.shut_down else 1

