"""Every construct of the rule language, each in a small rule file whose behaviour is checked.

Behaviour means what a solver sees: legal move names, the state after moves
(``game.values``), chance outcomes and probabilities, utilities, whose turn it is.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import gdl
from solver.game import CHANCE, TERMINAL, IllegalMoveError, UnknownMoveError, play_moves


def load(source: str, **params: str) -> gdl.CompiledGame:
    return gdl.load_source(source, "test.gdl", params or None)


def names(moves: object) -> list[str]:
    return [str(m) for m in moves]  # type: ignore[attr-defined]


def legal(game: gdl.CompiledGame, state: tuple) -> list[str]:
    return names(game.legal_moves(state))


def outcomes(game: gdl.CompiledGame, state: tuple) -> dict[str, float]:
    assert game.to_move(state) == CHANCE
    return {str(m): p for m, p in game.chance_outcomes(state)}


def evaluate(expr: str, typ: str = "-1000..1000", decls: str = "", board: str = "board 3 x 4") -> object:
    """The value of ``expr`` computed in setup (so board and player names are in scope)."""
    source = f"""game Eval
players A, B, C
{board}
{decls}
state out: {typ}
setup:
    out = {expr}
move m: out = out
terminal when true
utility p: 0
"""
    return load(source).values(load(source).initial_state())["out"]


# ------------------------------------------------------------------ layout


def test_comments_continuations_and_blank_lines() -> None:
    game = load("""
# a comment before everything

game Layout "comments"   # after a declaration
players A, \\
        B
state n: 0..9 = 0        # trailing comment

move add(k: (1
             ..
             2)):        # a parenthesised range across lines
    # a comment inside a block
    n = min(n + k,
            9)
win A when n == 9
""")
    s = game.initial_state()
    assert game.players == ("A", "B")
    assert legal(game, s) == ["add(1)", "add(2)"]
    assert game.values(play_moves(game, ["add(2)", "add(2)"])) == {"n": 4}


def test_game_and_meta() -> None:
    game = load("""game Named "A one-line description"
meta source = "somewhere"
meta value = "draw"
meta author = "me"
meta rules = "http://example.org"
meta description = "longer text with \\"quotes\\""
players A, B
state n: 0..1 = 0
move m: n = 1
draw when n == 1
""")
    assert game.name == "Named"
    assert game.description == "A one-line description"
    assert game.meta == {"source": "somewhere", "value": "draw", "author": "me", "rules": "http://example.org",
                         "description": 'longer text with "quotes"'}


# -------------------------------------------------------------- parameters

PARAMS = """game Params
param goal: 2..30 = 10
param misere = false
param heaps = [3, 4, 5]
param rule: {simple, double} = simple
players A, B
state n: 0..60 = 0
state h[0..len(heaps)-1]: 0..max(heaps) = heaps
move add(k: 1..2) when n < goal:
    n += k * (2 if rule == double else 1)
win A when n >= goal and not misere
lose A when n >= goal and misere
"""


def test_parameter_defaults() -> None:
    game = load(PARAMS)
    assert game.parameters == {"goal": 10, "misere": False, "heaps": (3, 4, 5), "rule": "simple"}
    assert game.values(game.initial_state()) == {"n": 0, "h": [3, 4, 5]}


def test_parameter_overrides() -> None:
    game = load(PARAMS, goal="3", misere="true", heaps="1,2", rule="double")
    s = game.initial_state()
    assert game.values(s) == {"n": 0, "h": [1, 2]}
    s = play_moves(game, ["add(2)"])
    assert game.values(s)["n"] == 4
    assert game.describe_end(s) == "A loses"
    wide = load(PARAMS, heaps="[7, 8, 9, 10]")
    assert wide.values(wide.initial_state())["h"] == [7, 8, 9, 10]
    assert load(PARAMS, misere="no").parameters["misere"] is False


@pytest.mark.parametrize("override", [{"goal": "1"}, {"goal": "31"}, {"goal": "x"}, {"misere": "maybe"},
                                      {"rule": "triple"}, {"heaps": ""}, {"heaps": "-1"}, {"gaol": "3"}])
def test_bad_parameter_overrides(override: dict[str, str]) -> None:
    with pytest.raises(gdl.ParameterError):
        load(PARAMS, **override)


def test_parameter_default_outside_its_domain() -> None:
    with pytest.raises(gdl.RuleFileError) as info:
        load(PARAMS.replace("= 10", "= 50"))
    assert info.value.diagnostics[0].code == "out-of-domain"


# ----------------------------------------------------------------- players


def test_three_players_take_turns_in_order() -> None:
    game = load("""game Three
