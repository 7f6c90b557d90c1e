"""The Python emitter of the IR (gdl.compiler.emit_py) writes, for every compiled expression, the text the passes wrote.

Every rule file of the project -- the bundled games, the games in the docs, the tests' corpora -- is compiled
(plain and checked) with a hook installed by this test only: ``Code.__init__`` is wrapped to keep every
compiled expression the passes build. After the compile each one's IR is made (``common.node``, as
``Program.ir`` makes it) and emitted, and the text must equal ``Code.src`` byte for byte. Nothing in the
compiler changes: the hook costs nothing outside this test.

What the IR does not say comes from a context (:class:`Names`) read from the compiler after the fact, lookup
only (never ``CompilerBase.constant``, which would add a global): constants' names, the Python names of
locals and defs. A span id is not looked up: the emitter is given a marker for each span it asks about, and
the number the passes wrote there must be an id of that very span (``compiler.spans[id] == span``).

Coverage is explicit: :data:`COVERED` lists the node kinds the emitter writes; a node of another kind (it
raises ``Unsupported``) is counted and reported, never compared. :data:`KNOWN` lists the forms where the IR's
structure cannot tell two texts apart, each with why (the emitter then writes what the other form would
become); their mismatches are counted and reported, every other mismatch fails.
"""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gdl.compiler import base, builder, common, ir
from gdl.compiler.common import NOT_CONST, Code
from gdl.compiler.emit_py import PythonExpressionEmitter, Unsupported
from gdl.diagnostics import ParameterError, RuleFileError, Span

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```gdl[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
CORPUS_DIRS = ("games", "tests/interp_cases", "tests/solvefiles", "tests/deadends", "tests/data", "tests/diagnostics")

COVERED = frozenset({
    ir.Const, ir.Local, ir.Slot, ir.Turn, ir.Mover, ir.NoMoves, ir.Unary, ir.Binary, ir.Compare, ir.BoolOp,
    ir.IfExpr, ir.Range, ir.SeqLit, ir.Index, ir.Table, ir.Builtin, ir.Check, ir.Aggregate, ir.Evaluate, ir.Call,
})
"""The node kinds the emitter writes (``Check`` of kinds index, domain and some; ``Builtin`` of every name the
passes build): every expression made only of these is compared."""

KNOWN: dict[str, str] = {
    "slice scan": "a conjunction of four or more `s[i] != v` over consecutive fixed slots is written as the scan "
                  "`v not in s[a:b]` (facts._slice_scan) only when an unrolled `all` built it; the same "
                  "conjunction written out in the rules keeps its `and`s, and the IR cannot tell them apart",
}


def rule_files() -> list[tuple[str, str]]:
    """(name, source) of every rule file: the corpora's .gdl files and the docs' ```gdl blocks."""
    out = []
    for folder in CORPUS_DIRS:
        for path in sorted((ROOT / folder).glob("*.gdl")):
            out.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")))
    for doc in sorted((ROOT / "docs").glob("*.md")):
        text = doc.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            out.append((f"docs/{doc.name}:{text.count(chr(10), 0, match.start()) + 2}", match.group(1)))
    return out


EXTRA = """\
game Extra "forms the other corpora do not write"
players A, B
board 3 x 3
state n: 0..9 = 0
state r: 0..9 = 0
state mark[cell]: player? = none
def f(x: 0..9) = x + 1
def flags = [n > 2, r > 2]
def one(x: 0..3) = 1
move go(k: 0..3) when k <= n and (any v in bool: v == (n > 4)) and [n, r][k % 2] >= 0:
    n = min(9, n + k)
move other(c: cell) when n % 2 == 0 and cell(row(c) + n % 2, 1) != none:
    r = (n * 3) // 2
    mark[c] = mover
