"""The ``gdl`` command: check, list, describe, solve and play games written as rule files.

Exit status, for every command: 0 on success, 1 when the work finds a problem
(a rule file with errors), 2 on a usage error (unknown game, bad option or
parameter, a move that does not exist), 130 when interrupted. User mistakes
never print a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import numbers
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any, NoReturn

from rich.table import Table
from rich.text import Text

import gdl
from gdl.check import (
    DEFAULT_EXPLORE_TIME,
    DEFAULT_MAX_PLIES,
    DEFAULT_MAX_STATES,
    DEFAULT_PLAYOUTS,
    DEFAULT_TIME_BUDGET,
    MIN_PLAYOUTS,
    CheckReport,
    check_source,
    read_rule_file,
    split_moves,
)
from gdl.console import (
    format_number,
    make_console,
    plural,
    print_diagnostics,
)
from gdl.diagnostics import Diagnostic, GdlError, ParameterError, RuleFileError, Span, visible
from gdl.loader import GameNotFoundError, bundled_games, resolve
from gdl.moves import match_move
from solver.game import CHANCE, TERMINAL, DeadEndError, MoveError

EXIT_OK = 0
EXIT_PROBLEM = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A mistake in the command line: exit status 2, one line on stderr."""


class Problem(Exception):
    """The work found a problem (a rule file with errors): exit status 1."""

    def __init__(self, message: str = "", diagnostics: Sequence[Diagnostic] = (), source: str | None = None,
                 moves: Sequence[str] | None = None):
        super().__init__(message)
        self.message = message
        self.diagnostics = list(diagnostics)
        self.source = source
        self.moves = None if moves is None else list(moves)
        """The moves that reach the problem, when it happens in play and they are known."""


SCHEMA_VERSION = 1
"""The version of every ``--json`` output's layout (docs/json.md); raised when a field changes meaning."""


def dump_json(data: Any, indent: int | None = None) -> str:
    """Strict JSON: ``schema_version`` first, and no ``Infinity`` or ``NaN`` (a ``ValueError`` if one slips in)."""
    if isinstance(data, dict):
        data = {"schema_version": SCHEMA_VERSION, **data}
    return json.dumps(data, indent=indent, allow_nan=False)


def error_json(code: str, message: str, problem: Problem | None = None) -> str:
    """The one object a ``--json`` command prints on failure: ``{"schema_version": 1, "error": {...}}``."""
    error: dict[str, Any] = {"code": code, "message": message}
    if problem is not None:
        first = next((d for d in problem.diagnostics if d.is_error), None)
        if first is not None:  # its code, message and place
            error.update({k: v for k, v in first.to_json().items() if k != "severity"})
        error["moves"] = problem.moves
        error["diagnostics"] = [d.to_json() for d in problem.diagnostics]
    return dump_json({"error": error})


# ================================================================== helpers


def parse_params(pairs: Sequence[str] | None) -> dict[str, str]:
    """``["rows=4", "cols=5"]`` -> ``{"rows": "4", "cols": "5"}``.

    :raises UsageError: a pair without ``=`` or with an empty name.
    """
    params: dict[str, str] = {}
    for pair in pairs or ():
        name, sep, value = pair.partition("=")
        name = name.strip()
        if not sep or not name or not value.strip():
            raise UsageError(f"-p takes name=value, not {pair!r}")
        params[name] = value.strip()
    return params


