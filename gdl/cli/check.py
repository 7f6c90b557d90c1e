"""``gdl check``: static checks of rule files, then every reachable state, or random playouts."""

from __future__ import annotations

import argparse
import contextlib
import math
import os
from pathlib import Path
from typing import Any

from rich.text import Text

from gdl.check import (
    DEFAULT_EXPLORE_STEPS,
    DEFAULT_MAX_PLIES,
    DEFAULT_MAX_STATES,
    DEFAULT_PLAYOUT_STEPS,
    DEFAULT_PLAYOUTS,
    MIN_PLAYOUTS,
    CheckReport,
    check_source,
    read_rule_file,
)
from gdl.cli.args import add_command, parse_params, seconds
from gdl.cli.backend import AGREE_PLAYOUTS, add_backend_option, compare_backends
from gdl.cli.errors import EXIT_OK, EXIT_PROBLEM, EXIT_USAGE, UsageError
from gdl.cli.output import dump_json
from gdl.cli.progress import DelayedProgress
from gdl.console import make_console, plural, print_diagnostics
from gdl.diagnostics import Diagnostic, GdlError, ParameterError, Span
from gdl.loader import GameNotFoundError, resolve

EXAMPLES = """examples:
  gdl check games/*.gdl
  gdl check bigger.gdl --max-states 2000000 --explore-steps 0   # explore every state, however long it takes
  gdl check mygame.gdl --max-states 0 --playouts 1000 --playout-steps 0 --seed 7   # exactly 1000 playouts
  gdl check longgame.gdl --max-plies 50000
  gdl check mygame.gdl --json > diagnostics.json"""


def register(sub: Any) -> None:
    p = add_command(sub, "check", "Check rule files: static checks, then every reachable state if there are not "
                                  "too many, else random playouts.", EXAMPLES)
    p.add_argument("files", nargs="+", metavar="FILE", help="rule files to check")
    p.add_argument("--playouts", type=int, default=DEFAULT_PLAYOUTS, metavar="N",
                   help=f"most random playouts per file (default {DEFAULT_PLAYOUTS}; 0 for static checks only)")
    p.add_argument("--playout-steps", type=int, default=DEFAULT_PLAYOUT_STEPS, metavar="N",
                   help=f"steps of random play per file (a ply is a step, more for a state of many cells or much "
                        f"rule work; counted, not timed: the same on any machine): the playouts stop when they are "
                        f"spent, but not before {MIN_PLAYOUTS} have finished or one reached --max-plies (default "
                        f"{DEFAULT_PLAYOUT_STEPS:,}; 0 for no limit: exactly --playouts playouts)")
    p.add_argument("--time", type=seconds, default=0.0, metavar="SECONDS",
                   help="also stop the random play after this many CPU (not wall-clock) seconds per file, as "
                        "--playout-steps does (default 0: no time limit)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the playouts (default 0)")
    p.add_argument("--max-plies", type=int, default=DEFAULT_MAX_PLIES, metavar="N",
                   help=f"a playout stops after this many plies and is reported as `no-end`, a warning "
                        f"(default {DEFAULT_MAX_PLIES})")
    p.add_argument("--max-states", type=int, default=DEFAULT_MAX_STATES, metavar="N",
                   help=f"first explore every reachable state if there are at most N (default {DEFAULT_MAX_STATES:,}"
                        "; 0 to only sample): dead ends, rule errors, end rules and moves that never apply and "
                        "endless cycles are then found for certain, with the fewest moves that reach them; a "
                        "game with more states is sampled by the random playouts")
    p.add_argument("--explore-steps", type=int, default=DEFAULT_EXPLORE_STEPS, metavar="N",
                   help=f"steps of that exploration per file (a state expanded or made is a step, more for a state "
                        f"of many cells or much rule work; counted, not timed: the same on any machine): a game "
                        f"that needs more (as soon as that is clear) is sampled instead (default "
                        f"{DEFAULT_EXPLORE_STEPS:,}; 0 for no limit: only --max-states decides)")
    p.add_argument("--explore-time", type=float, default=0.0, metavar="SECONDS",
                   help="also give up the exploration when it would take more than this many CPU (not wall-clock) "
                        "seconds per file (default 0: no time limit)")
    p.add_argument("-p", "--param", action="append", metavar="NAME=VALUE", help="set a parameter (repeatable)")
    p.add_argument("--json", action="store_true", help="print the diagnostics as a JSON list")
    add_backend_option(p)
    p.set_defaults(backend_help="with c or auto: also play the C back end against the Python one")
    p.set_defaults(run=cmd_check)


