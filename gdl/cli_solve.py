"""``gdl solve``, ``gdl play`` and ``gdl match``: the commands that run the solver suite."""

from __future__ import annotations

import argparse
import contextlib
import itertools
import math
import random
import signal
import time
from collections.abc import Callable, Sequence
from typing import Any

from rich.table import Table
from rich.text import Text

from gdl import cli_engine as engine
from gdl.cli import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    Problem,
    UsageError,
    dump_json,
    finite_number,
    game_label,
    json_value,
    load_game,
    parse_params,
    replay,
    seconds,
)
from gdl.cli_errors import rule_errors
from gdl.console import board_text, format_number, make_console
from gdl.moves import match_move
from gdl.runtime import rule_budget
from solver.game import (
    CHANCE,
    TERMINAL,
    AmbiguousMoveError,
    IllegalMoveError,
    MoveError,
    UnknownMoveError,
    dead_end,
)
from solver.limits import Limits, SearchStopped
from solver.table import TableError

# ================================================================== agents


def make_agent(spec: str, game: Any, seed: int | None) -> Any:
    """An agent from a spec such as ``random``, ``alphabeta:depth=6`` or ``perfect:table=t.sqlite``.

    :raises UsageError: an unknown agent, a bad option, a table for another game.
    """
    try:
        return engine.make_agent(spec, game, seed)
    except engine.EngineError as error:
        raise UsageError(str(error)) from None


# ================================================================== moves
# The prompt and --moves read moves alike (gdl.moves): names in any case, arguments alone, prefixes.


# ================================================================== play


class ChanceTape:
    """The chance outcomes of one game, from its seed: ply ``n`` always gets the ``n``-th draw.

    So a move taken back with ``undo`` and played again meets the same outcome (a player cannot undo until
    the dice please them), and the same seed plays the same outcomes for the same moves.
    """

    def __init__(self, seed: int | None) -> None:
        self.seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
        self.rng = random.Random(self.seed)
        self.draws: list[float] = []

    def outcome(self, ply: int, outcomes: Sequence[tuple[Any, float]]) -> tuple[Any, float]:
        """The outcome (and its probability) of the chance node at ``ply``."""
        while len(self.draws) <= ply:
            self.draws.append(self.rng.random())
        draw, total = self.draws[ply], 0.0
        for outcome, probability in outcomes:
            total += probability
            if draw < total:
                return outcome, probability
        return outcomes[-1]  # the probabilities' rounding left the draw just above their sum


AGENT_HELP = ("agents: random; minimax:depth=N; alphabeta:depth=N,paranoid=true; expectimax:depth=N,"
              "pruning=star2; mcts:iterations=N,c=1.4,rollout=heuristic,solver=false; perfect; perfect:table=FILE. "
              "Budgets per move for every searching agent: seconds=S (or time=S), nodes=N, tt=ENTRIES (its table "
              "cap: transposition table, MCTS tree, perfect's solved states; minimax keeps none); with seconds or "
              "nodes but no depth, minimax and expectimax deepen iteratively. perfect stops at 60 s and 500,000 "
              "states unless told (perfect:seconds=10,nodes=1000000,tt=200000) and then plays the best move so far "
              "with a note. Every searching agent also takes book=FILE (play from a `gdl book` book while in it) "
              "and, but perfect, table=FILE (a solved table or exact book probed inside the search)")


def add_play_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--vs", action="append", metavar="AGENT",
                   help="the opponent (default perfect); repeat to give each agent seat its own. " + AGENT_HELP)
    p.add_argument("--as", dest="human", metavar="PLAYER",
                   help="the player you play (name or number, default the first); `none` to watch agents")
    p.add_argument("--moves", metavar="M1,M2,...", help="start from the position after these moves")
    p.add_argument("--seed", type=int, default=None, help="random seed for chance events and agents")
    p.add_argument("--delay", type=delay_seconds, default=0.0, metavar="SECONDS",
                   help=f"pause after each agent move (at most {MAX_DELAY:g})")
    p.add_argument("--max-plies", type=int, default=DEFAULT_PLAY_PLIES, metavar="N",
                   help=f"stop a game that has not ended after this many plies (default {DEFAULT_PLAY_PLIES:,})")
    p.add_argument("--record", metavar="FILE.json", help="write the game (moves, chance outcomes, result) to this "
                   "record file when it ends, also on quit or Ctrl-C (docs/records.md; `gdl replay FILE`)")


DEFAULT_PLAY_PLIES = 100_000
"""``gdl play`` stops a game after this many plies (long games, such as a 12,000-ply walk, still end)."""
MAX_DELAY = 60.0