players Red, Green, Blue
state n: 0..7 = 0
move step: n += 1
win Blue when n == 7
""")
    s = game.initial_state()
    seen = []
    while game.to_move(s) != TERMINAL:
        seen.append(game.players[game.to_move(s)])
        s = game.apply(s, game.legal_moves(s)[0])
    assert seen == ["Red", "Green", "Blue"] * 2 + ["Red"]
    assert game.utilities(s) == (-1, -1, 1)
    assert not game.zero_sum


# ------------------------------------------------------------------- board


def test_cell_names_and_geometry() -> None:
    assert evaluate("a1", "cell") == "a1"
    assert evaluate("row(d3) * 10 + col(d3)") == 23
    assert evaluate("cell(1, 2)", "cell?") == "c2"
    assert evaluate("cell(3, 0)", "cell?") == "none"
    assert evaluate("rows * 10 + cols") == 34
    assert evaluate("step(a1, north)", "cell?") == "a2"
    assert evaluate("step(a1, east)", "cell?") == "b1"
    assert evaluate("step(a1, northeast)", "cell?") == "b2"
    assert evaluate("step(a1, south)", "cell?") == "none"
    assert evaluate("step(d3, west)", "cell?") == "c3"
    assert evaluate("len(ray(a1, east))") == 3
    assert evaluate("first c in ray(a1, north): true", "cell?") == "a2"
    assert evaluate("len(neighbors(b2))") == 8
    assert evaluate("len(neighbors(a1))") == 3
    assert evaluate("len(lines(3))") == 14  # 6 in rows, 4 in columns, 2 + 2 diagonals
    assert evaluate("len(lines(4))") == 3
    assert evaluate("len(cells_in_row(0))") == 4
    assert evaluate("first c in cells_in_column(2): row(c) == 2", "cell?") == "c3"
    assert evaluate("len(cell)") == 12
    assert evaluate("len(dir) * 100 + len(orthogonal) * 10 + len(diagonal)") == 844
    assert evaluate("all d in orthogonal: step(b2, d) != none", "bool") == "true"
    assert evaluate("count d in dir: step(a1, d) != none") == 3
    assert evaluate("northwest", "dir") == "northwest"


def test_cell_order_is_row_by_row_from_a1() -> None:
    game = load("""game Cells
players A, B
board 2 x 3
state mark[cell]: player? = none
move put(c: cell) when mark[c] == none: mark[c] = mover
draw when all c in cell: mark[c] != none
render mark: A "x", B "o", none "."
""")
    s = game.initial_state()
    assert legal(game, s) == ["put(a1)", "put(b1)", "put(c1)", "put(a2)", "put(b2)", "put(c2)"]
    s = play_moves(game, ["put(c1)", "put(a2)"])
    assert game.render(s) == " 2 o . .\n 1 . . x\n   a b c\nto move: A"


def test_lines_and_connected() -> None:
    assert evaluate("connected({a1}, {d3}, cell)", "bool") == "true"
    assert evaluate("connected({a1}, {d3}, cells_in_row(0))", "bool") == "false"
    assert evaluate("connected({a1}, {d1}, cells_in_row(0))", "bool") == "true"
    assert evaluate("len(select c in cell: row(c) == 0 and col(c) > 0)") == 3


def test_hex_board() -> None:
    assert evaluate("len(dir)", board="board 3 x 3 hex") == 6
    assert evaluate("len(neighbors(b2))", board="board 3 x 3 hex") == 6
    assert evaluate("len(neighbors(a1))", board="board 3 x 3 hex") == 2  # east and north(east)
    assert evaluate("len(neighbors(c1))", board="board 3 x 3 hex") == 3
    assert evaluate("len(diagonal)", board="board 3 x 3 hex") == 0
    assert evaluate("step(a1, northeast)", "cell?", board="board 3 x 3 hex") == "a2"
    assert evaluate("len(lines(3))", board="board 3 x 3 hex") == 7  # 3 rows, 3 columns, 1 on the third axis


# ------------------------------------------------------------------- enums


def test_enumerations() -> None:
    game = load("""game Enums
enum Phase: opening, middle, ending
players A, B
state phase: Phase = opening
state last: Phase? = none
state seen[Phase]: bool = false
move go(p: Phase) when p != phase and not seen[p]:
    last = phase
    phase = p
    seen[p] = true
win A when phase == ending
""")
    s = game.initial_state()
    assert game.values(s) == {"phase": "opening", "last": "none", "seen": ["false", "false", "false"]}
    assert legal(game, s) == ["go(middle)", "go(ending)"]
    s = play_moves(game, ["go(middle)"])
    assert game.values(s) == {"phase": "middle", "last": "opening", "seen": ["false", "true", "false"]}


# ------------------------------------------------------------------- state


def test_state_kinds_and_initial_values() -> None:
    game = load("""game Kinds
enum Color: red, green
players A, B
board 2 x 2
state done: bool
state n: 3..10
state who: player?
state owner: player
state spot: cell = b2
state heading: dir = east
state paint: Color = green
state score[player]: 0..99 = 7
state grid[0..1, 0..2]: 0..9 = [1, 2, 3, 4, 5, 6]
state mark[cell]: player? = none
move go:
    done = true; n = 10; who = B; owner = B; spot = a1; heading = west; paint = red
    score[B] += 1
    grid[1, 2] = 9
    mark[spot] = mover
win A when done
""")
    s = game.initial_state()
    assert game.values(s) == {
        "done": "false", "n": 3, "who": "none", "owner": "A", "spot": "b2", "heading": "east", "paint": "green",
        "score": [7, 7], "grid": [[1, 2, 3], [4, 5, 6]], "mark": ["none"] * 4,
    }
    s = play_moves(game, ["go"])
    assert game.values(s) == {
        "done": "true", "n": 10, "who": "B", "owner": "B", "spot": "a1", "heading": "west", "paint": "red",
        "score": [7, 8], "grid": [[1, 2, 3], [4, 5, 9]], "mark": ["A", "none", "none", "none"],
    }


def test_assignment_outside_the_domain_fails_at_run_time() -> None:
    game = load("""game Over
