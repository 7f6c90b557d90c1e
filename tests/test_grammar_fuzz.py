"""Fuzzing with rule files derived from the grammar itself (``tests/grammar_strategy.py``).

Two Hypothesis strategies: ``rule_files()`` expands the start rule of ``grammars/gdl.lark`` (read at run
time), and ``spliced_rule_files(BASES)`` replaces expressions of bundled games with expressions expanded
from the grammar's ``expr`` rule (these often pass the checks, so the back end gets exercised too).
Properties, on a CI budget (the long campaign is ``python bench/fuzz.py --generator grammar``):

(a) every generated file parses -- the strategies really produce syntactically valid files;
(b) ``gdl check`` (``gdl.check.check_source``) raises nothing and reports diagnostics inside the file;
(c) a file that check accepts survives random playouts and a budgeted solve, or fails with a runtime
    diagnostic inside the file (``bench/fuzz.py``'s ``run_case``, shared with ``tests/test_fuzz.py``).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import fuzz
import grammar_strategy as gs

import gdl.check
from gdl.parser import parse

BASES = tuple(text for name, text in sorted(fuzz.GAMES.items()) if name not in fuzz.SLOW)
FILES = st.one_of(gs.rule_files(max_tokens=80), gs.spliced_rule_files(BASES))
SETTINGS = {"deadline": None, "derandomize": True,
            "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}


@pytest.mark.slow
@settings(max_examples=80, **SETTINGS)
@given(text=FILES)
def test_generated_files_parse(text: str) -> None:
    parse(text, "generated.gdl")  # a RuleFileError here is a bug of the strategy or of the parser


@pytest.mark.slow
@settings(max_examples=40, **SETTINGS)
@given(text=FILES)
def test_check_reports_only_diagnostics_inside_the_file(text: str) -> None:
    report = gdl.check.check_source(text, "generated.gdl", playouts=3, max_plies=100)
    event("accepted" if report.errors == 0 else "rejected")
    for diagnostic in report.diagnostics:
        fuzz.inside(diagnostic, text)


@pytest.mark.slow
@settings(max_examples=40, **SETTINGS)
@given(text=gs.spliced_rule_files(BASES, max_count=1))
def test_accepted_files_play_or_report_runtime_diagnostics(text: str) -> None:
    report = gdl.check.check_source(text, "generated.gdl", playouts=2, max_plies=100)
    event("accepted" if report.errors == 0 else "rejected")
    if report.errors == 0:
        fuzz.run_case(text, seed=0)


@pytest.mark.slow
def test_the_walker_reaches_every_expansion_of_the_grammar() -> None:
    """Every alternative of every rule, and every terminal, shows up within 200 seeded files."""
    model = gs.grammar_model()
    used: set[tuple[str, tuple[str, ...]]] = set()
    terminals: set[str] = set()
    for seed in range(200):
        _, walk = gs.generate_walk(gs.RandomChooser(random.Random(seed)), names=gs.default_names())
        used |= walk.used
        terminals |= {name for name, _ in walk.tokens}
    missing = [(origin, e) for origin, expansions in model.rules.items() for e in expansions
               if (origin, e) not in used]
    assert not missing, missing[:10]
    assert set(model.terminals) - set(model.ignore) <= terminals


@pytest.mark.slow
def test_the_strategy_reads_the_grammar_at_run_time(tmp_path: Path) -> None:
    """A rule added to the grammar is generated without any change to the strategy."""
    grammar = gs.grammar_path().read_text(encoding="utf-8")
    extended = grammar.replace("_item: ", "_item: fuzz_decl | ", 1) + '\nfuzz_decl: "fuzz" NAME _NL\n'
    path = tmp_path / "extended.lark"
    path.write_text(extended, encoding="utf-8")
    model = gs.grammar_model(str(path))
    assert ("_item", ("fuzz_decl",)) in {(o, e) for o, es in model.rules.items() for e in es}
    texts = [gs.Renderer(model, chooser).render(gs.Walker(model, chooser).run().tokens)
             for chooser in (gs.RandomChooser(random.Random(seed)) for seed in range(100))]
    assert any("fuzz " in text for text in texts)