def cmd_check(args: argparse.Namespace) -> int:
    out = make_console()
    err = make_console(stderr=True)
    params = parse_params(args.param)
    if args.playouts < 0 or args.max_plies < 1 or not args.time >= 0 or args.playout_steps < 0:
        raise UsageError("--playouts must be >= 0, --max-plies >= 1, --time >= 0 and --playout-steps >= 0")
    if args.max_states < 0 or args.explore_steps < 0 or not 0 <= args.explore_time < math.inf:
        raise UsageError("--max-states and --explore-steps must be >= 0 and --explore-time a number >= 0")
    reports: list[CheckReport] = []
    backend_lines: list[str] = []
    usage_problems = 0
    total_work = len(args.files) * max(1, args.playouts)
    with DelayedProgress(err, "checking", total_work, enabled=not args.json) as progress:
        for number, name in enumerate(args.files):
            path = Path(name)
            # (os.path's exists, not Path's: a name too long for the system is just missing, not a traceback)
            if not os.path.exists(path) and "/" not in name and not name.endswith(".gdl"):
                with contextlib.suppress(GameNotFoundError):
                    path = resolve(name)  # a bundled game's name
            if not os.path.exists(path) or os.path.isdir(path):
                what = "is a directory, not a rule file" if os.path.isdir(path) else "no such file"
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

            def advance(playouts: int, done: int = done) -> None:  # the bar counts the playouts of every file
                progress.update(done + playouts)

            try:
                report = check_source(source, str(path), playouts=args.playouts, seed=args.seed,
                                      max_plies=args.max_plies, time_budget=args.time or None, params=params,
                                      progress=advance, max_states=args.max_states,
                                      explore_steps=args.explore_steps or None,
                                      explore_time=args.explore_time or None,
                                      playout_steps=args.playout_steps or None)
            except ParameterError as error:
                raise UsageError(f"{path}: {error}") from None
            if args.backend != "python" and args.playouts and not any(d.is_error for d in report.diagnostics):
                found, line = compare_backends(source, str(path), params, args.backend,
                                               AGREE_PLAYOUTS, args.seed, args.max_plies,
                                               args.time or None)
                report.diagnostics.extend(found)
                backend_lines.append(line)
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
        for line in backend_lines:
            out.print(Text(line, style="dim"))
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
    if report.stopped_by == "steps":
        return (f"sampled: exploring every state would take more than --explore-steps {args.explore_steps:,} "
                f"steps ({report.explored:,} states found)")
    if report.stopped_by == "time":
        return (f"sampled: exploring every state would take more than --explore-time {args.explore_time:g} s "
                f"({report.explored:,} states found)")
    return None  # static errors, --playouts 0 or --max-states 0: no exploration to speak of


def _check_details(reports: list[CheckReport], args: argparse.Namespace) -> list[str]:
    """The summary line's parenthesis: the playouts, then what the exhaustive pass did."""
    details = []
    playouts = sum(r.playouts for r in reports)
    ended = {reason: sum(r.out_of_budget == reason for r in reports) for reason in ("steps", "time")}
    if playouts:
        budgets = "".join(f"; the {_BUDGET_OPTION[reason]} budget ended the playouts of {plural(count, 'file')}"
                          for reason, count in ended.items() if count)
        details.append(f"{plural(playouts, 'random playout')}, {sum(r.plies for r in reports):,} plies{budgets}")
    else:  # one rule evaluation outlasted the budget
        details.extend(f"the {_BUDGET_OPTION[reason]} budget ran out during the first playout"
                       for reason, count in ended.items() if count)
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


_BUDGET_OPTION = {"steps": "--playout-steps", "time": "--time"}


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
