"""Syntactically valid rule files, generated from the Lark grammar itself.

The grammar (``grammars/gdl.lark``) is loaded at run time, the way :mod:`gdl.parser` loads it, and
compiled by Lark into plain BNF rules; a walker expands ``start`` into a token stream and a renderer
turns the stream into text. Nothing about the rule language is written here, so the generator follows
grammar changes by itself. ``hypothesis.extra.lark.from_lark`` does the same in spirit but does not fit
this grammar: it needs ``Lark.grammar``, which a Lark loaded from its cache (as the parser does) lacks;
it draws names that are keywords and puts no space between tokens (``enumSuEY36`` is one name); and it
knows nothing of the ``_INDENT``/``_DEDENT`` tokens the indenter makes from leading whitespace, while it
draws ``_NL`` with arbitrary indentation. In a trial on a cache-less Lark with ``explicit=`` strategies
for the two declared tokens, 38 of 200 outputs did not parse ("unexpected an indented block").

* **Budgets.** Every symbol gets a token budget and takes only an expansion whose shortest derivation
  fits it; the budget is split at random among the symbols of the expansion (each gets at least its
  minimum), so a file fills a random part of ``max_tokens`` and expressions do not explode. Since
  every cycle of an LALR grammar consumes a token, this alone makes generation terminate. A soft depth
  budget (``max_depth`` levels; Lark's ``__x_star_N``/``__x_plus_N`` repetition helpers cost none and
  are flattened into a loop) makes deep derivations head for the leaves (the shortest ones), which
  keeps trees far below the parser's nesting limit.
* **Terminals** are drawn from their patterns (regex or literal string). A drawn word that another
  terminal would take (a keyword such as ``game``, or ``hex`` that the higher-priority ``SHAPE`` would
  take) is never used as a ``NAME``. Names are often reused (from the same file, or from ``names``)
  so that some files also get past name resolution.
* **Rendering.** ``_NL`` becomes a newline (sometimes ``\\r\\n``, blank lines and comments, drawn from
  its own pattern) followed by the indentation of the current block; ``_INDENT``/``_DEDENT`` push and
  pop indentation levels (1 to 8 columns, spaces or tabs, as the indenter counts them); tokens are
  separated by a space, by one of the grammar's ``%ignore`` patterns (whitespace, form feeds, line
  continuations) or, next to a bracket, comma or semicolon, by nothing.

Choices go through a :class:`Chooser`: :class:`RandomChooser` (a seeded ``random.Random``, used by the
long campaign in ``bench/fuzz.py``: a case is reproduced by its seed) or the Hypothesis strategy
:func:`rule_files` (terminals via ``st.from_regex``; choices shrink towards the shortest expansion, the
plainest layout and fewer repetitions).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from hypothesis import strategies as st
from lark import Lark

from gdl import ast
from gdl.parser import QUANTIFIERS, GdlIndenter, grammar_path, parse

try:  # Python 3.11+
    import re._parser as sre_parse  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse  # type: ignore[no-redef]

NL, INDENT, DEDENT = GdlIndenter.NL_type, GdlIndenter.INDENT_type, GdlIndenter.DEDENT_type

# Where the parser accepts only some names although the grammar says NAME: (rule, position) -> names.
# Read from the parser, not restated: `quantifier: NAME NAME "in" ...` takes an aggregate's name first.
NAME_CHOICES: dict[tuple[str, int], tuple[str, ...]] = {("quantifier", 0): tuple(QUANTIFIERS)}

INDENT_WIDTHS = (4, 2, 1, 3, 8, 6)
# Characters for negated classes and `.`: printable ASCII, then some that break naive line counting.
ASCII = tuple(chr(c) for c in range(32, 127))
ODD_CHARS = ("\t", "\r", "\x0c", "\x0b", "\x85", "\u2028", "\u2029", "\x00", "\u200b", "\u00e9", "\ufeff",
             "\U0001f600", "\x1c", "\\")


# ------------------------------------------------------------------ the grammar as data


@dataclass(frozen=True)
class Terminal:
    name: str
    regex: str | None  # None: declared (_INDENT, _DEDENT), made by the indenter
    literal: str | None  # the text of a string terminal
    priority: int

    @functools.cached_property
    def compiled(self) -> re.Pattern[str] | None:
        return None if self.regex is None else re.compile(self.regex)


@dataclass
class GrammarModel:
    """The compiled BNF of a Lark grammar, with the shortest derivation of every symbol."""

    start: str
    rules: dict[str, list[tuple[str, ...]]]  # expansions sorted simplest first
    terminals: dict[str, Terminal]
    ignore: tuple[str, ...]
    height: dict[str, int] = field(default_factory=dict)  # fewest levels to derive a symbol
    size: dict[str, int] = field(default_factory=dict)  # fewest tokens to derive a symbol
    _loops: dict[str, bool] = field(default_factory=dict)
    _heights: dict[tuple[str, tuple[str, ...]], int] = field(default_factory=dict)
    _sizes: dict[tuple[str, tuple[str, ...]], int] = field(default_factory=dict)
    _claims: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def is_loop(self, origin: str) -> bool:
        """A Lark repetition helper (``__start_star_0: item | __start_star_0 item``)."""
        loop = self._loops.get(origin)
        if loop is None:
            loop = self._loops[origin] = origin.startswith("__") and any(
                e and e[0] == origin for e in self.rules[origin])
        return loop

    def _own(self, origin: str, expansion: Sequence[str]) -> Sequence[str]:
        """The symbols the walker expands: a loop's tail without the loop itself."""
        return expansion[1:] if expansion and expansion[0] == origin and self.is_loop(origin) else expansion

    def expansion_height(self, origin: str, expansion: tuple[str, ...]) -> int:
        key = (origin, expansion)
        if key not in self._heights:
            self._heights[key] = max((self.height[s] for s in self._own(origin, expansion)), default=0)
        return self._heights[key]

    def expansion_size(self, origin: str, expansion: tuple[str, ...]) -> int:
        key = (origin, expansion)
        if key not in self._sizes:
            self._sizes[key] = sum(self.size[s] for s in self._own(origin, expansion))
        return self._sizes[key]

    def compute_minima(self) -> None:
        for name in self.terminals:
            self.height[name] = 0
            self.size[name] = 1
        for name in self.rules:
            self.height[name] = self.size[name] = math.inf  # type: ignore[assignment]
        changed = True
        while changed:
            changed = False
            for origin, expansions in self.rules.items():
                cost = 0 if self.is_loop(origin) else 1
                height = min(cost + max((self.height[s] for s in e), default=0) for e in expansions)
                size = min(sum(self.size[s] for s in e) for e in expansions)
                if height < self.height[origin] or size < self.size[origin]:
                    self.height[origin] = min(height, self.height[origin])
                    self.size[origin] = min(size, self.size[origin])
                    changed = True
        self._heights.clear()
        self._sizes.clear()
        for origin, expansions in self.rules.items():
            expansions.sort(key=lambda e, o=origin: (self.expansion_size(o, e), self.expansion_height(o, e)))

    def competitors(self, terminal: Terminal, text: str) -> list[str]:
        """Other terminals the lexer would prefer for the word ``text`` drawn for ``terminal``."""
        key = (terminal.name, text)
        if key not in self._claims:
            self._claims[key] = self._competitors(terminal, text) if text.isidentifier() else []
        return self._claims[key]

    def _competitors(self, terminal: Terminal, text: str) -> list[str]:
        out = []
        for other in self.terminals.values():
            if other.name == terminal.name or other.compiled is None or other.name in self.ignore:
                continue
            wins = other.priority > terminal.priority or (
                other.priority == terminal.priority and other.literal is not None and terminal.literal is None)
            if wins and other.compiled.fullmatch(text):
                out.append(other.name)
        return out


