"""A long fuzzing campaign against the rule-file pipeline (parse, check, compile, run, solve).

    python bench/fuzz.py --cases 100000 --jobs 2 --out fuzz-crashes
    python bench/fuzz.py --generator grammar --cases 100000 --jobs 2 --out fuzz-crashes

Every case is built from one integer seed (so a case is reproduced by its seed alone):

* ``generated``: a structured generator writes a *syntactically valid* game from pieces
  (players, an optional board, typed state, parameters, defs, moves with guards,
  chance, loops and `again`, end rules, render lines) with random expressions over the
  names it declared; one in five unmutated ones has a cell whose range lies past 32 bits
  (issue 29), moved by every move, read by an end rule; about a third of them are then mutated
  once more;
* ``mutated``: a bundled game with 1 to 4 mutations -- token deletion, duplication,
  swap, byte flip, insertion of an interesting token, truncation.

With ``--generator grammar`` the cases come from ``grammars/gdl.lark`` itself, through
``tests/grammar_strategy.py`` (the walker behind the Hypothesis strategies of
``tests/test_grammar_fuzz.py``, here driven by ``random.Random(seed)``):

* ``grammar``: a whole rule file derived from the grammar's start rule;
* ``grammar-spliced``: a bundled game with 1 or 2 expressions replaced by expressions derived from
  the grammar's ``expr`` rule over the game's names (these often get through the checks).

With ``--generator files`` the cases are hostile game records (a FIFO, ``/dev/zero``, deep JSON, huge integers,
a ``source`` that points elsewhere...) read by ``gdl replay`` and ``--moves @FILE``, and FIFOs, sockets,
directories and links at the target of every writer (``bench/fuzz_files.py``, with its properties).

With ``--generator hostile`` the cases are the shapes that once hung or crashed (issue 12), with random
sizes around the limits, sometimes mutated: huge number literals, deeply nested `if`s, `for`s and
parentheses, defs that call the previous def twice, long chains of defs, repeated squaring of a
fraction, moves with many or huge parameters, ranges, `select`s and chances over huge run-time ranges,
nested aggregates, thousands of errors, utilities too large for a float, fractional parameters, simultaneous
rounds with tiny or huge payoffs or a rule that fails inside the round. The
budget properties: loading takes under ``--timeout`` (no budget to lean on), and a game that loads is
played and solved under a 2 s rule budget (:func:`gdl.runtime.rule_budget`), which may stop it.

Such a file must parse (a syntax error is a crash: of the generator or of the parser), ``gdl check``'s
``check_source`` must report only diagnostics inside the file, and a file it accepts goes on to the
properties below.

The properties checked (a violation is a *crash*):

1. loading raises nothing but ``RuleFileError`` (a rule that fails in ``setup`` or while the declared
   symmetries are compared is one, with a ``runtime-error`` diagnostic) or ``ParameterError``: the CLI shows any
   other exception, a ``RuleRuntimeError`` included, as a traceback;
2. every diagnostic (and warning) lies inside the file: ``1 <= line <= lines`` and the
   column within that line (or one past its end);
3. a game that loads (in checked mode) survives random playouts, or raises only
   :class:`gdl.RuleRuntimeError`, which ``game.explain`` maps to a diagnostic in the file;
4. the exact solver under a small node budget raises nothing but ``RuleRuntimeError``
   (or ``ValueError`` from the solver's own preconditions, or ``RuleFileError`` with diagnostics inside the
   file: a declared symmetry is compared with the rules at the first state key);
5. no case takes more than ``--timeout`` seconds of CPU (a hang is a crash too; a worker that gives no result
   for ``4 * timeout + 30`` s of wall time is reported as a hang as well); playouts and the solver run
   under a rule budget (:func:`gdl.runtime.rule_budget`, as ``gdl solve --time`` does), so a single rule
   evaluation longer than that is a clean stop (``SearchStopped``), not a hang.

Distinct crashes are grouped by signature (exception type and the innermost frame in
gdl/ or solver/); one reproducer per signature is written to ``--out`` as
``<signature-hash>.gdl`` with the signature and seed in a comment at the top. The
summary lists every signature with its count.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import multiprocessing
import os
import random
import re
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))

import fuzz_files  # noqa: E402
import fuzz_tables  # noqa: E402
import grammar_strategy  # noqa: E402

import gdl  # noqa: E402
import gdl.check  # noqa: E402
from gdl.diagnostics import RuleFileError, has_controls  # noqa: E402
from gdl.parser import parse  # noqa: E402
from gdl.runtime import rule_budget  # noqa: E402
from gdl.simultaneous import ChanceInRoundError  # noqa: E402
from solver.exact import StuckStateError, solve  # noqa: E402
from solver.game import CHANCE, SIMULTANEOUS, TERMINAL  # noqa: E402
from solver.limits import Limits, SearchStopped  # noqa: E402
from solver.simultaneous import SimultaneousSolution, solve_simultaneous  # noqa: E402

GAMES = {p.stem: p.read_text(encoding="utf-8") for p in gdl.bundled_games()}
# Othello and hex load slowly (~0.4 s checked); they still take part, just less often.
SLOW = {"othello", "hex", "breakthrough"}
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|\s+|\.\.|//|[=!<>+\-*]=|.", re.DOTALL)
INTERESTING = [*":()[]{}=<>.,;#\"\\?-+*/%\n\t ", "\n    ", "\n        ", "..", "==", "x", "none", "move",
               "if", "else", "for", "in", "chance", "again", "when", "0", "1", "9", "-1", "99999999999",
               "10**9", "player", "cell", "mover", "turn", "not", "and", "or", "all", "any", "sum",
               "max", "min", "len", "lines(3)", "ray(", "neighbors(", "let", "break", "otherwise",
               "weight", "with", "param", "state", "def", "win", "lose", "draw", "utility",
               "heuristic", "render", "zero_sum", "setup", "after", "every", "terminal", "__class__",
               "__import__", "eval", "lambda", "\u00e9", "\u200b", "\r\n", "\x00",
               # hostile text (issue 12): escape sequences and markup in strings, odd line breaks
               '"\x1b]52;c;aGk=\x07"', '"\x1b[2J"', '"[/]"', '"[link=http://x]y[/link]"', "\x1b", "\r", "\x0c",
               "\x0b", "\x85", "\u2028", "\u2029", "\u202e"]


# ------------------------------------------------------------------ the structured generator


class Generator:
    """Writes one valid-looking game from pieces, with random expressions over declared names."""

    def __init__(self, rng: random.Random, wide: bool = True) -> None:
        self.rng = rng
        self.wide = wide  # (a cell past 32 bits in one game in five: :meth:`wide_cell`)
        self.ints: list[str] = []  # scalar int state / params
        self.arrays: list[tuple[str, str]] = []  # (name, index type) with int values
        self.bools: list[str] = []
        self.has_board = False
        self.in_move = True
        self.in_end = False

    def small(self) -> str:
        return str(self.rng.choice([0, 1, 2, 3, 4, 5, 7, 10, -1]))

    def int_expr(self, depth: int = 0) -> str:
        r = self.rng
        choices = ["lit", "lit"]
        if self.ints:
            choices += ["int", "int", "int"]
        if self.arrays:
            choices += ["arr", "arr"]
        if depth < 3:
            choices += ["bin", "bin", "min", "cond", "sum", "count", "abs"]
        kind = r.choice(choices)
        if kind == "lit":
            return self.small()
        if kind == "int":
            return r.choice(self.ints)
        if kind == "arr":
            name, index = r.choice(self.arrays)
            return f"{name}[{self.index_of(index)}]"
        if kind == "bin":
            op = r.choice(["+", "-", "*", "//", "%", "+", "-"])
            return f"({self.int_expr(depth + 1)} {op} {self.int_expr(depth + 1)})"
        if kind == "min":
            return f"{r.choice(['min', 'max'])}({self.int_expr(depth + 1)}, {self.int_expr(depth + 1)})"
        if kind == "abs":
            return f"abs({self.int_expr(depth + 1)})"
        if kind == "cond":
            return f"({self.int_expr(depth + 1)} if {self.bool_expr(depth + 1)} else {self.int_expr(depth + 1)})"
        if kind == "sum" and self.arrays:
            name, index = r.choice(self.arrays)
            return f"(sum v in {index}: {name}[v])"
        if kind == "count" and self.arrays:
            name, index = r.choice(self.arrays)
            return f"(count v in {index} where {name}[v] > {self.small()}: true)"
        return self.small()

    def index_of(self, index: str) -> str:
        r = self.rng
        if index == "player":
            if not self.in_move:
                return r.choice(["A", "turn", "p" if self.in_end else "A"])
            return r.choice(["mover", "turn", "opponent(mover)", "mover"])
        if index == "cell":
            return r.choice(["c", "cell(0, 0)"]) if "c" in self.bound else "cell(0, 0)"
        lo, hi = index.split("..")
        return r.choice([lo, hi, f"({self.int_expr(2)}) % ({hi} + 1)" if lo == "0" else lo])

    bound: ClassVar[set[str]] = set()

    def bool_expr(self, depth: int = 0) -> str:
        r = self.rng
        choices = ["cmp", "cmp", "cmp", "lit"]
        if self.bools:
            choices += ["bool"]
        if depth < 3:
            choices += ["and", "or", "not", "any"]
        kind = r.choice(choices)
        if kind == "cmp":
            op = r.choice(["==", "!=", "<", "<=", ">", ">="])
            return f"{self.int_expr(depth + 1)} {op} {self.int_expr(depth + 1)}"
        if kind == "lit":
            return r.choice(["true", "false"])
        if kind == "bool":
            return r.choice(self.bools)
        if kind in ("and", "or"):
            return f"({self.bool_expr(depth + 1)} {kind} {self.bool_expr(depth + 1)})"
        if kind == "not":
            return f"not ({self.bool_expr(depth + 1)})"
        if self.arrays:
            name, index = r.choice(self.arrays)
            return f"({r.choice(['any', 'all'])} v in {index}: {name}[v] {r.choice(['==', '<', '>'])} {self.small()})"
        return "true"

    def statement(self, indent: str, depth: int = 0) -> list[str]:
        r = self.rng
        kinds = ["assign", "assign", "assign"]
        if depth < 2:
            kinds += ["if", "for", "chance"]
        kinds += ["again", "pass", "let"]
        kind = r.choice(kinds)
        if kind == "assign":
            if self.arrays and r.random() < 0.5:
                name, index = r.choice(self.arrays)
                target = f"{name}[{self.index_of(index)}]"
            elif self.ints:
                assignable = [i for i in self.ints if i.startswith("s")]
                if not assignable:
                    return [f"{indent}pass"]
                target = r.choice(assignable)
            elif self.bools:
                return [f"{indent}{r.choice(self.bools)} = {self.bool_expr(1)}"]
            else:
                return [f"{indent}pass"]
            op = r.choice(["=", "+=", "-=", "*=", "="])
            value = self.int_expr(1)
            if r.random() < 0.6:  # keep it usually within range
                value = f"max(0, min({value}, 3))"
            return [f"{indent}{target} {op} {value}"]
        if kind == "if":
            out = [f"{indent}if {self.bool_expr(1)}:", *self.statement(indent + "    ", depth + 1)]
            if r.random() < 0.5:
                out += [f"{indent}else:", *self.statement(indent + "    ", depth + 1)]
            return out
        if kind == "for":
            return [f"{indent}for i in 0..{r.randint(0, 3)}:", *self.statement(indent + "    ", depth + 1)]
        if kind == "chance":
            weight = f" weight {r.choice(['1', 'd', '7 - d', 'd - 2'])}" if r.random() < 0.3 else ""
            self.ints.append("d")
            body = self.statement(indent + "    ", depth + 1)
            self.ints.remove("d")
            return [f"{indent}chance d in 1..{r.randint(1, 4)}{weight}:", *body]
        if kind == "let":
            return [f"{indent}let t = {self.int_expr(1)}"]
        return [f"{indent}{kind}"]

    WIDE_BASES: ClassVar[tuple[int, ...]] = (2147483646, 4294967296, -4294967300, 8589934592000)
    """Where a cell past 32 bits starts (issue 29: the C back end cut such cells to 32 bits)."""

    def wide_cell(self, out: list[str]) -> tuple[random.Random, int] | None:
        """One game in five gets ``w``, a cell whose range lies past 32 bits, that each move moves and an end rule
        reads; its own random stream, seeded by the text so far, draws for it (every other draw of a seed stays
        what it was)."""
        wide = random.Random("\n".join(out))
        if wide.random() >= 0.2:
            return None
        base = wide.choice(self.WIDE_BASES)
        out.append(f"state w: {base}..{base + 3} = {base + wide.randint(0, 3)}")
        return wide, base

    def drawn_from(self, rng: random.Random, make: Callable[[], str]) -> str:
        """``make()`` with its random choices drawn from ``rng`` instead of the game's stream."""
        saved, self.rng = self.rng, rng
        try:
            return make()
        finally:
            self.rng = saved

    def game(self) -> str:
        r = self.rng
        n_players = r.choice([1, 2, 2, 2, 3])
        players = ["A", "B", "C"][:n_players]
        out = [f'game G{r.randint(0, 99)} "generated"']
        if r.random() < 0.5:
            out.append(f"param P: 1..{r.choice([3, 5, 9])} = {r.randint(1, 3)}")
            self.ints.append("P")
        out.append("players " + ", ".join(players))
        if r.random() < 0.35:
            out.append(f"board {r.randint(1, 4)} x {r.randint(1, 4)}" + r.choice(["", "", " hex"]))
            self.has_board = True
            out.append("state mark[cell]: player? = none")
        for k in range(r.randint(1, 3)):
            kind = r.choice(["int", "int", "arr", "bool"])
            if kind == "int":
                hi = r.choice(["3", "5", "P" if "P" in self.ints else "4", "10"])
                out.append(f"state s{k}: 0..{hi} = {r.choice(['0', '1'])}")
                self.ints.append(f"s{k}")
            elif kind == "arr":
                index = r.choice(["player", "0..3", "0..2"])
                out.append(f"state a{k}[{index}]: 0..{r.choice(['3', '9'])} = 0")
                self.arrays.append((f"a{k}", index))
            else:
                out.append(f"state b{k}: bool = {r.choice(['true', 'false'])}")
                self.bools.append(f"b{k}")
        wide = self.wide_cell(out) if self.wide else None
        if r.random() < 0.3:
            out.append(f"def f(x: 0..5) = x {r.choice(['+', '*', '-'])} {self.int_expr(2)}")
        for m in range(r.randint(1, 3)):
            params = ""
            if r.random() < 0.4:
                params = f"(k: 1..{r.randint(1, 3)})"
                self.ints.append("k")
            guard = f" when {self.bool_expr(1)}" if r.random() < 0.7 else ""
            if self.has_board and r.random() < 0.4:
                out.append(f"move put{m}(c: cell) when mark[c] == none:")
                out.append("    mark[c] = mover")
                self.bound = {"c"}
                out += self.statement("    ", 1)
                self.bound = set()
            else:
                out.append(f"move m{m}{params}{guard}:")
                for _ in range(r.randint(1, 3)):
                    out += self.statement("    ")
            if wide is not None:
                out.append(f"    w = max({wide[1]}, min(w + {self.drawn_from(wide[0], lambda: self.int_expr(2))}, "
                           f"{wide[1] + 3}))")
            if "k" in self.ints:
                self.ints.remove("k")
        self.in_move = False
        if r.random() < 0.3:
            out.append("move pass otherwise")
        if r.random() < 0.2:
            out.append("setup:")
            out += self.statement("    ")
        if r.random() < 0.2:
            out.append("after every move:")
            out += self.statement("    ")
        self.in_end = True
        player_arrays = [n for n, i in self.arrays if i == "player"]
        for _ in range(r.randint(1, 3)):
            kind = r.choice(["win", "win", "lose", "draw", "terminal", "utility"])
            if kind in ("win", "lose"):
                out.append(f"{kind} {r.choice(['p', 'mover', 'opponent(mover)', players[0]])} when "
                           + (f"{r.choice(player_arrays)}[p] > 2" if player_arrays and r.random() < 0.5
                              else self.bool_expr(1)))
            elif kind == "draw":
                out.append(f"draw when {self.bool_expr(1)}")
            elif kind == "terminal":
                out.append(f"terminal when {self.bool_expr(1)}")
                out.append(f"utility p: {self.int_expr(1)}")
        if wide is not None:
            out.append(f"draw when w == {wide[1] + 2}")
        if r.random() < 0.2:
            out.append(f"heuristic p: {self.int_expr(1)}")
        if self.has_board and r.random() < 0.5:
            out.append('render mark: A "X", B "O", none "."' if n_players >= 2 else 'render mark: A "X", none "."')
        if r.random() < 0.1:
            out.append("zero_sum")
        return "\n".join(out) + "\n"