def delay_seconds(text: str) -> float:
    """argparse type of ``--delay``: 0 to :data:`MAX_DELAY` seconds."""
    value = seconds(text)
    if value > MAX_DELAY:
        raise argparse.ArgumentTypeError(f"{text!r} is more than {MAX_DELAY:g} seconds")
    return value


def _human_seat(game: Any, text: str | None) -> int | None:
    if text is None:
        return 0
    if text.lower() in ("none", "nobody", "-"):
        return None
    if text in game.players:
        return game.players.index(text)
    lowered = [p.lower() for p in game.players]
    if text.lower() in lowered:
        return lowered.index(text.lower())
    if text.isdigit() and 1 <= int(text) <= len(game.players):
        return int(text) - 1
    raise UsageError(f"--as: {text!r} is not a player of {game.name} (players: {', '.join(game.players)})")


PLAY_HELP = """commands:
  MOVE      play a move by name (any case), an unambiguous prefix, or its arguments alone (b2 for
            place(b2), d for drop(d)); --moves reads moves the same way
  moves     list the legal moves
  hint      ask the solver for a good move
  undo      take back your last move (and the replies to it); played again, it meets the same
            chance outcome
  board     draw the board again
  quit      leave the game"""


def cmd_play(args: argparse.Namespace) -> int:
    from gdl.cli_match import recorded

    return recorded(args, _play)  # with --record, the game is written however it ends


def _play(args: argparse.Namespace, watch: Any = None) -> int:
    out = make_console()
    game = load_game(args.game, parse_params(args.param))
    state, played = replay(game, args.moves)
    human = _human_seat(game, args.human)
    dice = ChanceTape(args.seed)
    specs = args.vs or ["perfect"]
    seats = [p for p in range(len(game.players)) if p != human]
    if len(specs) not in (1, len(seats)):
        raise UsageError(f"--vs: give one agent, or one per agent seat ({len(seats)})")
    agents: dict[int, Any] = {}
    for number, seat in enumerate(seats):
        spec = specs[number] if len(specs) > 1 else specs[0]
        agents[seat] = make_agent(spec, game, None if args.seed is None else args.seed + number)
    if watch is not None:  # the recorder reads `played` when the game ends (undo rebinds it)
        watch(game, lambda: played, {p: "you" if p == human else agents[p].name for p in range(len(game.players))})
    out.print(Text(game_label(game), style="bold") + Text(f"  {getattr(game, 'description', '')}", style="dim"))
    for seat in range(len(game.players)):
        who = "you" if seat == human else getattr(agents[seat], "name", specs[0])
        out.print(Text(f"  {game.players[seat]}: {who}"))  # an agent spec is user text, not markup
    if game.has_chance:
        out.print(f"[dim]  chance outcomes from seed {dice.seed} (--seed {dice.seed} gives the same ones)[/]")
    if human is not None:
        out.print("[dim]type a move, `moves`, `hint`, `undo`, `help` or `quit`[/]")
    history: list[tuple[Any, list[str]]] = []  # (state, played) before each human move
    with rule_errors(game, line=lambda: played):  # a rule that fails as the game goes on: the moves so far
        return _play_loop(out, game, state, played, human, agents, specs, dice, history, args)


