"""Parse rule-file text into the typed AST of :mod:`gdl.ast`.

Lark (LALR, contextual lexer) builds the tree; :class:`ToAst` turns it into
dataclasses after ``parse()`` so that spans are available and no Lark object
escapes. Every syntax error becomes a :class:`~gdl.diagnostics.Diagnostic`
in the user's words; nothing from Lark reaches a user.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError
from lark.indenter import DedentError, Indenter

from gdl import ast
from gdl.diagnostics import Diagnostic, RuleFileError, Span, source_lines
from gdl.parser_cache import cached_lark
from gdl.source_checks import line_break_diagnostics, token_budget_diagnostics

QUANTIFIERS = ("any", "all", "count", "sum", "min", "max", "first", "select")
MAX_NESTING = 200  # deeper expressions are refused before Python's recursion limit bites
MAX_LITERAL_DIGITS = 30
"""A number literal with more significant digits parses as ``HUGE_LITERAL``, which the compiler refuses as
`too-large` (it takes 15 digits) with a caret: Python's int() would refuse 4,300 digits with a traceback."""
HUGE_LITERAL = 10**MAX_LITERAL_DIGITS


def grammar_path() -> Path:
    """The grammar shipped in the package (wheel) or beside it (source checkout)."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "grammars" / "gdl.lark", here.parent / "grammars" / "gdl.lark"):
        if candidate.exists():
            return candidate
    raise FileNotFoundError("gdl.lark grammar not found next to the gdl package")


class GdlIndenter(Indenter):
    """Python-style indentation; also remembers the last tokens for error messages."""

    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]  # noqa: RUF012 (Lark's interface)
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]  # noqa: RUF012
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8

    def __init__(self) -> None:
        super().__init__()
        self.history: list[Token] = []

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        self.history = []
        for token in super().process(stream):
            self.history.append(token)
            if len(self.history) > 8:
                del self.history[0]
            yield token


LARK_OPTIONS = {"parser": "lalr", "lexer": "contextual", "propagate_positions": True, "maybe_placeholders": True}


@functools.cache
def _lark() -> tuple[Lark, GdlIndenter]:
    indenter = GdlIndenter()
    # Never Lark's cache=True: it unpickles a predictably named file in the shared temp directory.
    # A cold build costs ~0.3 s, reading the private JSON cache ~20 ms (gdl/parser_cache.py).
    parser = cached_lark(grammar_path().read_text(encoding="utf-8"), dict(LARK_OPTIONS), indenter)
    return parser, indenter


def span_of(item: Any) -> Span:
    """The span of a Lark token or tree (meta)."""
    if isinstance(item, Token):
        end_line = item.end_line or item.line or 1
        end_col = item.end_column or (item.column or 1) + len(item)
        return Span(item.line or 1, item.column or 1, end_line, end_col)
    meta = item.meta
    if getattr(meta, "empty", True):
        return Span(1, 1, 1, 2)
    return Span(meta.line, meta.column, meta.end_line, meta.end_column)


class _SyntaxProblem(Exception):
    def __init__(self, message: str, span: Span, code: str = "syntax") -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.code = code


class Built(Protocol):
    """A grammar rule's tree as :class:`ToAst` meets it: its children already built (AST nodes, tokens, None)."""

    data: str
    children: list[Any]
    meta: Any


def _e(tree: Built) -> Span:
    return span_of(tree)


