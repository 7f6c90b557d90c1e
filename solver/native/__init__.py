"""The solvers' inner loops in C, over the C game ABI (``gdl_abi.h``).

A game that is compiled to C (by ``gdl.native``, or written by hand as in the tests) is built with the
solver sources (:mod:`solver.native.units`, which lists them) into one cffi extension module whose C
declarations are :data:`CDEF`: as one C translation unit (the game's functions, then the sources), or as
two compiled in parallel. The game object exposes that module
through :class:`SupportsNative` (a declared method, ``native()``), and the public searches
(``solver.exact.solve``, ``solver.mcts.mcts``) run their inner loops in C when it returns a handle.
Python keeps the orchestration: budgets, progress, Ctrl-C, results.

This package never imports ``gdl``: building and caching modules is the caller's business.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, Protocol, runtime_checkable

from solver.game import DeadEndError, Game, dead_end

ERROR_CDEF = """
typedef struct gdl_error { int32_t code; int32_t line; int32_t col; int32_t detail; } gdl_error;
"""
ENTRY_POINTS = """
void gdl_setup(void);
int gdl_info(int64_t *info, int n);
double gdl_bound(int which);
void gdl_ranges(int64_t *lo, int64_t *hi);
int gdl_py_initial(int64_t *out, gdl_error *e);
int gdl_py_to_move(const int64_t *in, gdl_error *e);
int gdl_py_legal(const int64_t *in, int32_t *moves, gdl_error *e);
int gdl_py_chance(const int64_t *in, int32_t *outcomes, double *probs, gdl_error *e);
int gdl_py_apply(int64_t *inout, int32_t move, gdl_error *e);
int gdl_py_utilities(const int64_t *in, double *u, gdl_error *e);
int gdl_py_heuristic(const int64_t *in, double *h, gdl_error *e);
int gdl_py_key(const int64_t *in, int64_t *canon, uint64_t *hash, gdl_error *e);

typedef struct ab_ctx ab_ctx;
int64_t gdl_ab_entry_bytes(void);
int64_t gdl_ab_frame_bytes(void);
ab_ctx *gdl_ab_new(int64_t entries);
void gdl_ab_stack_limit(ab_ctx *c, int64_t frames);
ab_ctx *gdl_ab_new_helper(ab_ctx *owner, int32_t variant);
void gdl_ab_free(ab_ctx *c);
int64_t gdl_ab_capacity(ab_ctx *c);
int gdl_ab_start(ab_ctx *c, const int64_t *root, double alpha, double beta);
int gdl_ab_run(ab_ctx *c, int64_t slice);
void gdl_ab_stats(ab_ctx *c, int64_t *out);
double gdl_ab_result(ab_ctx *c);
void gdl_ab_error(ab_ctx *c, gdl_error *e);
int64_t gdl_ab_path(ab_ctx *c, int32_t *moves, int64_t cap, int64_t *state);
int gdl_ab_lookup(ab_ctx *c, const int64_t *cells, double *lo, double *hi, int32_t *move, int32_t *side);
int64_t gdl_ab_entries(ab_ctx *c, int64_t start, int64_t cap, int64_t *cells, double *lo, double *hi,
                       int32_t *moves, int32_t *sides, int64_t *count);

typedef struct mc_ctx mc_ctx;
mc_ctx *gdl_mc_new(const int64_t *root, double exploration, int32_t max_rollout, int32_t solver, uint64_t seed,
                   int64_t heuristic_rollout, gdl_error *e);
void gdl_mc_free(mc_ctx *c);
int gdl_mc_run(mc_ctx *c, int64_t iterations, int64_t stop_nodes);
void gdl_mc_stats(mc_ctx *c, int64_t *out);
int gdl_mc_root(mc_ctx *c, double *value, int64_t *visits);
int gdl_mc_children(mc_ctx *c, int64_t node, int32_t *moves, int64_t *visits, double *values, int32_t *proven,
                    int cap);
int gdl_mc_line(mc_ctx *c, int32_t *moves, int cap);
void gdl_mc_error(mc_ctx *c, gdl_error *e);
int gdl_mc_path(mc_ctx *c, int32_t *moves, int cap, int64_t *state);

typedef struct gr_ctx gr_ctx;
int64_t gdl_gr_state_bytes(int32_t vector, int32_t retrograde);
gr_ctx *gdl_gr_new(int64_t cap);
void gdl_gr_free(gr_ctx *c);
int gdl_gr_vector(gr_ctx *c);
int gdl_gr_threads(gr_ctx *c, int32_t threads, int64_t serial);
int gdl_gr_values(gr_ctx *c, int64_t i, double *out);
int gdl_gr_explore(gr_ctx *c, const int64_t *root, int64_t slice);
int gdl_gr_solve(gr_ctx *c, double tolerance, int64_t max_sweeps, int64_t slice);
void gdl_gr_stats(gr_ctx *c, int64_t *out);
void gdl_gr_error(gr_ctx *c, gdl_error *e);
int64_t gdl_gr_find(gr_ctx *c, const int64_t *cells);
int64_t gdl_gr_node(gr_ctx *c, int64_t i, double *value, int32_t *player, int32_t *codes, int64_t *children,
                    int64_t cap);