win p when connected(select c in cell: mark[c] == p, [c3], cell)
draw when n == 9 and f(r) > 3 and flags[0] and flags[1]
def spread = abs(n - 4) + len([n, r]) + sum([n, r]) + min([n, r]) + max([n, r]) + max(n, r)
heuristic p: (n / 3) // 1 + spread + (1 if next(turn) == p else 0) + one(n % 5)
"""
"""A rule file of the forms no other corpus writes: ``bool``, a run-time list and its index, ``cell(r, c)``,
``abs len sum min`` of a list, ``connected``, the floor of a real, ``next(turn)`` where the turn may be negative,
a constant def whose argument is still checked."""

SCAN_WRITTEN_OUT = EXTRA + "lose p when mark[a1] != none and mark[b1] != none and mark[c1] != none and " \
                           "mark[a2] != none\n"
"""A conjunction written out in the rules that an unrolled `all` would write as a scan (the one KNOWN form)."""

FILES = [*rule_files(), ("EXTRA", EXTRA)]


@dataclass
class Recorded:
    """What one compile built: the compiler, its compiled expressions, the Python name of each IR variable."""

    compilers: list[builder.Compiler] = field(default_factory=list)
    codes: list[Code] = field(default_factory=list)
    local_names: dict[int, str] = field(default_factory=dict)


@contextlib.contextmanager
def recording() -> Iterator[Recorded]:
    """Keep every Code, the compiler and the locals' Python names while compiling (this test's hook only)."""
    seen = Recorded()
    code_init, compiler_init, local_node = Code.__init__, builder.Compiler.__init__, base.local_node

    def record_code(self: Code, *args: Any, **kwargs: Any) -> None:
        code_init(self, *args, **kwargs)
        seen.codes.append(self)

    def record_compiler(self: builder.Compiler, *args: Any, **kwargs: Any) -> None:
        compiler_init(self, *args, **kwargs)
        seen.compilers.append(self)

    def record_local(local: common.Local, name: str, var_ids: Iterator[int]) -> ir.Expr:
        made = local_node(local, name, var_ids)
        if isinstance(made, ir.Local) and made.var is not None:
            seen.local_names.setdefault(made.var.id, local.pyname)
        return made

    Code.__init__ = record_code  # type: ignore[method-assign]
    builder.Compiler.__init__ = record_compiler  # type: ignore[method-assign]
    base.local_node = record_local
    try:
        yield seen
    finally:
        Code.__init__ = code_init  # type: ignore[method-assign]
        builder.Compiler.__init__ = compiler_init  # type: ignore[method-assign]
        base.local_node = local_node


MARK = 7 * 10**18
MARKS = re.compile(r"7\d{18}")


class Names:
    """The emitter's context, read from a finished compile (lookup only: nothing is added to it)."""

    def __init__(self, compiler: builder.Compiler, local_names: dict[int, str]) -> None:
        self.compiler = compiler
        self.checked = compiler.checked
        self.board = compiler.board
        self.local_names = local_names
        self.asked: list[Span | None] = []

    def constant(self, value: Any) -> str:
        """As CompilerBase.constant, without naming a new value (a value it never named is a mismatch)."""
        if isinstance(value, bool):
            return "True" if value else "False"
        if isinstance(value, int) and abs(value) < 10**15:
            return f"({value})" if value < 0 else str(value)
        key = (type(value).__name__, value) if common._hashable(value) else None
        if key is not None:
            return self.compiler.const_ids.get(key, "<unnamed constant>")
        return next((name for name, v in self.compiler.globals.items() if v is value), "<unnamed constant>")

    def span_id(self, span: Span | None) -> int:
        self.asked.append(span)
        return MARK + len(self.asked) - 1

    def local_name(self, var: ir.Var) -> str:
        return self.local_names.get(var.id, f"<local {var.name}>")

    def def_name(self, name: str) -> str:
        return self.compiler.defs[name].pyname


def same_text(emitted: str, src: str, names: Names) -> bool:
    """``emitted`` is ``src``, each span marker standing for an id the passes gave to that very span."""
    pieces = MARKS.split(emitted)
    if len(pieces) == 1:
        return emitted == src
    marks = [int(m) - MARK for m in MARKS.findall(emitted)]
    match = re.fullmatch(r"(\d+)".join(re.escape(p) for p in pieces), src)
    if match is None:
        return False
    spans = names.compiler.spans
    return all(int(n) < len(spans) and spans[int(n)] == names.asked[k] for n, k in zip(match.groups(), marks,
                                                                                         strict=True))


def kinds(node: ir.Expr) -> set[str]:
    """The kinds of the nodes in ``node`` (a builtin or a check with its name: ``Builtin:next``)."""
    out = set()
    for n in ir.walk(node):
        out.add(type(n).__name__)
        if isinstance(n, ir.Builtin):
            out.add(f"Builtin:{n.name}")
        elif isinstance(n, ir.Check):
            out.add(f"Check:{n.kind}")
    return out