players A, B
state n: 0..2 = 0
move add: n += 1
win A when n == 5
""")
    s = play_moves(game, ["add", "add"])
    with pytest.raises(gdl.RuleRuntimeError):
        game.apply(s, game.legal_moves(s)[0])


def test_domain_checks_are_left_out_only_where_the_bounds_prove_them() -> None:
    """`min(n + k, 5)` stays in 0..5 for every k: no run-time check is compiled for it.
    `n + k` can leave the domain: it is checked, and fails at run time."""
    rules = """game Bounds
players A, B
state n: 0..5 = 0
move add(k: 1..6): n = {effect}
win A when n == 5
"""
    safe = load(rules.format(effect="min(n + k, 5)"))
    unsafe = load(rules.format(effect="n + k"))
    assert "_dom(" not in safe.program.source and "_dom(" in unsafe.program.source
    assert safe.values(play_moves(safe, ["add(6)"]))["n"] == 5
    with pytest.raises(gdl.RuleRuntimeError, match=r"outside the variable's domain 0\.\.5"):
        play_moves(unsafe, ["add(6)"])


def test_a_full_board_test_is_one_scan_and_still_right() -> None:
    game = gdl.load("tictactoe")
    assert "(-1) not in s[0:9]" in game.program.source  # `all c in cell: mark[c] != none`
    full = play_moves(game, ["place(a1)", "place(b1)", "place(c1)", "place(b2)", "place(a2)", "place(c2)",
                             "place(b3)", "place(a3)", "place(c3)"])
    assert game.to_move(full) == TERMINAL and game.utilities(full) == (0.0, 0.0)


def test_a_def_argument_outside_the_parameter_domain() -> None:
    """Refused when it is a constant; a rule error (not a Python IndexError) when it happens at run time."""
    rules = """game Args
players A, B
board 3 x 3
state mark[cell]: player? = none
state n: 0..9 = 0
def top(x: 0..2) = first c in cells_in_column(x): mark[c] == none
move put when {guard}:
    n += 1
win A when n == 9
"""
    with pytest.raises(gdl.RuleFileError) as caught:
        load(rules.format(guard="top(5) != none"))
    assert [d.code for d in caught.value.diagnostics] == ["out-of-domain"]
    assert "argument 1 of `top` is 5, outside its domain 0..2" in caught.value.diagnostics[0].message
    game = load(rules.format(guard="top(n) != none"))
    state = play_moves(game, ["put", "put", "put"])
    with pytest.raises(gdl.RuleRuntimeError):
        game.legal_moves(state)


def test_a_chance_over_too_many_outcomes_is_refused() -> None:
    with pytest.raises(gdl.RuleFileError) as caught:
        load("""game Huge
players A, B
state n: 0..1 = 0
move roll:
    chance d in 1..367346:
        n = 1
win A when n == 1
""")
    assert [d.code for d in caught.value.diagnostics] == ["too-large"]
    assert "a chance over 367,346 outcomes; at most 10,000" in caught.value.diagnostics[0].message


# -------------------------------------------------------------------- defs


def test_defs() -> None:
    game = load("""game Defs
param size = 4
players A, B
state n: 0..40 = 0
def limit = size * 5
def Small = 0..size
def double(x: 0..40) = 2 * x
def pick(p: player, k: Small) = k if p == A else size - k
def over(x: 0..40) = double(x) > limit
move add(k: Small) when not over(n + k):
    n += pick(mover, k) + 1
