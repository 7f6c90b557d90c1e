"""Every run is bounded (issue 12): hostile rule files through the real ``gdl`` executable, each within 5 s.

Each case is a shape that used to hang or print a Python traceback: a rule evaluation longer than any
budget, a load that never ends, or Python's own limits (int() of 4,300 digits, 20 nested loops,
recursion). Now each ends with a diagnostic (file:line:col, caret) or a clean stop by the budget.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import time
from pathlib import Path

import pytest

import gdl
from gdl.runtime import rule_budget
from solver.limits import SearchStopped

GDL = shutil.which("gdl")
ENV = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}
WALL = 5.0
"""CPU seconds each command may take, start-up and loading included (CPU time, so that a busy shared machine
does not fail a command that stops on time; a hang is still caught by ``HANG`` seconds of wall time)."""
HANG = 60.0

HEAD = 'game T "budgets"\nplayers A, B\n'


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """The real executable: the test fails past ``WALL`` CPU seconds (or ``HANG`` seconds of wall time)."""
    if GDL is None:
        pytest.skip("the gdl console script is not installed (pip install -e .)")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run([GDL, *args], capture_output=True, text=True, timeout=HANG, env=ENV)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert cpu <= WALL, f"gdl {' '.join(args)} took {cpu:.1f} CPU seconds (at most {WALL})"
    return result


def no_traceback(result: subprocess.CompletedProcess[str]) -> str:
    output = result.stdout + result.stderr
    assert "Traceback" not in output, output[-3000:]
    return output


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def doubling_defs(levels: int) -> str:
    lines = [HEAD + "state x: 0..3 = 0", "def f0(k: 0..3) = k + x"]
    lines += [f"def f{i}(k: 0..3) = f{i - 1}(k) + f{i - 1}(k)" for i in range(1, levels)]
    lines += [f"move m when f{levels - 1}(1) > 0:", "    x = 1", "win A when x == 1"]
    return "\n".join(lines) + "\n"


def nested_blocks(keyword: str, depth: int) -> str:
    body = "".join("    " * (i + 1) + (f"for i{i} in 0..1:\n" if keyword == "for" else "if x == 0:\n")
                   for i in range(depth))
    inner = "    " * (depth + 1) + "x = 1\n"
    return HEAD + "state x: 0..3 = 0\nmove m when x == 0:\n" + body + inner + "win A when x == 1\n"


TWO_HUGE_PARAMETERS = (HEAD + "state x: 0..3 = 0\nmove m(a: 0..9998, b: 0..9998) when a + b == 3 and x == 0:\n"
                       "    x = 1\nwin A when x == 1\n")
"""A move of almost 10^8 parameter pairs: one evaluation of the moves lasts a minute (10^8 is refused at load)."""
NESTED_RUNTIME_AGGREGATES = (HEAD + "state x: 0..3 = 1\nmove m when (sum a in 0..(x * 999999): sum b in "
                             "0..(x * 999999): a + b) > 0:\n    x = 0\nwin A when x == 0\n")
NESTED_UNROLLED = (HEAD + "state x: 0..3 = 0\nmove m when (sum a in 0..127: sum b in 0..127: sum c in 0..127: "
                   "sum d in 0..127: a + b + c + d + x) > 0:\n    x = 1\nwin A when x == 1\n")


# ------------------------------------------------------------ run-time budgets


@pytest.mark.slow
@pytest.mark.parametrize("text", [TWO_HUGE_PARAMETERS, doubling_defs(26), NESTED_RUNTIME_AGGREGATES, NESTED_UNROLLED],
                         ids=["two-huge-parameters", "doubling-defs", "nested-runtime-aggregates",
                              "nested-unrolled-aggregates"])
def test_solve_time_stops_inside_one_rule_evaluation(tmp_path, text):
    result = run("solve", write(tmp_path, "long.gdl", text), "--time", "1")
    output = no_traceback(result)
    assert result.returncode == 0, output
    assert "out of time (--time)" in output


def test_solve_max_nodes_stops_inside_one_rule_evaluation(tmp_path):
    result = run("solve", write(tmp_path, "long.gdl", TWO_HUGE_PARAMETERS), "--max-nodes", "100", "--json")
    no_traceback(result)
    report = json.loads(result.stdout)
    assert report["stopped"] and report["stop_reason"] == "nodes"


@pytest.mark.parametrize("text", [TWO_HUGE_PARAMETERS, doubling_defs(26), NESTED_RUNTIME_AGGREGATES],
                         ids=["two-huge-parameters", "doubling-defs", "nested-runtime-aggregates"])
@pytest.mark.slow
def test_check_time_stops_inside_one_rule_evaluation(tmp_path, text):
    path = write(tmp_path, "long.gdl", text)
    # the playouts' --time alone (CPU seconds), as before the step budgets
    result = run("check", path, "--max-states", "0", "--playout-steps", "0", "--time", "0.2")
    output = no_traceback(result)
    assert result.returncode == 0, output
    assert "the --time budget ran out during the first playout" in output
    # by default the steps stop the exploration and the playouts inside the evaluation, the same on any machine
    result = run("check", path)
    output = no_traceback(result)
    assert result.returncode == 0, output
    assert ("(the --playout-steps budget ran out during the first playout; sampled: exploring every state would "
            "take more than --explore-steps 100,000 steps (1 states found))") in output


def test_a_budget_of_rule_work_stops_at_the_same_unit_whatever_ran_before(capsys, tmp_path):
    """The step budgets stop inside one evaluation at the same unit of work in every run: `gdl check` of two files
    in one process prints for the second what it prints alone (the work limit was looked at every 16,384 units
    from wherever the process's count stood, so the first file's work moved where the second stopped)."""
    from gdl.cli import main

    first = write(tmp_path, "first.gdl", doubling_defs(20))
    second = write(tmp_path, "walk.gdl", HEAD + "state n: 0..30 = 0\nstate w: 0..1000 = 3\n"
                   "move step when n < 30 and (sum i in 0..(w * 1000): 1) > 0:\n    n += 1\nwin A when n == 30\n")
    main(["check", second, "--max-states", "0"])  # the playouts alone: each ply does 3,001 units of rule work
    alone = capsys.readouterr().out
    assert "(7 random playouts, 213 plies; the --playout-steps budget ended the playouts of 1 file)" in alone
    for other in (first, second):
        main(["check", other])
        capsys.readouterr()
        main(["check", second, "--max-states", "0"])
        assert capsys.readouterr().out == alone


def test_a_run_time_range_over_a_million_values_is_a_rule_error(tmp_path):
    text = (HEAD + "state n: 0..3 = 1\nmove m when (sum i in 0..(n * 999999999999999): i) > 0:\n    n = 0\n"
            "win A when n == 0\n")
    result = run("check", write(tmp_path, "range.gdl", text))
    output = no_traceback(result)
    assert result.returncode == 1
    assert ("range.gdl:4:23: error[runtime-error]: a loop over the 1,000,000,000,000,000 values of "
            "0..999999999999999; at most 1,000,000") in output
    assert "at most 1,000,000" in output and "^^^" in output


@pytest.mark.slow
def test_select_and_chance_over_huge_run_time_ranges_are_rule_errors(tmp_path):
    select = (HEAD + "state x: 0..3 = 1\nmove m when len(select i in 0..(x * 999999999999): i >= 0) > 0:\n"
              "    x = 0\nwin A when x == 0\n")
    chance = HEAD + "state x: 0..3 = 1\nmove m when x == 1:\n    chance d in 0..(x * 999999999999):\n        x = 0\n" \
        "win A when x == 0\n"
    for name, text, message in [("select.gdl", select, "at most 1,000,000"), ("chance.gdl", chance, "at most 10,000")]:
        result = run("check", write(tmp_path, name, text))
        output = no_traceback(result)
        assert result.returncode == 1
        assert "error[runtime-error]" in output and message in output, output
        assert "MemoryError" not in output


def test_utilities_too_large_for_a_float_are_rule_errors(tmp_path):
    defs = "".join(f"def u{i} = u{i - 1} * u{i - 1}\n" for i in range(1, 6))
    text = (HEAD + "state x: 0..3 = 0\ndef u0 = (x + 1) * 999999999999999\n" + defs
            + "move m:\n    x = 1\nterminal when x == 1\nutility p: u5\n")
    result = run("check", write(tmp_path, "utility.gdl", text))
    output = no_traceback(result)
    assert result.returncode == 1
    assert "utility.gdl:13:12: error[runtime-error]: a utility of 490 digits: utilities must lie within" in output


# ------------------------------------------------------------ compile-time budgets


def test_repeated_squaring_of_a_fraction_is_too_large(tmp_path):
    squares = "".join(f"def q{i} = q{i - 1} * q{i - 1}\n" for i in range(1, 40))
    text = HEAD + "state x: 0..3 = 0\ndef q0 = 3/7\n" + squares + "move m when q39 > 0:\n    x = 1\nwin A when x == 1\n"
    result = run("check", write(tmp_path, "square.gdl", text))
    output = no_traceback(result)
    assert result.returncode == 1
    assert "square.gdl:13:10: error[too-large]: this exact fraction needs more than 1024 bits" in output


@pytest.mark.slow
def test_nested_unrolled_aggregates_load_quickly(tmp_path):
    result = run("check", write(tmp_path, "unrolled.gdl", NESTED_UNROLLED), "--time", "0.2")
    output = no_traceback(result)
    assert result.returncode == 0, output


@pytest.mark.slow
def test_thousands_of_errors_stop_at_a_hundred(tmp_path):
    lines = [HEAD + "state x: 0..3 = 0"] + [f"def e{i} = undefined_name_{i} + 1" for i in range(5000)]
    text = "\n".join(lines) + "\nmove m:\n    x = 1\nwin A when x == 1\n"
    result = run("check", write(tmp_path, "errors.gdl", text))
    output = no_traceback(result)
    assert result.returncode == 1
    assert output.count("error[undefined-name]") == 100
    assert "error[too-large]: 100 errors: the rest of the file was not checked" in output


def test_doubling_defs_compile_in_linear_time():
    started = time.process_time()
    game = gdl.load_source(doubling_defs(26), "doubling.gdl")
    assert time.process_time() - started < 20.0  # (generous: 2^26 inlinings without the memo take hours)
    assert "_tick()" in game.program.source  # the defs that call defs count their calls


@pytest.mark.parametrize(("text", "expected"), [
    (HEAD + "state x: 0..3 = 0\nmove m(a: 0..999999, b: 0..999999) when a + b < 0:\n    x = 1\nwin A when x == 1\n",
     "huge.gdl:4:1: error[too-large]: move `m` has more than 100,000,000 combinations of parameter values"),
    (doubling_defs(40), "huge.gdl:31:20: error[too-large]: calling `f26` makes more than 100,000,000 def calls"),
], ids=["a-move-over-10^12-pairs", "a-def-of-2^40-calls"])
def test_rules_that_cannot_be_evaluated_in_reasonable_time_are_too_large(tmp_path, text, expected):
    """Both once hung `gdl solve` (no --time) on both back ends while `gdl check` said 0 errors (issue 29)."""
    path = write(tmp_path, "huge.gdl", text)
    result = run("check", path)
    output = no_traceback(result)
    assert result.returncode == 1 and expected in output and "^" in output, output
    result = run("solve", path)
    output = no_traceback(result)
    assert result.returncode == 1 and "1 error" in output, output


# ------------------------------------------------------------ tracebacks on input


def test_a_literal_of_5000_digits_is_too_large(tmp_path):
    text = HEAD + "state x: 0..3 = 0\nmove m when x == " + "9" * 5000 + ":\n    x = 1\nwin A when x == 1\n"
    result = run("check", write(tmp_path, "literal.gdl", text))
    output = no_traceback(result)
    assert result.returncode == 1
    assert "literal.gdl:4:18: error[too-large]: numbers in rule files are limited to 15 digits" in output
    assert "^^^^" in output


@pytest.mark.parametrize(("keyword", "depth", "message"), [
    ("if", 99, "error[too-deep]: expression nested"),
    ("if", 45, "error[too-deep]: blocks nested more than 40 deep"),
    ("for", 21, "error[too-deep]: `for` loops nested more than 15 deep"),
])
def test_deep_nesting_is_too_deep(tmp_path, keyword, depth, message):
    result = run("check", write(tmp_path, "deep.gdl", nested_blocks(keyword, depth)))
    output = no_traceback(result)
    assert result.returncode == 1
    assert message in output and "^" in output


@pytest.mark.parametrize(("shape", "expected"), [
    # within the loader's 5 MB, each once a minute and 2 GB of Lark's tree before the depth check refused it
    (" + ".join(["1"] * 1_200_000), "deep.gdl:4:99968: error[too-large]: more than 50,000 tokens in a rule file"),
    ("(" * 2_000_000 + "1" + ")" * 2_000_000, "deep.gdl:4:49993: error[too-large]: more than 50,000 tokens"),
    # at the limit, still refused by the depth check (the tokens are fine, the nesting is not)
    (" + ".join(["1"] * 24_000), "error[too-deep]: expression nested"),
], ids=["a-5-MB-sum", "4-MB-of-brackets", "a-sum-within-the-budget"])
def test_a_huge_rule_file_is_refused_before_it_is_parsed(tmp_path, shape, expected):
    text = HEAD + "state x: 0..3 = 0\ndef f(k: 0..3) = " + shape + "\nmove m: x = 1\nwin A when x == 1\n"
    result = run("check", write(tmp_path, "deep.gdl", text))
    output = no_traceback(result)
    assert result.returncode == 1 and expected in output and "^" in output


def test_words_in_comments_and_strings_are_not_counted_as_tokens():
    comments = ("# " + "a b c " * 200 + "\n") * 500  # 300,000 words
    text = (HEAD.replace('"budgets"', '"' + "a + " * 60_000 + '"') + "state x: 0..3 = 0\n" + comments
            + "move m: x = 1\nwin A when x == 1\n")
    game = gdl.load_source(text, "comments.gdl")
    assert [str(m) for m in game.legal_moves(game.initial_state())] == ["m"]


def test_the_deepest_nesting_allowed_still_runs():
    for keyword, depth in [("if", 40), ("for", 15)]:
        game = gdl.load_source(nested_blocks(keyword, depth), "deep.gdl")
        state = game.apply(game.initial_state(), game.legal_moves(game.initial_state())[0])
        assert game.values(state)["x"] == 1


def test_a_chain_of_246_defs_is_too_deep(tmp_path):
    lines = [HEAD + "state x: 0..3 = 0", "def d0 = x"] + [f"def d{i} = d{i - 1} + 1" for i in range(1, 246)]
    text = "\n".join(lines) + "\nmove m when d245 > 0:\n    x = 1\nwin A when x == 1\n"
    result = run("check", write(tmp_path, "chain.gdl", text))
    output = no_traceback(result)
    assert result.returncode == 1
    assert "error[too-deep]" in output and "defs that call one another" in output


def test_a_move_with_too_many_parameters_is_too_deep(tmp_path):
    params = ", ".join(f"p{i}: 0..1" for i in range(21))
    text = HEAD + f"state x: 0..3 = 0\nmove m({params}) when x == 0:\n    x = 1\nwin A when x == 1\n"
    result = run("check", write(tmp_path, "params.gdl", text))
    output = no_traceback(result)
    assert result.returncode == 1
    assert "error[too-deep]: move `m` has 21 parameters; at most 15" in output


@pytest.mark.slow
def test_a_fractional_parameter(tmp_path):
    path = write(tmp_path, "bonus.gdl", 'game T "fp"\nparam bonus = 0.5\nplayers A, B\nstate x: 0..3 = 0\n'
                 "move m:\n    x = 1\nwin A when x == 1 and bonus > 0\n")
    assert run("check", path).returncode == 0
    report = json.loads(run("solve", path, "--json").stdout)
    assert report["parameters"] == {"bonus": 0.5}
    assert run("solve", path, "-p", "bonus=1/3").returncode == 0
    for bad, message in [("1/0", "divides by zero"), ("1e99999999999", "takes a number like"),
                         ("99999", "out of the range")]:
        result = run("solve", path, "-p", f"bonus={bad}")
        output = no_traceback(result)
        assert result.returncode == 2 and message in output, output


# ------------------------------------------------------------ the rule budget itself


def test_rule_budget_stops_a_long_evaluation_and_restores():
    game = gdl.load_source(TWO_HUGE_PARAMETERS, "long.gdl")
    started = time.perf_counter()
    with pytest.raises(SearchStopped) as stop, rule_budget(seconds=0.2):
        game.legal_moves(game.initial_state())
    assert stop.value.reason == "time"
    assert time.perf_counter() - started < 3.0
    with pytest.raises(SearchStopped) as stop, rule_budget(nodes=1):
        game.legal_moves(game.initial_state())
    assert stop.value.reason == "nodes"
    small = gdl.load_source(HEAD + "state x: 0..3 = 0\nmove m(a: 0..3) when x == 0:\n    x = 1\nwin A when x == 1\n",
                            "small.gdl")
    with rule_budget(seconds=0.0):  # short loops are never counted: nothing to stop
        assert len(small.legal_moves(small.initial_state())) == 4


@pytest.mark.slow
def test_budgets_keep_the_values():
    """Unrolling, inlining and polling stop at their budgets; the values stay the same."""
    expected = 2 ** 17 + (127 * 128 // 2) ** 3 + 199999 * 200000 // 2
    for total, legal in [(expected, 1), (expected + 1, 0)]:
        text = (HEAD + "state x: 0..3 = 1\ndef f0(k: 0..3) = k + x\n"
                + "".join(f"def f{i}(k: 0..3) = f{i - 1}(k) + f{i - 1}(k)\n" for i in range(1, 17))
                + "move m when f16(1) + (sum a in 0..127: sum b in 0..127: sum c in 0..127: a * b * c * x) + "
                f"(sum i in 0..(x * 199999): i) == {total}:\n    x = 0\nwin A when x == 0\n")
        game = gdl.load_source(text, "values.gdl")
        assert len(game.legal_moves(game.initial_state())) == legal


def test_a_setup_that_never_ends_is_too_large(monkeypatch):
    import gdl.runtime
    from gdl.check import check_source

    monkeypatch.setattr(gdl.runtime, "SETUP_WORK", 200_000)  # 20,000,000 by default: a second of this loop
    text = (HEAD + "state x: 0..3 = 0\nsetup:\n    for i in 0..999999:\n        for j in 0..999999:\n"
            "            x = 1\nmove m:\n    x = 1\nwin A when x == 1\n")
    with pytest.raises(gdl.RuleFileError) as caught:
        gdl.load_source(text, "setup.gdl")
    assert caught.value.diagnostics[0].code == "too-large"
    report = check_source(text, "setup.gdl")
    assert [d.format() for d in report.diagnostics if d.is_error] == [
        "setup.gdl:6:9: error[too-large]: building the initial state needs more than 200,000 steps of rule work "
        "(loop iterations and def calls)"]


SETUP_MILLION = (HEAD + "state x: 0..3 = 0\nsetup:\n    for i in 0..999:\n        for j in 0..999:\n"
                 "            x = (i + j) % 2\nmove m when x < 3:\n    x = 3\nwin A when x == 3\n")
"""A setup of a million loop iterations, counted as rule work: well within the budget."""


def test_whether_a_file_loads_does_not_depend_on_the_machine(monkeypatch, capsys, tmp_path):
    """Building the initial state is bounded by counted rule work: a machine whose clocks run fast (a busy one,
    tests/warp.py) loads the same file (5 CPU seconds called this one too large when each clock read was late)."""
    from warp import warp_clocks

    from gdl.cli import main

    path = write(tmp_path, "million.gdl", SETUP_MILLION)
    assert main(["check", path]) == 0
    expected = capsys.readouterr()
    assert "0 errors, 0 warnings (explored all 2 states)" in expected.out
    warp_clocks(monkeypatch, 0.1)
    assert main(["check", path]) == 0
    assert capsys.readouterr() == expected


def test_a_setup_whose_every_step_is_slow_meets_the_safety_net(monkeypatch):
    """A long loop whose body runs short loops the compiler does not count: far within the counted budget, far
    past any time (some 100 CPU seconds here); the safety net of CPU seconds stops it, and the diagnostic says
    so."""
    import gdl.runtime

    monkeypatch.setattr(gdl.runtime, "SETUP_SECONDS", 0.2)  # 30 s of CPU by default
    inner = "".join(f"        for j{k} in 0..98:\n            x = (i + j{k}) % 2\n" for k in range(10))
    text = (HEAD + "state n: 0..999999 = 999999\nstate x: 0..3 = 0\nsetup:\n    for i in 0..n:\n" + inner
            + "move m:\n    x = 1\nwin A when x == 1\n")
    with pytest.raises(gdl.RuleFileError) as caught:
        gdl.load_source(text, "slow.gdl")
    assert caught.value.diagnostics[0].format() == (
        "slow.gdl:6:5: error[too-large]: building the initial state was stopped after 0.2 s of CPU (a safety "
        "net: each step of its rule work is slow)")


@pytest.mark.slow
def test_hostile_fuzz_cases_never_crash():
    """One case of each shape of `bench/fuzz.py --generator hostile` (the campaign runs thousands)."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    import fuzz

    first: dict[str, int] = {}
    for seed in range(200):
        first.setdefault(fuzz.make_case(seed, "hostile")[0].split("+")[0], seed)
    assert len(first) == len(fuzz.HOSTILE_SHAPES)
    for shape, seed in sorted(first.items()):
        _, _, sig, trace = fuzz.check_seed((seed, 20.0, "hostile"))
        assert sig is None, f"{shape} (seed {seed}): {sig}\n{trace}"