def _play_loop(out: Any, game: Any, state: Any, played: list[str], human: int | None, agents: dict[int, Any],
               specs: list[str], dice: ChanceTape, history: list[tuple[Any, list[str]]],
               args: argparse.Namespace) -> int:
    _setup_completion(game, lambda: state)
    shown = None
    if args.max_plies < 1:
        raise UsageError("--max-plies must be at least 1")
    plies = 0
    while True:
        if plies >= args.max_plies and game.to_move(state) != TERMINAL:
            out.print(Text(f"stopped: the game has not ended after {plies:,} plies (--max-plies {args.max_plies})",
                           style="bold yellow"))
            return EXIT_OK
        if shown is not state:
            out.print()
            out.print(board_text(game, state))
            shown = state
        player = game.to_move(state)
        if player == TERMINAL:
            utilities = ", ".join(f"{p} {format_number(u)}" for p, u in zip(game.players, game.utilities(state),
                                                                             strict=False))
            out.print(Text(f"utilities: {utilities}", style="dim"))
            out.print(Text(f"moves: {','.join(played)}", style="dim"))
            return EXIT_OK
        if player in (CHANCE, human):  # an agent's move checks this within its time (choose_or_stop)
            _check_not_stuck(game, state, player, played)
        if player == CHANCE:
            outcome, probability = dice.outcome(len(played), game.chance_outcomes(state))
            out.print(Text("chance: ", style="bold magenta") + Text(f"{outcome}", style="bold")
                      + Text(f"  (probability {probability:.4g})", style="dim"))
            played.append(str(outcome))
            state = game.apply(state, outcome)
            plies += 1
            continue
        if player != human:
            agent = agents[player]
            # A rule error met in the agent's search is somewhere below this state: searched for from the start.
            with rule_errors(game, state, list(played)), \
                    SearchDisplay(out, f"{game.players[player]} is thinking") as display:
                if hasattr(agent, "progress"):
                    agent.progress = display.update
                move = choose_or_stop(agent, state,  # the line so far is added by rule_errors
                                      lambda s=state, p=player: _check_not_stuck(game, s, p, []))
            out.print(Text(f"{game.players[player]} plays ", style="bold") + Text(str(move), style="bold cyan"))
            last = getattr(agent, "last", None)
            if last is not None and last.stopped and last.note:
                out.print(Text(last.note, style="dim yellow"))
            played.append(str(move))
            state = game.apply(state, move)
            plies += 1
            if args.delay:
                time.sleep(args.delay)
            continue
        try:
            line = input(f"{game.players[player]}> ")
        except EOFError:
            out.print()
            out.print("[dim]bye[/]")
            return EXIT_OK
        command = line.strip()
        if not command:
            continue
        if command in ("quit", "exit", "q"):
            out.print("[dim]bye[/]")
            return EXIT_OK
        if command in ("help", "?"):
            out.print(PLAY_HELP)
            continue
        if command == "board":
            shown = None
            continue
        if command == "moves":
            out.print(Text("legal moves: " + ", ".join(str(m) for m in game.legal_moves(state))))
            continue
        if command == "undo":
            if not history:
                out.print("[yellow]nothing to undo[/]")
                continue
            state, before = history.pop()
            played[:] = before  # in place: the error guard of cmd_play reads this list
            out.print("[dim]took back your last move[/]")
            continue
        if command == "hint":
            with rule_errors(game, state, list(played)):
                _hint(out, game, state)
            continue
        try:
            move = match_move(game, state, command)
        except (UnknownMoveError, IllegalMoveError, AmbiguousMoveError, MoveError) as error:
            out.print(Text("error: ", style="bold red") + Text(str(error)) + Text(" (try again; `moves` lists "
                                                                                 "the legal moves)", style="dim"))
            continue
        history.append((state, list(played)))
        played.append(str(move))  # before applying it: a rule failing in the move is reached by it
        state = game.apply(state, move)
        plies += 1


def _check_not_stuck(game: Any, state: Any, player: int, played: list[str]) -> None:
    """:raises DeadEndError: a decision state without a legal move (or a chance state without an outcome)."""
    stuck = not game.chance_outcomes(state) if player == CHANCE else not game.legal_moves(state)
    if stuck:
        error = dead_end(game, state, player)
        for name in reversed(played):
            error.prepend(name)
        raise error


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


def _hint(out: Any, game: Any, state: Any) -> None:
    """The solver's move for the human: exact if it finishes in a few seconds, else the best found."""
    try:
        with SearchDisplay(out, "thinking") as display:
            result = engine.search(game, state, "auto", Limits(seconds=3.0), display.update)
    except engine.EngineError as error:
        out.print(Text(f"no hint: {error}", style="yellow"))
        return
    if not result.best_moves:
        out.print("[yellow]no hint available[/]")
        return
    player = game.to_move(state)
    kind = value_kind(game, result)
    fastest = getattr(result, "fastest_moves", ())  # the optimal move that also brings the end nearest
    if kind is None or kind == "bounds":
        about = "the solver's guess; value unknown"
    elif kind == "proven" and reads_as_probability(game):
        about = (f"the solver proves: {game.players[player]} wins with probability "
                 f"{format_number(win_probability(result.value[player]))}")
    else:
        how = "the solver proves" if kind == "proven" else "the solver's best guess"
        about = f"{how}: value {format_number(result.value[player])} for {game.players[player]}"
    out.print(Text("hint: ", style="bold green") + Text(str((fastest or result.best_moves)[0]), style="bold")
              + Text(f"  ({about})", style="dim"))


def _setup_completion(game: Any, current: Any) -> None:
    """Tab completion of legal move names at the prompt (where readline exists)."""
    try:
        import readline
    except ImportError:  # pragma: no cover - Windows without pyreadline
        return
    words = ["moves", "hint", "undo", "board", "help", "quit"]

    def complete(text: str, index: int) -> str | None:
        try:
            names = [str(m) for m in game.legal_moves(current())] + words
        except Exception:
            return None
        matches = [n for n in names if n.startswith(text)]
        return matches[index] if index < len(matches) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" \t\n,")
    readline.parse_and_bind("tab: complete")


# ================================================================== progress