win opponent(turn) when n >= limit
""")
    s = game.initial_state()
    assert legal(game, s) == [f"add({k})" for k in range(5)]
    s = play_moves(game, ["add(3)", "add(3)"])  # A adds 3 + 1, B adds (4 - 3) + 1
    assert game.values(s) == {"n": 6}
    s = play_moves(game, ["add(4)", "add(0)"])  # 5, then 5 + 4 + 1 = 10 > limit / 2 rules out k >= 1
    assert game.values(s) == {"n": 10}
    assert legal(game, s) == ["add(0)"]


# ------------------------------------------------------------- expressions


@pytest.mark.parametrize(
    ("expr", "typ", "value"),
    [
        ("1 + 2 * 3", None, 7),
        ("(1 + 2) * 3", None, 9),
        ("10 - 4 - 3", None, 3),
        ("7 // 2", None, 3),
        ("-7 // 2", None, -4),
        ("-7 % 3", None, 2),
        ("7 % -3", None, -2),
        ("-(2 - 5)", None, 3),
        ("7 / 2 == 3.5", "bool", "true"),
        ("1/3 + 2/3 == 1", "bool", "true"),
        ("0.5 * 4 == 2", "bool", "true"),
        ("1 / 3 > 0.333", "bool", "true"),
        ("1 < 2 < 3", "bool", "true"),
        ("3 > 2 > 2", "bool", "false"),
        ("1 <= 1 != 2 >= 2", "bool", "true"),
        ("2 == 2 == 2", "bool", "true"),
        ("2 in {1, 2}", "bool", "true"),
        ("5 not in 1..4", "bool", "true"),
        ("A in {B, C}", "bool", "false"),
        ("a1 in cells_in_row(0)", "bool", "true"),
        ("true and not false", "bool", "true"),
        ("not true or false", "bool", "false"),
        ("false or true and false", "bool", "false"),
        ("3 if 1 > 2 else 4", None, 4),
        ("1 if true else 2 if true else 3", None, 1),
        ("len(1..0)", None, 0),
        ("len(2..5)", None, 4),
        ("[5, 6, 7][1]", None, 6),
        ("len([4, 5, 6])", None, 3),
        ("len({1, 1, 2})", None, 2),
        ("sum([1, 2, 3])", None, 6),
        ("abs(-4) + abs(4)", None, 8),
        ("min(3, 1, 2) * 10 + max(3, 9)", None, 19),
        ("min([4, 2]) * 10 + max([3, 9])", None, 29),
        ("next(A)", "player", "B"),
        ("next(C)", "player", "A"),
        ("win * 100 + lose * 10 + draw", None, 90),
        ("any k in 1..5: k * k == 16", "bool", "true"),
        ("all k in 1..5: k < 5", "bool", "false"),
        ("all k in 1..0: false", "bool", "true"),
        ("any k in 1..0: true", "bool", "false"),
        ("count k in 1..10 where k % 2 == 0: k > 4", None, 3),
        ("count p in player: p != B", None, 2),
        ("sum k in 1..4: k * k", None, 30),
        ("sum k in 1..10 where k % 3 == 0: k", None, 18),
        ("sum k in 1..0: k", None, 0),
        ("min k in 2..5: 10 - k", None, 5),
        ("max k in 2..5 where k < 4: 10 - k", None, 8),
        ("first p in player: p != A", "player?", "B"),
        ("first p in player where p != A: p != B", "player?", "C"),
        ("first c in cell: row(c) == 9", "cell?", "none"),
        ("len(select k in 1..10: k % 4 == 0)", None, 2),
        ("sum(select k in 1..10: k % 4 == 0)", None, 12),
        ("1 + (sum k in 1..3: k)", None, 7),
        ("(count k in 1..3: k > 1) >= 2 and any k in 1..3: k == 3", "bool", "true"),
    ],
)
def test_expression(expr: str, typ: str | None, value: object) -> None:
    assert evaluate(expr, typ or "-1000..1000") == value


def test_opponent_in_two_player_games() -> None:
    game = load("""game Two
players A, B
state who: player = A
setup: who = opponent(A)
move m: who = opponent(who)
win A when who == A
""")
    assert game.values(game.initial_state()) == {"who": "B"}


def test_min_over_no_values_is_a_run_time_error() -> None:
    game = load("""game Empty
players A, B
state n: 0..5 = 0
move m: n = min k in 1..n: k
win A when n == 5
""")
    with pytest.raises(gdl.RuleRuntimeError):
        game.apply(game.initial_state(), game.legal_moves(game.initial_state())[0])


def test_mover_and_turn() -> None:
    game = load("""game MoverTurn
players A, B, C
state seen_mover: player? = none
state seen_turn: player? = none
state next_turn: player? = none
move m when mover == turn:
    seen_mover = mover
    seen_turn = turn
win A when false
lose C when turn == C and seen_mover == B
""")
    s = play_moves(game, ["m"])
    assert game.values(s) == {"seen_mover": "A", "seen_turn": "A", "next_turn": "none"}
    s = game.apply(s, game.legal_moves(s)[0])
    assert game.describe_end(s) == "C loses"  # in end rules `turn` is the player to move next
    assert game.utilities(s) == (1, 1, -1)


# ------------------------------------------------------------------- moves


def test_moves_names_and_order() -> None:
    game = load("""game Moves
players A, B
board 2 x 2
enum Kind: big, small
state taken: 0..50 = 0
state mark[cell]: Kind? = none
move place(c: cell, k: Kind) when mark[c] == none: mark[c] = k
move take(a: 1..3, b: a..3) when taken + a + b <= 50: taken += a + b
move shuffle
move slide(c: cell, d: orthogonal) when step(c, d) != none and mark[c] != none and mark[step(c, d)] == none:
    mark[step(c, d)] = mark[c]
    mark[c] = none
draw when taken > 40
""")
    s = game.initial_state()
    moves = legal(game, s)
    assert moves[:3] == ["place(a1,big)", "place(a1,small)", "place(b1,big)"]
    assert moves[8:] == ["take(1,1)", "take(1,2)", "take(1,3)", "take(2,2)", "take(2,3)", "take(3,3)", "shuffle"]
    s = play_moves(game, ["place(a1, small)", "shuffle"])
    assert game.values(s)["mark"] == ["small", "none", "none", "none"]
    assert [m for m in legal(game, s) if m.startswith("slide")] == ["slide(a1,north)", "slide(a1,east)"]
    s = play_moves(game, ["slide(a1,north)"], s)
    assert game.values(s)["mark"] == ["none", "none", "small", "none"]
    move = game.parse_move(s, " take ( 2 , 3 ) ")
    assert str(move) == "take(2,3)" and move == game.parse_move(s, "take(2,3)")
    assert game.values(game.apply(s, move))["taken"] == 5
    with pytest.raises(UnknownMoveError):
        game.parse_move(s, "jump(1)")
    with pytest.raises(IllegalMoveError):
        game.parse_move(s, "take(3,1)")
    with pytest.raises(IllegalMoveError):
        game.parse_move(s, "place(a2,big)")  # a2 is taken


def test_otherwise_move_is_legal_exactly_when_nothing_else_is() -> None:
    game = load("""game Pass