@pytest.mark.parametrize(("base", "line"), [("(x + 2) / 7", 15), ("(x + 2) * 999999999", 12)],
                         ids=["fraction", "whole-number"])
def test_repeated_squaring_at_run_time_is_a_rule_error(tmp_path, base, line):
    """One multiplication of two huge numbers cannot be interrupted: products are bounded instead."""
    squares = "".join(f"def q{i} = q{i - 1} * q{i - 1}\n" for i in range(1, 31))
    text = (HEAD + f"state x: 0..3 = 0\ndef q0 = {base}\n" + squares
            + "move m when q30 > 0:\n    x = 1\nwin A when x == 1\n")
    result = run("check", write(tmp_path, "squares.gdl", text))
    output = no_traceback(result)
    assert result.returncode == 1
    assert f"squares.gdl:{line}:" in output and "error[runtime-error]: a number of more than 4,096 bits" in output


AGENT_BOUND = (HEAD + "state x: 0..3 = 0\nmove m(a: 0..9998, b: 0..9998) when a + b == 3 and x == 0:\n"
               "    x = 1\nmove n when x == 0: x = 2\nwin A when x == 1\ndraw when x == 2\n")


@pytest.mark.slow
@pytest.mark.parametrize("command", [["play", "--as", "none", "--vs", "alphabeta:seconds=1"],
                                     ["match", "alphabeta:seconds=1", "random", "--games", "1"]],
                         ids=["play", "match"])
