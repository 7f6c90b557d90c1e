"""``gdl list``: the bundled games."""

from __future__ import annotations

import argparse
from typing import Any

from rich.table import Table
from rich.text import Text

import gdl
from gdl.cli.args import add_command
from gdl.cli.errors import EXIT_OK
from gdl.cli.output import dump_json, json_value, param_text
from gdl.console import make_console, plural
from gdl.diagnostics import GdlError, RuleFileError
from gdl.loader import bundled_games

EXAMPLES = """examples:
  gdl list
  gdl list --json"""


def register(sub: Any) -> None:
    p = add_command(sub, "list", "List the bundled games with their players, parameters and a description.",
                    EXAMPLES)
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(run=cmd_list)


def cmd_list(args: argparse.Namespace) -> int:
    out = make_console()
    rows: list[dict[str, Any]] = []
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
        params = " ".join(f"{k}={param_text(v)}" for k, v in row["parameters"].items())
        description = Text(row["description"]) + (Text(" (chance)", style="dim") if row["chance"] else Text())
        table.add_row(Text(row["name"]), Text(", ".join(row["players"])), Text(params) if params
                      else Text("-", style="dim"), description)
    out.print(table)
    out.print(f"[dim]{plural(len(rows), 'game')}; `gdl info NAME` for details, `gdl solve NAME` to solve one[/]")
    return EXIT_OK
