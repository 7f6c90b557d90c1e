"""What only the whole reachable graph shows, once ``gdl check`` explored every state.

=================  ==========================================================
code               finding
=================  ==========================================================
never-ends         an end rule that ends the game in no reachable state, a
                   warning
never-legal        a move legal in no reachable state, a warning
endless-cycle      a reachable cycle that never ends the game, an info: the
                   solvers score endless play 0
=================  ==========================================================

A rule or move whose condition mentions a true/false parameter (a variant switch such as nim's
``misere``) is not reported: another value of the parameter turns it on.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Protocol

from gdl import ast
from gdl.check.moves import join_moves, moves_note
from gdl.diagnostics import Diagnostic, RuleFileError, Span, source_lines
from gdl.parser import parse
from gdl.runtime import CompiledGame
from solver.game import CHANCE
from solver.value_iteration import components

ENDLESS_CYCLE = "endless-cycle"
NEVER_ENDS = "never-ends"
NEVER_LEGAL = "never-legal"

LOOP_SEARCH_FACTOR = 8
"""The moves around an endless cycle are searched among at most this many states per state of the cycle."""


class Explored(Protocol):
    """What a complete exploration knows (:class:`gdl.check.explore.Explorer`), as these findings read it."""

    game: CompiledGame
    states: list[Any]
    """Every reachable state, in breadth-first order."""
    succ: list[tuple[int, ...]]
    """The indexes of each state's children."""
    index: dict[Hashable, int]
    """A state's index by its key."""
    key: Callable[[Any], Hashable]
    statuses: set[int]
    """The end statuses of the terminal states (which end rule fired)."""
    actions: set[str]
    """The names of the moves legal somewhere."""
    span_ends: Span

    def path(self, i: int) -> list[str]:
        """The moves from the initial state to state ``i``."""
        ...


def graph_diagnostics(explorer: Explored) -> list[Diagnostic]:
    """What only the whole reachable graph shows: never-ending rules and moves, endless cycles."""
    found: list[Diagnostic] = []
    spans = _declaration_spans(explorer.game)
    if spans is not None:
        found.extend(_never_ending_rules(explorer, spans[0]))
        found.extend(_never_legal_moves(explorer, spans[1]))
    cycle = _endless_cycle(explorer)
    if cycle is not None:
        found.append(cycle)
    return found


def _never_ending_rules(explorer: Explored, ends: list[tuple[str, Span, bool]]) -> list[Diagnostic]:
    """End rules no reachable terminal state ended by (the status names the rule that fired)."""
    game = explorer.game
    n = len(game.players)
    if len(game.program.end_descriptions) != 1 + len(ends) * (n + 1):
        return []  # not the layout gdl.compiler documents: say nothing rather than something wrong
    found = []
    for rule, (text, span, report) in enumerate(ends):
        base = 1 + rule * (n + 1)  # each end rule has n + 1 statuses, in file order, from 1
        if report and not any(base <= status <= base + n for status in explorer.statuses):
            found.append(Diagnostic(
                "warning", NEVER_ENDS, f"`{text}` never ends the game: it holds in none of the "
                f"{len(explorer.states):,} reachable states, or only where an earlier end rule ends the game first",
                span, game.filename, "check its condition; end rules are tried in file order"))
    return found


def _never_legal_moves(explorer: Explored, moves: list[tuple[str, Span]]) -> list[Diagnostic]:
    return [Diagnostic("warning", NEVER_LEGAL, f"move `{name}` is never legal in any of the "
                       f"{len(explorer.states):,} reachable states", span, explorer.game.filename,
                       "check its condition, or remove the move")
            for name, span in moves if name not in explorer.actions]


