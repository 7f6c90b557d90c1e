"""The Python emitter of the IR (gdl.compiler.emit_py) is the only writer of expression text, and writes the
generated modules the passes wrote before it.

Stage 1 checked, for every compiled expression of every rule file of the project, that the emitter writes the
text the passes wrote (79,675 expressions, no mismatch). Since stage 2 the passes write no expression text:
``Code`` has none, and no pass can ask for it (the inline memo is keyed by the arguments' meaning). What is
checked now:

* the generated module of each bundled game, plain and checked, and of :data:`EXTRA` (the forms no game
  writes) is the one the pre-emitter compiler generated (commit c718976), byte for byte once every span id is
  replaced by the span it names (the emitter numbers span ids in the order it writes them): :data:`EXPECTED`
  holds the hashes of those texts, computed from that compiler's output;
* the passes build no expression text: no ``Code`` or ``derived`` is given text, and the expression passes
  neither ask for span ids nor read expression text (only statement-level passes take it, from the emitter);
* since stage 3 every line of the module is the statement emitter's (gdl.compiler.emit_py_stmt): no pass calls
  ``emit``, and the passes of effects, ``setup``, chance points, defs, utility, heuristic, ``quiet``, end rules,
  moves and ``_legal`` ask for no span id and read no text (:data:`STATEMENT_PASSES`);
* the one form stage 1 found ambiguous is not any more: a conjunction written out in the rules keeps its
  ``and``s, the one an unrolled ``all`` built is scanned (``BoolOp.scan``).
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import re
from pathlib import Path

import pytest

from gdl.compiler import builder, common, ir
from gdl.compiler.emit_py import PythonExpressionEmitter
from gdl.diagnostics import Span
from gdl.parser import parse
from gdl.rule_helpers import RUNTIME_HELPERS

ROOT = Path(__file__).resolve().parent.parent
PASSES = ROOT / "gdl" / "compiler"

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
"""A rule file of the forms no bundled game writes: ``bool``, a run-time list and its index, ``cell(r, c)``,
``abs len sum min`` of a list, ``connected``, the floor of a real, ``next(turn)`` where the turn may be negative,
a constant def whose argument is still checked."""

SCAN_WRITTEN_OUT = EXTRA + "lose p when mark[a1] != none and mark[b1] != none and mark[c1] != none and " \
                           "mark[a2] != none\nlose p when all c in cell: mark[c] != none\n"
"""A conjunction written out in the rules that an unrolled `all` would write as a scan, and that `all`."""

FILES = {**{f"games/{p.name}": p.read_text(encoding="utf-8") for p in sorted((ROOT / "games").glob("*.gdl"))},
         "EXTRA": EXTRA, "SCAN_WRITTEN_OUT": SCAN_WRITTEN_OUT}

EXPECTED = {
    'games/breakthrough.gdl:plain': 'f390bef89b3c8117',
    'games/breakthrough.gdl:checked': '86e1270568c62510',
    'games/clobber.gdl:plain': '21a88800e1941a83',
    'games/clobber.gdl:checked': 'fbd8836a10ff509f',
    'games/connect4.gdl:plain': '04a62b8321c88d63',
    'games/connect4.gdl:checked': 'e1762cc753ee19b7',
    'games/dots_and_boxes.gdl:plain': '2fa484d813c84813',
    'games/dots_and_boxes.gdl:checked': 'fe05dcb3361c5dc2',
    'games/eight_puzzle.gdl:plain': '9f0a15fe30686d2e',
    'games/eight_puzzle.gdl:checked': '360b6a45370e0c98',
    'games/goofspiel.gdl:plain': '4dd1cfe0607eef8d',
    'games/goofspiel.gdl:checked': '67293814bb0ac8d5',
    'games/hex.gdl:plain': 'b47e07721c056a37',
    'games/hex.gdl:checked': 'b1807a578e87d9e0',
    'games/hexapawn.gdl:plain': '58ac858ad28c4645',
    'games/hexapawn.gdl:checked': '982d8febf04aa66a',
    'games/kalah.gdl:plain': '88b6919c58f9b16a',
    'games/kalah.gdl:checked': '4d861574bf1bb392',
    'games/mnk.gdl:plain': 'ec46d845396a7542',
    'games/mnk.gdl:checked': 'd55bb055090032ee',
    'games/nim.gdl:plain': '615dd9af7ff74ef4',
    'games/nim.gdl:checked': '615dd9af7ff74ef4',
    'games/othello.gdl:plain': '475a752d558d3e0a',
    'games/othello.gdl:checked': '0074c9de907036c5',
    'games/pig.gdl:plain': '658db948f3151b90',
    'games/pig.gdl:checked': '233bd39f9445b87c',
    'games/race.gdl:plain': 'c5aeb3745cb4cc93',
    'games/race.gdl:checked': 'b3fe6359dbb6310d',
    'games/rps.gdl:plain': 'e3aa4e8a04f71144',
    'games/rps.gdl:checked': '2e7382c63b625461',
    'games/security.gdl:plain': '40ef0ccc96dc7a8c',
    'games/security.gdl:checked': '40ef0ccc96dc7a8c',
    'games/takeaway3.gdl:plain': 'a218cdbb166b10d1',
    'games/takeaway3.gdl:checked': '646f08c8bcad46b1',
    'games/tictactoe.gdl:plain': '54459f25045ab17e',
    'games/tictactoe.gdl:checked': 'a60bace053851163',
    'EXTRA:plain': 'f90eeec8fa66a716',
    'EXTRA:checked': '2557da131d53ad74',
    'SCAN_WRITTEN_OUT:plain': '7ef08f348f4ab55b',
    'SCAN_WRITTEN_OUT:checked': 'ad555891450ee90a',
}
"""Per rule file and mode: the first 16 hex digits of the SHA-256 of the generated module with its span ids
resolved (:func:`resolved`), as the pre-emitter compiler (c718976) generated it. A deliberate change of the
generated code changes them: recompute them with ``python tests/test_emit_py.py`` and say why in the commit."""

SPAN_ARGUMENT = {name: list(inspect.signature(fn).parameters).index("sid") for name, fn in RUNTIME_HELPERS.items()
                 if inspect.isfunction(fn) and "sid" in inspect.signature(fn).parameters}
"""Where each run-time helper takes the span id of the rule error it may raise (``_ix(value, lo, hi, sid)``)."""


def resolved(source: str, spans: list[Span]) -> str:
    """``source`` with every span id (an argument ``sid`` of a run-time helper) replaced by the span it names."""
    lines = source.encode().split(b"\n")
    edits: list[tuple[int, int, int, bytes]] = []
    for call in ast.walk(ast.parse(source)):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in SPAN_ARGUMENT:
            where = SPAN_ARGUMENT[call.func.id]
            if where < len(call.args):
                arg = call.args[where]
                assert isinstance(arg, ast.Constant) and type(arg.value) is int, ast.unparse(call)
                span = spans[arg.value]
                text = f"<{span.line}:{span.column}-{span.end_line}:{span.end_column}>".encode()
                assert arg.end_lineno == arg.lineno and arg.end_col_offset is not None
                edits.append((arg.lineno - 1, arg.col_offset, arg.end_col_offset, text))
    for line, start, end, text in sorted(edits, reverse=True):
        lines[line] = lines[line][:start] + text + lines[line][end:]
    return b"\n".join(lines).decode()


def fingerprint(source: str, spans: list[Span]) -> str:
    return hashlib.sha256(resolved(source, spans).encode()).hexdigest()[:16]


def compile_file(name: str, checked: bool) -> tuple[str, list[Span]]:
    text = FILES[name]
    program, _ = builder.compile_rules(parse(text, name), text, name, {}, checked)
    return program.source, program.spans


CASES = [(name, checked) for name in FILES for checked in (False, True)]


@pytest.mark.parametrize(("name", "checked"), CASES, ids=[f"{n}-{'checked' if c else 'plain'}" for n, c in CASES])
def test_the_generated_module_is_the_one_the_passes_wrote(name: str, checked: bool) -> None:
    key = f"{name}:{'checked' if checked else 'plain'}"
    assert fingerprint(*compile_file(name, checked)) == EXPECTED[key]


def test_resolving_replaces_every_span_id() -> None:
    source, spans = compile_file("EXTRA", True)
    text = resolved(source, spans)
    assert text.count("<") >= 20
    assert not re.search(r"\b_ix\([^()]*, \d+\)", text)


def _calls(tree: ast.AST, names: set[str]) -> list[ast.Call]:
    return [c for c in ast.walk(tree) if isinstance(c, ast.Call) and (
        (isinstance(c.func, ast.Name) and c.func.id in names) or
        (isinstance(c.func, ast.Attribute) and c.func.attr in names))]


def _is_text(arg: ast.expr) -> bool:
    return isinstance(arg, ast.JoinedStr) or (isinstance(arg, ast.Constant) and isinstance(arg.value, str)) or (
        isinstance(arg, ast.BinOp) and (_is_text(arg.left) or _is_text(arg.right)))


def test_no_pass_gives_a_compiled_expression_text() -> None:
    """``Code(...)`` and ``derived(...)`` take a type first, never text (the emitter writes it)."""
    for path in sorted(PASSES.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for call in _calls(tree, {"Code", "derived"}):
            assert call.args and not _is_text(call.args[0]), f"{path.name}:{call.lineno}: {ast.unparse(call)}"
        calls = {id(c.func) for c in ast.walk(tree) if isinstance(c, ast.Call)}
        assert not any(isinstance(a, ast.Attribute) and a.attr == "src" and id(a) not in calls
                       for a in ast.walk(tree)), f"{path.name} reads a code's text other than from the emitter"


EXPRESSION_PASSES = ("expressions.py", "aggregates.py", "builtins.py", "names.py", "facts.py")


def test_the_expression_passes_write_no_text() -> None:
    """The passes that compile expressions ask for no span id and read no expression's text: every id in an
    expression is the emitter's, and no fact is learned from generated text."""
    for name in EXPRESSION_PASSES:
        tree = ast.parse((PASSES / name).read_text(encoding="utf-8"))
        for call in _calls(tree, {"span_id", "src", "loop_source"}):
            raise AssertionError(f"{name}:{call.lineno}: {ast.unparse(call)}")