def finite_number(text: str) -> float:
    """argparse type: a finite number; ``inf``, ``nan`` and ``1e999`` are refused (exit 2, one line)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def seconds(text: str) -> float:
    """argparse type: a finite number of seconds, at least 0."""
    value = finite_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative; give seconds >= 0")
    return value


def load_game(spec: str, params: dict[str, str], checked: bool = False, symmetry: bool = True) -> gdl.CompiledGame:
    """Load a game by path or bundled name.

    :raises UsageError: no such game, a bad parameter, an unreadable file.
    :raises Problem: the rule file has errors.
    """
    try:
        path = resolve(spec)
    except GameNotFoundError as error:
        raise UsageError(str(error)) from None
    try:
        source = read_rule_file(path)
    except GdlError as error:
        raise UsageError(str(error)) from None
    try:
        game = gdl.load_source(source, str(path), params, checked, symmetry)
        game.verify_symmetry()  # now, so that a broken symmetry is a load error
        return game
    except ParameterError as error:
        raise UsageError(str(error)) from None
    except RuleFileError as error:
        errors = [d for d in error.diagnostics if d.is_error]
        raise Problem(f"{path}: {plural(len(errors), 'error')}; run `gdl check {path}` for the details",
                      error.diagnostics, source) from None
    except Exception as error:  # a rule failed while the initial state was built (setup)
        from gdl.check import compile_checked

        _, diagnostics = compile_checked(source, str(path), params)
        if not any(d.is_error for d in diagnostics):
            raise error
        raise Problem("", [d for d in diagnostics if d.is_error], source) from None


def replay(game: Any, moves_text: str | None) -> tuple[Any, list[str]]:
    """The state after ``--moves m1,m2,...`` and the move names as played.

    :raises UsageError: a move that does not exist or is not legal where it is played.
    """
    from gdl.cli_errors import rule_errors

    state = game.initial_state()
    played: list[str] = []
    names = split_moves(moves_text or "")
    if moves_text and moves_text.startswith("@"):  # the moves of a game record (docs/records.md)
        from gdl.records import RecordError, moves_argument

        try:
            names = moves_argument(moves_text[1:], game)
        except RecordError as error:
            raise UsageError(f"--moves: {error}") from None
    with rule_errors(game, line=lambda: played):  # a rule that fails on the way: the moves so far reach it
        for index, name in enumerate(names):
            if game.to_move(state) == TERMINAL:
                raise UsageError(f"--moves: the game is over after {index} moves; {name!r} cannot be played")
            try:
                move = match_move(game, state, name)  # as the prompt reads it: `b2`, `D`, `drop(d)`
            except MoveError as error:
                raise UsageError(f"--moves: move {index + 1}: {error}") from None
            played.append(str(move))  # before applying it: a rule failing in the move is reached by it
            state = game.apply(state, move)
    return state, played


def game_label(game: Any) -> str:
    params = getattr(game, "parameters", {}) or {}
    if not params:
        return game.name
    return f"{game.name}(" + ", ".join(f"{k}={_param_text(v)}" for k, v in params.items()) + ")"


def _param_text(value: Any) -> str:
    if isinstance(value, tuple | list):
        return "[" + ",".join(map(str, value)) + "]"
    return str(value)


def json_value(value: Any) -> Any:
    """Parameters and utilities as plain JSON (tuples become lists, whole floats stay floats)."""
    if isinstance(value, tuple | list):
        return [json_value(v) for v in value]
    if isinstance(value, numbers.Rational) and not isinstance(value, int):
        value = float(value)  # a Fraction utility or parameter: JSON has no fractions
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Fraction):  # numbers are one kind in JSON: a fraction is a float
        return float(value)
    return value


class DelayedProgress:
    """A rich progress bar that appears only on a terminal and only after ``delay`` seconds.

    Use as a context manager; call :meth:`update` with the work done so far.
    """

    def __init__(self, console: Any, description: str, total: float | None, delay: float = 1.0,
                 enabled: bool = True) -> None:
        self.console = console
        self.description = description
        self.total = total
        self.delay = delay
        self.enabled = enabled and console.is_terminal
        self.start = time.monotonic()
        self.progress: Any = None
        self.task: Any = None

    def __enter__(self) -> DelayedProgress:
        return self

    def update(self, completed: float, **fields: Any) -> None:
        if not self.enabled:
            return
        if self.progress is None:
            if time.monotonic() - self.start < self.delay:
                return
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                     TimeElapsedColumn(), console=self.console, transient=True)
            self.progress.start()
            self.task = self.progress.add_task(self.description, total=self.total)
        self.progress.update(self.task, completed=completed, **fields)

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()


# ================================================================== check


def cmd_check(args: argparse.Namespace) -> int:
    out = make_console()
    err = make_console(stderr=True)
    params = parse_params(args.param)
    if args.playouts < 0 or args.max_plies < 1 or not args.time >= 0:
        raise UsageError("--playouts must be >= 0, --max-plies >= 1 and --time >= 0")
    if args.max_states < 0 or not 0 <= args.explore_time < math.inf:
        raise UsageError("--max-states must be >= 0 and --explore-time a number >= 0")
    reports: list[CheckReport] = []
    usage_problems = 0
    total_work = len(args.files) * max(1, args.playouts)
    with DelayedProgress(err, "checking", total_work, enabled=not args.json) as progress:
        for number, name in enumerate(args.files):
            path = Path(name)
            if not path.exists() and "/" not in name and not name.endswith(".gdl"):
                with contextlib.suppress(GameNotFoundError):
                    path = resolve(name)  # a bundled game's name
            if not path.exists() or path.is_dir():
                what = "is a directory, not a rule file" if path.is_dir() else "no such file"
                err.print(Text("error", style="bold red") + Text(f": {name}: {what}"))
                usage_problems += 1
                continue
            try:
                source = read_rule_file(path)
            except GdlError as error:
                report = CheckReport(str(path), None, [_file_diagnostic(str(path), str(error))])
                reports.append(report)
                continue
            done = number * max(1, args.playouts)
            try:
                report = check_source(source, str(path), playouts=args.playouts, seed=args.seed,
                                      max_plies=args.max_plies, time_budget=args.time or None, params=params,
                                      progress=lambda i, done=done: progress.update(done + i),
                                      max_states=args.max_states, explore_time=args.explore_time or None)
            except ParameterError as error:
                raise UsageError(f"{path}: {error}") from None
            reports.append(report)
    if not reports and usage_problems:  # nothing was checked: the errors above are all there is to say
        return EXIT_USAGE
    diagnostics = [d for report in reports for d in report.diagnostics]
    errors = sum(d.is_error for d in diagnostics)
    warnings = sum(d.severity == "warning" for d in diagnostics)  # an info (endless-cycle) is neither
    if args.json:
        print(dump_json({"files": len(reports), "errors": errors, "warnings": warnings,
                         "diagnostics": [d.to_json() for d in diagnostics]}, indent=2))
    else:
        for report in reports:
            print_diagnostics(out, report.diagnostics, report.source)
        if len(reports) > 1:  # which files were proven and which sampled
            for report in reports:
                how = _exploration_text(report, args)
                if how:
                    out.print(Text(f"{report.file}: {how}", style="dim"))
        checked = len(reports)
        style = "bold red" if errors else "bold yellow" if warnings else "bold green"
        summary = Text(f"{plural(checked, 'file')} checked: ", style="bold")
        summary.append(f"{plural(errors, 'error')}, {plural(warnings, 'warning')}", style=style)
        details = _check_details(reports, args)
        if details:
            summary.append(f" ({'; '.join(details)})", style="dim")
        out.print(summary)
    if usage_problems:
        return EXIT_USAGE
    return EXIT_PROBLEM if errors else EXIT_OK


def _exploration_text(report: CheckReport, args: argparse.Namespace) -> str | None:
    """How the exhaustive pass went for one file: explored everything, or why it sampled."""
    if report.complete:
        return f"explored all {report.explored:,} states"
    if report.stopped_by == "states":
        return f"sampled: more than {args.max_states:,} reachable states (--max-states)"
    if report.stopped_by == "time":
        return (f"sampled: exploring every state would take more than --explore-time {args.explore_time:g} s "
                f"({report.explored:,} states found)")
    return None  # static errors, --playouts 0 or --max-states 0: no exploration to speak of


def _check_details(reports: list[CheckReport], args: argparse.Namespace) -> list[str]:
    """The summary line's parenthesis: the playouts, then what the exhaustive pass did."""
    details = []
    playouts = sum(r.playouts for r in reports)
    if playouts:
        timed_out = sum(r.out_of_time for r in reports)
        budget = f"; the --time budget ended the playouts of {plural(timed_out, 'file')}" if timed_out else ""
        details.append(f"{plural(playouts, 'random playout')}, {sum(r.plies for r in reports):,} plies{budget}")
    elif any(r.out_of_time for r in reports):  # one rule evaluation outlasted the budget
        details.append("the --time budget ran out during the first playout")
    if len(reports) == 1:
        how = _exploration_text(reports[0], args)
        if how:
            details.append(how)
    else:
        proven = [r for r in reports if r.complete]
        if proven:
            details.append(f"{len(proven)} of {plural(len(reports), 'file')} explored in full, "
                           f"{sum(r.explored for r in proven):,} states")
    return details