class SearchDisplay:
    """A spinner with live node counts while a search runs; only on a terminal, after ``delay`` seconds."""

    def __init__(self, console: Any, label: str, delay: float = 0.3) -> None:
        self.console = console
        self.label = label
        self.delay = delay
        self.enabled = console.is_terminal
        self.started = time.monotonic()
        self.live: Any = None
        self.nodes = 0

    def __enter__(self) -> SearchDisplay:
        return self

    def update(self, stats: Any) -> None:
        if not self.enabled:
            return
        self.nodes = stats.nodes
        if self.live is None:
            if time.monotonic() - self.started < self.delay:
                return
            from rich.live import Live

            self.live = Live(self._render(stats), console=self.console, transient=True, refresh_per_second=8)
            self.live.start()
        else:
            self.live.update(self._render(stats))

    def _render(self, stats: Any) -> Any:
        from rich.spinner import Spinner

        rate = stats.nodes / stats.seconds if stats.seconds > 0 else 0
        parts = [f"{stats.nodes:,} nodes", f"{rate:,.0f} nodes/s"]
        if getattr(stats, "depth", 0):
            parts.append(f"depth {stats.depth}")
        if getattr(stats, "tt_size", 0):
            parts.append(f"TT {stats.tt_size:,}")
        parts.append(f"{stats.seconds:.1f} s")
        return Spinner("dots", text=Text(f"{self.label}: ", style="bold") + Text(", ".join(parts)),
                       style="cyan")

    def __exit__(self, *exc: object) -> None:
        if self.live is not None:
            self.live.stop()


# ================================================================== solve


def add_solve_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--moves", metavar="M1,M2,...", help="solve the position after these moves")
    p.add_argument("--algorithm", default="auto", choices=engine.ALGORITHMS,
                   help="auto (default): the exact solver that fits the game")
    p.add_argument("--depth", type=int, metavar="N", help="heuristic search to this depth instead of solving")
    p.add_argument("--time", type=finite_number, metavar="SECONDS", help="search for at most this long (heuristic "
                   "unless it finishes)")
    p.add_argument("--max-nodes", type=int, metavar="N", help="stop after visiting this many states "
                   "(the result so far is reported)")
    p.add_argument("--max-table", type=int, metavar="ENTRIES", help="memory cap: at most this many "
                   "states in the solver's tables")
    p.add_argument("--memory", type=finite_number, metavar="MB", help="memory cap in megabytes for the solver's "
                   f"tables (about {BYTES_PER_ENTRY} bytes per state; combined with --max-table, the smaller wins)")
    p.add_argument("--save", metavar="FILE.sqlite", help="store the solved values in an SQLite table")
    p.add_argument("--no-symmetry", action="store_true", help="ignore the rule file's `symmetry` line "
                   "(every mirror image is solved on its own; for comparison)")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object")


BYTES_PER_ENTRY = 400
"""Rough memory per solved state (key tuple, value tuple, index, graph edges) for ``--memory``."""


def solve_limits(args: argparse.Namespace) -> Limits:
    """The budget of ``gdl solve`` from its options.

    :raises UsageError: a negative or zero budget.
    """
    if args.depth is not None and args.depth < 1:
        raise UsageError("--depth must be at least 1")
    if args.time is not None and not args.time > 0:
        raise UsageError("--time must be positive")
    if args.max_nodes is not None and args.max_nodes < 1:
        raise UsageError("--max-nodes must be at least 1")
    if args.max_table is not None and args.max_table < 1:
        raise UsageError("--max-table must be at least 1")
    entries = args.max_table
    if args.memory is not None:
        if not args.memory > 0:
            raise UsageError("--memory must be positive (megabytes)")
        by_memory = max(1, int(min(args.memory, 1e12) * 1e6 / BYTES_PER_ENTRY))  # 1e305 MB: no float overflow
        entries = by_memory if entries is None else min(entries, by_memory)
    return Limits(depth=args.depth, seconds=args.time, nodes=args.max_nodes, table_entries=entries)


GROWTH_SECONDS = 3.0
"""Most seconds the breadth-first probe behind a size estimate runs ..."""
GROWTH_STATES = 50_000
"""... and most states it keeps."""
TOO_BIG = 10 ** 8
"""Reachable states beyond which a game is "probably too big to solve exactly" (~40 GB of tables)."""


