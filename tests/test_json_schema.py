"""Every ``--json`` output parses with a strict JSON parser and matches its schema in docs/json.md.

The schema blocks (```schema NAME) of docs/json.md are read here, so the documentation and
the outputs cannot drift apart: a key documented but missing, a key output but not documented,
or a value of another type fails.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from gdl.cli import main

DOC = Path(__file__).resolve().parent.parent / "docs" / "json.md"
BLOCK = re.compile(r"^```schema ([\w-]+)[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
DEADENDS = Path(__file__).parent / "deadends"


def schemas() -> dict[str, dict[str, tuple[str, bool]]]:
    """``{name: {dotted key: (type, required)}}`` from docs/json.md."""
    found = {}
    for match in BLOCK.finditer(DOC.read_text(encoding="utf-8")):
        keys = {}
        for line in match.group(2).splitlines():
            if not line.strip():
                continue
            key, _, typ = line.partition(":")
            optional = key.endswith("?")
            keys[key.rstrip("?").strip()] = (typ.strip(), not optional)
        found[match.group(1)] = keys
    return found


def split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside brackets and braces."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def conforms(value: Any, typ: str) -> bool:
    alternatives = split_top(typ, "|")
    if len(alternatives) > 1:
        return any(conforms(value, alt) for alt in alternatives)
    typ = typ.strip()
    if typ.startswith('"'):
        return value == typ.strip('"')
    if typ.startswith("["):
        return isinstance(value, list) and all(conforms(v, typ[1:-1]) for v in value)
    if typ.startswith("{"):
        inner = typ[1:-1].partition(":")[2]
        return isinstance(value, dict) and all(isinstance(k, str) and conforms(v, inner) for k, v in value.items())
    simple = {
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        "str": lambda v: isinstance(v, str),
        "bool": lambda v: isinstance(v, bool),
        "null": lambda v: v is None,
        "object": lambda v: isinstance(v, dict),
        "any": lambda v: True,
    }
    assert typ in simple, f"unknown type {typ!r} in docs/json.md"
    return simple[typ](value)


def validate(data: Any, schema: dict[str, tuple[str, bool]]) -> None:
    assert isinstance(data, dict)
    assert next(iter(data)) == "schema_version" and data["schema_version"] == 1
    for key, (typ, required) in schema.items():
        *parents, last = key.split(".")
        holder: Any = data
        for parent in parents:
            holder = holder.get(parent) if isinstance(holder, dict) else None
        if not isinstance(holder, dict):
            continue  # under an optional or null object
        if last not in holder:
            assert not required, f"{key} is documented but missing"
            continue
        assert conforms(holder[last], typ), f"{key} = {holder[last]!r} is not {typ}"
    top = {key for key in schema if "." not in key}
    assert set(data) <= top, f"undocumented keys: {set(data) - top}"


def strict(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


def run_json(capsys, *argv: str) -> tuple[int, Any]:
    code = main(list(argv))
    out = capsys.readouterr().out
    return code, strict(out)


SCHEMAS = schemas()


def test_the_doc_has_a_schema_per_command():
    assert set(SCHEMAS) == {"solve", "match", "info", "error", "check", "check-item", "list", "list-item", "book"}


def validate_items(data: Any, schema: dict[str, tuple[str, bool]]) -> None:
    """A JSON array whose items follow ``schema`` (``check``'s diagnostics, ``list``'s games)."""
    assert isinstance(data, list) and data
    for item in data:
        assert isinstance(item, dict)
        for key, (typ, required) in schema.items():
            if key not in item:
                assert not required, f"{key} is documented but missing"
                continue
            assert conforms(item[key], typ), f"{key} = {item[key]!r} is not {typ}"
        assert set(item) <= set(schema), f"undocumented keys: {set(item) - set(schema)}"


def test_check_json_items_match_the_schema(capsys):
    code, data = run_json(capsys, "check", str(DEADENDS / "second_player_stuck.gdl"), str(DEADENDS / "overflow.gdl"),
                          "--json")
    assert code == 1
    validate(data, SCHEMAS["check"])
    validate_items(data["diagnostics"], SCHEMAS["check-item"])


def test_list_json_items_match_the_schema(capsys):
    code, data = run_json(capsys, "list", "--json")
    assert code == 0
    validate(data, SCHEMAS["list"])
    validate_items(data["games"], SCHEMAS["list-item"])


SOLVES = {
    "exact": ["tictactoe"],
    "after moves": ["tictactoe", "--moves", "place(a1),place(b1)"],
    "chance": ["pig", "-p", "goal=6"],
    "depth": ["connect4", "-p", "cols=4", "-p", "rows=4", "--depth", "2"],
    "depth without heuristic": ["tictactoe", "--depth", "2"],
    "nodes": ["connect4", "-p", "cols=5", "-p", "rows=4", "--max-nodes", "2000"],
    "table": ["connect4", "-p", "cols=4", "-p", "rows=4", "--max-table", "500"],
    "value iteration": ["pig", "-p", "goal=6", "--algorithm", "value_iteration"],
    "minimax": ["nim", "-p", "heaps=[1,2]", "--algorithm", "minimax"],
    "puzzle": ["eight_puzzle"],
    "simultaneous": ["rps"],
    "simultaneous, depth": ["goofspiel", "-p", "cards=3", "--depth", "1"],
}


@pytest.mark.slow
@pytest.mark.parametrize("name", SOLVES)
def test_solve_json_matches_the_schema(capsys, name):
    code, data = run_json(capsys, "solve", *SOLVES[name], "--json")
    assert code == 0
    validate(data, SCHEMAS["solve"])
    kind = data["value_kind"]
    assert (data["value"] is None) == (kind in (None, "bounds"))
    if kind == "bounds":
        assert data["bounds"] is not None and data["bounds"][0] != data["bounds"][1]


def test_solve_value_is_null_when_nothing_is_known(capsys):
    code, data = run_json(capsys, "solve", "tictactoe", "--depth", "2", "--json")
    assert code == 0
    assert data["value"] is None and data["value_kind"] is None and data["best_moves"]


def test_match_json_matches_the_schema(capsys):
    code, data = run_json(capsys, "match", "tictactoe", "random", "alphabeta:depth=2", "--games", "4", "--json")
    assert code == 0
    validate(data, SCHEMAS["match"])
    for entry in data["game_log"]:
        assert set(entry) == {"seats", "utilities", "end", "plies", "moves", "chance"}
        assert len(entry["moves"]) == entry["plies"]


def test_match_json_with_fraction_utilities(capsys, tmp_path):
    path = tmp_path / "half.gdl"
    path.write_text('game Half "a half point"\nplayers A, B\nstate done: bool = false\n'
                    "move end(): done = true\nterminal when done\nutility p: 1/2 if p == A else -1/2\n")
    code, data = run_json(capsys, "match", str(path), "random", "random", "--games", "2", "--json")
    if code == 0:  # fractions are the compiler's part; when they compile, JSON carries them as numbers
        validate(data, SCHEMAS["match"])
        assert data["game_log"][0]["utilities"] in ([0.5, -0.5], [-0.5, 0.5])


def test_info_json_matches_the_schema(capsys):
    code, data = run_json(capsys, "info", "pig", "--playouts", "5", "--json")
    assert code == 0
    validate(data, SCHEMAS["info"])


@pytest.mark.parametrize("argv", [
    ["solve", str(DEADENDS / "second_player_stuck.gdl")],
    ["solve", str(DEADENDS / "overflow.gdl"), "--algorithm", "backward"],
    ["match", str(DEADENDS / "second_player_stuck.gdl"), "random", "random"],
    ["info", str(DEADENDS / "overflow.gdl")],
    ["solve", "no_such_game_here"],
    ["solve", "tictactoe", "--moves", "place(z9)"],
])
def test_failures_print_one_error_object(capsys, argv):
    code, data = run_json(capsys, *argv, "--json")
    assert code in (1, 2)
    validate(data, SCHEMAS["error"])
    assert set(data) == {"schema_version", "error"}


def test_a_rule_file_with_errors_prints_the_error_object(capsys, tmp_path):
    path = tmp_path / "broken.gdl"
    path.write_text('game Broken "x"\nplayers A, B\nstate n: 0..3 = 0\nmove m(): n = nn\nwin A when n == 1\n')
    code, data = run_json(capsys, "solve", str(path), "--json")
    assert code == 1
    validate(data, SCHEMAS["error"])
    assert data["error"]["code"] == "undefined-name" and data["error"]["line"] == 4


def test_book_json_matches_the_schema(capsys, tmp_path):
    for extra in ([], ["--depth", "2"]):
        code, data = run_json(capsys, "book", "tictactoe", "--plies", "2", *extra, "--save",
                              str(tmp_path / "t.book"), "--json")
        assert code == 0
        validate(data, SCHEMAS["book"])