def _file_diagnostic(file: str, message: str) -> Diagnostic:
    """A one-line file problem (not UTF-8, binary, unreadable) as an error diagnostic."""
    line = 1
    prefix = f"{file}:"
    text = message[len(prefix):].lstrip() if message.startswith(prefix) else message
    head, _, rest = text.partition(": ")
    if head.isdigit() and rest:
        line, text = int(head), rest
    code = "encoding" if "UTF-8" in text else "unreadable"
    return Diagnostic("error", code, text, Span(line, 1, line, 2), file)


# ================================================================== list


def cmd_list(args: argparse.Namespace) -> int:
    out = make_console()
    rows = []
    for path in bundled_games():
        try:
            game = gdl.load(str(path))
        except (RuleFileError, GdlError) as error:
            rows.append({"name": path.stem, "error": str(error).splitlines()[0]})
            continue
        rows.append({
            "name": path.stem,
            "title": game.name,
            "players": list(game.players),
            "parameters": {k: json_value(v) for k, v in game.parameters.items()},
            "chance": game.has_chance,
            "description": game.description,
        })
    if args.json:
        print(dump_json({"games": rows}, indent=2))
        return EXIT_OK
    table = Table(title="Bundled games", title_style="bold", header_style="bold")
    table.add_column("name", style="bold cyan", no_wrap=True)
    table.add_column("players")
    table.add_column("parameters")
    table.add_column("description")
    for row in rows:
        if "error" in row:
            table.add_row(row["name"], "", "", Text(row["error"], style="red"))
            continue
        params = " ".join(f"{k}={_param_text(v)}" for k, v in row["parameters"].items())
        description = Text(row["description"]) + (Text(" (chance)", style="dim") if row["chance"] else Text())
        table.add_row(Text(row["name"]), Text(", ".join(row["players"])), Text(params) if params
                      else Text("-", style="dim"), description)
    out.print(table)
    out.print(f"[dim]{plural(len(rows), 'game')}; `gdl info NAME` for details, `gdl solve NAME` to solve one[/]")
    return EXIT_OK