@functools.cache
def grammar_model(path: str | None = None) -> GrammarModel:
    """Load the grammar as :mod:`gdl.parser` does (LALR, contextual lexer, its indenter) and compile it."""
    text = (grammar_path() if path is None else __import__("pathlib").Path(path)).read_text(encoding="utf-8")
    lark = Lark(text, parser="lalr", lexer="contextual", postlex=GdlIndenter(), maybe_placeholders=True)
    start = lark.options.start[0]
    terminal_defs, rules, ignore = lark.grammar.compile([start], ())
    terminals: dict[str, Terminal] = {}
    for t in terminal_defs:
        literal = t.pattern.value if t.pattern.type == "str" else None
        terminals[str(t.name)] = Terminal(str(t.name), t.pattern.to_regexp(), literal, t.priority)
    expansions: dict[str, list[tuple[str, ...]]] = {}
    for rule in rules:
        expansions.setdefault(str(rule.origin.name), []).append(tuple(str(s.name) for s in rule.expansion))
        for symbol in rule.expansion:
            if symbol.is_term and str(symbol.name) not in terminals:  # %declare'd: made by the indenter
                terminals[str(symbol.name)] = Terminal(str(symbol.name), None, None, 0)
    model = GrammarModel(str(start), expansions, terminals, tuple(str(n) for n in ignore))
    model.compute_minima()
    return model


