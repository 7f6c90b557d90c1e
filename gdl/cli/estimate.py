"""How big a game is, measured when an exact solve stops: ``gdl solve``'s size estimate."""

from __future__ import annotations

import itertools
import math
import random
import time
from typing import Any

from gdl.cli.info import state_space
from gdl.runtime import CompiledGame, rule_budget
from solver.game import CHANCE, TERMINAL
from solver.limits import cells
from solver.native.graph import ply_sizes

GROWTH_STATES = 50_000
"""Most states the breadth-first probe behind a size estimate steps through from Python ..."""


GROWTH_STATES_IN_C = 250_000
"""... or in C (a game with the C back end), a hundred times faster per state: the same plies in a fraction of the
time (about 0.1 KB each: 25 MB at most) ..."""


GROWTH_CELLS = 4_000_000
"""... and states of at most this many cells in all from Python (ten times more in C): a state of 10,000
cells counts as much as a thousand of tic-tac-toe's, so the probe steps through fewer of them. Counted in states,
not seconds, the probe measures the same plies on a busy machine as on an idle one."""


PLAYOUT_PLIES = 20_000
"""Most plies of the random playouts that tell how long the game lasts (at most 1,000 each), fewer for big states
by :data:`GROWTH_CELLS` as well."""


PROBE_RULE_NODES = 1_000
"""The rule work the probe and its playouts may do in long loops and def calls, in nodes' worth
(:data:`gdl.rule_helpers.WORK_PER_NODE` each): plenty for any game, and a moment for a rule file whose single
evaluation outlasts any budget (10 nodes' worth when the solve explored nothing)."""


GROWTH_SECONDS = 3.0
"""After a solve stopped by ``--time``, the probe (and the playouts) also stop at the clock: at most this many
seconds ..."""


GROWTH_SHARE = 0.2
"""... and at most this share of that time ..."""


GROWTH_MIN_SECONDS = 0.1
"""... but at least this long (the estimate comes after the budget ran out: a user who gave one second should not
wait four). Without ``--time`` only the counts above bound the probe."""


TOO_BIG = 10 ** 8
"""Reachable states beyond which a game is "probably too big to solve exactly" (~40 GB of tables)."""


def size_estimate(game: CompiledGame, state: Any, explored: int, seconds: float = 0.0,
                  time_limit: float | None = None) -> dict[str, Any]:
    """How big the game is, measured: the states the stopped solve kept, and the growth of a short probe.

    A breadth-first probe from ``state`` counts the new states of each ply (within ``GROWTH_STATES``
    and ``GROWTH_CELLS``). If it finishes, the number of reachable states is known exactly.
    Otherwise the plies' growth ratios are extrapolated to the length of the longest random playout,
    each ratio shrinking as the measured ratios shrink: a rough order of magnitude
    (``estimated_states``). The encodings bound of ``gdl info`` is kept for reference only (it counts
    every combination of values, reachable or not). ``time_limit``: the solve stopped at this ``--time``,
    and the probe also stops after a share of it (:data:`GROWTH_SHARE`); without it the probe is counted
    in states only, so the same command prints the same estimate on a busy machine.
    """

    estimate: dict[str, Any] = {"states_explored": int(explored)}
    if seconds > 0 and explored:
        estimate["states_per_second"] = round(explored / seconds, 1)
    try:
        log10 = state_space(game).get("log10_encodings")
        probe = None if time_limit is None else probe_seconds(time_limit)
        # One rule evaluation may outlast the probe: bounded by the work of the probe's states (and, after a
        # --time, by its clock; when the search explored nothing, one evaluation already outlasted it).
        rule_seconds = None if probe is None else (probe + 0.5 if explored else 0.5)
        with rule_budget(rule_seconds, nodes=PROBE_RULE_NODES if explored else 10):
            estimate.update(_growth(game, state, probe))
    except Exception:  # an estimate must never turn a result into a crash (the solve has its answer)
        log10 = None
    if log10 is not None:
        estimate["log10_encodings"] = round(float(log10), 2)
    return estimate


def probe_seconds(time_limit: float) -> float:
    """The probe's time after a solve stopped by ``--time``: a share of it, at most :data:`GROWTH_SECONDS`."""
    return min(GROWTH_SECONDS, max(GROWTH_MIN_SECONDS, GROWTH_SHARE * time_limit))