players A, B
state n: 0..3 = 0
state passes: 0..5 = 0
move add when n < 3 and turn == A: n += 1
move pass otherwise: passes += 1
draw when passes == 5
""")
    s = game.initial_state()
    assert legal(game, s) == ["add"]
    s = play_moves(game, ["add"])
    assert legal(game, s) == ["pass"]
    s = play_moves(game, ["add", "pass", "add", "pass", "add", "pass"])
    assert legal(game, s) == ["pass"] and game.values(s) == {"n": 3, "passes": 3}


def test_a_move_without_body_passes_the_turn() -> None:
    game = load("""game Noop
players A, B
state n: 0..1 = 0
move wait
move end: n = 1
win A when n == 1
""")
    s = play_moves(game, ["wait"])
    assert game.to_move(s) == 1 and game.values(s) == {"n": 0}


def test_no_moves_in_end_rules() -> None:
    game = load("""game Stuck
players A, B
state n: 0..3 = 0
move add when n < 3: n += 1
lose turn when no_moves
""")
    s = play_moves(game, ["add", "add", "add"])
    assert game.to_move(s) == TERMINAL and game.describe_end(s) == "B loses"


# ----------------------------------------------------------------- effects


def test_effects() -> None:
    game = load("""game Effects
players A, B
state a[0..4]: 0..20 = 0
state total: 0..500 = 50
state log: 0..9 = 0
move fill(k: 1..3):
    let acc = 0
    for i in 0..4:
        if a[i] >= 6: break
        a[i] += k; acc += a[i]
    if acc > 20: log = 3
    elif acc > 10:
        log = 2
    else: log = 1
    total -= acc
    total *= 2
    total = min(total, 100)
move reset:
    for i in 0..4: a[i] = i
    let x = a[4]
    x *= 3
    total = x
win A when log == 9
""")
    s = play_moves(game, ["fill(3)"])
    assert game.values(s) == {"a": [3, 3, 3, 3, 3], "total": 70, "log": 2}
    s = play_moves(game, ["fill(3)", "fill(3)"])  # every a[i] becomes 6: acc 30
    assert game.values(s) == {"a": [6, 6, 6, 6, 6], "total": 80, "log": 3}
    s = play_moves(game, ["fill(1)"], s)  # the loop breaks at once
    assert game.values(s) == {"a": [6, 6, 6, 6, 6], "total": 100, "log": 1}
    s = play_moves(game, ["reset"])
    assert game.values(s) == {"a": [0, 1, 2, 3, 4], "total": 12, "log": 0}


def test_effects_see_the_state_as_changed_so_far() -> None:
    game = load("""game Sequential
players A, B
state x: 0..10 = 1
state y: 0..10 = 0
move m:
    x = x + 1
    y = x * 2
    x = y + 1
win A when x == 10
""")
    assert game.values(play_moves(game, ["m"])) == {"x": 5, "y": 4}


def test_again_and_turn_assignment() -> None:
    game = load("""game TurnOrder
players A, B, C
state n: 0..20 = 0
move bonus when n % 3 == 0:
    n += 1
    again
move pick(p: player) when n % 3 != 0:
    n += 1
    turn = p
move both when n == 19:
    again
    turn = C
win A when n == 20
""")
    s = play_moves(game, ["bonus"])
    assert game.to_move(s) == 0  # A again
    assert legal(game, s) == ["pick(A)", "pick(B)", "pick(C)"]
    s = play_moves(game, ["pick(C)"], s)
    assert game.to_move(s) == 2
    s = play_moves(game, ["pick(B)"], s)  # n == 3: bonus for B
    assert game.to_move(s) == 1 and legal(game, s) == ["bonus"]


def test_after_every_move() -> None:
    game = load("""game After
players A, B
state n: 0..12 = 0
state moves: 0..12 = 0
move one: n += 1
move two: n += 2
move roll:
    chance d in 1..2
    n += d
after every move:
    moves += 1
    if n % 5 == 0: again
terminal when n >= 10
utility p: moves if p == A else -moves
""")
    s = play_moves(game, ["two", "two"])
    assert game.values(s) == {"n": 4, "moves": 2} and game.to_move(s) == 0
    s = play_moves(game, ["one"], s)
    assert game.values(s) == {"n": 5, "moves": 3} and game.to_move(s) == 0  # again
    s = play_moves(game, ["roll"], s)
    assert game.values(s) == {"n": 5, "moves": 3}  # after-block runs after the chance
    s = play_moves(game, ["d=2"], s)
    assert game.values(s) == {"n": 7, "moves": 4} and game.to_move(s) == 1


# ------------------------------------------------------------------ chance

CHANCE_FORMS = """game ChanceForms
players A, B
state pot: 0..100 = 0
state coin: bool = false
state bag[1..3]: 0..2 = 2
state seen: 0..12 = 0
def two_dice(s: 2..12) = 6 - abs(s - 7)
move roll:
    chance d in 1..6:
        if d == 1: pot = 0
        else: pot = min(pot + d, 100)
move roll2:
    chance s in 2..12 weight two_dice(s)
    seen = s
move draw when (sum t in 1..3: bag[t]) > 0:
    chance t in 1..3 weight bag[t]
    bag[t] -= 1
    pot = min(pot + t, 100)
move toss:
    let before = pot
    chance:
        heads with 1/2: coin = true
        tails with 1/2:
            coin = false
            again
    pot = min(before + 1, 100)
