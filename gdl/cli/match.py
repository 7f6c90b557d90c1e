"""``gdl match``: a round robin of agents, seats rotated, through :mod:`solver.match`."""

from __future__ import annotations

import argparse
import time
from collections.abc import Hashable
from typing import Any

from rich.table import Table
from rich.text import Text

from gdl import records
from gdl.cli.agents import AGENT_HELP, choose_or_stop, make_agent
from gdl.cli.args import add_command, game_options, load_game, parse_params
from gdl.cli.backend import add_backend_option
from gdl.cli.errors import EXIT_INTERRUPTED, EXIT_OK, UsageError
from gdl.cli.output import dump_json, game_label, json_value
from gdl.cli.progress import DelayedProgress
from gdl.cli.rule_errors import rule_errors
from gdl.console import make_console
from gdl.runtime import CompiledGame
from solver import match
from solver.agents import Agent
from solver.game import CHANCE

EXAMPLES = """examples:
  gdl match tictactoe random perfect --games 20
  gdl match connect4 -p cols=5 -p rows=4 alphabeta:depth=4 mcts:iterations=500 --games 10 --json
  gdl match tictactoe random mcts alphabeta:depth=2 --games 6 --record games.json
  gdl match breakthrough alphabeta:depth=2,quiescence=4 alphabeta:depth=2 --games 200 --openings 4"""


def register(sub: Any) -> None:
    p = add_command(sub, "match", "A round robin of two or more agents, seats rotated: wins, draws, losses per agent "
                                  "and per seat, Elo with confidence intervals.", EXAMPLES)
    game_options(p)
    add_match_options(p)
    add_backend_option(p)
    p.set_defaults(run=cmd_match)


def add_match_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("agents", nargs="+", metavar="AGENT",
                   help="two or more agent specs (at least one per player): a round robin in which every group "
                        "of them plays in every order of seats. " + AGENT_HELP)
    p.add_argument("--games", type=int, default=10, metavar="N",
                   help="games in all (default 10); a multiple of the seatings (2 for two agents, 6 for three "
                        "agents in a two-player game) gives every agent every seat equally often")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--openings", type=int, default=0, metavar="N",
                   help="start every game with N random plies, the same for each seating of a round: agents "
                        "that search deterministically then meet on many positions (default 0)")
    p.add_argument("--max-moves", type=int, default=10_000, metavar="N",
                   help="stop a game after N moves and count it a draw (default 10000)")
    p.add_argument("--record", metavar="FILE.json", help="write every game (moves, chance outcomes, result) to "
                   "this record file, game by game (see docs/records.md; `gdl replay FILE` shows one)")
    p.add_argument("--json", action="store_true", help="print one JSON object (with every game's moves)")


def cmd_match(args: argparse.Namespace) -> int:
    out = make_console()
    err = make_console(stderr=True)
    game = load_game(args.game, parse_params(args.param), backend=args.backend)
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.max_moves < 1:
        raise UsageError("--max-moves must be at least 1")
    if args.openings < 0:
        raise UsageError("--openings must not be negative")
    try:
        seatings = match.schedule(len(args.agents), len(game.players))
    except ValueError as error:
        raise UsageError(f"{game_label(game)}: {error}") from None
    agents = [_Seat(make_agent(spec, game, args.seed + i)) for i, spec in enumerate(args.agents)]
    record = None
    if args.record:
        try:
            records.check_writable(args.record)
        except records.RecordError as error:
            raise UsageError(str(error)) from None
        record = records.new_record(game, args.game, args.param, args.seed, "match")
    labels = match.unique_labels([agent.name for agent in agents])
    started = time.perf_counter()
    with rule_errors(game), DelayedProgress(err, "match", args.games, enabled=not args.json) as progress:

        def after(number: int, played: match.GameRecord) -> None:
            if record is not None:
                seats = {game.players[s]: labels[a] for s, a in enumerate(played.seats)}
                utilities = played.utilities if played.end is match.GameEnd.MAX_MOVES else None
                record["games"].append(records.game_entry(game, played.moves, seats, played.end.value, utilities))
                try:
                    records.write_record(record, args.record)
                except OSError as error:  # a full disk mid-match: stop with a one-line error
                    raise UsageError(f"--record: cannot write {args.record!r}: {error.strerror or error}") from None
                except records.RecordError as error:  # a FIFO put at the path since the check before the match
                    raise UsageError(str(error)) from None
            progress.update(number + 1)

        result = match.play_match(game, agents, args.games, seed=args.seed, max_moves=args.max_moves,
                                  on_game=after, openings=args.openings)
    summary = _summary(game, args, result, labels, len(seatings), time.perf_counter() - started)
    if args.json:
        print(dump_json(summary))
    else:
        _print_table(out, game, args, result, labels, len(seatings))
    if result.stop is match.MatchStop.INTERRUPTED:  # said on stderr as for any interrupted command
        err.print(Text("interrupted", style="yellow"))
        return EXIT_INTERRUPTED
    return EXIT_OK


class _Seat:
    """An agent in ``gdl match`` whose Ctrl-C stops the match, even when its search caught it."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.seconds = agent.seconds

    def choose(self, state: Any) -> Hashable:
        return choose_or_stop(self.agent, state)

    def choose_for(self, state: Any, player: int) -> Hashable:
        """At a simultaneous move: this seat's own move (solver.simagents)."""
        return self.agent.choose_for(state, player)  # type: ignore[attr-defined]