def generate(rng: random.Random, wide: bool = True) -> str:
    """A structured, syntactically valid rule file (``wide``: one in five with a cell past 32 bits)."""
    Generator.bound = set()
    return Generator(rng, wide).game()


def mutate(text: str, rng: random.Random, rounds: int) -> str:
    """``text`` with ``rounds`` random mutations (token delete/duplicate/swap, byte flip, insert, truncate)."""
    for _ in range(rounds):
        kind = rng.choice(["flip", "insert", "insert", "delete", "delete", "duplicate", "swap", "truncate",
                           "line-dup", "line-delete"])
        if kind in ("flip", "insert"):
            i = rng.randrange(max(1, len(text)))
            new = rng.choice(INTERESTING) if rng.random() < 0.8 else chr(rng.randrange(1, 0x300))
            text = text[:i] + new + text[i + (kind == "flip"):]
        elif kind == "truncate":
            text = text[: rng.randrange(len(text) + 1)]
        elif kind in ("line-dup", "line-delete"):
            lines = text.split("\n")
            i = rng.randrange(len(lines))
            if kind == "line-dup":
                lines.insert(i, lines[i])
            else:
                del lines[i]
            text = "\n".join(lines)
        else:
            tokens = TOKEN.findall(text)
            if len(tokens) < 2:
                continue
            i = rng.randrange(len(tokens) - 1)
            if kind == "delete":
                del tokens[i]
            elif kind == "duplicate":
                tokens.insert(i, tokens[i])
            else:
                j = rng.randrange(len(tokens))
                tokens[i], tokens[j] = tokens[j], tokens[i]
            text = "".join(tokens)
    return text