def test_an_agent_is_held_to_its_time_inside_one_rule_evaluation(tmp_path, command):
    # The agent's own search checks its clock between rule evaluations; listing this position's moves is
    # one evaluation longer than the agent's second, so the move budget stops it: a one-line error, exit 1.
    name, *options = command
    result = run(name, write(tmp_path, "slow.gdl", AGENT_BOUND), *options)
    output = no_traceback(result)
    assert result.returncode == 1, output
    assert "found no move in its" in output and "evaluating the rules in this position takes longer" in output


# ------------------------------------------------------------ budgets on a state of 10,000 cells (issue 29)

HUGE_STATE = ('game Flat "a row of n x n cells, filled one at a time"\nparam n = 100\nplayers {players}\n'
              "state cell[0..n*n-1]: 0..10 = 0\nstate filled: 0..n*n = 0\n"
              "move put(k: 0..9) when filled < n * n and (count i in 0..n*n-1: cell[i] == 0) > 0:\n"
              "    cell[filled] = k + 1\n    filled += 1\n"
              "win A when filled == n * n and cell[0] > 5\n{other}")
"""A state of 10,000 cells (n = 100), ten moves a ply, each guard a scan of every cell; 10,000 plies deep."""
TWO_PLAYERS = HUGE_STATE.format(players="A, B", other="win B when filled == n * n and cell[0] <= 5\n")
ONE_PLAYER = HUGE_STATE.format(players="A", other="lose A when filled == n * n and cell[0] <= 5\n")
START_UP = 20.0
"""CPU seconds a command may take besides its budget: start-up, loading, the answer's estimate (some 5 s here);
the budgets were overshot by minutes. CPU, not wall-clock, seconds: with two CPU hogs beside the suite the same
command took 23 s of wall-clock time."""
PEAK_RSS = ("import resource, subprocess, sys\n"
            "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
            "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
            "print(done.returncode, usage.ru_maxrss, usage.ru_utime + usage.ru_stime)\n"
            "print(done.stdout + done.stderr)\n")
