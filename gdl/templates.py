"""Starting files for ``gdl new``: small commented games that check clean and solve in a moment.

Each template is a complete rule file with ``{name}`` for the game's name; comments point into
docs/language.md. ``simultaneous`` is a matrix game where both players choose at once.
"""

from __future__ import annotations

import re

from gdl.fmt import format_source

DOC = "docs/language.md"

BOARD = """\
# {name}: a board game for two. Players take turns marking an empty cell;
# three marks in a row, column or diagonal win; a full board is a draw.
# Edit it into your game, then run `gdl check` and `gdl solve` on this file.
# The rule language: {doc} (section numbers below refer to it).

game {name} "Three in a row on a small board"  # 2.2 game and meta
param size: 3..4 = 3  # 2.3 parameters: `gdl solve FILE -p size=4`
players X, O  # 2.4 players: X moves first
board size x size  # 2.5 boards: cells a1, b1, ..., directions, lines(n)
symmetry all  # 2.5 symmetries: the solvers store one of each 8 images
state mark[cell]: player? = none  # 2.7 state: one value per cell, none at first

# 2.10 moves: a move has typed parameters and a guard; `mover` is the player to move.
move place(c: cell) when mark[c] == none:
    mark[c] = mover  # 2.11 effects; then the turn passes to the next player (2.12)

# 2.8 functions and 2.9 expressions: quantifiers over finite domains.
def lined(p: player) = any l in lines(3): all c in l: mark[c] == p

# 2.14 end rules: the first one that holds ends the game.
win p when lined(p)
draw when all c in cell: mark[c] != none

render mark: X "X", O "O", none "."  # 2.17 how `gdl play` draws the board
"""

DICE = """\
# {name}: a dice game for two (a small Pig). On your turn roll a die as often
# as you like: each roll adds to your turn's pot, but a 1 loses the pot and
# ends your turn. Hold to bank the pot. The first to reach the goal wins.
# Edit it into your game, then run `gdl check` and `gdl solve` on this file.
# The rule language: {doc} (section numbers below refer to it).

game {name} "Roll to build a pot; a 1 loses it; first to the goal wins"  # 2.2
param goal: 2..30 = 8  # 2.3 parameters: `gdl solve FILE -p goal=12`
players A, B  # 2.4 players
state score[player]: 0..goal = 0  # 2.7 state: one counter per player
state pot: 0..goal = 0

# 2.13 chance: the block runs once for each outcome d, each with probability 1/6.
move roll:
    chance d in 1..6:
        if d == 1:
            pot = 0  # the turn passes to the next player (2.12)
        else:
            pot = min(pot + d, goal)
            again  # 2.12 the same player moves again
move hold when pot > 0:  # 2.10 a guard: holding an empty pot is not a move
    score[mover] = min(score[mover] + pot, goal)
    pot = 0

win p when score[p] == goal  # 2.14 end rules
heuristic p: score[p] - score[opponent(p)]  # 2.16 for depth-limited search
"""

PUZZLE = """\
# {name}: a one-player puzzle. Two jugs hold 3 and 5 litres; fill one from the
# tap, empty one, or pour one into the other until it is full or the first is
# empty. Measure exactly `target` litres in the big jug, in as few moves as
# possible (`gdl solve` finds the shortest solution).
# Edit it into your game, then run `gdl check` and `gdl solve` on this file.
# The rule language: {doc} (section numbers below refer to it).

game {name} "Measure a quantity with two jugs"  # 2.2 game and meta
param target: 1..5 = 4  # 2.3 parameters
players Solver  # 2.4 one player: a puzzle
enum jug: small, big  # 2.6 enumerations
def capacity(j: jug) = 3 if j == small else 5  # 2.8 functions
state water[jug]: 0..5 = 0  # 2.7 state: one amount per jug

def other(j: jug) = big if j == small else small
# 2.10 moves with parameters over an enumeration, and guards.
move fill(j: jug) when water[j] < capacity(j):
    water[j] = capacity(j)
move empty(j: jug) when water[j] > 0:
    water[j] = 0
move pour(j: jug) when water[j] > 0 and water[other(j)] < capacity(other(j)):
    let amount = min(water[j], capacity(other(j)) - water[other(j)])  # 2.11 let
    water[j] -= amount
    water[other(j)] += amount

win Solver when water[big] == target  # 2.14 end rules
"""

SIMULTANEOUS = """\
# {name}: both players show a coin at once, neither seeing the other's; Even
# wins if the coins match, Odd if they differ. No pure choice is safe: the
# optimal strategy mixes heads and tails half and half (`gdl solve` prints it).
# Edit it into your game, then run `gdl check` and `gdl solve` on this file.
# The rule language: {doc} (section 2.12, simultaneous moves).

game {name} "Matching pennies: both show a coin at once"
players Even, Odd
simultaneous  # every player chooses at once, each round
enum side: heads, tails
state shown[player]: side? = none

move show(s: side) when shown[mover] == none:
    shown[mover] = s

def done = shown[Even] != none and shown[Odd] != none
win Even when done and shown[Even] == shown[Odd]
win Odd when done
"""

TEMPLATES = {"board": BOARD, "dice": DICE, "puzzle": PUZZLE, "simultaneous": SIMULTANEOUS}
NOT_YET: dict[str, str] = {}  # templates asked for that the language cannot express yet


def game_name(stem: str) -> str:
    """A game name from a file name: ``my-game`` -> ``MyGame`` (a valid rule-file name)."""
    words = [w for w in re.split(r"[^A-Za-z0-9]+", stem) if w]
    name = "".join(w[:1].upper() + w[1:] for w in words) or "MyGame"
    return name if not name[0].isdigit() else "Game" + name


def render(template: str, name: str) -> str:
    """The text of ``template`` for the game ``name``.

    :raises KeyError: an unknown template.
    """
    # The game's name changes line lengths, so the layout (aligned comments) is settled after filling it in.
    return format_source(TEMPLATES[template].format(name=name, doc=DOC))