# ------------------------------------------------------------------ the hostile generator


def _hostile_shape(rng: random.Random, shape: str) -> str:
    """One shape that once hung or crashed, sized at random around its limit."""
    head = 'game H "hostile"\nplayers A, B\nstate x: 0..3 = 0\n'
    tail = "    x = 1\nwin A when x == 1\n"
    if shape == "literal":
        digits = "9" * rng.choice([14, 16, 31, rng.randint(100, 6000)])
        number = digits if rng.random() < 0.7 else f"0.{digits}"
        return head + f"move m when x < {number}:\n" + tail
    if shape in ("deep-if", "deep-for"):
        depth = rng.randint(10, 110) if shape == "deep-if" else rng.randint(5, 25)
        line = "if x == 0:" if shape == "deep-if" else "for i{} in 0..1:"
        body = "".join("    " * (i + 1) + line.format(i) + "\n" for i in range(depth))
        return head + "move m when x == 0:\n" + body + "    " * (depth + 1) + "x = 1\nwin A when x == 1\n"
    if shape == "deep-expr":
        depth = rng.randint(50, 260)
        expr = "x"
        for _ in range(depth):
            expr = f"({expr} {rng.choice(['+', '*', '-'])} 1)"
        return head + f"move m when {expr} >= 0 and x == 0:\n" + tail
    if shape == "doubling":
        levels = rng.randint(5, 60)
        defs = "def f0(k: 0..3) = k + x\n" + "".join(
            f"def f{i}(k: 0..3) = f{i - 1}(k) {rng.choice(['+', '*', '-'])} f{i - 1}({rng.choice(['k', '3 - k'])})\n"
            for i in range(1, levels))
        return head + defs + f"move m when f{levels - 1}(1) != 0:\n" + tail
    if shape == "chain":
        length = rng.randint(20, 300)
        defs = "def d0 = x\n" + "".join(f"def d{i} = d{i - 1} + 1\n" for i in range(1, length))
        return head + defs + f"move m when d{length - 1} > 0:\n" + tail
    if shape == "square":
        levels = rng.randint(3, 40)
        defs = f"def q0 = {rng.randint(2, 9)}/{rng.randint(2, 9)}\n" + "".join(
            f"def q{i} = q{i - 1} * q{i - 1}\n" for i in range(1, levels))
        return head + defs + f"move m when q{levels - 1} > 0:\n" + tail
    if shape == "params":
        count = rng.randint(2, 20)
        params = ", ".join(f"p{i}: 0..{rng.choice([1, 9, 999, 999999])}" for i in range(count))
        return head + f"move m({params}) when p0 + p1 == 3 and x == 0:\n" + tail
    if shape == "runtime-range":
        big = rng.choice(["999", "999999", "9999999", "999999999999999"])
        inner = rng.choice([f"sum i in 0..((x + 1) * {big}): i", f"len(select i in 0..((x + 1) * {big}): i > 2)",
                            f"sum a in 0..((x + 1) * {big}): sum b in 0..((x + 1) * {big}): a + b"])
        return head + f"move m when ({inner}) > 0 and x == 0:\n" + tail
    if shape == "chance":
        big = rng.choice(["9", "9999", "99999", "999999999999"])
        return head + f"move m when x == 0:\n    chance d in 0..((x + 1) * {big}):\n        x = 1\nwin A when x == 1\n"
    if shape == "nested-aggregates":
        depth, size = rng.randint(2, 5), rng.choice([3, 30, 127, 128, 129, 1000])
        expr = "x"
        for i in range(depth):
            expr = f"{rng.choice(['sum', 'min', 'max'])} v{i} in 0..{size}: ({expr} + v{i})"
        return head + f"move m when ({expr}) >= 0 and x == 0:\n" + tail
    if shape == "errors":
        count = rng.randint(50, 3000)
        return head + "".join(f"def e{i} = undefined_{i} + 1\n" for i in range(count)) + "move m:\n" + tail
    if shape == "utility":
        levels = rng.randint(1, 7)
        defs = "def u0 = (x + 1) * 999999999999999\n" + "".join(f"def u{i} = u{i - 1} * u{i - 1}\n"
                                                                for i in range(1, levels))
        line = rng.choice([f"terminal when x == 1\nutility p: u{levels - 1}\n",
                           f"win A when x == 1\nheuristic p: u{levels - 1}\n"])
        return head + defs + "move m when x < 1:\n    x = 1\n" + line
    if shape == "huge-state":  # a state of thousands of cells, each guard a scan of them (issue 29)
        n = rng.choice([10, 40, 100])
        return (f'game H "hostile"\nparam n = {n}\nplayers A, B\nstate cell[0..n*n-1]: 0..10 = 0\n'
                "state filled: 0..n*n = 0\nmove put(k: 0..9) when filled < n * n and "
                "(count i in 0..n*n-1: cell[i] == 0) > 0:\n    cell[filled] = k + 1\n    filled += 1\n"
                "win A when filled == n * n and cell[0] > 5\nwin B when filled == n * n and cell[0] <= 5\n")
    if shape == "huge-moves":  # a move over up to 10^12 parameter pairs: too large past 10^8 (issue 29)
        size = rng.choice(["999", "9998", "99999", "999999"])
        return head + f"move m(a: 0..{size}, b: 0..{size}) when a + b < 0:\n" + tail
    if shape == "text":
        return _hostile_text(rng)
    if shape == "simultaneous":
        return _hostile_round(rng)
    value = rng.choice(["0.5", "1/3", "0.000000000000001", "999999999999999.5"])
    return head.replace("players", f"param bonus = {value}\nplayers") + "move m when bonus > 0:\n" + tail