def size_estimate(game: Any, state: Any, explored: int, seconds: float = 0.0) -> dict[str, Any]:
    """How big the game is, measured: the states the stopped solve kept, and the growth of a short probe.

    A breadth-first probe from ``state`` counts the new states of each ply (within
    ``GROWTH_SECONDS`` and ``GROWTH_STATES``). If it finishes, the number of reachable states
    is known exactly. Otherwise the plies' growth ratios are extrapolated to the length of the
    longest random playout, each ratio shrinking as the measured ratios shrink: a rough
    order of magnitude (``estimated_states``). The encodings bound of ``gdl info`` is kept for
    reference only (it counts every combination of values, reachable or not).
    """
    from gdl.cli import state_space
    from gdl.runtime import rule_budget

    estimate: dict[str, Any] = {"states_explored": int(explored)}
    if seconds > 0 and explored:
        estimate["states_per_second"] = round(explored / seconds, 1)
    try:
        log10 = state_space(game).get("log10_encodings")
        # One rule evaluation may outlast the probe's own clock; when the search explored nothing, one
        # evaluation already outlasted the search's budget: the probe gets only a moment.
        with rule_budget(GROWTH_SECONDS + 0.5 if explored else 0.5):
            estimate.update(_growth(game, state))
    except Exception:  # an estimate must never turn a result into a crash (the solve has its answer)
        log10 = None
    if log10 is not None:
        estimate["log10_encodings"] = round(float(log10), 2)
    return estimate


def _growth(game: Any, state: Any) -> dict[str, Any]:
    """``reachable_states`` (the probe finished) or ``estimated_states`` (extrapolated from ``ply_sizes``)."""
    deadline = time.monotonic() + GROWTH_SECONDS
    seen = {game.key(state)}
    level, sizes = [state], [1]
    partial = False
    while level and len(seen) < GROWTH_STATES and time.monotonic() < deadline:
        following = []
        for parent in level:
            if len(seen) >= 4 * GROWTH_STATES:  # a huge ply: stop inside it (and leave it out)
                partial = True
                break
            player = game.to_move(parent)
            if player == TERMINAL:
                continue
            moves = [o for o, _ in game.chance_outcomes(parent)] if player == CHANCE else game.legal_moves(parent)
            for move in moves:
                child = game.apply(parent, move)
                k = game.key(child)
                if k not in seen:
                    seen.add(k)
                    following.append(child)
        level = following
        if level and not partial:
            sizes.append(len(level))
    if not level:
        return {"reachable_states": len(seen)}
    return {"estimated_states": _extrapolate(sizes, _longest_playout(game, state)), "ply_sizes": sizes}


def _extrapolate(sizes: list[int], plies: int) -> int:
    """The states of all plies up to ``plies``, from the sizes of the first ones.

    The growth ratio of one ply to the next falls as a game fills up (the log of the ratio
    falls about linearly: tic-tac-toe, Connect-Four, Domineering), so the log ratios of the
    last measured plies are fitted with a line and followed to the end of the longest playout.
    A growth that does not fall keeps its last ratio.
    """
    logs = [math.log(b / a) for a, b in itertools.pairwise(sizes) if a and b][1:][-5:]
    if not logs:
        return int(sum(sizes))
    n = len(logs)
    mean_x, mean_y = (n - 1) / 2, sum(logs) / n
    spread = sum((x - mean_x) ** 2 for x in range(n))
    slope = sum((x - mean_x) * (y - mean_y) for x, y in enumerate(logs)) / spread if spread else 0.0
    slope = min(0.0, slope)
    log_ratio = mean_y + slope * (n - 1 - mean_x)  # the fitted line at the last measured ply
    total, size = float(sum(sizes)), float(sizes[-1])
    for _ in range(len(sizes), plies + 1):
        log_ratio += slope
        size *= math.exp(log_ratio)
        total += size
        if size < 1 or total > 1e30:
            break
    return int(min(total, 1e30))


def _longest_playout(game: Any, state: Any, playouts: int = 20, max_plies: int = 1000) -> int:
    rng = random.Random(0)
    longest = 0
    for _ in range(playouts):
        current, plies = state, 0
        while plies < max_plies and game.to_move(current) != TERMINAL:
            player = game.to_move(current)
            moves = [o for o, _ in game.chance_outcomes(current)] if player == CHANCE else game.legal_moves(current)
            if not moves:
                break
            current = game.apply(current, rng.choice(moves))
            plies += 1
        longest = max(longest, plies)
    return longest


def _estimate_text(estimate: dict[str, Any]) -> str:
    text = f"explored {estimate['states_explored']:,} states"
    log10 = estimate.get("log10_encodings")
    if log10 is not None:  # a loose bound (every combination of values), for reference only
        text += f" (the state encodings allow at most {_magnitude(10 ** log10)})"
    if "reachable_states" in estimate:
        return text + (f"; the game has {estimate['reachable_states']:,} reachable states from here, so a "
                       "bigger budget solves it")
    guess = estimate.get("estimated_states")
    if guess is None:
        return text
    text += f"; roughly {_magnitude(guess)} reachable states (extrapolated from the growth of the first " \
            f"{len(estimate.get('ply_sizes', ()))} plies)"
    if guess > TOO_BIG:
        text += " -- probably too big to solve exactly; --depth gives a heuristic answer"
    else:
        text += "; a bigger budget may solve it (alpha-beta often visits only part of them)"
    return text