def _rating(record: match.AgentRecord) -> dict[str, Any]:
    score, low, high = match.score_interval(record)
    rating, elo_low, elo_high = match.elo_interval(record)
    return {"games": record.games, "score": score, "score_ci95": [low, high], "elo": round(rating, 1),
            "elo_ci95": [round(elo_low, 1), round(elo_high, 1)]}


def _summary(game: CompiledGame, args: argparse.Namespace, result: match.MatchResult, labels: list[str], seatings: int,
             seconds: float) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "game": game.name,
        "parameters": {k: json_value(v) for k, v in game.parameters.items()},
        "agents": labels,
        "games": args.games,
        "games_played": sum(1 for g in result.games if g.scored),
        "seatings": seatings,
        "seed": args.seed,
        "openings": args.openings,
        "stop": result.stop.value,
        "results": {r.agent: {"wins": r.wins, "draws": r.draws, "losses": r.losses,
                              "points": r.wins + 0.5 * r.draws} for r in result.records},
        "by_seat": {r.agent: {game.players[s]: dict(zip(("wins", "draws", "losses"), wdl, strict=True))
                              for s, wdl in enumerate(r.by_seat)} for r in result.records},
        "ratings": {r.agent: _rating(r) for r in result.records},
        "head_to_head": [{"agent": labels[i], "opponent": labels[j], "wins": w, "draws": d, "losses": lo}
                         for (i, j), (w, d, lo) in sorted(match.head_to_head(result).items())],
        "seconds": round(seconds, 3),
        "game_log": [{"seats": {game.players[s]: labels[a] for s, a in enumerate(g.seats)},
                      "utilities": [json_value(u) for u in g.utilities] if g.scored else None,
                      "end": g.end.value, "plies": len(g.moves), "moves": list(g.moves),
                      "chance": [i for i, m in enumerate(g.movers) if m == CHANCE]}
                     for g in result.games],
    }
    if len(labels) == 2:  # the first agent's score and Elo are the difference between the two
        first = summary["ratings"][labels[0]]
        summary.update(score=first["score"], score_ci95=first["score_ci95"], elo=first["elo"],
                       elo_ci95=first["elo_ci95"])
    return summary


def _wdl(wdl: tuple[int, int, int]) -> str:
    return "-".join(map(str, wdl))


def _print_table(out: Any, game: CompiledGame, args: argparse.Namespace, result: match.MatchResult, labels: list[str],
                 seatings: int) -> None:
    played = sum(1 for g in result.games if g.scored)
    title = (f"{game_label(game)}: {played} games, round robin of {len(labels)} agents, seats rotated, "
             f"seed {args.seed}" + (f", {args.openings} random opening plies" if args.openings else ""))
    table = Table(title=title, header_style="bold", title_style="bold")
    table.add_column("agent", no_wrap=True)
    for column in ("W-D-L", "score", "95% CI", "Elo", "Elo 95% CI", *(f"as {p}" for p in game.players)):
        table.add_column(column, justify="right", no_wrap=True)
    for record in result.records:
        score, low, high = match.score_interval(record)
        rating, elo_low, elo_high = match.elo_interval(record)
        table.add_row(Text(record.agent, style="bold cyan"), _wdl((record.wins, record.draws, record.losses)),
                      f"{100 * score:.0f}%", f"{100 * low:.0f}-{100 * high:.0f}%", f"{rating:+.0f}",
                      f"{elo_low:+.0f}..{elo_high:+.0f}", *(_wdl(wdl) for wdl in record.by_seat))
    out.print(table)
    pairs = match.head_to_head(result)
    if len(labels) > 2 and pairs:
        grid = Table(title="head to head: the row's W-D-L against the column", header_style="bold",
                     title_style="bold")
        grid.add_column("")
        for label in labels:
            grid.add_column(Text(label), justify="right", no_wrap=True)
        for i, label in enumerate(labels):
            cells = ["" if i == j else _wdl(pairs[i, j]) if (i, j) in pairs else "-" for j in range(len(labels))]
            grid.add_row(Text(label, style="bold cyan"), *cells)
        out.print(grid)
    if len(labels) == 2:
        first = result.records[0]
        rating, elo_low, elo_high = match.elo_interval(first)
        out.print(Text(f"Elo difference ({labels[0]} - {labels[1]}): {rating:+.0f} ")
                  + Text(f"(95% CI {elo_low:+.0f}..{elo_high:+.0f})", style="dim"))  # labels are user text
    notes = ["W-D-L: wins, draws, losses; `as P`: the same when seated as player P; Elo: against the agents met"]
    if any(r.games and r.score in (0.0, 1.0) for r in result.records):
        notes.append("a clean sweep counts as if one more game had been drawn: read its Elo as 'at least'")
    if played % seatings:
        notes.append(f"{played} games is not a multiple of the {seatings} seatings: seats are not balanced")
    truncated = sum(1 for g in result.games if g.truncated)
    if truncated:
        notes.append(f"{truncated} game(s) stopped at --max-moves {args.max_moves} and counted as draws")
    if result.stop is match.MatchStop.INTERRUPTED:
        notes.append(f"interrupted: {played} of {args.games} games played")
    for note in notes:
        out.print(Text(note, style="dim"))