@v_args(tree=True)
class ToAst(Transformer[Token, Any]):
    """Lark tree -> AST dataclasses. Fails loudly on any rule it does not know."""

    def __default__(self, data: Any, children: Any, meta: Any) -> Any:
        raise AssertionError(f"no AST builder for grammar rule {data!r}")

    def __default_token__(self, token: Token) -> Token:
        return token

    # ------------------------------------------------------------ expressions
    def int_lit(self, t: Built) -> ast.Expr:
        digits = str(t.children[0]).lstrip("0") or "0"
        return ast.Num(_e(t), int(digits) if len(digits) <= MAX_LITERAL_DIGITS else HUGE_LITERAL)

    def decimal_lit(self, t: Built) -> ast.Expr:
        whole, _, fraction = str(t.children[0]).partition(".")
        whole, fraction = whole.lstrip("0") or "0", fraction.rstrip("0") or "0"
        if len(whole) + len(fraction) > MAX_LITERAL_DIGITS:
            return ast.Num(_e(t), Fraction(HUGE_LITERAL))
        return ast.Num(_e(t), Fraction(f"{whole}.{fraction}"))

    def string_lit(self, t: Built) -> ast.Expr:
        return ast.Str(_e(t), unquote(t.children[0]))

    def true_lit(self, t: Built) -> ast.Expr:
        return ast.Bool(_e(t), True)

    def false_lit(self, t: Built) -> ast.Expr:
        return ast.Bool(_e(t), False)

    def none_lit(self, t: Built) -> ast.Expr:
        return ast.NoneLit(_e(t))

    def name(self, t: Built) -> ast.Expr:
        return ast.Name(_e(t), str(t.children[0]))

    def list_lit(self, t: Built) -> ast.Expr:
        return ast.ListLit(_e(t), t.children[0] or ())

    def set_lit(self, t: Built) -> ast.Expr:
        return ast.SetLit(_e(t), t.children[0] or ())

    def expr_list(self, t: Built) -> tuple[ast.Expr, ...]:
        return tuple(c for c in t.children if c is not None)

    def neg(self, t: Built) -> ast.Expr:
        (operand,) = t.children
        if isinstance(operand, ast.Num):
            return ast.Num(_e(t), -operand.value)
        return ast.Neg(_e(t), operand)

    def not_op(self, t: Built) -> ast.Expr:
        return ast.Not(_e(t), t.children[0])

    def or_op(self, t: Built) -> ast.Expr:
        return _bool_op("or", t)

    def and_op(self, t: Built) -> ast.Expr:
        return _bool_op("and", t)

    def binary(self, t: Built) -> ast.Expr:
        left, op, right = t.children
        return ast.Binary(_e(t), str(op), left, right)

    def comp_op(self, t: Built) -> str:
        return " ".join(str(tok) for tok in t.children)

    def compare(self, t: Built) -> ast.Expr:
        first, *rest = t.children
        return ast.Compare(_e(t), first, tuple(rest[0::2]), tuple(rest[1::2]))

    def range(self, t: Built) -> ast.Expr:
        lo, hi = t.children
        return ast.Range(_e(t), lo, hi)

    def if_expr(self, t: Built) -> ast.Expr:
        then, test, orelse = t.children
        return ast.IfExpr(_e(t), test, then, orelse)

    def quantifier(self, t: Built) -> ast.Expr:
        kind, var, domain, filt, body = t.children
        if str(kind) not in QUANTIFIERS:
            raise _SyntaxProblem(
                f"`{kind} {var} in ...` is not an aggregate; expected one of {', '.join(QUANTIFIERS)}",
                span_of(kind),
                "unknown-aggregate",
            )
        return ast.Quantifier(_e(t), str(kind), str(var), span_of(var), domain, filt, body)

    def call(self, t: Built) -> ast.Expr:
        func, args = t.children
        return ast.Call(_e(t), str(func), span_of(func), args or ())

    def index(self, t: Built) -> ast.Expr:
        base, indices = t.children
        return ast.Index(_e(t), base, indices)

    # ------------------------------------------------------------- statements
    def block(self, t: Built) -> tuple[ast.Stmt, ...]:
        out: list[ast.Stmt] = []
        for child in t.children:
            if isinstance(child, tuple):
                out.extend(child)
            elif child is not None:
                out.append(child)
        return tuple(out)

    def simple_stmts(self, t: Built) -> tuple[ast.Stmt, ...]:
        return tuple(c for c in t.children if c is not None)

    simple_line = simple_stmts

    def body(self, t: Built) -> tuple[ast.Stmt, ...]:
        return self.block(t)

    def assign(self, t: Built) -> ast.Stmt:
        (name, indices), op, value = t.children
        return ast.Assign(_e(t), str(name), span_of(name), indices or (), str(op), value)

    def target(self, t: Built) -> tuple[Token, tuple[ast.Expr, ...] | None]:
        name, indices = t.children
        return name, indices

    def let_stmt(self, t: Built) -> ast.Stmt:
        name, value = t.children
        return ast.Let(_e(t), str(name), value)

    def again_stmt(self, t: Built) -> ast.Stmt:
        return ast.Again(_e(t))

    def break_stmt(self, t: Built) -> ast.Stmt:
        return ast.Break(_e(t))

    def pass_stmt(self, t: Built) -> ast.Stmt:
        return ast.Pass(_e(t))

    def if_stmt(self, t: Built) -> ast.Stmt:
        test, body, *rest = t.children
        branches = [(test, body)]
        orelse = None
        for clause in rest:
            if clause is None:
                continue
            if clause[0] == "elif":
                branches.append((clause[1], clause[2]))
            else:
                orelse = clause[1]
        return ast.If(_e(t), tuple(branches), orelse)

    def elif_clause(self, t: Built) -> tuple[str, ast.Expr, tuple[ast.Stmt, ...]]:
        return ("elif", t.children[0], t.children[1])

    def else_clause(self, t: Built) -> tuple[str, tuple[ast.Stmt, ...]]:
        return ("else", t.children[0])

    def for_stmt(self, t: Built) -> ast.Stmt:
        var, domain, body = t.children
        return ast.For(_e(t), str(var), domain, body)

    def weight(self, t: Built) -> ast.Expr:
        expr: ast.Expr = t.children[0]
        return expr

    def chance_stmt(self, t: Built) -> ast.Stmt:
        var, domain, weight, body = t.children
        return ast.Chance(_e(t), str(var), domain, weight, body)

    def chance_bind(self, t: Built) -> ast.Stmt:
        var, domain, weight = t.children
        return ast.Chance(_e(t), str(var), domain, weight, None)

    def chance_branches(self, t: Built) -> ast.Stmt:
        return ast.ChanceBranches(_e(t), tuple(t.children))

    def branch(self, t: Built) -> ast.ChanceBranch:
        label, prob, body = t.children
        return ast.ChanceBranch(_e(t), str(label), prob, body)

    # ----------------------------------------------------------- declarations
    def start(self, t: Built) -> ast.RuleFile:
        return ast.RuleFile(tuple(c for c in t.children if c is not None))

    def game_decl(self, t: Built) -> ast.Decl:
        name, desc = t.children
        return ast.GameDecl(_e(t), str(name), unquote(desc) if desc is not None else None)

    def meta_decl(self, t: Built) -> ast.Decl:
        key, value = t.children
        return ast.MetaDecl(_e(t), str(key), unquote(value))

    def param_decl(self, t: Built) -> ast.Decl:
        name, domain, default = t.children
        return ast.ParamDecl(_e(t), str(name), domain, default)

    def name_list(self, t: Built) -> tuple[tuple[str, Span], ...]:
        return tuple((str(tok), span_of(tok)) for tok in t.children)

    def players_decl(self, t: Built) -> ast.Decl:
        return ast.PlayersDecl(_e(t), t.children[0])

    def board_decl(self, t: Built) -> ast.Decl:
        rows, _by, cols, shape = t.children
        return ast.BoardDecl(_e(t), rows, cols, str(shape) if shape is not None else None,
                             span_of(shape) if shape is not None else None)

    def enum_decl(self, t: Built) -> ast.Decl:
        name, members = t.children
        return ast.EnumDecl(_e(t), str(name), members)

    def type(self, t: Built) -> ast.TypeExpr:
        domain, optional = t.children
        return ast.TypeExpr(_e(t), domain, optional is not None)

    def state_decl(self, t: Built) -> ast.Decl:
        name, indices, typ, init = t.children
        return ast.StateDecl(_e(t), str(name), indices or (), typ, init)

    def param(self, t: Built) -> ast.Param:
        name, typ = t.children
        return ast.Param(_e(t), str(name), typ)

    def params(self, t: Built) -> tuple[ast.Param, ...]:
        return tuple(c for c in t.children if c is not None)

    def def_decl(self, t: Built) -> ast.Decl:
        name, params, body = t.children
        return ast.DefDecl(_e(t), str(name), params or (), body)

    def when_guard(self, t: Built) -> tuple[ast.Expr, bool]:
        return (t.children[0], False)

    def otherwise_guard(self, t: Built) -> tuple[None, bool]:
        return (None, True)

    def move_decl(self, t: Built) -> ast.Decl:
        name, params, guard, *rest = t.children
        body = rest[0] if rest and isinstance(rest[0], tuple) else ()
        cond, otherwise = guard if guard is not None else (None, False)
        return ast.MoveDecl(_e(t), str(name), params or (), cond, otherwise, body)

    def setup_decl(self, t: Built) -> ast.Decl:
        return ast.SetupDecl(_e(t), t.children[0])

    def after_decl(self, t: Built) -> ast.Decl:
        return ast.AfterDecl(_e(t), t.children[0])

    def win_decl(self, t: Built) -> ast.Decl:
        return ast.EndDecl(_e(t), "win", t.children[0], t.children[1])

    def lose_decl(self, t: Built) -> ast.Decl:
        return ast.EndDecl(_e(t), "lose", t.children[0], t.children[1])

    def draw_decl(self, t: Built) -> ast.Decl:
        return ast.EndDecl(_e(t), "draw", None, t.children[0])

    def terminal_decl(self, t: Built) -> ast.Decl:
        return ast.EndDecl(_e(t), "terminal", None, t.children[0])

    def utility_decl(self, t: Built) -> ast.Decl:
        var, bounds, expr = t.children
        return ast.UtilityDecl(_e(t), str(var), bounds, expr)

    def heuristic_decl(self, t: Built) -> ast.Decl:
        var, expr = t.children
        return ast.HeuristicDecl(_e(t), str(var), expr)

    def quiet_decl(self, t: Built) -> ast.Decl:
        (expr,) = t.children
        return ast.QuietDecl(_e(t), expr)

    def symbol(self, t: Built) -> tuple[ast.Expr, str]:
        value, text = t.children
        return (value, unquote(text))

    def render_decl(self, t: Built) -> ast.Decl:
        name, *symbols = t.children
        return ast.RenderDecl(_e(t), str(name), tuple(s for s in symbols if s is not None))

    def zero_sum_decl(self, t: Built) -> ast.Decl:
        return ast.ZeroSumDecl(_e(t))

    def simultaneous_decl(self, t: Built) -> ast.Decl:
        return ast.SimultaneousDecl(_e(t))

    def symmetry_decl(self, t: Built) -> ast.Decl:
        return ast.SymmetryDecl(_e(t), t.children[0])