# ================================================================== info


def playout_statistics(game: Any, playouts: int, seed: int | None, max_plies: int = 10_000,
                       progress: Callable[[int], None] | None = None,
                       deadline: float | None = None) -> dict[str, Any]:
    """Branching factor, game length and results of random playouts."""
    rng = random.Random(seed)
    lengths: list[int] = []
    branching: list[int] = []
    chance_nodes = 0
    endings: dict[str, int] = {}
    unfinished = 0
    for number in range(playouts):
        if deadline is not None and time.monotonic() > deadline:
            break
        state = game.initial_state()
        plies = 0
        line: list[Any] = []  # this playout's moves: the line to a dead end
        while True:
            player = game.to_move(state)
            if player == TERMINAL:
                ending = game.describe_end(state) if hasattr(game, "describe_end") else "game over"
                endings[ending] = endings.get(ending, 0) + 1
                lengths.append(plies)
                break
            if plies >= max_plies:
                unfinished += 1
                break
            if player == CHANCE:
                chance_nodes += 1
                outcomes = game.chance_outcomes(state)
                moves = [o for o, _ in outcomes]
                move = rng.choices(moves, [p for _, p in outcomes])[0] if moves else None
            else:
                moves = game.legal_moves(state)
                branching.append(len(moves))
                move = rng.choice(moves) if moves else None
            if move is None:  # a dead end: a bug in the rules, reported with the line that reached it
                raise DeadEndError(state, player, game.players[player] if player >= 0 else "", line)
            line.append(move)
            state = game.apply(state, move)
            plies += 1
        if progress is not None:
            progress(number + 1)
    return {
        "playouts": len(lengths) + unfinished,
        "finished": len(lengths),
        "mean_length": statistics.fmean(lengths) if lengths else None,
        "min_length": min(lengths) if lengths else None,
        "max_length": max(lengths) if lengths else None,
        "mean_branching": statistics.fmean(branching) if branching else None,
        "max_branching": max(branching) if branching else None,
        "chance_nodes_per_game": chance_nodes / max(1, len(lengths) + unfinished),
        "endings": dict(sorted(endings.items(), key=lambda item: -item[1])),
    }