HOSTILE_SHAPES = ("literal", "deep-if", "deep-for", "deep-expr", "doubling", "chain", "square", "params",
                  "runtime-range", "chance", "nested-aggregates", "errors", "utility", "fraction-param", "text",
                  "huge-state", "huge-moves", "simultaneous")


def _hostile_round(rng: random.Random) -> str:
    """A simultaneous round of rock-paper-scissors (or a random 3x3 matrix) with tiny or huge payoffs (1e-15 to
    about 1e300, the utility limit), sometimes with a rule that fails inside the round: once a traceback, or a
    pure strategy from an LP whose tolerance was absolute."""
    factor = "999999999999999"
    unit = rng.choice(["1/1000000000000", "1/999999999999999", "1000000000000",
                       " * ".join([factor] * rng.randint(2, 21))])
    cells = [0, -1, 1, 1, 0, -1, -1, 1, 0] if rng.random() < 0.5 else [rng.randint(-9, 9) for _ in range(9)]
    broken = "    if i == 2: r += 5\n" if rng.random() < 0.3 else ""
    return ('game H "hostile"\nplayers A, B\nsimultaneous\nzero_sum\nstate r: 0..3 = 0\nstate c: 0..3 = 0\n'
            f"move row(i: 1..3) when mover == A and r == 0:\n    r = i\n{broken}"
            "move column(j: 1..3) when mover == B and c == 0:\n    c = j\n"
            f"def payoff = {cells}[(r - 1) * 3 + c - 1] * {unit}\n"
            "terminal when r > 0 and c > 0\nutility p: payoff if p == A else -payoff\n")

