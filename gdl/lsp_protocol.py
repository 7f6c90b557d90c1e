"""The JSON-RPC side of ``gdl lsp`` around pygls: framing, a reply to every request, refusals of one line.

pygls is the protocol; this module narrows it where it misbehaved on hostile or careless clients
(docs/editors.md, "What the server answers"): :class:`FramedInput` reads each header block with caps and
skips a malformed one; :func:`protocol_class` answers every request (invalid params, not JSON-RPC, out of
turn); :func:`guarded_handler` turns a :class:`Refusal` into an error of one line and a bug into an internal
error without a traceback; :class:`ClosingOnlyFlushes` keeps ``exit`` from closing standard output under the CLI.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import sys
from collections.abc import Callable
from typing import Any, BinaryIO

from lsprotocol import types as lsp

from gdl.diagnostics import visible
from gdl.loader import MAX_FILE_BYTES

# A message carries at most a rule file at the size cap with every byte JSON-escaped (`\u001b` is six
# bytes), plus the envelope; a longer Content-Length is refused unread.
MAX_MESSAGE_BYTES = 6 * MAX_FILE_BYTES + 1_000_000
MAX_HEADER_LINE = 1000  # bytes of one header line (`Content-Length: 30000000` is 24)
MAX_HEADER_LINES = 16
log = logging.getLogger("gdl.lsp")


class Refusal(ValueError):
    """A request the server declines for a reason the user can act on (a rename to a taken name, a file
    it will not read): a JSON-RPC error with this one-line message, never an internal error."""

    def __init__(self, message: str, code: int = lsp.LSPErrorCodes.RequestFailed) -> None:
        super().__init__(message)
        self.code = int(code)


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
            shown = shown_text(number.decode("latin-1"))
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


def guarded_handler(name: str, handler: Callable[[Any], Any]) -> Callable[[Any], Any]:
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


def server_class() -> Any:
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
                protocol: Any = self.protocol  # the Protocol of protocol_class
                protocol.reply_error(None, lsp.ErrorCodes.ParseError,
                                     f"the message is not JSON ({type(error).__name__}: {error})")
                return
            super().report_server_error(error, source)

    return Server


def protocol_class() -> Any:
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
                return _Invalid(msg_id, lsp.ErrorCodes.ServerNotInitialized, f"{shown_text(method)} before initialize")
            elif self.shut_down:
                return _Invalid(msg_id, lsp.ErrorCodes.InvalidRequest, f"{shown_text(method)} after shutdown")
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
        method = shown_text(data.get("method")) if isinstance(data, dict) else ""
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


def shown_text(value: Any) -> str:
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


class ClosingOnlyFlushes:
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


def log_to_stderr() -> None:
    """Warnings and errors to standard error (an editor shows it as the server's log), one line each."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_LogFormat("gdl lsp: %(levelname)s: %(message)s"))
    # pygls' own line for params that do not fit says only that; the protocol logs which member is wrong
    handler.addFilter(lambda record: not str(record.msg).startswith("Unable to deserialize message"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