int64_t gdl_gr_parent(gr_ctx *c, int64_t i, int32_t *via);
int gdl_gr_levels(gr_ctx *c, int64_t *sizes, int cap, int32_t *complete);
int gdl_gr_cells(gr_ctx *c, int64_t i, int64_t *cells);
void gdl_gr_states(gr_ctx *c, int64_t *cells);
typedef struct rg_ctx rg_ctx;
rg_ctx *gdl_rg_new(gr_ctx *g, int32_t check_cycles);
void gdl_rg_free(rg_ctx *r);
int gdl_rg_run(rg_ctx *r, int64_t slice);
void gdl_rg_stats(rg_ctx *r, int64_t *out);
int64_t gdl_rg_best(rg_ctx *r, int64_t i, int32_t *positions, int64_t cap);
int gdl_rg_flags(rg_ctx *r, int8_t *flags, int64_t *first);
typedef struct rm_ctx rm_ctx;
rm_ctx *gdl_rm_new(gr_ctx *g);
void gdl_rm_free(rm_ctx *r);
int gdl_rm_run(rm_ctx *r, int64_t slice);
void gdl_rm_stats(rm_ctx *r, int64_t *out);
int gdl_rm_plies(rm_ctx *r, int64_t start, int64_t count, double *out);
int64_t gdl_rm_fastest(rm_ctx *r, int64_t i, int32_t *positions, int64_t cap);
typedef struct pz_ctx pz_ctx;
pz_ctx *gdl_pz_new(const int64_t *root, int32_t astar, int32_t has_target, double target, gdl_error *e);
void gdl_pz_free(pz_ctx *c);
int gdl_pz_run(pz_ctx *c, int64_t slice, gdl_error *e);
void gdl_pz_stats(pz_ctx *c, int64_t *out, double *best_utility);
int64_t gdl_pz_line(pz_ctx *c, int64_t i, int32_t *codes, int64_t cap);
int gdl_gr_export(gr_ctx *c, int32_t *player, int64_t *first, double *vals, int64_t *cells, int32_t *succ,
                  int32_t *codes, double *probs);
typedef struct ex_ctx ex_ctx;
int64_t gdl_ex_entry_bytes(void);
ex_ctx *gdl_ex_new(int32_t prune, int32_t probe, int32_t use_tt, int64_t cap, double low, double high,
                   int64_t (*check)(int64_t));
void gdl_ex_free(ex_ctx *c);
void gdl_ex_stats(ex_ctx *c, int64_t *out);
void gdl_ex_error(ex_ctx *c, gdl_error *e);
int64_t gdl_ex_path(ex_ctx *c, int32_t *moves, int64_t cap);
int gdl_ex_value(ex_ctx *c, const int64_t *root, int32_t depth, int32_t limited, double alpha, double beta,
                 int64_t next_check, double *out);

"""
"""The functions a native module exports to Python, as C declarations."""
CDEF = ERROR_CDEF + ENTRY_POINTS
"""The cffi declarations of a native module: its error record and its entry points."""


class NativeHandle(Protocol):
    """What a C-backed game gives the native solvers: its built module and the conversions they need.

    States cross the boundary as lists of ``state_len`` ints (``cells``); moves as int codes.
    """

    ffi: Any
    lib: Any
    state_len: int

    def cells(self, state: Hashable) -> Sequence[int]:
        """A state of the game as its cells."""
        ...

    def key_of_cells(self, cells: Sequence[int]) -> Hashable:
        """The state whose cells are ``cells``; for a canonical image, the game's ``key`` of its states (what
        ``game.key`` returns: keys are canonical states)."""
        ...

    def move(self, code: int) -> Hashable:
        """The move (or chance outcome) object of a code, as ``game.legal_moves`` returns it."""
        ...

    def code(self, move: Hashable) -> int:
        """The code of a move object."""
        ...

    def error(self, error: Any, moves: Sequence[Hashable] = ()) -> Exception:
        """The exception for a rule error the C code reported (a ``gdl_error``), after ``moves`` from the root."""
        ...


@runtime_checkable
class SupportsNative(Protocol):
    """A game whose rules are compiled to C: ``native()`` returns its handle (None: use Python)."""

    def native(self) -> NativeHandle | None: ...


_SUPPORTS: dict[type, bool] = {}
"""Per class, whether its games have ``native()`` (a protocol ``isinstance`` costs some 13 us: asked per solve)."""


FIRST_SLICE = 16
"""The first slice of C work (nodes, states, iterations): small, as one unit may cost milliseconds (a state of
thousands of cells, with thousands of moves); :func:`next_slice` grows the next ones fourfold while they are
quick."""


def next_slice(size: int, elapsed: float, smallest: int = 1, seconds: float = 0.05) -> int:
    """The next slice of C work after one of ``size`` units took ``elapsed`` seconds: sized to last about
    ``seconds`` (at most four times the last, at least ``smallest``), so Python checks its budget that often."""
    return max(smallest, min(size * 4, int(size * seconds / max(elapsed, 1e-6))))


def dead_end_after(game: Game[Any, Any], root: Hashable, line: Sequence[Hashable]) -> DeadEndError:
    """The error for the dead end that ``line`` reaches from ``root``, with those moves: what a C search
    reports as the moves to the state it met (every C solver raises it the same way)."""
    state = root
    for move in line:
        state = game.apply(state, move)
    error = dead_end(game, state, game.to_move(state))
    for move in reversed(line):
        error.prepend(move)
    return error


def handle_of(game: object) -> NativeHandle | None:
    """The native handle of ``game``, or None when it has none (the Python loops are used)."""
    kind = type(game)
    supports = _SUPPORTS.get(kind)
    if supports is None:
        supports = _SUPPORTS[kind] = isinstance(game, SupportsNative)
    return game.native() if supports else None  # type: ignore[attr-defined]