STATEMENT_PASSES: dict[str, tuple[str, ...]] = {
    "effects.py": (), "chance.py": (), "scoring.py": (), "quiet.py": (), "ends.py": (), "moves.py": (),
    "calls.py": ("compile_def",)}
"""The passes (or, when named, their functions) whose lines the statement emitter (gdl.compiler.emit_py_stmt)
writes: effects, ``setup``, chance points and their continuations, the defs that stay functions, utility,
heuristic, ``quiet``, the end rules, the moves and ``_legal``."""


def test_the_statement_passes_write_no_text() -> None:
    """The passes of effects, chance points, defs, utility, heuristic, ``quiet``, end rules and moves build the IR
    and take their lines from the statement emitter: they write no line (``emit``, a line appended to a list), ask
    for no span id and read no text."""
    for name, functions in STATEMENT_PASSES.items():
        tree: ast.AST = ast.parse((PASSES / name).read_text(encoding="utf-8"))
        scopes = [f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name in functions] \
            if functions else [tree]
        assert len(scopes) == (len(functions) or 1), name
        for scope in scopes:
            for call in _calls(scope, {"emit", "span_id", "src", "loop_source"}):
                raise AssertionError(f"{name}:{call.lineno}: {ast.unparse(call)}")
            for call in _calls(scope, {"append", "extend", "insert"}):
                for arg in call.args:  # (a line: its text, or its text and span)
                    line = arg.elts[0] if isinstance(arg, ast.Tuple) and len(arg.elts) == 2 else arg
                    assert not _is_text(line), f"{name}:{call.lineno}: {ast.unparse(call)}"
            for call in _calls(scope, {"splice"}):  # (lines only from the statement emitter)
                assert isinstance(call.args[0], ast.Call) and isinstance(call.args[0].func, ast.Attribute) and \
                    ast.unparse(call.args[0].func.value) == "self.statements", f"{name}:{call.lineno}"