def state_space(game: Any) -> dict[str, Any]:
    """Slots in the state tuple and an upper bound on distinct encodings (from the variables' domains)."""
    program = getattr(game, "program", None)
    slots = len(game.initial_state()) if isinstance(game.initial_state(), tuple) else None
    if program is None:
        return {"slots": slots}
    log10 = 0.0
    variables = []
    for var in program.state_vars:
        domain = max(1, var.hi - var.lo + 1)
        log10 += var.size * math.log10(domain)
        shape = "x".join(str(size) for _, size in var.dims)
        variables.append(f"{var.name}[{shape}]" if shape else var.name)
    return {"slots": slots, "variables": variables, "log10_encodings": log10}


def cmd_info(args: argparse.Namespace) -> int:
    out = make_console()
    err = make_console(stderr=True)
    game = load_game(args.game, parse_params(args.param))
    if args.playouts < 0:
        raise UsageError("--playouts must be >= 0")
    from gdl.cli_errors import rule_errors

    with rule_errors(game), DelayedProgress(err, "random playouts", args.playouts, enabled=not args.json) as progress:
        stats = playout_statistics(game, args.playouts, args.seed, progress=progress.update,
                                   deadline=time.monotonic() + args.time if args.time else None)
    space = state_space(game)
    meta = dict(getattr(game, "meta", {}) or {})
    from gdl.cli_solve import reads_as_probability  # (cli_solve imports this module)

    info = {
        "game": game.name,
        "file": getattr(game, "filename", None),
        "description": getattr(game, "description", ""),
        "players": list(game.players),
        "parameters": {k: json_value(v) for k, v in game.parameters.items()},
        "moves": list(getattr(getattr(game, "program", None), "move_actions", [])),
        "state": space,
        "chance": game.has_chance,
        "zero_sum": game.zero_sum,
        "symmetries": 1 + len(getattr(game, "symmetries", ())),
        "utility_bounds": json_value(list(game.utility_bounds)) if game.utility_bounds else None,
        "heuristic": bool(getattr(game, "has_heuristic", False)),
        "values_as_probabilities": reads_as_probability(game),
        "known_value": meta.get("value"),
        "meta": meta,
        "random_playouts": stats,
    }
    if args.json:
        print(dump_json(info, indent=2))
        return EXIT_OK
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    table.add_row("game", Text(game_label(game), style="bold") + Text(f"  {info['description']}"))
    table.add_row("file", Text(str(info["file"])))  # user text is Text: never parsed as markup
    table.add_row("players", Text(", ".join(game.players)))
    params = " ".join(f"{k}={_param_text(v)}" for k, v in game.parameters.items())
    table.add_row("parameters", Text(params or "none"))
    if info["moves"]:
        table.add_row("moves", Text(", ".join(info["moves"])))
    state_desc = f"{space['slots']} slots"
    if "variables" in space:
        state_desc += f" ({', '.join(space['variables'])})"
        state_desc += f"; at most {_big(space['log10_encodings'])} encodings"
    table.add_row("state", Text(state_desc))
    if info["symmetries"] > 1:
        table.add_row("symmetry", f"{info['symmetries']} images of each position share one key "
                                  f"({', '.join(game.program.symmetries)})")
    table.add_row("chance", "yes" if game.has_chance else "no")
    table.add_row("zero-sum", "yes" if game.zero_sum else "no")
    if game.utility_bounds:
        table.add_row("utilities", f"{format_number(game.utility_bounds[0])}..{format_number(game.utility_bounds[1])}")
    table.add_row("heuristic", "yes" if info["heuristic"] else "no")
    if info["values_as_probabilities"]:
        table.add_row("values", "win or loss only: solve and hint show win probabilities p (a value is 2p - 1)")
    table.add_row("known value", Text(meta["value"]) if meta.get("value")
                  else Text("not declared (meta value = ...)", style="dim"))
    for key, value in meta.items():
        if key != "value":
            table.add_row(Text(key), Text(value))
    if stats["playouts"]:
        table.add_row("playouts", f"{stats['playouts']} random games (seed {args.seed})")
        if stats["mean_branching"] is not None:
            table.add_row("branching", f"{stats['mean_branching']:.2f} moves on average (at most "
                          f"{stats['max_branching']})")
        if stats["mean_length"] is not None:
            table.add_row("length", f"{stats['mean_length']:.1f} plies on average "
                          f"({stats['min_length']}..{stats['max_length']})")
        if game.has_chance:
            table.add_row("chance nodes", f"{stats['chance_nodes_per_game']:.1f} per game")
        total = sum(stats["endings"].values())
        if total:
            table.add_row("random play", ", ".join(f"{ending} {100 * count / total:.0f}%"
                                                    for ending, count in stats["endings"].items()))
        if stats["finished"] < stats["playouts"]:
            table.add_row("unfinished", Text(f"{stats['playouts'] - stats['finished']} playouts did not end",
                                             style="yellow"))
    out.print(table)
    return EXIT_OK