ESCAPES = ("\x1b]52;c;aGk=\x07", "\x1b]8;;http://evil.example\x1b\\hidden\x1b]8;;\x1b\\", "\x1b[2J", "\x1b[H",
           "\x1bc", "\x1b[31m", "\x9b31m", "\x07", "\x08", "\u202e", "\u2066", "\x7f", "\x1b", "\x9d0;title\x9c")
"""Terminal escape sequences and control characters: OSC 52 (clipboard), OSC 8 (hidden link), clear screen,
cursor home, reset, colour, CSI as one C1 character, bell, backspace, bidirectional overrides, DEL, OSC as C1."""
MARKUP = ("[link=http://evil.example]click[/link]", "[/]", "[bold red]x", "[/bold]", ":smile:", "[", "]",
          "\\\\[x]", "[blink]")
"""Rich markup (and emoji codes) that must print as written (``\\\\[x]`` in a file is the string ``\\[x]``, which
rich markup would print as ``[x]``)."""
BROKEN_LINES = ('move bad: x = "{s}"', 'win A when "{s}"', 'state y: 0..3 = "{s}"', "move bad2: x = 1 {e}",
                'move bad3: x = undefined_{n} + "{s}"', 'meta {n} = "{s}"\nmeta {n} = "{s}"')
"""Lines whose diagnostic shows the hostile text in its message or its source excerpt."""


def hostile_string(rng: random.Random) -> str:
    """Text for a string literal: escape sequences, markup and plain words (no quote, backslash or newline)."""
    parts = [rng.choice(ESCAPES + MARKUP + ("x", "title", " ")) for _ in range(rng.randint(1, 5))]
    return "".join(parts)


def _hostile_text(rng: random.Random) -> str:
    """A game with escape sequences and markup in its title, description, meta values and render strings, and
    sometimes a broken line whose diagnostic shows them."""
    words = [hostile_string(rng) for _ in range(6)]
    lines = [f'game T{rng.randint(0, 9)} "{words[0]}"', f'meta source = "{words[1]}"', f'meta value = "{words[2]}"',
             "players A, B", "board 1 x 3", "state mark[cell]: player? = none", "state x: 0..3 = 0",
             "move put when x < 3:", "    mark[cell(0, x)] = mover", "    x += 1", "win A when x == 3",
             f'render mark: A "{words[3]}", B "{words[4]}", none "."']
    if rng.random() < 0.5:
        line = rng.choice(BROKEN_LINES).format(s=words[5], e=rng.choice(ESCAPES), n=rng.randint(0, 9))
        lines.insert(rng.randrange(3, len(lines) + 1), line)
    return "\n".join(lines) + "\n"


def run_text_case(text: str, seed: int) -> None:
    """The CLI's output for a file with hostile text: no raw control character, no markup interpreted.

    ``gdl info``, ``check``, ``play`` (random agents) and ``solve`` run through the CLI's ``main`` in this
    process on the file, saved under a name that holds escapes and markup too; none may print a traceback or a
    raw control character (only rich's style codes would be escape sequences, and output here is not a
    terminal, so there are none), and where ``gdl info`` succeeds every markup string of the title and the
    meta values is printed as written.
    """
    import io
    import tempfile

    from gdl.cli import main as cli_main

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="gdl-fuzz-text-") as folder:
        parts = ("t", "[link=x]", "\x1b[2J", "\x1b]52;c;aGk=\x07", "[bold]", "\u202e")
        name = "".join(rng.choice(parts) for _ in range(3))
        path = Path(folder) / f"{name}.gdl"
        path.write_text(text, encoding="utf-8")
        for argv in (["info", str(path), "--playouts", "2"], ["check", str(path), "--playouts", "2"],
                     ["play", str(path), "--as", "none", "--vs", "random", "--seed", "1", "--max-plies", "20"],
                     ["solve", str(path), "--max-nodes", "2000"]):
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = cli_main(argv)
            printed = out.getvalue() + err.getvalue()
            if "Traceback" in printed or code not in (0, 1, 2):
                raise Violation(f"gdl {argv[0]}: exit {code} or a traceback")
            if has_controls(printed, keep="\n"):
                raise Violation(f"gdl {argv[0]}: a raw control character in the output")
            if argv[0] == "info" and code == 0:
                # (a long title wraps in the table, at a space or inside a word: whitespace is left out of both)
                shown = re.sub(r"\s+", "", out.getvalue())
                for line in text.split("\n")[:3]:
                    for markup in MARKUP:  # (`\\` in a string is one backslash)
                        if markup in line and re.sub(r"\s+", "", markup.replace("\\\\", "\\")) not in shown:
                            raise Violation(f"gdl info: the markup {markup!r} is not printed as written")