@dataclass
class Report:
    checked: int = 0
    no_ir: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    uncovered: Counter[str] = field(default_factory=Counter)
    known: Counter[str] = field(default_factory=Counter)
    mismatches: list[tuple[str, str, str]] = field(default_factory=list)


class WithoutScans(PythonExpressionEmitter):
    """The emitter writing every conjunction with its ``and``s (no slice scan)."""

    def slice_scan(self, node: ir.BoolOp) -> str | None:
        return None


def known_form(node: ir.Expr, src: str, names: Names) -> str | None:
    """Which :data:`KNOWN` ambiguity a mismatch is, if any: "slice scan" when, without scans, the text is the same."""
    names.asked.clear()
    return "slice scan" if same_text(WithoutScans(names).expr(node), src, names) else None


def check_compile(seen: Recorded, report: Report) -> None:
    for compiler in seen.compilers:
        names = Names(compiler, seen.local_names)
        emitter = PythonExpressionEmitter(names)
        for code in seen.codes:
            if code.node is None and code.const is NOT_CONST:
                report.no_ir += 1  # (a def's call result kept for later: not an expression the passes emit)
                continue
            made = common.node(code)
            report.kinds.update(kinds(made))
            names.asked.clear()
            try:
                emitted = emitter.expr(made)
            except Unsupported as missing:
                report.uncovered[str(missing)] += 1
                continue
            report.checked += 1
            if not same_text(emitted, code.src, names):
                form = known_form(made, code.src, names)
                if form is not None:
                    report.known[form] += 1
                else:
                    report.mismatches.append((type(made).__name__, code.src, emitted))


def compile_and_check(name: str, source: str, checked: bool) -> Report:
    from gdl.parser import parse

    report = Report()
    try:
        rules = parse(source, name)
    except RuleFileError:
        return report  # (a syntax error: nothing compiled)
    with recording() as seen:
        with contextlib.suppress(RuleFileError, ParameterError):  # (the codes built before errors count too)
            builder.compile_rules(rules, source, name, {}, checked)
        check_compile(seen, report)
    return report


@pytest.mark.parametrize("checked", [False, True], ids=["plain", "checked"])
@pytest.mark.parametrize(("name", "source"), FILES, ids=[name for name, _ in FILES])
def test_the_emitter_writes_what_the_passes_wrote(name: str, source: str, checked: bool) -> None:
    report = compile_and_check(name, source, checked)
    shown = "\n".join(f"  {kind}: {src!r}\n  {'emitted':>{len(kind)}}: {text!r}"
                      for kind, src, text in report.mismatches[:5])
    assert not report.mismatches, f"{len(report.mismatches)} of {report.checked} expressions differ:\n{shown}"
    if report.uncovered or report.known:
        print(f"{name}: not compared {dict(report.uncovered)}; known forms {dict(report.known)}")


def test_the_comparison_is_not_vacuous() -> None:
    """The bundled games and EXTRA exercise every covered kind, and nearly every expression is compared."""
    total = Report()
    for name, source in FILES:
        if name.startswith("games/") or name == "EXTRA":
            report = compile_and_check(name, source, False)
            total.checked += report.checked
            total.kinds.update(report.kinds)
            total.uncovered.update(report.uncovered)
            total.known.update(report.known)
    print(f"bundled games and EXTRA: {total.checked} expressions compared; kinds {dict(total.kinds)}; "
          f"not compared {dict(total.uncovered)}; known forms {dict(total.known)}")
    assert total.checked > 10_000
    assert sum(total.uncovered.values()) + sum(total.known.values()) < total.checked // 100
    assert {t.__name__ for t in COVERED} <= set(total.kinds)
    assert {f"Builtin:{name}" for name in ("int", "next", "min_of", "max_of", "cell_at", "connected", "min", "max",
                                           "abs", "len", "sum")} <= set(total.kinds)
    assert {"Check:index", "Check:domain", "Check:some"} <= set(total.kinds)


def test_a_conjunction_written_out_as_a_scan_would_be_is_the_known_ambiguity() -> None:
    report = compile_and_check("SCAN_WRITTEN_OUT", SCAN_WRITTEN_OUT, False)
    assert not report.mismatches
    assert report.known["slice scan"] > 0