def _bool_op(op: str, t: Built) -> ast.Expr:
    left, right = t.children
    values: list[ast.Expr] = []
    for side in (left, right):
        if isinstance(side, ast.BoolOp) and side.op == op:
            values.extend(side.values)
        else:
            values.append(side)
    return ast.BoolOp(_e(t), op, tuple(values))


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def unquote(token: str) -> str:
    """The text of a string literal ``"..."`` with ``\\n \\t \\" \\\\`` escapes."""
    body = str(token)[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


# ---------------------------------------------------------------- syntax errors

# Words for terminals, used in "expected ..." messages.
TERMINAL_WORDS = {
    "NAME": "a name",
    "INT": "a number",
    "DECIMAL": "a number",
    "STRING": 'a string "..."',
    "_NL": "end of line",
    "_INDENT": "an indented block",
    "_DEDENT": "the end of the block",
    "$END": "end of file",
    "ASSIGN_OP": "`=`",
    "ADD_OP": "`+` or `-`",
    "MUL_OP": "`*`, `/`, `//` or `%`",
    "OPTIONAL": "`?`",
    "BY": "`x`",
}

# What usually follows a keyword, for "expected ... after `move`".
AFTER_KEYWORD = {
    "move": "a move name",
    "def": "a function name",
    "state": "a state variable name",
    "param": "a parameter name",
    "enum": "an enumeration name",
    "players": "player names",
    "game": "the game's name",
    "let": "a local name",
    "for": "a loop variable",
    "chance": "a variable name or `:`",
    "render": "the name of the board to draw",
    "utility": "a player variable, as in `utility p: ...`",
    "heuristic": "a player variable, as in `heuristic p: ...`",
    "when": "a condition",
    "if": "a condition",
}


@functools.cache
def _terminal_literals() -> dict[str, str]:
    parser, _ = _lark()
    words = {}
    for term in parser.terminals:
        if term.pattern.type == "str":
            words[term.name] = f"`{term.pattern.value}`"
    return words


def describe_terminal(name: str) -> str:
    if name in TERMINAL_WORDS:
        return TERMINAL_WORDS[name]
    return _terminal_literals().get(name, name.lower())


def describe_token(token: Token) -> str:
    if token.type == "$END":
        return "end of file"
    if token.type == "_NL":
        return "end of line"
    if token.type == "_INDENT":
        return "an indented block"
    if token.type == "_DEDENT":
        return "the end of an indented block"
    text = str(token)
    if len(text) > 30:
        text = text[:27] + "..."
    return f"`{text}`"


def _expected_words(names: set[str]) -> str:
    words = sorted({describe_terminal(n) for n in names if not n.startswith("__ANON")})
    if not words:
        return ""
    if len(words) > 8:
        words = [*words[:8], "..."]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _token_span(token: Token, source: str) -> Span:
    if token.type in ("$END", "_DEDENT") or token.line is None:
        lines = source_lines(source)
        # Point after the last non-blank line: "end of file" is there for the reader.
        last = len(lines)
        while last > 1 and not lines[last - 1].strip():
            last -= 1
        return Span.point(last, len(lines[last - 1]) + 1)
    if token.type == "_NL":
        return Span.point(token.line, token.column or 1)
    return span_of(token)


def syntax_diagnostic(error: UnexpectedInput, source: str, history: list[Token]) -> Diagnostic:
    """Translate a Lark error into a diagnostic in the user's words."""
    if isinstance(error, UnexpectedCharacters):
        all_lines = source_lines(source)
        line = all_lines[error.line - 1] if 1 <= error.line <= len(all_lines) else ""
        char = line[error.column - 1] if 0 < error.column <= len(line) else "?"
        return Diagnostic(
            "error", "syntax", f"unexpected character {char!r}", Span.point(error.line, error.column)
        )
    assert isinstance(error, UnexpectedToken)
    token = error.token
    expected = set(error.accepts or error.expected)
    previous = _previous_token(history, token)
    found = describe_token(token)
    hint = None
    if previous is not None and str(previous) in AFTER_KEYWORD and previous.type != "NAME":
        message = f"expected {AFTER_KEYWORD[str(previous)]} after `{previous}`, found {found}"
    else:
        wanted = _expected_words(expected)
        message = f"unexpected {found}" + (f"; expected {wanted}" if wanted else "")
    if str(token) == "=" and token.type in ("ASSIGN_OP", "EQUAL"):  # `=` where it cannot assign
        hint = "to compare two values use `==`"
    elif token.type == "_INDENT":
        hint = "this line is indented more than the one before it"
    elif "_NL" in expected and token.type not in ("_NL",):
        hint = None
    if token.type == "$END" or (token.type == "_DEDENT" and "_INDENT" in expected):
        hint = hint or "the file ends in the middle of a declaration"
    return Diagnostic("error", "syntax", message, _token_span(token, source), hint=hint)


def _previous_token(history: list[Token], token: Token) -> Token | None:
    for i in range(len(history) - 1, -1, -1):
        if history[i] is token:
            return history[i - 1] if i > 0 else None
    return history[-1] if history and history[-1] is not token else None


def parse(source: str, filename: str = "<string>") -> ast.RuleFile:
    """Parse rule-file text.

    The AST of the last few texts is kept (it is immutable): one file is read by several passes -- the loader,
    the checker and its state graph, the reference interpreter -- and parsing is most of a small file's load.

    :raises RuleFileError: with one syntax diagnostic (the first error).
    """
    rules = _RECENT.get(source)  # (the AST does not name its file: only a diagnostic does)
    if rules is None:
        rules = _parse(source, filename)
        _RECENT[source] = rules
        if len(_RECENT) > 16:
            del _RECENT[next(iter(_RECENT))]
    return rules


_RECENT: dict[str, ast.RuleFile] = {}
"""The last texts parsed and their ASTs, oldest first."""


def _parse(source: str, filename: str) -> ast.RuleFile:
    before = line_break_diagnostics(source, filename) or token_budget_diagnostics(source, filename)
    if before:  # (refused before Lark builds a tree: a hostile 5 MB file took a minute and 2 GB)
        raise RuleFileError(before, source)
    text = source if source.endswith("\n") else source + "\n"
    parser, indenter = _lark()
    try:
        tree = parser.parse(text)
    except UnexpectedInput as error:
        diag = syntax_diagnostic(error, source, list(indenter.history))
        raise RuleFileError([diag.located(filename)], source) from None
    except DedentError as error:
        line = _dedent_line(text, str(error))
        diag = Diagnostic(
            "error",
            "indentation",
            "this line's indentation matches no enclosing block",
            Span.point(line, 1),
            hint="indent it exactly as far as a line above it",
        )
        raise RuleFileError([diag.located(filename)], source) from None
    depth, where = _nesting_depth(tree)
    if depth > MAX_NESTING:
        diag = Diagnostic("error", "too-deep", f"expression nested {depth} levels deep; at most {MAX_NESTING}",
                          span_of(where))
        raise RuleFileError([diag.located(filename)], source)
    try:
        rules: ast.RuleFile = ToAst().transform(tree)
        return rules
    except VisitError as error:
        orig = error.orig_exc
        if isinstance(orig, _SyntaxProblem):
            raise RuleFileError([Diagnostic("error", orig.code, orig.message, orig.span, filename)], source) from None
        raise


def _nesting_depth(tree: Tree[Any]) -> tuple[int, Any]:
    """The depth of the tree, and the first node found past ``MAX_NESTING`` (where to point)."""
    deepest = 0
    where: Any = tree
    stack: list[tuple[Any, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > deepest:
            deepest = depth
            if depth == MAX_NESTING + 1 and (isinstance(node, Token) or not node.meta.empty):
                where = node
        if isinstance(node, Tree):  # an optional part that is absent is None (no `else`, no filter)
            stack.extend((child, depth + 1) for child in node.children if child is not None)
    return deepest, where


def _dedent_line(text: str, message: str) -> int:
    """Find the first line whose indentation matches no enclosing block."""
    stack = [0]
    depth_parens = 0
    for number, line in enumerate(source_lines(text), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or depth_parens:
            depth_parens += line.count("(") + line.count("[") - line.count(")") - line.count("]")
            continue
        indent = len(line) - len(line.lstrip(" \t"))
        if indent > stack[-1]:
            stack.append(indent)
        else:
            while indent < stack[-1]:
                stack.pop()
            if indent != stack[-1]:
                return number
        depth_parens += line.count("(") + line.count("[") - line.count(")") - line.count("]")
    return 1