def hostile(rng: random.Random) -> tuple[str, str]:
    """A (kind, text) case of the hostile generator: one shape, mutated once in five.

    Half the ``utility`` draws become ``simultaneous`` (huge payoffs in a round), so that every other seed
    keeps the case it had before that shape joined (a crash is reproduced by its seed alone)."""
    shape = rng.choice(HOSTILE_SHAPES[:-1])
    if shape == "utility" and rng.random() < 0.5:
        shape = "simultaneous"
    text = _hostile_shape(rng, shape)
    if rng.random() < 0.2:
        return f"hostile-{shape}+mutated", mutate(text, rng, 1)
    return f"hostile-{shape}", text


GENERATORS = ("mixed", "grammar", "hostile", "tables", "files")


def make_case(seed: int, generator: str = "mixed") -> tuple[str, str]:
    """The (kind, text) of case ``seed`` from ``generator`` (one of GENERATORS); for ``tables`` the text
    describes the mutations of the table (:func:`fuzz_tables.make_table` writes the file)."""
    if generator == "tables":
        return fuzz_tables.describe_table(seed)
    if generator == "files":
        return fuzz_files.describe_files(seed)
    rng = random.Random(seed)
    if generator == "hostile":
        return hostile(rng)
    if generator == "grammar":
        if rng.random() < 0.5:
            return "grammar", grammar_strategy.generate(rng)
        bases = [GAMES[name] for name in sorted(GAMES) if name not in SLOW or rng.random() < 0.2]
        return "grammar-spliced", grammar_strategy.generate_spliced(rng, bases)
    if rng.random() < 0.5:
        start = rng.getstate()
        text = generate(rng, wide=False)  # (mutated, as before there were wide cells: the same places mutate)
        if rng.random() < 0.35:
            return "generated+mutated", mutate(text, rng, rng.randint(1, 2))
        again = random.Random()
        again.setstate(start)  # the same draws, now with a wide cell where the game has one
        return "generated", generate(again)
    names = sorted(GAMES)
    name = rng.choice(names)
    if name in SLOW and rng.random() < 0.8:
        name = rng.choice(sorted(set(names) - SLOW))
    return "mutated", mutate(GAMES[name], rng, rng.randint(1, 4))


# ------------------------------------------------------------------ the properties


class Violation(AssertionError):
    """A property of the pipeline does not hold."""


def inside(diagnostic: gdl.Diagnostic, text: str) -> None:
    lines = text.split("\n")
    line = diagnostic.span.line
    if not 1 <= line <= max(1, len(lines)):
        raise Violation(f"diagnostic {diagnostic.code} at line {line}, the file has {len(lines)} lines")
    length = len(lines[line - 1]) if line <= len(lines) else 0
    if not 1 <= diagnostic.span.column <= length + 1:
        raise Violation(f"diagnostic {diagnostic.code} at column {diagnostic.span.column}, "
                        f"line {line} has {length} chars")
    if has_controls(diagnostic.format(text), keep="\n"):
        raise Violation(f"diagnostic {diagnostic.code} shows a raw control character")


def terminal_text(game: gdl.CompiledGame) -> None:
    """What ``gdl info`` and ``gdl play`` print of the game reaches the terminal as text (no escapes, no markup)."""
    import io

    from rich.console import Console
    from rich.text import Text

    from gdl.console import EscapeControls, board_text

    file = io.StringIO()
    console = Console(file=file, width=100, force_terminal=False, color_system=None, emoji=False)
    console.push_render_hook(EscapeControls())
    console.print(Text(f"{game.name} {game.description or ''}"))
    for key, value in (getattr(game, "meta", {}) or {}).items():
        console.print(Text(f"{key}: {value}"))
    console.print(board_text(game, game.initial_state()))
    if has_controls(file.getvalue(), keep="\n"):
        raise Violation("a raw control character reaches the terminal")


def playouts(game: gdl.CompiledGame, rng: random.Random, count: int = 2, plies: int = 60) -> None:
    """Random playouts; a RuleRuntimeError ends one (and must map to a diagnostic in the file)."""
    for _ in range(count):
        try:
            state = game.initial_state()
            for _ in range(plies):
                player = game.to_move(state)
                if player == TERMINAL:
                    utilities = game.utilities(state)
                    if len(utilities) != len(game.players):
                        raise Violation("utilities do not have one entry per player")
                    break
                if player == CHANCE:
                    outcomes = game.chance_outcomes(state)
                    total = sum(p for _, p in outcomes)
                    if outcomes and abs(total - 1) > 1e-9:
                        raise Violation(f"chance probabilities sum to {total}")
                    move = rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
                else:
                    moves = game.legal_moves(state)
                    if not moves:  # a stuck mover: `gdl check` reports it (no-moves), not an exception
                        break
                    move = rng.choice(moves)
                    parsed = game.parse_move(state, str(move))
                    if parsed != move:
                        raise Violation(f"move {move} does not parse back")
                state = game.apply(state, move)
                hash(state)
        except gdl.RuleRuntimeError as error:
            diagnostic = game.explain(error)
            inside(diagnostic, game.source)


RULE_SECONDS = 2.0
"""The rule budget of the playouts and of the solver in :func:`run_case`."""