def probe_states(state: Any, in_c: bool = False) -> int:
    """The most states the probe steps through from ``state``: :data:`GROWTH_STATES` (in C
    :data:`GROWTH_STATES_IN_C`), fewer for a state of many cells (:data:`GROWTH_CELLS`)."""
    most, scale = (GROWTH_STATES_IN_C, 10) if in_c else (GROWTH_STATES, 1)
    return max(1, min(most, GROWTH_CELLS * scale // cells(state)))


def _growth(game: CompiledGame, state: Any, seconds: float | None = None) -> dict[str, Any]:
    """``reachable_states`` (the probe finished) or ``estimated_states`` (extrapolated from ``ply_sizes``);
    ``seconds``: the clock's share, two thirds for the probe and the rest for the playouts."""
    started = time.monotonic()
    deadline = None if seconds is None else started + seconds * 2 / 3
    measured = ply_sizes(game, state, probe_states(state, in_c=True), None if seconds is None else seconds * 2 / 3)
    if measured is None:
        sizes, complete = _ply_sizes_in_python(game, state, probe_states(state), deadline)
    else:
        sizes, complete = measured
    if complete:
        return {"reachable_states": sum(sizes)}
    deadline = None if seconds is None else time.monotonic() + max(seconds / 3, started + seconds - time.monotonic())
    return {"estimated_states": _extrapolate(sizes, _longest_playout(game, state, deadline=deadline)),
            "ply_sizes": sizes}


def _ply_sizes_in_python(game: CompiledGame, state: Any, most: int,
                         deadline: float | None = None) -> tuple[list[int], bool]:
    """:func:`solver.native.graph.ply_sizes`, stepping through the game: the new states of each ply (within
    ``most`` states, and ``deadline`` on the monotonic clock if given), and whether no ply follows the last."""
    seen = {game.key(state)}
    level, sizes = [state], [1]
    partial = False
    while level and len(seen) < most and (deadline is None or time.monotonic() < deadline):
        following = []
        for parent in level:
            # a ply bigger than the probe's states, or one the clock runs out in: stop inside it, and leave it out
            if len(seen) >= most or (deadline is not None and time.monotonic() >= deadline):
                partial = True
                break
            player = game.to_move(parent)
            if player == TERMINAL:
                continue
            moves = [o for o, _ in game.chance_outcomes(parent)] if player == CHANCE else game.legal_moves(parent)
            for move in moves:
                child = game.apply(parent, move)
                k = game.key(child)
                if k not in seen:
                    seen.add(k)
                    following.append(child)
        level = following
        if level and not partial:
            sizes.append(len(level))
    return sizes, not level and not partial  # (a ply cut short may have found no new state yet: not the end)


def _extrapolate(sizes: list[int], plies: int) -> int:
    """The states of all plies up to ``plies``, from the sizes of the first ones.

    The growth ratio of one ply to the next falls as a game fills up (the log of the ratio
    falls about linearly: tic-tac-toe, Connect-Four, Domineering), so the log ratios of the
    last measured plies are fitted with a line and followed to the end of the longest playout.
    A growth that does not fall keeps its last ratio.
    """
    logs = [math.log(b / a) for a, b in itertools.pairwise(sizes) if a and b][1:][-5:]
    if not logs:
        return int(sum(sizes))
    n = len(logs)
    mean_x, mean_y = (n - 1) / 2, sum(logs) / n
    spread = sum((x - mean_x) ** 2 for x in range(n))
    slope = sum((x - mean_x) * (y - mean_y) for x, y in enumerate(logs)) / spread if spread else 0.0
    slope = min(0.0, slope)
    log_ratio = mean_y + slope * (n - 1 - mean_x)  # the fitted line at the last measured ply
    total, size = float(sum(sizes)), float(sizes[-1])
    for _ in range(len(sizes), plies + 1):
        log_ratio += slope
        size *= math.exp(log_ratio)
        total += size
        if size < 1 or total > 1e30:
            break
    return int(min(total, 1e30))


def _longest_playout(game: CompiledGame, state: Any, playouts: int = 20, max_plies: int = 1000,
                     deadline: float | None = None) -> int:
    """The most plies of ``playouts`` seeded random games from ``state`` (each cut at ``max_plies``), within
    :data:`PLAYOUT_PLIES` plies in all (fewer for big states, :data:`GROWTH_CELLS`) and ``deadline``."""
    rng = random.Random(0)
    longest = 0
    left = max(1, min(PLAYOUT_PLIES, GROWTH_CELLS // cells(state)))
    for _ in range(playouts):
        current, plies = state, 0
        while plies < max_plies and left > 0 and game.to_move(current) != TERMINAL:
            if deadline is not None and time.monotonic() >= deadline:
                return max(longest, plies)
            player = game.to_move(current)
            moves = [o for o, _ in game.chance_outcomes(current)] if player == CHANCE else game.legal_moves(current)
            if not moves:
                break
            current = game.apply(current, rng.choice(moves))
            plies += 1
            left -= 1
        longest = max(longest, plies)
    return longest


def estimate_text(estimate: dict[str, Any]) -> str:
    text = f"explored {estimate['states_explored']:,} states"
    log10 = estimate.get("log10_encodings")
    if log10 is not None:  # a loose bound (every combination of values), for reference only
        text += f" (the state encodings allow at most {_magnitude_of_log(log10)})"
    if "reachable_states" in estimate:
        return text + (f"; the game has {estimate['reachable_states']:,} reachable states from here, so a "
                       "bigger budget solves it")
    guess = estimate.get("estimated_states")
    if guess is None:
        return text
    text += f"; roughly {_magnitude(guess)} reachable states (extrapolated from the growth of the first " \
            f"{len(estimate.get('ply_sizes', ()))} plies)"
    if guess > TOO_BIG:
        text += " -- probably too big to solve exactly; --depth gives a heuristic answer"
    else:
        text += "; a bigger budget may solve it (alpha-beta often visits only part of them)"
    return text


def _magnitude(n: float) -> str:
    return f"{n:,.0f}" if n < 1e7 else f"10^{math.log10(n):.1f}"


def _magnitude_of_log(log10: float) -> str:
    """:func:`_magnitude` of ``10 ** log10``, for any size (a bound of 10^763 is past a float)."""
    return _magnitude(10 ** log10) if log10 < 7 else f"10^{log10:.1f}"