"""A wrapper whose only child is the command: its exit code, peak resident memory in KB and CPU seconds, then its
output."""


@pytest.fixture(scope="module")
def huge_files(tmp_path_factory):
    """The two rule files, each built once for the C back end (some seconds of the C compiler, then cached)."""
    folder = tmp_path_factory.mktemp("huge")
    paths = {}
    for name, text in [("two", TWO_PLAYERS), ("one", ONE_PLAYER)]:
        paths[name] = write(folder, f"{name}.gdl", text)
        try:
            gdl.load(paths[name], backend="c")
        except Exception as error:  # no C compiler: the Python cases still run
            paths[f"{name}-c"] = str(error)
    return paths


def measured(*args: str) -> tuple[float, int, int, str]:
    """``gdl ARGS`` through the real executable: its CPU seconds, peak memory in MB, exit code and output."""
    if GDL is None:
        pytest.skip("the gdl console script is not installed (pip install -e .)")
    import sys

    done = subprocess.run([sys.executable, "-c", PEAK_RSS, GDL, *args], capture_output=True, text=True,
                          timeout=600, env=ENV)
    code, peak, cpu = done.stdout.split("\n", 1)[0].split()
    return float(cpu), int(peak) // 1024, int(code), done.stdout.split("\n", 1)[1]