def load_case(text: str, checked: bool) -> gdl.CompiledGame | None:
    """The game of ``text``, or None when loading refuses it with diagnostics inside the file.

    Loading may raise only ``RuleFileError`` (or ``ParameterError``): the CLI shows those as diagnostics or one
    line, and any other exception -- a ``RuleRuntimeError`` included -- as a traceback.
    """
    try:
        return gdl.load_source(text, "fuzz.gdl", checked=checked)
    except RuleFileError as error:
        if not error.diagnostics:
            raise Violation("RuleFileError without diagnostics") from None
        for diagnostic in error.diagnostics:
            inside(diagnostic, text)
        return None
    except gdl.ParameterError:
        return None


def run_case(text: str, seed: int) -> None:
    """Check every property on ``text``; raise on a violation (Violation or the raw exception)."""
    rng = random.Random(seed)
    game = load_case(text, checked=True)
    if game is None:
        return
    for warning in game.warnings:
        inside(warning, text)
    with contextlib.suppress(gdl.RuleRuntimeError):  # a render rule may fail; playouts report that
        terminal_text(game)
    try:
        with rule_budget(seconds=RULE_SECONDS):  # as `gdl check --time` bounds one rule evaluation
            playouts(game, rng)
    except SearchStopped:
        pass
    # the exact solver under a small budget (the unchecked game: the solver's real path)
    fast = load_case(text, checked=False)
    if fast is None:
        return
    try:
        with rule_budget(seconds=RULE_SECONDS):  # as `gdl solve --time` does
            limits = Limits(nodes=2000, seconds=2, table_entries=20_000)
            if fast.simultaneous:
                optimal_round(fast, solve_simultaneous(fast, limits=limits))
            else:
                solve(fast, limits=limits)
    except SearchStopped:
        pass  # a single rule evaluation outlasted the budget: the CLI reports a stop
    except gdl.RuleRuntimeError:
        pass
    except RuleFileError as error:  # the declared symmetry, checked at the first state key: a diagnostic
        for diagnostic in error.diagnostics:
            inside(diagnostic, text)
    except StuckStateError:
        pass  # a rule bug the solver reports (gdl check's `no-moves` finds the same)
    except ChanceInRoundError:
        pass  # a chance before every player of a round has moved: `gdl solve` says so in one line
    except ValueError as error:  # the solver's own preconditions (no players, a cycle it cannot handle)
        if type(error) is not ValueError:
            raise


def optimal_round(game: gdl.CompiledGame, result: SimultaneousSolution) -> None:
    """At a two-player zero-sum simultaneous root (solved): each player's strategy is a probability distribution
    that guarantees the value against every move of the other, to 1e-9 of the largest payoff's magnitude."""
    state = game.initial_state()
    if result.stopped or not game.zero_sum or len(game.players) != 2 or game.to_move(state) != SIMULTANEOUS:
        return
    moves = [list(game.legal_moves(state, p)) for p in range(2)]  # type: ignore[call-arg]
    children = {(i, j): game.apply_joint(state, (a, b)) for i, a in enumerate(moves[0]) for j, b in enumerate(moves[1])}
    value = {ij: result.table[child if game.symmetries else game.key(child)].value[0] for ij, child in children.items()}
    scale = max(abs(v) for v in value.values()) or 1.0
    x, y = ([result.strategies[p][m] for m in moves[p]] for p in range(2))
    if min(x + y) < 0 or abs(sum(x) - 1) > 1e-9 or abs(sum(y) - 1) > 1e-9:
        raise Violation("a mixed strategy that is not a probability distribution")
    low = min(sum(x[i] * value[i, j] for i in range(len(x))) for j in range(len(y)))
    high = max(sum(y[j] * value[i, j] for j in range(len(y))) for i in range(len(x)))
    if low < result.value[0] - 1e-9 * scale or high > result.value[0] + 1e-9 * scale:
        raise Violation("a simultaneous round's strategies do not guarantee its value")


def run_grammar_case(text: str, seed: int) -> None:
    """The properties of a file generated from the grammar: it parses; `gdl check` reports only diagnostics
    inside the file; if check accepts it, :func:`run_case` (playouts, solver) holds too."""
    try:
        parse(text, "fuzz.gdl")
    except RuleFileError as error:
        first = error.diagnostics[0]
        raise Violation(f"a file generated from the grammar does not parse: {first.code}: {first.message} "
                        f"(line {first.span.line})") from None
    report = gdl.check.check_source(text, "fuzz.gdl", playouts=3, seed=seed, max_plies=200)
    for diagnostic in report.diagnostics:
        inside(diagnostic, text)
    if report.errors == 0:
        run_case(text, seed)


def signature(error: BaseException) -> str:
    """Exception type + the innermost frame in gdl/ or solver/ (or generated code)."""
    frames = traceback.extract_tb(error.__traceback__)
    where = "?"
    for frame in reversed(frames):
        if "/gdl/" in frame.filename or "/solver/" in frame.filename or frame.filename.startswith("<"):
            where = ("generated code" if frame.filename.startswith("<")
                     else f"{Path(frame.filename).name}:{frame.name}:{frame.lineno}")
            break
    detail = str(error).split("\n")[0][:80] if isinstance(error, AssertionError) else ""  # the violations
    detail = re.sub(r"\d+", "N", detail)
    return f"{type(error).__name__} at {where}" + (f" ({detail})" if detail else "")


class Timeout(BaseException):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise Timeout()


def check_seed(args: tuple[int, float] | tuple[int, float, str]) -> tuple[int, str, str | None, str | None]:
    """(seed, kind, signature or None, traceback or None) of ``(seed, timeout[, generator])``."""
    seed, timeout = args[0], args[1]
    generator = args[2] if len(args) > 2 else "mixed"
    kind, text = (generator, "") if generator in ("tables", "files") else make_case(seed, generator)
    # CPU time, not wall time: on a machine shared with other work a case may wait for a core (a case that
    # waits without using the CPU is caught by run_all's stuck-worker check)
    signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, timeout)
    try:
        if generator == "tables":
            kind = fuzz_tables.run_table_case(seed, timeout)
        elif generator == "files":
            kind = fuzz_files.run_files_case(seed)
        elif generator == "grammar":
            run_grammar_case(text, seed)
        else:
            run_case(text, seed)
            if kind == "hostile-text":
                run_text_case(text, seed)
    except Timeout:
        return seed, kind, f"Timeout (> {timeout:g} s of CPU)", None
    except RecursionError as error:
        return seed, kind, signature(error), traceback.format_exc(limit=-8)
    except Exception as error:
        return seed, kind, signature(error), traceback.format_exc(limit=-8)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    return seed, kind, None, None