def _big(log10: float) -> str:
    if log10 < 15:
        return f"{round(10 ** log10):,}"
    return f"10^{log10:.1f}"


# ================================================================== parser


EXAMPLES = {
    "check": """examples:
  gdl check games/*.gdl
  gdl check bigger.gdl --max-states 2000000 --explore-time 0   # explore every state, however long it takes
  gdl check mygame.gdl --max-states 0 --playouts 1000 --time 0 --seed 7   # exactly 1000 playouts
  gdl check longgame.gdl --max-plies 50000
  gdl check mygame.gdl --json > diagnostics.json""",
    "list": """examples:
  gdl list
  gdl list --json""",
    "info": """examples:
  gdl info tictactoe
  gdl info connect4 -p cols=5 -p rows=4 --playouts 500""",
    "solve": """examples:
  gdl solve tictactoe
  gdl solve connect4 -p cols=4 -p rows=4 --json
  gdl solve tictactoe --moves 'place(b2),place(a1)'
  gdl solve connect4 --depth 8            # heuristic search, not exact
  gdl solve pig -p goal=10 --save pig10.sqlite""",
    "play": """examples:
  gdl play tictactoe                      # you play X against the perfect player
  gdl play connect4 --vs alphabeta:depth=6 --as Yellow
  gdl play pig --vs mcts:iterations=2000
  gdl play tictactoe --as none --vs random --vs perfect   # watch two agents""",
    "match": """examples:
  gdl match tictactoe random perfect --games 20
  gdl match connect4 -p cols=5 -p rows=4 alphabeta:depth=4 mcts:iterations=500 --games 10 --json
  gdl match tictactoe random mcts alphabeta:depth=2 --games 6 --record games.json""",
    "replay": """examples:
  gdl replay games.json
  gdl replay games.json --game 3
  gdl solve tictactoe --moves @games.json:4""",
}