win A when pot >= 90
"""


def test_chance_block_form() -> None:
    game = load(CHANCE_FORMS)
    s = play_moves(game, ["roll"])
    assert game.to_move(s) == CHANCE
    assert outcomes(game, s) == {f"d={d}": pytest.approx(1 / 6) for d in range(1, 7)}
    s = play_moves(game, ["d=5"], s)
    assert game.values(s)["pot"] == 5 and game.to_move(s) == 1
    s = play_moves(game, ["roll", "d=1"], s)
    assert game.values(s)["pot"] == 0 and game.to_move(s) == 0


def test_chance_weighted_binding_form() -> None:
    game = load(CHANCE_FORMS)
    s = play_moves(game, ["roll2"])
    probs = outcomes(game, s)
    assert list(probs) == [f"s={k}" for k in range(2, 13)]
    assert probs["s=7"] == pytest.approx(6 / 36) and probs["s=2"] == pytest.approx(1 / 36)
    assert sum(probs.values()) == pytest.approx(1, abs=1e-12)
    assert game.values(play_moves(game, ["s=9"], s))["seen"] == 9


def test_chance_weights_depend_on_the_state() -> None:
    game = load(CHANCE_FORMS)
    s = play_moves(game, ["draw"])
    assert outcomes(game, s) == {"t=1": pytest.approx(1 / 3), "t=2": pytest.approx(1 / 3), "t=3": pytest.approx(1 / 3)}
    s = play_moves(game, ["t=2", "draw", "t=2", "draw"], s)
    # bag is now [2, 0, 2]: outcome t=2 has weight 0 and is left out
    assert outcomes(game, s) == {"t=1": pytest.approx(1 / 2), "t=3": pytest.approx(1 / 2)}
    s = play_moves(game, ["t=3"], s)
    assert game.values(s)["bag"] == [2, 0, 1] and game.values(s)["pot"] == 7


def test_chance_branch_form_and_continuation() -> None:
    game = load(CHANCE_FORMS)
    s = play_moves(game, ["roll", "d=4", "toss"])
    assert outcomes(game, s) == {"heads": 0.5, "tails": 0.5}
    heads = play_moves(game, ["heads"], s)
    assert game.values(heads)["coin"] == "true" and game.values(heads)["pot"] == 5 and game.to_move(heads) == 0
    tails = play_moves(game, ["tails"], s)
    assert game.values(tails)["coin"] == "false" and game.values(tails)["pot"] == 5 and game.to_move(tails) == 1


def test_several_chances_in_one_move_keep_locals() -> None:
    game = load("""game TwoDice
players A, B
state total: 0..12 = 0
state first: 0..6 = 0
move roll(bonus: 0..1):
    let base = bonus * 5
    chance a in 1..6
    let partial = a + base
    chance b in 1..3:
        first = a
        total = min(partial + b, 12)
win A when total == 12
""")
    s = play_moves(game, ["roll(1)", "a=4"])
    assert game.to_move(s) == CHANCE and list(outcomes(game, s)) == ["b=1", "b=2", "b=3"]
    s = play_moves(game, ["b=2"], s)
    assert game.values(s) == {"total": 11, "first": 4} and game.to_move(s) == 1


def test_chance_over_players_and_state_dependent_domain() -> None:
    game = load("""game Pick
players A, B, C
state chosen: player? = none
state n: 0..9 = 3
move pick:
    chance q in player weight 2 if q == A else 1
    chosen = q
move dice:
    chance d in 1..n
    n = d
win A when n == 9
""")
    s = play_moves(game, ["pick"])
    assert outcomes(game, s) == {"q=A": pytest.approx(0.5), "q=B": pytest.approx(0.25), "q=C": pytest.approx(0.25)}
    assert game.values(play_moves(game, ["q=C"], s))["chosen"] == "C"
    s = play_moves(game, ["dice"], play_moves(game, ["q=A"], s))
    assert list(outcomes(game, s)) == ["d=1", "d=2", "d=3"]


def test_has_chance_flag() -> None:
    assert load(CHANCE_FORMS).has_chance
    assert not gdl.load("tictactoe").has_chance


def test_exact_branch_probabilities() -> None:
    game = load("""game Thirds
players A, B
state x: 0..3 = 0
move m:
    chance:
        one with 1/3: x = 1
        two with 1/3: x = 2
        three with 1/3: x = 3
win A when x == 3
""")
    probs = outcomes(game, play_moves(game, ["m"]))
    assert sum(probs.values()) == pytest.approx(1, abs=1e-12)
    assert probs == {"one": pytest.approx(1 / 3), "two": pytest.approx(1 / 3), "three": pytest.approx(1 / 3)}


# ------------------------------------------------------------------- setup


def test_setup_computes_the_initial_position() -> None:
    game = load("""game Setup
param size: 4..8 = 4
players White, Black
board size x size
state disc[cell]: player? = none
state placed: 0..64 = 0
setup:
    let m = size // 2
    disc[cell(m - 1, m - 1)] = White
    disc[cell(m, m)] = White
    for c in cells_in_row(0):
        disc[c] = Black
    placed = count c in cell: disc[c] != none
    turn = Black
move place(c: cell) when disc[c] == none:
    disc[c] = mover
    placed += 1