# ------------------------------------------------------------------ choices


class Chooser(Protocol):
    """The source of every decision; 0 / False / the shortest text are the simplest answers."""

    def index(self, n: int) -> int: ...

    def chance(self, percent: int) -> bool: ...

    def terminal(self, terminal: Terminal) -> str: ...


class RegexSampler:
    """Draws a string that fully matches a regex, from its ``sre_parse`` tree, with a :class:`Chooser`."""

    def __init__(self, chooser: Chooser, repeat_percent: int = 45, max_extra: int = 12) -> None:
        self.chooser = chooser
        self.repeat_percent = repeat_percent
        self.max_extra = max_extra

    def sample(self, regex: str) -> str:
        out: list[str] = []
        self._seq(_parsed(regex), out)
        return "".join(out)

    def _seq(self, items: Any, out: list[str]) -> None:
        for op, arg in items:
            self._one(op, arg, out)

    def _one(self, op: Any, arg: Any, out: list[str]) -> None:
        c = self.chooser
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name in ("NOT_LITERAL", "ANY"):
            excluded = {arg} if name == "NOT_LITERAL" else {10}
            out.append(self._char(lambda ch: ord(ch) not in excluded))
        elif name == "IN":
            out.append(self._class(arg))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, items = arg
            count = low
            limit = min(high, low + self.max_extra)
            while count < limit and c.chance(self.repeat_percent):
                count += 1
            for _ in range(count):
                self._seq(items, out)
        elif name == "SUBPATTERN":
            self._seq(arg[-1], out)
        elif name == "BRANCH":
            branches = arg[1]
            self._seq(branches[c.index(len(branches))], out)
        elif name in ("AT", "ASSERT", "ASSERT_NOT"):
            pass
        else:  # pragma: no cover - a construct the grammar does not use yet
            raise NotImplementedError(f"regex construct {name} in a terminal of the grammar")

    def _class(self, items: Any) -> str:
        negate = any(str(op) == "NEGATE" for op, _ in items)
        ranges: list[tuple[int, int]] = []
        for op, arg in items:
            if str(op) == "LITERAL":
                ranges.append((arg, arg))
            elif str(op) == "RANGE":
                ranges.append(arg)
            elif str(op) == "CATEGORY":  # \d \s \w: approximate by their ASCII members
                members = {"CATEGORY_DIGIT": "0123456789", "CATEGORY_SPACE": " \t\n\r\x0c\x0b",
                           "CATEGORY_WORD": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"}
                ranges += [(ord(ch), ord(ch)) for ch in members.get(str(arg), "")]

        def inside(ch: str) -> bool:
            return any(lo <= ord(ch) <= hi for lo, hi in ranges)

        if negate:
            return self._char(lambda ch: not inside(ch))
        members = [chr(code) for lo, hi in ranges for code in range(lo, min(hi, lo + 200) + 1)]
        return members[self.chooser.index(len(members))]

    def _char(self, allowed: Callable[[str], bool]) -> str:
        pool = [ch for ch in (ODD_CHARS if self.chooser.chance(10) else ASCII) if allowed(ch)]
        return pool[self.chooser.index(len(pool))]


@functools.cache
def _parsed(regex: str) -> Any:
    return sre_parse.parse(regex)


class RandomChooser:
    """Decisions from a seeded ``random.Random``: a case is reproduced by its seed."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.sampler = RegexSampler(self)

    def index(self, n: int) -> int:
        return self.rng.randrange(n)

    def chance(self, percent: int) -> bool:
        return self.rng.random() * 100 < percent

    def terminal(self, terminal: Terminal) -> str:
        assert terminal.regex is not None
        return terminal.literal if terminal.literal is not None else self.sampler.sample(terminal.regex)


class DrawChooser:
    """Decisions drawn by Hypothesis (inside :func:`st.composite`): they shrink towards 0 and False."""

    def __init__(self, draw: Callable[[st.SearchStrategy[Any]], Any]) -> None:
        self.draw = draw

    def index(self, n: int) -> int:
        return 0 if n == 1 else self.draw(st.integers(0, n - 1))

    def chance(self, percent: int) -> bool:
        return self.draw(st.integers(0, 99)) >= 100 - percent

    def terminal(self, terminal: Terminal) -> str:
        assert terminal.regex is not None
        if terminal.literal is not None:
            return terminal.literal
        return self.draw(_from_regex(terminal.regex))


@functools.cache
def _from_regex(regex: str) -> st.SearchStrategy[str]:
    return st.from_regex(regex, fullmatch=True)


# ------------------------------------------------------------------ walking and rendering


@dataclass
class Walk:
    """One expansion of the grammar: the token stream and which expansions it used."""

    tokens: list[tuple[str, str]] = field(default_factory=list)  # (terminal name, text)
    used: set[tuple[str, tuple[str, ...]]] = field(default_factory=set)


class Walker:
    """Expands the start rule into at most ``max_tokens`` tokens and ``max_depth`` levels.

    Each symbol gets a token budget and takes only an expansion that fits it (in tokens and in levels);
    the budget is split at random among the symbols of the expansion (each gets at least its minimum),
    so a file fills a random part of ``max_tokens`` with a random shape, and expressions do not explode.
    """

    def __init__(self, model: GrammarModel, chooser: Chooser, *, max_depth: int = 40, max_tokens: int = 300,
                 repeat_percent: int = 50, top_repeat_percent: int = 80, names: Sequence[str] = (),
                 name_choices: Mapping[tuple[str, int], Sequence[str]] = NAME_CHOICES,
                 start: str | None = None) -> None:
        self.model = model
        self.chooser = chooser
        self.start = model.start if start is None else start
        self.max_depth = max(max_depth, model.height[self.start])
        self.max_tokens = max(max_tokens, model.size[self.start])
        self.repeat_percent = repeat_percent
        self.top_repeat_percent = top_repeat_percent
        self.name_choices = name_choices
        self.seen_names: list[str] = list(dict.fromkeys(n for n in names if self._usable_name(n)))
        self.walk = Walk()

    def run(self) -> Walk:
        self.expand(self.start, self.max_depth, self.max_tokens)
        return self.walk

    def _pick(self, origin: str, expansions: Sequence[tuple[str, ...]], levels: int,
              budget: int) -> tuple[str, ...]:
        model = self.model
        allowed = [e for e in expansions if model.expansion_size(origin, e) <= budget]
        if levels < 0 or not any(model.expansion_height(origin, e) <= levels for e in allowed):
            lowest = min(model.expansion_height(origin, e) for e in allowed)  # head for the leaves
            allowed = [e for e in allowed if model.expansion_height(origin, e) == lowest]
        else:
            allowed = [e for e in allowed if model.expansion_height(origin, e) <= levels]
        if origin == model.start and len(allowed) > 1 and self.chooser.chance(90):  # mostly not an empty file
            longest = max(len(e) for e in allowed)
            allowed = [e for e in allowed if len(e) == longest]
        chosen = allowed[self.chooser.index(len(allowed))]
        self.walk.used.add((origin, chosen))
        return chosen

    def expand(self, symbol: str, levels: int, budget: int) -> None:
        model = self.model
        if symbol in model.terminals:
            self.emit(symbol, None)
        elif model.is_loop(symbol):
            self._loop(symbol, levels, budget)
        else:
            chosen = self._pick(symbol, model.rules[symbol], levels - 1, budget)
            self._sequence(symbol, chosen, levels - 1, budget)

    def _loop(self, symbol: str, levels: int, budget: int) -> None:
        """``item | loop item``: one base expansion, then tails while the dice say so and the budget lasts."""
        model = self.model
        expansions = model.rules[symbol]
        elements = [self._pick(symbol, [e for e in expansions if not e or e[0] != symbol], levels, budget)]
        tails = [e for e in expansions if e and e[0] == symbol]
        left = budget - model.expansion_size(symbol, elements[0])
        fewest = min(model.expansion_size(symbol, e) for e in tails)
        top = levels >= self.max_depth - 1
        while fewest <= left and self.chooser.chance(self.top_repeat_percent if top else self.repeat_percent):
            tail = self._pick(symbol, tails, levels, left)[1:]
            elements.append(tail)
            left -= model.expansion_size(symbol, tail)
        shares = self._split(budget, [model.expansion_size(symbol, e) for e in elements], [True] * len(elements))
        for element, share in zip(elements, shares, strict=True):
            self._sequence(symbol, element, levels, share)

    def _split(self, budget: int, minima: Sequence[int], growable: Sequence[bool]) -> list[int]:
        """Shares of ``budget``: each at least its minimum, the rest to the growable ones at random."""
        extra = budget - sum(minima)
        weights = [self.chooser.index(4) if grow else 0 for grow in growable]
        if not any(weights):
            weights = [int(grow) for grow in growable]
        total = sum(weights) or 1
        return [low + extra * weight // total for low, weight in zip(minima, weights, strict=True)]

    def _sequence(self, origin: str, symbols: Sequence[str], levels: int, budget: int) -> None:
        model = self.model
        minima = [model.size[s] for s in symbols]
        growable = [s in model.rules for s in symbols]
        for position, (symbol, share) in enumerate(zip(symbols, self._split(budget, minima, growable), strict=True)):
            choices = self.name_choices.get((origin, position))
            if choices and symbol in model.terminals:
                self.emit(symbol, choices[self.chooser.index(len(choices))])
            else:
                self.expand(symbol, levels, share)

    def emit(self, name: str, text: str | None) -> None:
        terminal = self.model.terminals[name]
        if text is None:
            if terminal.regex is None:
                text = ""
            elif terminal.literal is None and self._wordy(terminal) and self.seen_names and self.chooser.chance(60):
                text = self.seen_names[self.chooser.index(len(self.seen_names))]
            else:
                text = self._unclaimed(terminal, self.chooser.terminal(terminal))
                if self._wordy(terminal) and text not in self.seen_names:
                    self.seen_names.append(text)
        self.walk.tokens.append((name, text))

    def _wordy(self, terminal: Terminal) -> bool:
        return terminal.compiled is not None and terminal.literal is None and bool(terminal.compiled.fullmatch("a"))

    def _usable_name(self, name: str) -> bool:
        return any(self._wordy(t) and t.compiled is not None and t.compiled.fullmatch(name)
                   and not self.model.competitors(t, name) for t in self.model.terminals.values())

    def _unclaimed(self, terminal: Terminal, text: str) -> str:
        """``text``, changed until no other terminal would take it (``in`` -> ``in_``) and it still matches."""
        candidate = text
        suffix = 0
        while self.model.competitors(terminal, candidate):
            candidate = f"{text}_{suffix}" if suffix else f"{text}_"
            suffix += 1
            assert terminal.compiled is not None and terminal.compiled.fullmatch(candidate), candidate
        return candidate


class Renderer:
    """Turns a token stream into text the lexer and the indenter turn back into the same stream."""

    GLUE = frozenset("()[]{},;")

    def __init__(self, model: GrammarModel, chooser: Chooser) -> None:
        self.model = model
        self.chooser = chooser

    def render(self, tokens: Sequence[tuple[str, str]]) -> str:
        out: list[str] = []
        levels = [0]
        pending: str | None = None  # newline text waiting for the next line's indentation
        previous: str | None = None
        for name, text in tokens:
            if name == INDENT:
                levels.append(levels[-1] + INDENT_WIDTHS[self.chooser.index(len(INDENT_WIDTHS))])
            elif name == DEDENT:
                levels.pop()
            elif name == NL:
                newline = self.newline()
                if pending is None and previous is not None and newline.startswith("#"):
                    newline = self.separator(previous, "#") + newline
                pending = newline if pending is None else pending + newline
            else:
                if pending is not None:
                    out.append(pending + self.indentation(levels[-1]))
                    pending = None
                elif previous is not None:
                    out.append(self.separator(previous, text))
                out.append(text)
                previous = text
        if pending is not None:
            out.append(pending)
        return "".join(out)

    def newline(self) -> str:
        """A drawn ``_NL``: newlines, blank lines, comments; always ends a line, no indentation yet."""
        if not self.chooser.chance(25):
            return "\n"
        text = self.chooser.terminal(self.model.terminals[NL])
        head, newline, tail = text.rpartition("\n")
        if newline and "#" not in tail:  # drop the indentation after the last newline: ours comes next
            return head + newline
        return text + "\n"

    def indentation(self, width: int) -> str:
        if width >= 8 and self.chooser.chance(20):
            return "\t" * (width // 8) + " " * (width % 8)  # the indenter counts a tab as 8 columns
        return " " * width

    def separator(self, before: str, after: str) -> str:
        """A space; sometimes one of the grammar's ``%ignore`` patterns, or nothing next to a bracket."""
        if not self.chooser.chance(20):
            return " "
        ignore = self.model.ignore
        glue = bool(before and after) and (before[-1] in self.GLUE or after[0] in self.GLUE)
        choice = self.chooser.index(len(ignore) + glue)
        return "" if choice == len(ignore) else self.chooser.terminal(self.model.terminals[ignore[choice]])


def generate_walk(chooser: Chooser, **options: Any) -> tuple[str, Walk]:
    """One rule file's text (or, with ``start=``, one fragment) and its walk (for coverage)."""
    model = grammar_model()
    walk = Walker(model, chooser, **options).run()
    return Renderer(model, chooser).render(walk.tokens), walk


def default_names() -> tuple[str, ...]:
    """Names the compiler predefines (builtins and reserved words), read from the compiler."""
    from gdl import compiler

    return (*sorted(compiler.BUILTIN_FUNCTIONS), *sorted(compiler.RESERVED), "player", "bool", "cell")


def generate(rng: random.Random, **options: Any) -> str:
    """A syntactically valid rule file from a seeded ``random.Random`` (the campaign's generator)."""
    options.setdefault("names", default_names())
    return generate_walk(RandomChooser(rng), **options)[0]


# ------------------------------------------------------------------ splicing into valid games

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@functools.lru_cache(maxsize=64)  # the bases of splices come back again and again
def expression_spans(source: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of every expression of a rule file that parses, as the parser reports them."""
    starts = [0]
    for line in source.split("\n"):
        starts.append(starts[-1] + len(line) + 1)
    spans: set[tuple[int, int]] = set()
    stack: list[Any] = [parse(source)]
    while stack:
        node = stack.pop()
        if isinstance(node, (tuple, list)):
            stack.extend(node)
        elif dataclasses.is_dataclass(node) and not isinstance(node, type):
            if isinstance(node, ast.Expr):
                span = node.span
                spans.add((starts[span.line - 1] + span.column - 1, starts[span.end_line - 1] + span.end_column - 1))
            stack.extend(getattr(node, f.name) for f in dataclasses.fields(node))
    return sorted(spans)


SPLICE_TOKENS = (1, 1, 1, 2, 3, 5, 8)  # short expressions type-check far more often


def splice(chooser: Chooser, base: str, *, count: int = 1, max_tokens: Sequence[int] = SPLICE_TOKENS) -> str:
    """``base`` (a rule file that parses) with ``count`` expressions replaced by expressions generated from
    the grammar's ``expr`` rule (of at most one of ``max_tokens`` tokens), in parentheses, over the names
    ``base`` uses: a file that is still syntactically valid and sometimes (about 1 in 10 with one-token
    expressions) gets through the checks, so generated code reaches playouts and the solver too."""
    names = (*dict.fromkeys(WORD.findall(base)), *default_names())
    text = base
    for _ in range(count):
        spans = expression_spans(text)
        if not spans:
            break
        start, end = spans[chooser.index(len(spans))]
        tokens = max_tokens[chooser.index(len(max_tokens))]
        fragment = generate_walk(chooser, start="expr", max_tokens=tokens, names=names)[0]
        text = f"{text[:start]}({fragment}){text[end:]}"
    return text


# ------------------------------------------------------------------ the Hypothesis strategies


@st.composite
def _rule_files(draw: Callable[[st.SearchStrategy[Any]], Any], options: dict[str, Any]) -> str:
    return generate_walk(DrawChooser(draw), **options)[0]


def rule_files(*, max_depth: int = 40, max_tokens: int = 200,
               names: Sequence[str] | None = None) -> st.SearchStrategy[str]:
    """A Hypothesis strategy for syntactically valid rule files, derived from ``grammars/gdl.lark``."""
    options = {"max_depth": max_depth, "max_tokens": max_tokens,
               "names": default_names() if names is None else tuple(names)}
    return _rule_files(options)


def generate_spliced(rng: random.Random, bases: Sequence[str], max_count: int = 2) -> str:
    """One of ``bases`` with 1 to ``max_count`` generated expressions (the campaign's spliced cases)."""
    chooser = RandomChooser(rng)
    return splice(chooser, bases[chooser.index(len(bases))], count=1 + chooser.index(max_count))


@st.composite
def spliced_rule_files(draw: Callable[[st.SearchStrategy[Any]], Any], bases: Sequence[str],
                       max_count: int = 2) -> str:
    """Rule files ``bases`` with 1 to ``max_count`` expressions generated from the grammar (:func:`splice`)."""
    chooser = DrawChooser(draw)
    return splice(chooser, bases[chooser.index(len(bases))], count=1 + chooser.index(max_count))