def test_no_pass_writes_a_line() -> None:
    """Every line of the generated module comes from the statement emitter: only ``CompilerBase.splice`` (which
    takes the emitter's lines) calls ``emit``."""
    for path in sorted(PASSES.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for call in _calls(tree, {"emit"}):
            if isinstance(call.func, ast.Attribute):  # (`self.emit(...)`)
                assert path.name == "base.py", f"{path.name}:{call.lineno}: {ast.unparse(call)}"


def test_a_conjunction_written_out_keeps_its_ands_and_an_unrolled_all_is_scanned() -> None:
    source, _ = compile_file("SCAN_WRITTEN_OUT", False)
    written = "((s[2] != (-1)) and (s[3] != (-1)) and (s[4] != (-1)) and (s[5] != (-1)))"
    scanned = "((-1) not in s[2:11])"
    ends = [line for line in source.splitlines() if "return _end(s, " in line]
    assert any(written in line for line in ends) and any(scanned in line for line in ends)
    assert "not in s[2:6]" not in source


class RecordingNames:
    """A PythonNames for hand-made IR: constants by repr, locals as ``L_<name>``, and the spans asked for."""

    checked, board = False, None

    def __init__(self) -> None:
        self.asked: list[Span] = []

    def constant(self, value: object) -> str:
        return repr(value)

    def span_id(self, span: Span) -> int:
        self.asked.append(span)
        return len(self.asked) - 1

    def local_name(self, var: ir.Var) -> str:
        return f"L_{var.name}"

    def def_name(self, name: str) -> str:
        return name


def test_a_node_is_written_once() -> None:
    """The emitter keeps each node's text: a node shared by two parents is written (and its span ids asked
    for) once."""
    from gdl import types as T
    names = RecordingNames()
    emitter = PythonExpressionEmitter(names)
    shared = ir.Index(T.INT, seq=ir.Const(T.seq(T.INT), value=(1, 2)), index=ir.Turn(T.PLAYER),
                      span=Span(1, 1, 1, 2))
    both = ir.Binary(T.INT, op="+", left=shared, right=shared, span=Span(1, 1, 1, 9))
    assert emitter.expr(both) == "(_at((1, 2), s[_T], 0) + _at((1, 2), s[_T], 0))"
    assert names.asked == [Span(1, 1, 1, 2)]


def test_the_statement_emitter_writes_statements_from_their_ir() -> None:
    """The statement emitter alone, on hand-made IR: a polled loop, a tracked `+=` with its `among` check, `let`,
    if/elif/else with an empty branch, `break`, `again`, and the chance state a move suspends in."""
    from gdl import types as T
    from gdl.compiler.emit_py_stmt import PythonStatementEmitter
    names = RecordingNames()
    statements = PythonStatementEmitter(PythonExpressionEmitter(names))
    at, domain_at = Span(2, 5, 2, 9), Span(2, 1, 2, 3)
    x, c = ir.Var(0, "x", T.INT, (0, 9), True), ir.Var(1, "c", T.INT)
    one, slot = ir.Const(T.INT, value=1), ir.Const(T.INT, value=3)
    added = ir.Binary(T.INT, op="+", left=ir.Slot(T.INT, var="n", index=slot), right=one, span=at)
    checked = ir.Check(T.INT, kind="among", value=added, lo=0, hi=9, allowed=frozenset({0, 3}), span=at)
    test = ir.Compare(T.BOOL, ops=("<",), operands=(ir.Local(T.INT, var=x), one))
    body = (ir.AssignSlot(at, "n", slot, "=", checked, augmented=True, track_write=True),
            ir.Let(at, x, ir.Local(T.INT, var=c)),
            ir.If(at, ((test, (ir.Break(at),)), (ir.Const(T.BOOL, value=True), ())),
                  (ir.SetTurn(at, ir.Mover(T.PLAYER)),)))
    loop = ir.For(at, c, ir.Const(T.seq(T.INT), value=(1, 2)), body, poll=True, domain_span=domain_at)
    lines = statements.block([loop, ir.Suspend(at, 0, (x,))], 1, at)
    assert [line for line, _ in lines] == [
        "    for L_c in _poll((1, 2), 0):",
        "        _w = 3; s[_w] = _among(s[_w] + 1, frozenset({0, 3}), 1)",
        "        L_x = L_c",
        "        if (L_x < 1):",
        "            break",
        "        elif True:",
        "            pass",
        "        else:",
        "            nt = me",
        "    s[_T] = -1",
        "    return tuple(s) + (0, me, nt, L_x)",
    ]
    assert names.asked == [domain_at, at] and {span for _, span in lines} == {at}
    assert [line for line, _ in statements.block([], 2, at)] == ["        pass"]


def test_no_pass_can_ask_for_an_expressions_text() -> None:
    """A compiled expression has no text, and the compiler no way to ask for one: the statement emitter is the
    only reader of the expression emitter."""
    assert "text" not in common.Code.__slots__
    assert not hasattr(builder.Compiler, "src")


INLINED = """game Inlined
players A, B
state n: 0..9 = 0
def big(x: 0..199) = n + x > 5
move go when {guard}:
    n += 1
win A when n == 9
"""


@pytest.mark.parametrize(("guard", "bodies"), [
    ("big(1) and big(1)", 1),  # the same constant: one body
    ("big(1) and big(2)", 2),
    # (0..199: past the unrolling limit, so `a` stays a local)
    ("(any a in 0..199: big(a)) or (any b in 0..199: big(b))", 2),  # two locals: a body each
    ("(any a in 0..199: big(a)) and (any a in 0..199: big(a))", 1),  # another `a` of the same name: one body, rebound
])
def test_an_inlined_body_is_kept_per_argument_meaning(guard: str, bodies: int) -> None:
    """The inline memo is keyed by what the body depends on (a constant's type and value, a local's name), not by
    generated text: the same arguments share one inlined body, other arguments get their own."""
    text = INLINED.format(guard=guard)
    compiler = builder.Compiler(parse(text, "Inlined"), text, "Inlined", {}, False)
    compiler.run()
    assert compiler.inlined == bodies


if __name__ == "__main__":  # print EXPECTED as this compiler generates it
    for name, checked in CASES:
        key = f"{name}:{'checked' if checked else 'plain'}"
        print(f"    {key!r}: {fingerprint(*compile_file(name, checked))!r},")