draw when placed == size * size
""")
    s = game.initial_state()
    assert game.values(s)["placed"] == 6
    assert game.to_move(s) == 1
    values = game.values(s)["disc"]
    assert values[5] == "White" and values[10] == "White" and values[:4] == ["Black"] * 4
    big = load(game.source, size="6")
    assert big.values(big.initial_state())["placed"] == 8


def test_end_rules_hold_in_the_initial_state() -> None:
    game = load("""game Over
players A, B
state n: 0..3 = 3
move m: n = 0
win B when n == 3
""")
    s = game.initial_state()
    assert game.to_move(s) == TERMINAL and game.utilities(s) == (-1, 1)


# --------------------------------------------------------------- end rules


def test_end_rules_are_tried_in_file_order() -> None:
    source = """game Order
players A, B
state n: 0..2 = 0
move m: n = 2
RULES
"""
    first = load(source.replace("RULES", "win A when n == 2\ndraw when n >= 1"))
    second = load(source.replace("RULES", "draw when n >= 1\nwin A when n == 2"))
    assert first.utilities(play_moves(first, ["m"])) == (1, -1)
    assert second.utilities(play_moves(second, ["m"])) == (0, 0)
    assert second.describe_end(play_moves(second, ["m"])) == "draw"


def test_win_binder_tries_every_player_in_order() -> None:
    game = load("""game Binder
players A, B, C
state hits[player]: 0..2 = 0
move hit(p: player): hits[p] += 1
win p when hits[p] == 2
""")
    s = play_moves(game, ["hit(C)", "hit(B)", "hit(C)"])
    assert game.describe_end(s) == "C wins" and game.utilities(s) == (-1, -1, 1)


def test_win_and_lose_with_expressions() -> None:
    game = load("""game Who
players A, B
state n: 0..3 = 0
state last: player? = none
move m(k: 1..2) when n + k <= 3:
    n += k
    last = mover
win opponent(turn) when n == 3 and last == A
lose turn when n == 3
""")
    assert game.describe_end(play_moves(game, ["m(2)", "m(1)"])) == "A loses"  # B moved last: `lose turn`
    s = play_moves(game, ["m(1)", "m(1)", "m(1)"])
    assert game.describe_end(s) == "A wins" and game.utilities(s) == (1, -1)


def test_terminal_and_general_sum_utility() -> None:
    game = load("""game Margins
players A, B, C
state score[player]: 0..5 = 0
move gain: score[mover] += 1
terminal when (sum p in player: score[p]) == 5
utility p in 0..5: score[p] - (1 if p == A else 0) / 2
""")
    s = game.initial_state()
    while game.to_move(s) != TERMINAL:
        s = game.apply(s, game.legal_moves(s)[0])
    assert game.utilities(s) == pytest.approx((1.5, 2, 1))
    assert game.utility_bounds == (0.0, 5.0)
    assert not game.zero_sum
    assert game.describe_end(s) == "game over"


def test_zero_sum_declaration_and_defaults() -> None:
    game = load("""game ZeroSum
players A, B
state score[player]: 0..3 = 0
move gain: score[mover] += 1
terminal when score[A] == 3 or score[B] == 3
utility p in -3..3: score[p] - score[opponent(p)]
zero_sum
""")
    s = play_moves(game, ["gain"] * 5)
    assert game.utilities(s) == (1, -1)
    assert game.zero_sum and game.utility_bounds == (-3.0, 3.0)
    assert gdl.load("tictactoe").zero_sum and gdl.load("tictactoe").utility_bounds == (-1.0, 1.0)


def test_utility_without_bounds_has_no_bounds() -> None:
    game = load("""game Unbounded
players A, B
state n: 0..3 = 0
move m: n += 1
terminal when n == 3
utility p: n
""")
    assert game.utility_bounds is None
    assert game.utilities(play_moves(game, ["m"] * 3)) == (3, 3)


def test_win_lose_draw_constants_in_utility() -> None:
    game = load("""game Constants
players A, B
state n: 0..2 = 0
move m: n += 1
terminal when n == 2
utility p: win if p == A else lose
""")
    assert game.utilities(play_moves(game, ["m", "m"])) == (1, -1)


def test_one_player_game() -> None:
    game = load("""game Solo
players Me
state n: 0..5 = 0
move step(k: 1..2) when n + k <= 5: n += k
terminal when n == 5
utility p: 0 - n
""")
    s = play_moves(game, ["step(2)", "step(2)"])
    assert game.to_move(s) == 0
    assert game.utilities(play_moves(game, ["step(1)"], s)) == (-5,)


# --------------------------------------------------------- heuristic, render


def test_heuristic() -> None:
    game = load("""game Heuristic
players A, B
state score[player]: 0..10 = 0
move gain(k: 1..2): score[mover] = min(score[mover] + k, 10)
win p when score[p] == 10
heuristic p: (score[p] - score[opponent(p)]) / 10
""")
    assert game.heuristic(play_moves(game, ["gain(2)", "gain(1)", "gain(2)"])) == pytest.approx((0.3, -0.3))
    assert gdl.load("tictactoe").heuristic(gdl.load("tictactoe").initial_state()) is None


def test_render_symbols_and_other_variables() -> None:
    game = load("""game Render
players X, O
board 2 x 3
state mark[cell]: player? = none
state count: 0..6 = 0
move place(c: cell) when mark[c] == none:
    mark[c] = mover
    count += 1