INFLIGHT = "GDL_FUZZ_INFLIGHT"
"""Environment variable: a folder where each worker notes the seed it is running (see :func:`run_all`)."""


def _checked(args: tuple[int, float, str]) -> tuple[int, str, str | None, str | None]:
    """:func:`check_seed`, noting the seed in the in-flight folder while it runs."""
    folder = os.environ.get(INFLIGHT)
    note = Path(folder) / str(os.getpid()) if folder else None
    if note is not None:
        note.write_text(str(args[0]))
    try:
        return check_seed(args)
    finally:
        if note is not None:
            with contextlib.suppress(OSError):
                note.unlink()


def run_all(seeds: list[int], timeout: float, generator: str, jobs: int,
            ) -> Iterator[tuple[int, str, str | None, str | None]]:
    """The result of every seed. A worker stuck where no alarm reaches it (inside one C call) gives no result
    for ``4 * timeout + 30`` s: its seed is reported as a hang and the campaign goes on with a new pool."""
    pending = list(seeds)
    while pending:
        done: set[int] = set()
        stuck: list[int] = []
        with tempfile.TemporaryDirectory(prefix="gdl-fuzz-inflight-") as folder:
            os.environ[INFLIGHT] = folder
            pool = multiprocessing.Pool(jobs, maxtasksperchild=2000)
            try:
                # one seed per task: with chunks, imap_unordered returns a plain generator (no next(timeout))
                results = pool.imap_unordered(_checked, [(s, timeout, generator) for s in pending])
                while len(done) < len(pending):
                    try:
                        result = results.next(timeout=4 * timeout + 30)
                    except multiprocessing.TimeoutError:
                        stuck = [int(note.read_text()) for note in Path(folder).iterdir()]
                        break
                    done.add(result[0])
                    yield result
            finally:
                pool.terminate()
                pool.join()
        for seed in stuck:
            yield seed, generator, f"Timeout (stuck past the {timeout:g} s alarm)", None
        if not stuck and len(done) < len(pending):
            raise RuntimeError("the pool stopped without results and no seed in flight")
        pending = [s for s in pending if s not in done and s not in stuck]


def write_reproducer(out: Path, sig: str, seed: int, kind: str, generator: str, trace: str | None) -> str:
    """One reproducer for a new signature: ``<digest>.gdl`` (``.sqlite`` for tables) and ``<digest>.txt``."""
    digest = hashlib.sha1(sig.encode()).hexdigest()[:10]
    command = f"python bench/fuzz.py --generator {generator} --start {seed} --cases 1"
    if generator == "tables":
        name = fuzz_tables.reproduce_table(seed, out / f"{digest}.sqlite")
        described = make_case(seed, generator)[1]
        replay = f"gdl play {name} --as none --vs perfect:table={digest}.sqlite (or book=)"
        text = f"{sig}\nseed {seed} ({kind}); {command}\n{replay}\n"
        (out / f"{digest}.txt").write_text(text + described + f"\n{trace or ''}", encoding="utf-8")
        return digest
    if generator == "files":  # the case is made again by its seed: the note says how
        (out / f"{digest}.txt").write_text(f"{sig}\nseed {seed} ({kind}); {command}\n\n{trace or ''}", encoding="utf-8")
        return digest
    text = make_case(seed, generator)[1]
    header = f"# fuzz crash: {sig}\n# seed {seed} ({kind}); {command}\n"
    (out / f"{digest}.gdl").write_text(header + text, encoding="utf-8")
    (out / f"{digest}.txt").write_text(f"{sig}\nseed {seed}\n\n{trace or ''}", encoding="utf-8")
    return digest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--start", type=int, default=0, help="first seed")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=10.0, help="CPU seconds per case before it counts as a hang")
    parser.add_argument("--out", default="fuzz-crashes", help="folder for one reproducer per crash signature")
    parser.add_argument("--generator", choices=GENERATORS, default="mixed",
                        help="mixed: structured games and mutated bundled games; grammar: files derived from "
                             "grammars/gdl.lark (tests/grammar_strategy.py); hostile: the shapes that once hung "
                             "or crashed, and hostile text; tables: mutated solved tables (bench/fuzz_tables.py); "
                             "files: hostile game records and write targets (bench/fuzz_files.py)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    found: dict[str, list[int]] = {}
    kinds: Counter[str] = Counter()
    started = time.perf_counter()
    done = 0
    for seed, kind, sig, trace in run_all(list(range(args.start, args.start + args.cases)), args.timeout,
                                          args.generator, args.jobs):
        done += 1
        kinds[kind] += 1
        if sig is not None:
            first = sig not in found
            found.setdefault(sig, []).append(seed)
            if first:
                digest = write_reproducer(out, sig, seed, kind, args.generator, trace)
                print(f"[{done}] new crash {digest}: {sig} (seed {seed})", flush=True)
        if done % 5000 == 0 or (args.generator in ("tables", "hostile", "files") and done % 500 == 0):
            rate = done / (time.perf_counter() - started)
            print(f"[{done}/{args.cases}] {rate:.1f} cases/s, {len(found)} signatures", flush=True)
    seconds = time.perf_counter() - started
    print(f"\n{done} cases in {seconds:.0f} s ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))})")
    crashes = sum(len(v) for v in found.values())
    print(f"{crashes} crashing cases, {len(found)} distinct signatures (reproducers in {out}/)")
    for sig, seeds in sorted(found.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(seeds):6d}  {sig}  (first seed {min(seeds)})")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
