"""What an editor needs to know about the names of a rule file: declarations, references, scopes.

Built from the AST (:mod:`gdl.ast`, with spans) by one walk that follows the language's scoping rule
(docs/language.md, "Names and scope"): globals (parameters, players, enumerations and their members,
state variables, defs, moves) are visible everywhere; locals (move and def parameters, ``let``,
``for``, ``chance`` variables, quantifier binders, the player binder of end rules, utility and
heuristic) from where they are introduced to the end of what introduces it. The language server
(:mod:`gdl.lsp`) answers hover, definition, references, rename, completion and document symbols
from this index; it never compiles anything itself.

Positions here are the AST's: 1-based lines and columns, end column exclusive.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, fields

from gdl import ast
from gdl.board import DIRECTION_NAMES
from gdl.diagnostics import Span, source_lines, visible
from gdl.highlight import BUILTIN_FUNCTIONS, CONSTANTS, KEYWORDS, QUANTIFIERS

NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
GAP = r"(?:[ \t\f]|\\\r?\n)+"  # what may separate a keyword from the name it introduces

KEYWORD_DOCS = {
    "game": "`game Name \"description\"`: the game's name and a one-line description.",
    "meta": "`meta key = \"text\"`: free-form metadata (value, source, ...).",
    "param": "`param name: domain = default`: a parameter, set with `-p name=value`.",
    "players": "`players A, B`: the players, in turn order; the first moves first.",
    "board": "`board R x C [hex]`: a board of R rows and C columns: `cell`, `dir`, `lines(n)`, ...",
    "enum": "`enum Name: a, b, c`: an enumeration, usable as a type.",
    "state": "`state name[index]: type = initial`: a state variable (the position of the game).",
    "def": "`def name(params) = expr`: a named expression, inlined where it is used.",
    "move": "`move name(params) when guard: effects`: a move of the player to move.",
    "setup": "`setup:` effects that compute the initial position.",
    "after": "`after every move:` effects appended to every move's own.",
    "every": "`after every move:` effects appended to every move's own.",
    "win": "`win P when C`: the game ends and P wins when C holds (P may be a binder: `win p when ...`).",
    "lose": "`lose P when C`: the game ends and P loses when C holds.",
    "draw": "`draw when C`: the game ends in a draw when C holds.",
    "terminal": "`terminal when C`: the game ends when C holds; `utility` gives the payoffs.",
    "utility": "`utility p [in lo..hi]: expr`: each player's payoff at the end.",
    "heuristic": "`heuristic p: expr`: an estimate of a position for depth-limited search.",
    "render": "`render var: value \"symbol\", ...`: how `gdl play` draws a board variable.",
    "zero_sum": "`zero_sum`: the utilities always add up to zero.",
    "simultaneous": "`simultaneous`: every decision is a round where all players choose at once.",
    "quiet": "`quiet when C`: the positions where a depth-limited search may stop and use the heuristic.",
    "symmetry": "`symmetry all` or generators: board symmetries that leave the rules unchanged.",
    "when": "`when C`: a guard (moves) or the condition of an end rule.",
    "otherwise": "`move m otherwise`: legal exactly when no other move is.",
    "let": "`let x = e`: a local, visible to the end of the enclosing block; assignable.",
    "for": "`for x in D: block`: repeat the block for each value of a finite domain.",
    "in": "membership (`x in D`) or the domain of a loop, quantifier or chance.",
    "if": "`if C: block [elif C: block] [else: block]`, or the expression `a if C else b`.",
    "elif": "another condition of an `if`.",
    "else": "the branch of an `if` taken when no condition holds.",
    "chance": "`chance d in D [weight W]: block`, or `chance:` with labelled branches: a random event.",
    "weight": "`weight W`: the relative weight of each outcome of a `chance`.",
    "with": "`label with p: block`: a chance branch taken with probability p.",
    "again": "`again`: the player who moved moves again.",
    "break": "`break`: leave the innermost `for` loop.",
    "pass": "`pass`: do nothing.",
    "not": "boolean negation; `x not in D`.",
    "and": "boolean and (short-circuit).",
    "or": "boolean or (short-circuit).",
    "where": "`any x in D where F: ...`: only the values for which F holds.",
    "true": "the boolean true.",
    "false": "the boolean false.",
    "none": "no value: the empty value of an optional type (`player?`, `cell?`).",
    "any": "`any x in D: C`: some value of D satisfies C.",
    "all": "`all x in D: C`: every value of D satisfies C.",
    "count": "`count x in D: C`: how many values of D satisfy C.",
    "sum": "`sum x in D: e` adds e over D; `sum(list)` adds a list.",
    "min": "`min x in D: e`, or `min(a, b, ...)`: the least value.",
    "max": "`max x in D: e`, or `max(a, b, ...)`: the greatest value.",
    "first": "`first x in D: C`: the first value of D satisfying C (none if there is none).",
    "select": "`select x in D: C`: the values of D satisfying C, as a list.",
}
BUILTIN_DOCS = {
    "abs": "`abs(x)`: the absolute value.",
    "len": "`len(xs)`: the length of a list or set.",
    "next": "`next(x)`: the next member of a player list or enumeration (cyclic).",
    "opponent": "`opponent(p)`: the other player of a two-player game.",
    "lines": "`lines(n)`: every straight line of n cells on the board (a list of cell lists).",
    "connected": "`connected(a, b, ok)`: whether cells a and b are joined by cells where `ok` holds.",
    "cell": "`cell`: the type of board cells; `cell(r, c)`: the cell at row r, column c.",
    "row": "`row(c)`: the row of a cell (0 at the bottom); `row`: the board's rows as a type, shown as numbered "
           "beside the board (`1` is row 0).",
    "column": "`column`: the board's columns as a type (`move drop(x: column)`), shown by their letters "
              "(`drop(d)`), whole numbers from 0 inside the rules.",
    "col": "`col(c)`: the column of a cell (0 on the left).",
    "step": "`step(c, d)`: the neighbour of c in direction d, or none off the board.",
    "ray": "`ray(c, d)`: the cells from c (excluded) in direction d up to the edge.",
    "neighbors": "`neighbors(c)`: the cells next to c.",
    "cells_in_row": "`cells_in_row(r)`: the cells of row r.",
    "cells_in_column": "`cells_in_column(c)`: the cells of column c.",
    "mover": "`mover`: the player whose move is being made (in moves), the player to move otherwise.",
    "turn": "`turn`: the player to move; assign it to pass the turn to someone else.",
    "player": "`player`: the type of the players.",
    "bool": "`bool`: the type of true and false.",
    "dir": "`dir`: the type of board directions.",
    "orthogonal": "`orthogonal`: the four (square) or six (hex) directions along rows and columns.",
    "diagonal": "`diagonal`: the four diagonal directions of a square board.",
    "rows": "`rows`: the number of rows of the board.",
    "cols": "`cols`: the number of columns of the board.",
    **{d: f"`{d}`: a board direction." for d in DIRECTION_NAMES},
}
BUILTIN_NAMES = tuple(sorted(set(BUILTIN_DOCS) - set(BUILTIN_FUNCTIONS) | {"cell", "row"}))


@dataclass
class Symbol:
    """A declared name: where it is declared, what it is, and every place that refers to it."""

    name: str
    kind: str  # param, player, enum, member, state, def, move, local
    span: Span  # the name at its declaration
    decl: Span  # the whole declaration (for the outline and the hover text)
    how: str = ""  # for locals: let, for, chance, parameter, binder
    domain: str = ""  # for locals: the text of its type or domain (`0..pits-1`, `cell`), or a let's value
    refs: list[Span] = field(default_factory=list)  # every occurrence, the declaration included


@dataclass
class Occurrence:
    span: Span
    symbol: Symbol


class Index:
    """The names of one parsed rule file."""

    def __init__(self, rules: ast.RuleFile, source: str) -> None:
        self.rules = rules
        self.source = source
        self.lines = source_lines(source)
        self._offsets = [0]
        for line in self.lines:
            self._offsets.append(self._offsets[-1] + len(line) + 1)
        self.symbols: list[Symbol] = []
        self.globals: dict[str, Symbol] = {}
        self.occurrences: list[Occurrence] = []
        self.scopes: list[tuple[Span, list[Symbol]]] = []  # each declaration's locals, for completion
        self._decl_locals: list[Symbol] = []
        self._collect_globals()
        for decl in rules.decls:
            self._decl_locals = []
            self._decl(decl)
            self.scopes.append((decl.span, self._decl_locals))
        self.occurrences.sort(key=lambda o: (o.span.line, o.span.column))
        self._starts = [(o.span.line, o.span.column) for o in self.occurrences]

    # ------------------------------------------------------------ queries
    def at(self, line: int, column: int) -> Occurrence | None:
        """The name occurrence covering a 1-based position (or ending right there)."""
        i = bisect.bisect_right(self._starts, (line, column)) - 1
        for j in (i, i - 1):
            if 0 <= j < len(self.occurrences):
                span = self.occurrences[j].span
                if span.line == line and span.column <= column <= span.end_column:
                    return self.occurrences[j]
        return None

    def word_at(self, line: int, column: int) -> tuple[str, Span] | None:
        """The identifier under a 1-based position, with its span."""
        if not 1 <= line <= len(self.lines):
            return None
        text = self.lines[line - 1]
        for match in NAME_RE.finditer(text):
            if match.start() + 1 <= column <= match.end() + 1:
                return match.group(0), Span(line, match.start() + 1, line, match.end() + 1)
        return None

    def locals_at(self, line: int, column: int) -> list[Symbol]:
        """The locals of the declaration around a position that are introduced before it."""
        for span, symbols in self.scopes:
            if (span.line, span.column) <= (line, column) <= (span.end_line, span.end_column):
                return [s for s in symbols if (s.span.line, s.span.column) < (line, column)]
        return []

    def text(self, span: Span) -> str:
        start = self._offsets[span.line - 1] + span.column - 1
        end = self._offsets[min(span.end_line, len(self.lines)) - 1] + span.end_column - 1
        return self.source[start:end]

    def first_line(self, span: Span) -> str:
        return self.lines[span.line - 1][span.column - 1:].rstrip() if span.line <= len(self.lines) else ""

    # ------------------------------------------------------------ building
    def _name_after(self, keyword: str, span: Span, name: str) -> Span:
        """The span of ``name`` introduced by ``keyword`` at the start of ``span`` (the AST keeps only the whole)."""
        start = self._offsets[span.line - 1] + span.column - 1
        pattern = re.compile(rf"{keyword}{GAP}({re.escape(name)})\b")
        match = pattern.match(self.source, start) or pattern.search(self.source, start)
        if match is None:
            return Span(span.line, span.column, span.line, span.column + len(keyword))
        return self._span(match.start(1), match.end(1))

    def _span(self, start: int, end: int) -> Span:
        line = bisect.bisect_right(self._offsets, start)
        return Span(line, start - self._offsets[line - 1] + 1, line, end - self._offsets[line - 1] + 1)

    def _declare(self, name: str, kind: str, span: Span, decl: Span, how: str = "") -> Symbol:
        symbol = Symbol(name, kind, span, decl, how)
        self.symbols.append(symbol)
        self._use(symbol, span)
        if kind == "local":
            self._decl_locals.append(symbol)
        elif name not in self.globals:
            self.globals[name] = symbol
        return symbol

    def _use(self, symbol: Symbol, span: Span) -> None:
        symbol.refs.append(span)
        self.occurrences.append(Occurrence(span, symbol))

    def _collect_globals(self) -> None:
        for decl in self.rules.decls:
            if isinstance(decl, ast.ParamDecl):
                self._declare(decl.name, "param", self._name_after("param", decl.span, decl.name), decl.span)
            elif isinstance(decl, ast.PlayersDecl):
                for name, span in decl.names:
                    self._declare(name, "player", span, decl.span)
            elif isinstance(decl, ast.EnumDecl):
                self._declare(decl.name, "enum", self._name_after("enum", decl.span, decl.name), decl.span)
                for name, span in decl.members:
                    self._declare(name, "member", span, decl.span)
            elif isinstance(decl, ast.StateDecl):
                self._declare(decl.name, "state", self._name_after("state", decl.span, decl.name), decl.span)
            elif isinstance(decl, ast.DefDecl):
                self._declare(decl.name, "def", self._name_after("def", decl.span, decl.name), decl.span)
            elif isinstance(decl, ast.MoveDecl):
                self._declare(decl.name, "move", self._name_after("move", decl.span, decl.name), decl.span)

    def _ref(self, name: str, span: Span, scope: dict[str, Symbol]) -> None:
        symbol = scope.get(name) or self.globals.get(name)
        if symbol is not None:
            self._use(symbol, span)

    def _local(self, name: str, span: Span, decl: Span, how: str, scope: dict[str, Symbol],
               domain: ast.Expr | ast.TypeExpr | str | None = None) -> dict[str, Symbol]:
        inner = dict(scope)
        symbol = self._declare(name, "local", span, decl, how)
        symbol.domain = domain if isinstance(domain, str) else self.text(domain.span) if domain is not None else ""
        inner[name] = symbol
        return inner

    def _params(self, params: Iterable[ast.Param], decl: Span) -> dict[str, Symbol]:
        scope: dict[str, Symbol] = {}
        for param in params:
            self._expr(param.type.domain, {})
            name_span = Span(param.span.line, param.span.column, param.span.line, param.span.column + len(param.name))
            scope = self._local(param.name, name_span, decl, "parameter", scope, param.type)
        return scope

    def _decl(self, decl: ast.Decl) -> None:
        if isinstance(decl, ast.ParamDecl):
            self._exprs((decl.domain, decl.default), {})
        elif isinstance(decl, ast.BoardDecl):
            self._exprs((decl.rows, decl.cols), {})
        elif isinstance(decl, ast.StateDecl):
            self._exprs((*decl.indices, decl.type.domain, decl.init), {})
        elif isinstance(decl, ast.DefDecl):
            self._expr(decl.body, self._params(decl.params, decl.span))
        elif isinstance(decl, ast.MoveDecl):
            scope = self._params(decl.params, decl.span)
            self._expr(decl.guard, scope)
            self._block(decl.body, scope)
        elif isinstance(decl, ast.SetupDecl | ast.AfterDecl):
            self._block(decl.body, {})
        elif isinstance(decl, ast.EndDecl):
            binders: dict[str, Symbol] = {}
            who = decl.who
            if isinstance(who, ast.Name) and who.id not in self.globals:
                binders = self._local(who.id, who.span, decl.span, "binder", binders, "player")
            else:
                self._expr(who, binders)
            self._expr(decl.condition, binders)
        elif isinstance(decl, ast.UtilityDecl | ast.HeuristicDecl):
            keyword = "utility" if isinstance(decl, ast.UtilityDecl) else "heuristic"
            span = self._name_after(keyword, decl.span, decl.var)
            scope = self._local(decl.var, span, decl.span, "binder", {}, "player")
            if isinstance(decl, ast.UtilityDecl):
                self._expr(decl.bounds, {})
            self._expr(decl.expr, scope)
        elif isinstance(decl, ast.RenderDecl):
            self._ref(decl.name, self._name_after("render", decl.span, decl.name), {})
            for value, _text in decl.symbols:
                self._expr(value, {})

    def _block(self, stmts: Iterable[ast.Stmt] | None, scope: dict[str, Symbol]) -> None:
        scope = dict(scope)
        for stmt in stmts or ():
            scope = self._stmt(stmt, scope)

    def _stmt(self, stmt: ast.Stmt, scope: dict[str, Symbol]) -> dict[str, Symbol]:
        """Walk one statement; returns the scope for the rest of the block (``let`` and ``chance d in D`` add)."""
        if isinstance(stmt, ast.Assign):
            self._ref(stmt.name, stmt.name_span, scope)
            self._exprs((*stmt.indices, stmt.value), scope)
        elif isinstance(stmt, ast.Let):
            self._expr(stmt.value, scope)
            span = self._name_after("let", stmt.span, stmt.name)
            return self._local(stmt.name, span, stmt.span, "let", scope, stmt.value)
        elif isinstance(stmt, ast.For):
            self._expr(stmt.domain, scope)
            span = self._name_after("for", stmt.span, stmt.var)
            self._block(stmt.body, self._local(stmt.var, span, stmt.span, "for", scope, stmt.domain))
        elif isinstance(stmt, ast.Chance):
            self._exprs((stmt.domain, stmt.weight), scope)
            span = self._name_after("chance", stmt.span, stmt.var)
            inner = self._local(stmt.var, span, stmt.span, "chance", scope, stmt.domain)
            if stmt.body is None:
                return inner
            self._block(stmt.body, inner)
        elif isinstance(stmt, ast.ChanceBranches):
            for branch in stmt.branches:
                self._expr(branch.probability, scope)
                self._block(branch.body, scope)
        elif isinstance(stmt, ast.If):
            for test, body in stmt.branches:
                self._expr(test, scope)
                self._block(body, scope)
            self._block(stmt.orelse, scope)
        return scope

    def _exprs(self, exprs: Iterable[ast.Expr | None], scope: dict[str, Symbol]) -> None:
        for expr in exprs:
            self._expr(expr, scope)

    def _expr(self, expr: ast.Expr | None, scope: dict[str, Symbol]) -> None:
        if expr is None:
            return
        if isinstance(expr, ast.Name):
            self._ref(expr.id, expr.span, scope)
        elif isinstance(expr, ast.Call):
            self._ref(expr.func, expr.func_span, scope)
            self._exprs(expr.args, scope)
        elif isinstance(expr, ast.Quantifier):
            self._expr(expr.domain, scope)
            inner = self._local(expr.var, expr.var_span, expr.span, "binder", scope, expr.domain)
            self._exprs((expr.filter, expr.body), inner)
        else:
            for f in fields(expr):
                value = getattr(expr, f.name)
                items = value if isinstance(value, tuple) else (value,)
                self._exprs((item for item in items if isinstance(item, ast.Expr)), scope)


def describe(symbol: Symbol, index: Index) -> str:
    """A hover text (Markdown) for a declared name; rule-file text in it is code, never Markdown."""
    code = code_block(index.first_line(symbol.decl))
    if symbol.kind == "param":
        param = next(d for d in index.rules.decls if isinstance(d, ast.ParamDecl) and d.name == symbol.name)
        domain = code_span(index.text(param.domain.span)) if param.domain is not None else "any value"
        return f"**parameter** `{symbol.name}`: {domain}, default {code_span(index.text(param.default.span))}\n\n{code}"
    if symbol.kind == "state":
        decl = next(d for d in index.rules.decls if isinstance(d, ast.StateDecl) and d.name == symbol.name)
        typ = code_span(index.text(decl.type.span))
        indices = ", ".join(index.text(i.span) for i in decl.indices)
        indexed = f" indexed by {code_span(f'[{indices}]')}" if decl.indices else ""
        init = f", initially {code_span(index.text(decl.init.span))}" if decl.init is not None else ""
        return f"**state variable** `{symbol.name}`{indexed}: {typ}{init}\n\n{code}"
    if symbol.kind == "player":
        players = next(d for d in index.rules.decls if isinstance(d, ast.PlayersDecl)).names
        order = [n for n, _ in players].index(symbol.name) + 1
        return f"**player** `{symbol.name}` ({_ordinal(order)} of {len(players)})\n\n{code}"
    if symbol.kind == "member":
        return f"**enumeration member** `{symbol.name}`\n\n{code}"
    if symbol.kind == "local":
        what = {"let": "local (let)", "for": "loop variable", "chance": "chance variable",
                "parameter": "parameter", "binder": "bound variable"}[symbol.how]
        text = code_span(symbol.domain)
        domain = f" = {text}" if symbol.how == "let" else f" in {text}" if symbol.domain else ""
        if symbol.how == "parameter":
            domain = f": {text}"
        return f"**{what}** `{symbol.name}`{domain}\n\n{code}"
    return f"**{symbol.kind}** `{symbol.name}`\n\n{code}"


def code_span(text: str) -> str:
    """Rule-file text as a Markdown code span, so nothing in it is read as Markdown.

    An expression's text may hold a comment (``1 + (2  # [link](url) ![image](url)``), and an editor
    renders hover Markdown: inside a code span no link, image, emphasis or HTML is interpreted. Line
    breaks and runs of spaces become one space (a blank line would end the span), control characters are
    escaped (``\\x1b``), and the fence is longer than any run of backticks in the text.
    """
    text = visible(" ".join(text.split()))
    fence = "`" * (_longest_backtick_run(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def code_block(line: str) -> str:
    """One rule-file line as a fenced ``gdl`` block, its control characters escaped."""
    line = visible(line)
    fence = "`" * max(3, _longest_backtick_run(line) + 1)
    return f"{fence}gdl\n{line}\n{fence}"


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall("`+", text)), default=0)


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def word_doc(word: str) -> str | None:
    """A one-line doc for a keyword or a builtin name."""
    if word in KEYWORD_DOCS:
        kind = "aggregate" if word in QUANTIFIERS else "constant" if word in CONSTANTS else "keyword"
        if word in BUILTIN_DOCS:
            return f"**builtin** {BUILTIN_DOCS[word]}"
        return f"**{kind}** {KEYWORD_DOCS[word]}"
    if word in BUILTIN_DOCS:
        return f"**builtin** {BUILTIN_DOCS[word]}"
    return None


ALL_KEYWORDS = tuple(sorted({*KEYWORDS, *CONSTANTS, *QUANTIFIERS}))