def _endless_cycle(explorer: Explored) -> Diagnostic | None:
    """The cycle of non-terminal states nearest the start, if play can go on forever."""
    cyclic = [members for members, feedback in components(explorer.succ) if feedback]
    if not cyclic:
        return None
    entry = min(min(members) for members in cyclic)  # BFS order: the smallest index is the nearest
    members = next(m for m in cyclic if entry in m)
    path = explorer.path(entry)
    notes = [moves_note(path) if path else "the initial state lies on such a cycle"]
    try:
        loop = _loop(explorer, entry, set(members))
    except Exception:  # a rule that fails only in a mirror image: the cycle stands, unshown
        loop = None
    if loop is not None:
        notes.append(f"from there, the moves {join_moves(loop)} come back to the same state"
                     + (" (or a symmetric one)" if explorer.game.symmetries else ""))
    on_cycles = sum(len(m) for m in cyclic)
    notes.append(f"{on_cycles:,} of the {len(explorer.states):,} reachable states lie on cycles")
    diagnostic = Diagnostic("info", ENDLESS_CYCLE, "the game can go on forever: play can cycle without reaching "
                            "an end (solvers score endless play 0)", explorer.span_ends, explorer.game.filename,
                            "fine if intended (a puzzle may wander); otherwise add a move limit or a draw by "
                            "repetition")
    return diagnostic.with_notes(*notes)


def _loop(explorer: Explored, entry: int, members: set[int]) -> list[str] | None:
    """The fewest moves from state ``entry`` back to it, played on real states (keys may merge images)."""
    game, key, index = explorer.game, explorer.key, explorer.index
    start = explorer.states[entry]
    queue: list[tuple[Any, list[str]]] = [(start, [])]
    seen = {start}
    limit = LOOP_SEARCH_FACTOR * len(members)
    for state, names in queue:
        if len(queue) > limit:
            return None
        player = game.to_move(state)
        moves = [o for o, _ in game.chance_outcomes(state)] if player == CHANCE else game.legal_moves(state)
        for move in moves:
            child = game.apply(state, move)
            j = index.get(key(child))
            if j == entry:
                return [*names, str(move)]
            if j in members and child not in seen:
                seen.add(child)
                queue.append((child, [*names, str(move)]))
    return None




def _declaration_spans(game: CompiledGame) -> tuple[list[tuple[str, Span, bool]], list[tuple[str, Span]]] | None:
    """The end rules (their text) and the moves (their names) of a compiled game's file, with their spans.

    A move's span is its condition, where the compiler's own ``never-legal`` warning points.
    Not to report: a rule (its flag is False; every rule is listed, in file order) or a move
    whose condition mentions a true/false parameter (directly or through a ``def``), such as
    nim's ``misere``: a variant switch, which another value turns on.
    """
    try:
        rules = parse(game.source, game.filename)
    except RuleFileError:
        return None
    switches = {name for name, value in game.parameters.items() if isinstance(value, bool)}
    defs = {d.name: d.body for d in rules.decls if isinstance(d, ast.DefDecl)}
    lines = source_lines(game.source)
    ends = [(_first_line(lines, d.span), d.span, not _mentions(d.condition, switches, defs))
            for d in rules.decls if isinstance(d, ast.EndDecl)]
    moves = [(d.name, d.guard.span if d.guard is not None else d.span) for d in rules.decls
             if isinstance(d, ast.MoveDecl) and not (d.guard is not None and _mentions(d.guard, switches, defs))]
    return ends, moves


def _mentions(node: object, names: set[str], defs: dict[str, ast.Expr], seen: set[str] | None = None) -> bool:
    """Whether an expression reads one of ``names``, looking through the ``def`` bodies it calls."""
    if not names:
        return False
    seen = set() if seen is None else seen
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, (ast.Name, ast.Call)):
            name = item.id if isinstance(item, ast.Name) else item.func
            if name in names:
                return True
            if name in defs and name not in seen:
                seen.add(name)
                stack.append(defs[name])
        if isinstance(item, (tuple, list)):
            stack.extend(item)
        elif hasattr(item, "__dataclass_fields__"):
            stack.extend(getattr(item, f) for f in item.__dataclass_fields__)
    return False


def _first_line(lines: list[str], span: Span) -> str:
    text = lines[span.line - 1].strip() if 0 < span.line <= len(lines) else ""
    return text if len(text) <= 60 else text[:57] + "..."