def _magnitude(n: float) -> str:
    return f"{n:,.0f}" if n < 1e7 else f"10^{math.log10(n):.1f}"


def _bounds(bounds: Sequence[float] | None) -> list[float | None] | None:
    """The proven interval of player 0's value as JSON (an infinite end is null)."""
    if bounds is None:
        return None
    return [float(b) + 0.0 if math.isfinite(b) else None for b in bounds]


STOP_REASONS = {"interrupt": "interrupted", "time": "out of time (--time)", "nodes": "out of nodes (--max-nodes)",
                "table": "out of table space (--max-table/--memory)", "iterations": "out of iterations",
                "depth": "stopped at the deepest depth it can search"}


def _value_dict(game: Any, value: Sequence[float] | None) -> dict[str, float] | None:
    """One number per player, or None when there is none or one is not finite (never Infinity/NaN in JSON)."""
    if value is None:
        return None
    numbers = [float(v) + 0.0 for v in value]
    if not all(math.isfinite(v) for v in numbers):
        return None
    return dict(zip(game.players, numbers, strict=False))


def value_kind(game: Any, result: Any) -> str | None:
    """What the root value is: ``proven``, ``bounds`` (only an interval is proven), ``estimated``, or None.

    None when the search learned nothing it could stand behind: stopped (or interrupted)
    before it found a move, or a depth-limited search of a game without a heuristic that
    proved nothing (its value would be the horizon's 0, a guess that means nothing in a game
    without draws).
    """
    bounds = result.bounds
    if result.exact or (bounds is not None and bounds[0] == bounds[1]):
        return "proven"
    if bounds is not None:
        return "bounds"
    if not result.best_moves:
        return None
    if result.algorithm not in ("mcts", "value_iteration", "puzzle", "astar", "bfs") and not getattr(
            game, "has_heuristic", True):
        return None  # a depth-limited search (or the guess of a stopped solve) with no heuristic at its horizon
    return "estimated"


def _plies_json(plies: float | None) -> int | float | None:
    """The distance to the end as JSON: a whole number of plies, an expected number, or null (not known,
    or endless play)."""
    if plies is None or not math.isfinite(plies):
        return None
    return int(plies) if float(plies).is_integer() else round(float(plies), 6)


def plies_text(game: Any, value: Sequence[float], plies: float | None) -> str | None:
    """``X wins in 7 plies``, ``draw (9 plies)``, ``solved in 2 moves``: the distance to the end in words."""
    if plies is None:
        return None
    if len(game.players) == 1 and not game.has_chance:
        return f"solved in {_count(plies, 'move')}" if math.isfinite(plies) else None
    if not math.isfinite(plies):
        return "the game never ends under optimal play (endless play is worth 0)"
    if game.has_chance:
        return f"expected length under optimal play: {format_number(plies)} plies"
    if len(game.players) == 2 and game.zero_sum:
        if abs(value[0]) <= 1e-9:
            return f"draw ({_count(plies, 'ply')})"
        return f"{game.players[0 if value[0] > 0 else 1]} wins in {_count(plies, 'ply')}"
    return f"the game lasts {_count(plies, 'ply')} under optimal play"


def _plies_cell(distance: float | None) -> str:
    if distance is None:
        return "?"
    return format_number(distance) if math.isfinite(distance) else "endless"


def _count(n: float, word: str) -> str:
    plural = "plies" if word == "ply" else word + "s"
    return f"{int(n)} {word if n == 1 else plural}"