draw when count == 6
render mark: X "x", O "o", none "_"
""")
    s = play_moves(game, ["place(a1)", "place(c2)"])
    assert game.render(s) == " 2 _ _ o\n 1 x _ _\n   a b c\ncount: 2\nto move: X"


# --------------------------------------------------------------- the state


def test_state_is_a_flat_tuple_of_small_ints() -> None:
    game = gdl.load("tictactoe")
    assert game.initial_state() == (-1,) * 9 + (0, 0)
    s = play_moves(game, ["place(b2)"])
    assert s == (-1,) * 4 + (0,) + (-1,) * 4 + (1, 0)
    assert game.key(s) == s and hash(s) == hash(game.key(s))


def test_transpositions_have_equal_keys() -> None:
    game = gdl.load("tictactoe")
    one = play_moves(game, ["place(a1)", "place(b2)", "place(c3)"])
    two = play_moves(game, ["place(c3)", "place(b2)", "place(a1)"])
    assert one == two and game.key(one) == game.key(two)


def test_fractions_in_probabilities_are_exact_enough() -> None:
    game = load("""game Sevenths
players A, B
state x: 0..7 = 0
move m:
    chance:
        a with 1/7: x = 1
        b with 2/7: x = 2
        c with 4/7: x = 3
win A when x == 3
""")
    probs = outcomes(game, play_moves(game, ["m"]))
    assert sum(Fraction(p).limit_denominator(100) for p in probs.values()) == 1
    assert abs(sum(probs.values()) - 1) <= 1e-12


def test_compound_assignment_with_a_large_constant_is_not_out_of_domain() -> None:
    """`left -= 3` on `left: 0..1` is fine when a guard keeps it in range (a regression)."""
    game = load("""game Take
players A, B
state left: 0..1 = 1
move take(n: 1..3) when n <= left: left -= n
terminal when left == 0
utility p: 0
""")
    assert legal(game, game.initial_state()) == ["take(1)"]
    with pytest.raises(gdl.RuleFileError) as info:
        load(game.source.replace("left -= n", "left = n"))
    assert info.value.diagnostics[0].code == "out-of-domain"


def test_a_move_never_legal_for_any_parameter_value_is_still_checked() -> None:
    source = """game Dead
players A, B
state n: 0..3 = 0
move m(k: 1..3) when k > 5: n = BODY
move a: n += 1
win A when n == 3
"""
    game = load(source.replace("BODY", "k"))
    assert [w.code for w in game.warnings] == ["never-legal"]
    assert legal(game, game.initial_state()) == ["a"]
    with pytest.raises(gdl.RuleFileError) as info:
        load(source.replace("BODY", "undefined_thing"))
    assert "undefined-name" in [d.code for d in info.value.diagnostics]


def test_folding_keeps_the_operands_before_a_deciding_constant() -> None:
    # Left to right: `x or true` still evaluates `x` (here a rule error: `max` over no values), and an `all`
    # with a false term still evaluates the terms before it; what comes after the constant never runs.
    text = """game Folded
players A, B
state n: 0..3 = 0
move go when MODE: n = 1
draw when n > 0
"""
    errors = {"(max k in 0..3 where k > n + 5: k) == 1 or true",
              "all k in 0..3: (max x in 0..1 where k == 1: k) != k"}
    for cond in errors:
        game = gdl.load_source(text.replace("MODE", cond))
        with pytest.raises(gdl.RuleRuntimeError):
            game.legal_moves(game.initial_state())
    for cond in ("true or (max k in 0..3 where k > n + 5: k) == 1", "n == 0 or true", "false and n == 1"):
        game = gdl.load_source(text.replace("MODE", cond))
        assert len(game.legal_moves(game.initial_state())) == (0 if cond.startswith("false") else 1)


def test_a_def_with_a_constant_body_still_checks_its_arguments() -> None:
    text = """game ConstantDef
players A, B
state n: 0..9 = 0
def one(x: 0..3) = 1
move go: n = one(ARG)
terminal when n == 1
utility p: n
"""
    game = gdl.load_source(text.replace("ARG", "n + 5"))
    with pytest.raises(gdl.RuleRuntimeError, match="outside"):
        game.apply(game.initial_state(), game.legal_moves(game.initial_state())[0])
    game = gdl.load_source(text.replace("ARG", "n // 4"))  # within 0..3 by its bounds: folded to 1
    assert game.values(game.apply(game.initial_state(), game.legal_moves(game.initial_state())[0]))["n"] == 1


@pytest.mark.parametrize("checked", [False, True])
def test_a_state_of_a_narrower_type_refuses_the_other_values(checked: bool) -> None:
    # `orthogonal` is every other direction: `northwest` (past its last) and `northeast` (between two of
    # its values) are both outside it, in the default build as in the checked one.
    text = """game Subset
players A, B
board 2 x 2
state d: orthogonal = north
state e: dir = DIR
move copy: d = e
win A when d == south
draw when d == west
"""
    for name in ("northwest", "northeast"):
        game = gdl.load_source(text.replace("DIR", name), checked=checked)
        with pytest.raises(gdl.RuleRuntimeError, match="outside the variable's domain"):
            game.apply(game.initial_state(), game.legal_moves(game.initial_state())[0])
    game = gdl.load_source(text.replace("DIR", "south"), checked=checked)
    assert game.to_move(game.apply(game.initial_state(), game.legal_moves(game.initial_state())[0])) == TERMINAL
    with pytest.raises(gdl.RuleFileError):
        gdl.load_source(text.replace("= north", "= northeast"))
