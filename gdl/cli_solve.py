"""``gdl solve``, ``gdl play`` and ``gdl match``: the commands that run the solver suite."""

from __future__ import annotations

import argparse


def add_solve_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print exactly one JSON object")


def add_play_options(p: argparse.ArgumentParser) -> None:
    pass


def add_match_options(p: argparse.ArgumentParser) -> None:
    pass


def cmd_solve(args: argparse.Namespace) -> int:
    raise NotImplementedError


cmd_play = cmd_match = cmd_solve