class _Parser(argparse.ArgumentParser):
    """argparse with our exit status (2) and a one-line error."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {visible(message)}\n")  # it may quote the command line
        raise SystemExit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="gdl",
        description="Games as declarative rule files: check, describe, solve and play them.",
        epilog="examples:\n  gdl list\n  gdl check games/*.gdl\n  gdl solve tictactoe\n  gdl play tictactoe\n\n"
               "Run `gdl COMMAND --help` for a command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"gdl {gdl.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help_text, description=help_text, epilog=EXAMPLES[name],
                              formatter_class=argparse.RawDescriptionHelpFormatter)

    def game_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("game", metavar="GAME", help="a rule file, or the name of a bundled game (see `gdl list`)")
        p.add_argument("-p", "--param", action="append", metavar="NAME=VALUE",
                       help="set a parameter of the game (repeatable)")

    p = command("check", "Check rule files: static checks, then every reachable state if there are not too many, "
                         "else random playouts.")
    p.add_argument("files", nargs="+", metavar="FILE", help="rule files to check")
    p.add_argument("--playouts", type=int, default=DEFAULT_PLAYOUTS, metavar="N",
                   help=f"most random playouts per file (default {DEFAULT_PLAYOUTS}; 0 for static checks only)")
    p.add_argument("--time", type=seconds, default=DEFAULT_TIME_BUDGET, metavar="SECONDS",
                   help=f"CPU (not wall-clock) seconds of random play per file: the playouts stop when they are "
                        f"spent, but not "
                        f"before {MIN_PLAYOUTS} have finished or one reached --max-plies (default "
                        f"{DEFAULT_TIME_BUDGET:g}; 0 for no limit: exactly --playouts playouts on any machine)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the playouts (default 0)")
    p.add_argument("--max-plies", type=int, default=DEFAULT_MAX_PLIES, metavar="N",
                   help=f"a playout stops after this many plies and is reported as `no-end`, a warning "
                        f"(default {DEFAULT_MAX_PLIES})")
    p.add_argument("--max-states", type=int, default=DEFAULT_MAX_STATES, metavar="N",
                   help=f"first explore every reachable state if there are at most N (default {DEFAULT_MAX_STATES:,}"
                        "; 0 to only sample): dead ends, rule errors, end rules and moves that never apply and "
                        "endless cycles are then found for certain, with the fewest moves that reach them; a "
                        "game with more states is sampled by the random playouts")
    p.add_argument("--explore-time", type=float, default=DEFAULT_EXPLORE_TIME, metavar="SECONDS",
                   help=f"CPU seconds of that exploration per file: a game that needs more (as soon as that is "
                        f"clear) is sampled instead (default {DEFAULT_EXPLORE_TIME:g}; 0 for no limit: only "
                        "--max-states decides, the same on any machine)")
    p.add_argument("-p", "--param", action="append", metavar="NAME=VALUE", help="set a parameter (repeatable)")
    p.add_argument("--json", action="store_true", help="print the diagnostics as a JSON list")
    p.set_defaults(run=cmd_check)

    p = command("list", "List the bundled games with their players, parameters and a description.")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(run=cmd_list)

    p = command("info", "Describe a game: players, parameters, state size, branching factor, length, value.")
    game_options(p)
    p.add_argument("--playouts", type=int, default=200, metavar="N", help="random playouts for the statistics")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--time", type=seconds, default=10.0, metavar="SECONDS",
                   help="wall-clock seconds of playouts: they stop after this long (default 10). Unlike "
                        "`gdl check --time`, which counts CPU seconds so that its verdict does not depend on "
                        "how busy the machine is")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_info)

    from gdl import cli_solve

    p = command("solve", "Solve a game: the value under optimal play, the best moves, the principal variation.")
    game_options(p)
    cli_solve.add_solve_options(p)
    p.set_defaults(run=cli_solve.cmd_solve)

    p = command("play", "Play a game in the terminal against an agent, or watch agents play each other.")
    game_options(p)
    cli_solve.add_play_options(p)
    p.set_defaults(run=cli_solve.cmd_play)

    from gdl import cli_match

    p = command("match", "A round robin of two or more agents, seats rotated: wins, draws, losses per agent and "
                         "per seat, Elo with confidence intervals.")
    game_options(p)
    cli_match.add_match_options(p)
    p.set_defaults(run=cli_match.cmd_match)

    p = command("replay", "Step through a game record written by `play --record` or `match --record`.")
    cli_match.add_replay_options(p)
    p.set_defaults(run=cli_match.cmd_replay)

    from gdl import cli_book

    cli_book.add_command(sub)

    from gdl import cli_editor  # fmt, new, show, lsp

    cli_editor.add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``gdl`` command; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0) if not isinstance(exit_.code, str) else EXIT_USAGE
    if getattr(args, "run", None) is None:
        parser.print_help()
        return EXIT_USAGE
    err = make_console(stderr=True)
    try:
        status = args.run(args)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return status
    except UsageError as error:
        err.print(Text(f"gdl {args.command}: error: ", style="bold red") + Text(str(error)))
        if getattr(args, "json", False):
            print(error_json("usage", str(error)))
        return EXIT_USAGE
    except Problem as problem:
        if problem.diagnostics:
            print_diagnostics(err, problem.diagnostics, problem.source)
        if problem.message:
            err.print(Text("error: ", style="bold red") + Text(problem.message))
        if getattr(args, "json", False):
            first = next((d for d in problem.diagnostics if d.is_error), None)
            print(error_json(first.code if first else "problem", problem.message, problem))
        return EXIT_PROBLEM
    except KeyboardInterrupt:
        err.print("[yellow]interrupted[/]")
        if getattr(args, "json", False):
            print(error_json("interrupted", "interrupted (Ctrl-C) before the command finished"))
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (`gdl list | head`): nothing more to say
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    # `python -m gdl.cli` would load this module twice (as __main__ and as gdl.cli), so that
    # errors raised by the second copy would not be caught here: run the package's copy.
    from gdl.cli import main as package_main

    sys.exit(package_main())
