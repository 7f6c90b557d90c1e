"""The compiler's product for the runtime: generated functions and tables, no AST."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from gdl.board import Board
from gdl.diagnostics import Span
from gdl.rule_helpers import MoveFactory, OutcomeFactory
from gdl.types import Type

if TYPE_CHECKING:  # (neither is imported to run a compiled program: gdl.program_cache loads one without them)
    from gdl import ast
    from gdl.compiler import ir as ir_module


@dataclass(slots=True)
class StateVar:
    """A declared state variable: its place in the flat state, its type and its values' range."""

    name: str
    decl: ast.StateDecl | None  # the compiler's; None in a program read back from gdl.program_cache
    type: Type
    offset: int
    dims: list[tuple[int, int]]  # (low index, size) per dimension
    index_types: list[Type]
    lo: int
    hi: int
    used: bool = False
    values: frozenset[int] | None = None  # the values lo..hi allows, when not all of them (`orthogonal`)
    not_kept: ClassVar[tuple[str, ...]] = ("decl",)  # (gdl.program_cache reads it back as None: the compiler's)

    def holds(self, value: int) -> bool:
        return self.lo <= value <= self.hi and (self.values is None or value in self.values)

    @property
    def size(self) -> int:
        return math.prod(size for _, size in self.dims)


@dataclass
class Program:
    """Everything the runtime needs: generated functions and tables, no AST."""

    name: str
    description: str | None
    meta: dict[str, str]
    players: tuple[str, ...]
    parameters: dict[str, Any]
    nvars: int
    state_vars: list[StateVar]
    board: Board | None
    render_var: str | None
    render_symbols: dict[int, str]
    zero_sum: bool
    utility_bounds: tuple[float, float] | None
    has_chance: bool
    has_heuristic: bool
    namespace: dict[str, Any]
    source: str
    linemap: dict[int, Span]
    spans: list[Span]
    move_actions: list[str]
    fingerprint: str
    enums: dict[str, tuple[str, ...]]
    displayers: dict[str, Callable[[int], str]]
    end_descriptions: list[str]
    factories: list[MoveFactory | OutcomeFactory]
    chance_points: int
    eager_moves: list[tuple[str, str, tuple[Any, ...], str]]
    distributions: list[tuple[str, OutcomeFactory, list[tuple[Any, float]]]]
    symmetries: tuple[str, ...] = ()  # declared board symmetries (generator names), checked at run time
    symmetry_span: Span | None = None
    move_param_types: dict[str, tuple[Type, ...]] = field(default_factory=dict)
    """Each action's parameter types: a `column` or `row` parameter also parses from its index (`drop(3)`)."""
    win_loss: bool = False
    """Two players, and every end is a win for one and a loss for the other: no draws, no other scores."""
    simultaneous: bool = False
    """`simultaneous`: every decision is a round where all players choose at once (gdl/compiler/simultaneous.py)."""
    has_quiet: bool = False
    """`quiet when`: the rules say which positions a depth-limited search may score (gdl/compiler/quiet.py)."""
    ir_builder: Callable[[], ir_module.Program] | None = None
    not_kept: ClassVar[tuple[str, ...]] = ("ir", "ir_builder")  # (gdl.program_cache keeps the IR apart)

    @functools.cached_property
    def ir(self) -> ir_module.Program | None:
        """The same rules in the typed IR (gdl.compiler.ir), for other back ends: made on first use."""
        return self.ir_builder() if self.ir_builder is not None else None