def cmd_solve(args: argparse.Namespace) -> int:
    out = make_console()
    game = load_game(args.game, parse_params(args.param), symmetry=not args.no_symmetry)
    state, played = replay(game, args.moves)
    limits = solve_limits(args)
    try:
        with rule_errors(game, state, played), SearchDisplay(out, f"solving {game_label(game)}") as display:
            solution = engine.solve_with_moves(game, state, args.algorithm, limits, display.update)
    except engine.EngineError as error:
        if args.algorithm == "auto":
            raise Problem(str(error)) from None  # no solver fits: the work found a problem
        raise UsageError(str(error)) from None
    result = solution.result
    interrupted = result.stopped and result.stop_reason == "interrupt"
    stats = result.stats
    kind = value_kind(game, result)
    report: dict[str, Any] = {
        "game": game.name,
        "parameters": {k: json_value(v) for k, v in game.parameters.items()},
        "players": list(game.players),
        "value": _value_dict(game, result.value) if kind in ("proven", "estimated") else None,
        "value_kind": kind,
        "best_moves": [str(m) for m in solution.best_moves],
        "principal_variation": decisions_before_chance(game, state, result.principal_variation)[0],
        "exact": bool(result.exact),
        "stats": {
            "nodes": int(stats.nodes),
            "seconds": round(float(stats.seconds), 6),
            "nodes_per_second": round(stats.nodes_per_second, 1),
            "tt_size": int(stats.tt_size),
            "depth": int(stats.depth),
        },
        "algorithm": result.algorithm,
        "moves": played,
        "move_values": {str(m): (_value_dict(game, v) if v is not None else None) for m, v in solution.move_values},
        "stopped": bool(result.stopped),
        "stop_reason": result.stop_reason,
        "bounds": _bounds(result.bounds),
        "note": result.note,
        "plies_to_end": _plies_json(result.plies),
    }
    if kind == "proven" and reads_as_probability(game):
        report["win_probability"] = {p: round(win_probability(v), 12) for p, v in report["value"].items()}
    if result.stopped and result.stop_reason != "interrupt":
        report["estimate"] = size_estimate(game, state, stats.tt_size or stats.nodes,  # distinct states kept
                                           stats.seconds)
    if args.save:
        from solver.table import TableError, save_table

        try:
            save_table(engine.table_from_solution(game, state, solution), args.save)
        except (TableError, OSError) as error:
            raise UsageError(f"--save: {error}") from None
        report["saved"] = args.save
    if args.json:
        print(dump_json(report))
    else:
        _print_solution(out, game, state, solution, report)
    return EXIT_INTERRUPTED if interrupted else EXIT_OK


def _print_solution(out: Any, game: Any, state: Any, solution: engine.Solution, report: dict[str, Any]) -> None:
    result = solution.result
    title = Text(game_label(game), style="bold")
    if report["moves"]:
        title.append(f"  after {','.join(report['moves'])}", style="dim")
    out.print(title)
    if report["moves"]:
        out.print(board_text(game, state))
    if result.stopped:
        reason = STOP_REASONS.get(result.stop_reason or "", result.stop_reason or "stopped")
        out.print(Text(f"{reason}: the best result so far", style="bold yellow"))
        if "estimate" in report:
            out.print(Text(_estimate_text(report["estimate"]), style="yellow"))
    if engine.unsolvable(result):
        out.print(Text(result.note or "no solution", style="bold yellow"))
        stats = report["stats"]
        out.print(Text(f"{stats['nodes']:,} nodes in {stats['seconds']:.3f} s, {result.algorithm}", style="dim"))
        return
    if result.note:
        out.print(Text(result.note, style="yellow"))
    if result.stopped and not result.best_moves and not result.exact:
        out.print(Text("no value: the search stopped before it found a move", style="bold yellow"))
        stats = report["stats"]
        out.print(Text(f"{stats['nodes']:,} nodes in {stats['seconds']:.3f} s, TT {stats['tt_size']:,} entries",
                       style="dim"))
        return
    if report["value_kind"] is None:
        out.print(Text("value unknown: ", style="bold yellow") + Text(
            "the game has no heuristic, so a depth-limited search proves nothing short of the end; the move "
            "below is a guess", style="yellow"))
    else:
        _print_value(out, game, result, report)
        distance = plies_text(game, result.value, result.plies) if result.exact else None
        if distance:
            out.print(Text(distance, style="bold"))
        elif result.exact and result.algorithm == "alphabeta" and result.best_moves:
            out.print(Text("distance to the end: not computed (walking every optimal line took too long)",
                           style="dim"))
    player = game.to_move(state)
    as_probability = "win_probability" in report
    if solution.move_values and player >= 0:
        table = Table(header_style="bold", box=None, padding=(0, 2))
        table.add_column("move", style="cyan")
        table.add_column(f"win probability for {game.players[player]}" if as_probability
                         else f"value for {game.players[player]}", justify="right")
        distances = solution.move_plies
        with_plies = any(d is not None for d in distances.values())
        if with_plies:
            table.add_column("plies then", justify="right")  # the distance to the end after the move
        table.add_column("")
        best = {str(m) for m in solution.best_moves}
        for move, value in sorted(solution.move_values, key=lambda mv: -(mv[1][player] if mv[1] else -1e18)):
            shown = "?" if value is None else format_number(win_probability(value[player]) if as_probability
                                                            else value[player])
            mark = Text("best", style="bold green") if str(move) in best else ""
            if with_plies:
                distance = distances.get(str(move))
                table.add_row(str(move), shown, _plies_cell(distance), mark)
            else:
                table.add_row(str(move), shown, mark)
        out.print(table)
    elif report["best_moves"]:
        out.print(Text("best move: ", style="bold") + Text(", ".join(report["best_moves"]), style="cyan"))
    if report["principal_variation"] and len(game.players) == 1 and result.exact:
        # A puzzle's principal variation is its shortest solution.
        moves = report["principal_variation"]
        out.print(Text(f"shortest solution ({len(moves)} moves): ", style="bold") + Text(",".join(moves)))
    elif report["principal_variation"] or result.principal_variation:
        line = Text("principal variation: ", style="bold") + Text(",".join(report["principal_variation"]))
        _, chance = decisions_before_chance(game, state, result.principal_variation)
        if chance:  # where nature moves the line stops: which face comes up is not part of optimal play
            line.append((", then " if report["principal_variation"] else "") + f"chance ({chance})", style="dim")
        out.print(line)
    stats = report["stats"]
    line = (f"{stats['nodes']:,} nodes in {stats['seconds']:.3f} s ({stats['nodes_per_second']:,.0f} nodes/s)"
            f", TT {stats['tt_size']:,} entries, {result.algorithm}")
    if not result.exact and stats["depth"] and result.algorithm in ("alphabeta", "paranoid", "expectimax",
                                                                     "minimax") and result.bounds is None:
        line += f", depth {stats['depth']}"
    out.print(Text(line, style="dim"))
    if report.get("saved"):
        out.print(Text(f"saved to {report['saved']}", style="dim"))