def huge_case(files: dict[str, str], backend: str, algorithm: str) -> str:
    if f"two-{backend}" in files or f"one-{backend}" in files:
        pytest.skip(f"no C back end here: {files.get('two-c')}")
    return files["one" if algorithm == "puzzle" else "two"]


HUGE_ALGORITHMS = ["auto", "alphabeta", "backward", "retrograde", "value_iteration", "expectimax", "minimax",
                   "puzzle"]


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["python", "c"])
@pytest.mark.parametrize("algorithm", HUGE_ALGORITHMS)
def test_time_is_kept_on_a_state_of_10000_cells(huge_files, backend, algorithm):
    path = huge_case(huge_files, backend, algorithm)
    seconds, _, code, output = measured("solve", path, "--backend", backend, "--algorithm", algorithm,
                                        "--time", "2", "--json")
    assert "Traceback" not in output, output[-3000:]
    assert code == 0, output[-3000:]
    report = json.loads(output)
    assert report["stop_reason"] == "time" and report["stats"]["seconds"] < 4.0
    assert seconds < 2 * 2 + START_UP, f"--time 2 took {seconds:.1f} s of CPU"  # (C may search on two threads)


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["python", "c"])
@pytest.mark.parametrize("algorithm", ["auto", "alphabeta", "backward", "puzzle"])
def test_memory_is_kept_on_a_state_of_10000_cells(huge_files, backend, algorithm):
    """The tables count an entry's real size, and a depth-first search's path is bounded too: within twice
    ``--memory`` of what the same command takes with almost no table (``--max-nodes 1``)."""
    path = huge_case(huge_files, backend, algorithm)
    common = ("solve", path, "--backend", backend, "--algorithm", algorithm, "--json")
    _, base, code, output = measured(*common, "--max-nodes", "1")
    assert code == 0, output[-3000:]
    _, peak, code, output = measured(*common, "--memory", "100")
    assert "Traceback" not in output, output[-3000:]
    assert peak <= base + 2 * 100, f"--memory 100 grew to {peak} MB ({base} MB without a table)"
    if code == 0:
        assert json.loads(output)["stop_reason"] in ("table", "depth", None)
    else:  # the recursive searches say the game is too long for them: a usage error, not a crash
        assert code == 2 and "too long" in output


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["python", "c"])
def test_max_nodes_is_kept_on_a_state_of_10000_cells(huge_files, backend):
    path = huge_case(huge_files, backend, "auto")
    seconds, _, code, output = measured("solve", path, "--backend", backend, "--max-nodes", "10", "--json")
    assert "Traceback" not in output, output[-3000:]
    assert code == 0, output[-3000:]
    report = json.loads(output)
    assert report["stop_reason"] == "nodes" and report["stats"]["nodes"] <= 20
    assert seconds < START_UP, f"--max-nodes 10 took {seconds:.1f} s of CPU"
    _, _, code, output = measured("solve", path, "--backend", backend, "--max-nodes", "10")
    assert code == 0 and "Traceback" not in output, output[-3000:]  # (an OverflowError printing the estimate)
    assert "out of nodes (--max-nodes)" in output and "the state encodings allow at most 10^10417.9" in output


def test_the_size_estimate_prints_a_bound_past_a_float():
    from gdl.cli.estimate import estimate_text

    text = estimate_text({"states_explored": 10, "log10_encodings": 10417.93})
    assert "the state encodings allow at most 10^10417.9" in text
