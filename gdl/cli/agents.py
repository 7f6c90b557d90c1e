"""Agents as the CLI runs them: built from a spec (a usage error if it is bad), stopped by Ctrl-C and held to
their time even inside one evaluation of the rules."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable
from typing import Any

import gdl.cli.engine as engine
from gdl.cli.errors import Problem, UsageError
from gdl.console import format_number
from gdl.runtime import CompiledGame, rule_budget
from solver.limits import SearchStopped
from solver.table import TableError


def make_agent(spec: str, game: CompiledGame, seed: int | None) -> Any:
    """An agent from a spec such as ``random``, ``alphabeta:depth=6`` or ``perfect:table=t.sqlite``.

    :raises UsageError: an unknown agent, a bad option, a table for another game.
    """
    if game.simultaneous:  # agents that pick their own move at a simultaneous node (solver.simagents)
        from solver.simagents import make_sim_agent

        try:
            return make_sim_agent(game, spec, seed)
        except ValueError as error:
            raise UsageError(str(error)) from None
    try:
        return engine.make_agent(spec, game, seed)
    except engine.EngineError as error:
        raise UsageError(str(error)) from None


AGENT_HELP = ("agents: random; minimax:depth=N; alphabeta:depth=N,paranoid=true; expectimax:depth=N,"
              "pruning=star2; mcts:iterations=N,c=1.4,rollout=heuristic,solver=false; perfect; perfect:table=FILE. "
              "Budgets per move for every searching agent: seconds=S (or time=S), nodes=N, tt=ENTRIES (its table "
              "cap: transposition table, MCTS tree, perfect's solved states; minimax keeps none); with seconds or "
              "nodes but no depth, minimax and expectimax deepen iteratively. minimax, alphabeta and expectimax "
              "take quiescence=N (search up to N plies past the horizon from positions the rule file's `quiet "
              "when` says are not quiet). perfect stops at 60 s and 500,000 "
              "states unless told (perfect:seconds=10,nodes=1000000,tt=200000) and then plays the best move so far "
              "with a note. Every searching agent also takes book=FILE (play from a `gdl book` book while in it) "
              "and, but perfect, table=FILE (a solved table or exact book probed inside the search)")


class _Interrupts:
    """Counts Ctrl-C presses: a search catches :class:`KeyboardInterrupt` to return its best move so far,
    which would swallow the press that was meant to stop ``gdl play`` or ``gdl match``."""

    count = 0

    @classmethod
    def handler(cls, signum: int, frame: Any) -> None:
        cls.count += 1
        raise KeyboardInterrupt


def move_budget(seconds: float | None) -> float | None:
    """The bound on rule evaluation while an agent with ``seconds`` to think chooses a move: a little
    past its own deadline, so that its search stops itself first and this bound catches only a single
    rule evaluation longer than the agent's whole time."""
    return None if seconds is None else seconds * 1.25 + 1.0


def choose_or_stop(agent: Any, state: Any, first: Callable[[], None] | None = None) -> Any:
    """``agent.choose(state)``, but a Ctrl-C during it stops the command (the search may have caught it),
    and an agent with a time cap is held to it even inside one evaluation of the rules (``first``, such
    as a check that the position has a legal move, runs under the same bound).

    :raises Problem: the agent found no move in its time (the rules take longer than that to evaluate
        here), or its solved table is damaged.
    """
    pressed = _Interrupts.count
    previous = None
    with contextlib.suppress(ValueError):  # not the main thread: the default handler stays
        previous = signal.signal(signal.SIGINT, _Interrupts.handler)
    try:
        with rule_budget(seconds=move_budget(agent.seconds)):
            if first is not None:
                first()
            move = agent.choose(state)
    except TableError as error:  # a solved table found damaged while playing (an illegal best move)
        raise Problem(str(error)) from None
    except SearchStopped:
        raise Problem(f"{agent.name} found no move in its {format_number(agent.seconds)} s: evaluating the rules "
                      "in this position takes longer than that") from None
    except Exception:
        if _Interrupts.count != pressed:  # a search stopped by the press found no move: still a stop
            raise KeyboardInterrupt from None
        raise
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    if _Interrupts.count != pressed:
        raise KeyboardInterrupt
    return move