def _print_value(out: Any, game: Any, result: Any, report: dict[str, Any]) -> None:
    """The root value line, saying which kind of answer it is (exact, proven, bounds, estimated)."""
    bounds = result.bounds
    if result.exact:
        kind = "exact value"
    elif bounds is not None and bounds[0] == bounds[1]:
        kind = "proven value (not every move checked)"
    elif bounds is not None:
        kind = "value so far (not proven)"
    elif result.algorithm == "value_iteration":
        kind = "estimated value (value iteration, not converged)"
    else:
        kind = "estimated value (heuristic search)"
    if bounds is not None and bounds[0] != bounds[1]:
        values = f"{game.players[0]} between {format_number(bounds[0])} and {format_number(bounds[1])}"
    else:
        values = ", ".join(f"{p} {format_number(v)}" for p, v in (report["value"] or {}).items())
    proven = report["value_kind"] == "proven"
    if "win_probability" in report:  # the probability first; the utilities it comes from, explained, after
        out.print(Text(f"{kind}: ", style="bold") + Text(probability_text(game, result.value), style="bold green"))
        out.print(Text(f"  (as utilities, a win 1 and a loss -1: {values}, which is 2p - 1)", style="dim"))
        return
    out.print(Text(f"{kind}: ", style="bold") + Text(values, style="bold green" if proven else "bold yellow")
              + Text(f"  ({_verdict(game, result.value)})" if proven else "", style="dim"))


def reads_as_probability(game: Any) -> bool:
    """Two players, chance, and every end a win for one and a loss for the other (a value is then 2p - 1).

    The expected utility, with a win 1 and a loss -1, is ``p - (1 - p)`` for the probability ``p`` of winning:
    such values are shown as ``p``. (Without chance a proven value is a sure win or loss, said as such.)
    """
    return bool(getattr(game, "win_loss", False)) and bool(game.has_chance) and len(game.players) == 2


def win_probability(value: float) -> float:
    """The probability of winning behind a win/loss value ``2p - 1``."""
    return (1.0 + float(value)) / 2.0


def probability_text(game: Any, value: Sequence[float]) -> str:
    """``A wins with probability 0.709424, B with 0.290576``."""
    first, second = (format_number(win_probability(v)) for v in value)
    return f"{game.players[0]} wins with probability {first}, {game.players[1]} with {second}"


def decisions_before_chance(game: Any, state: Any, line: Sequence[Any]) -> tuple[list[str], str | None]:
    """The principal variation up to its first chance node, and that node's outcomes in brief (``d=1 ... d=6``).

    An exact solver follows one outcome of each chance node, an arbitrary one: the moves after it are no more
    the line of play than those after any other outcome, so they are left out.
    """
    moves: list[str] = []
    for move in line:
        if game.to_move(state) == CHANCE:
            outcomes = [str(o) for o, _ in game.chance_outcomes(state)]
            brief = ", ".join(outcomes) if len(outcomes) <= 3 else f"{outcomes[0]} ... {outcomes[-1]}"
            return moves, brief
        moves.append(str(move))
        state = game.apply(state, move)
    return moves, None


def _verdict(game: Any, value: Sequence[float]) -> str:
    if len(game.players) == 2 and game.zero_sum:
        if abs(value[0]) <= 1e-9:
            return "a draw under perfect play"
        leader = 0 if value[0] > 0 else 1
        if game.has_chance:
            return f"{game.players[leader]} is favoured"
        return f"{game.players[leader]} wins under perfect play"
    if len(game.players) == 1:
        return "the best reachable utility"
    return "each player's utility under optimal play"
