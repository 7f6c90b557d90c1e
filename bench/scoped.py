"""A generator of well-typed rule files that stress names: binders, `let`s, loops, chance and defs that reuse
the same few names (``i``, ``j``, ``k``, ``x``, ``d``, ``t``) everywhere, for ``bench/differential.py``.

The grammar generators rarely produce a file the checker accepts; this one writes files that are accepted
almost always (values are clamped into their domains, def arguments into their parameters' ranges), so
the differential test reaches the code paths where names can be captured: an inlined def whose binder is
named like the caller's, a chance or loop variable named like a local of a sibling block, locals kept
across a chance. It follows the scoping rule: a local never takes the name of a visible local, except in
about one file in twenty, where one redeclaration is written on purpose (the checker must refuse it).
"""

from __future__ import annotations

import random

NAMES = ("i", "j", "k", "x", "d", "t")


class ScopedGenerator:
    def __init__(self, rng: random.Random, known_bugs: bool = True) -> None:
        """``known_bugs=False`` avoids the constructs of the compiler bugs recorded in tests/test_interpreter.py
        (a redeclaration, `mover`/`turn` in a chance weight, `turn` in `utility` or a def, a chance named like
        another chance or like a `let` or move parameter of the file, an unclamped def argument that an inlined
        def's binder can capture, a def whose body is a constant, a `min`/`max` that can be empty)."""
        self.rng = rng
        self.known_bugs = known_bugs
        self.redeclare = known_bugs and rng.random() < 0.05  # write one redeclaration somewhere
        self.chance_names: set[str] = set()
        self.declared: set[str] = set()  # every `let` and move parameter name so far
        self.players = ("A", "B", "C") if rng.random() < 0.2 else ("A", "B")
        self.board = rng.random() < 0.3

    # ------------------------------------------------------------ names
    def fresh(self, scope: dict[str, str]) -> str:
        """A name from the pool not visible in ``scope`` (or, once per file if asked, one that is)."""
        taken = [n for n in NAMES if n in scope]
        if self.redeclare and taken and self.rng.random() < 0.3:
            self.redeclare = False
            return self.rng.choice(taken)
        free = [n for n in NAMES if n not in scope]
        return self.rng.choice(free) if free else f"z{len(scope)}"

    # ------------------------------------------------------------ expressions
    def num(self, scope: dict[str, str], depth: int = 0, ctx: str = "move") -> str:
        r = self.rng
        ints = [n for n, kind in scope.items() if kind == "int"]
        if depth > 2 or r.random() < 0.3:
            leaves = [str(r.randint(0, 4)), "n", "a[0]", "a[3]", *ints, *ints]
            return r.choice(leaves)
        choice = r.randrange(11)
        if ctx == "def" and choice in (2, 9):
            choice = 10  # a def calling a def could be recursive
        if choice == 0:
            return f"({self.num(scope, depth + 1, ctx)} {r.choice('+-*')} {self.num(scope, depth + 1, ctx)})"
        if choice == 1:
            return f"a[{self.clamp(self.num(scope, depth + 1, ctx), 0, 3)}]"
        if choice == 2:
            return f"g({self.clamp(self.num(scope, depth + 1, ctx), 0, 9)})"
        if choice == 3:
            var = self.fresh(scope)
            inner = {**scope, var: "int"}
            kind = r.choice(["sum", "min", "max", "count"])
            if kind == "count":
                return f"(count {var} in 0..3: {self.cond(inner, depth + 1, ctx)})"
            # (`min`/`max` over no values fail; constant folding can drop that failure: a known bug)
            where = f" where {self.cond(inner, depth + 1, ctx)}" if r.random() < 0.3 and (
                self.known_bugs or kind == "sum") else ""
            return f"({kind} {var} in 0..{r.randint(0, 3)}{where}: {self.num(inner, depth + 1, ctx)})"
        if choice == 4:
            return f"({self.num(scope, depth + 1, ctx)} if {self.cond(scope, depth + 1, ctx)} else " \
                   f"{self.num(scope, depth + 1, ctx)})"
        if choice == 5:
            return f"({self.num(scope, depth + 1, ctx)} {r.choice(['//', '%'])} {r.randint(1, 3)})"
        if choice == 6:
            return f"abs({self.num(scope, depth + 1, ctx)})"
        if choice == 7:
            return f"score[{self.player(scope, ctx)}]"
        if choice == 8 and self.board:
            return self.board_number(scope, depth, ctx)
        if choice == 9:
            return f"h2({self.clamp(self.num(scope, depth + 1, ctx), 0, 9)}, {self.player(scope, ctx)})"
        return f"({self.num(scope, depth + 1, ctx)} + {r.randint(-2, 2)})"

    def clamp(self, e: str, lo: int, hi: int) -> str:
        if self.rng.random() < 0.06 and self.known_bugs:  # sometimes unclamped: a rule error in both engines, or none
            return e
        return f"min(max({e}, {lo}), {hi})"

    def player(self, scope: dict[str, str], ctx: str) -> str:
        options = [*self.players, "turn", "next(turn)"]
        if not self.known_bugs and ctx in ("end", "def", "weight"):  # `turn` is wrong there (known bugs)
            options = [*self.players]
        options += [n for n, kind in scope.items() if kind == "player"]
        if ctx == "move" or (ctx == "weight" and self.known_bugs):
            options += ["mover", "mover"]
        return self.rng.choice(options)

    def cond(self, scope: dict[str, str], depth: int = 0, ctx: str = "move") -> str:
        r = self.rng
        if depth > 2 or r.random() < 0.25:
            return f"{self.num(scope, depth + 1, ctx)} {r.choice(['<', '<=', '==', '!=', '>'])} " \
                   f"{self.num(scope, depth + 1, ctx)}"
        choice = r.randrange(8)
        if choice == 0:
            return f"({self.cond(scope, depth + 1, ctx)} {r.choice(['and', 'or'])} {self.cond(scope, depth + 1, ctx)})"
        if choice == 1:
            return f"not ({self.cond(scope, depth + 1, ctx)})"
        if choice == 2:
            var = self.fresh(scope)
            return f"({r.choice(['any', 'all'])} {var} in 0..{r.randint(0, 4)}: " \
                   f"{self.cond({**scope, var: 'int'}, depth + 1, ctx)})"
        if choice == 3:
            return f"above({self.clamp(self.num(scope, depth + 1, ctx), 0, 9)})"
        if choice == 4:
            return f"last == {self.player(scope, ctx)}" if r.random() < 0.7 else "last == none"
        if choice == 5:
            return r.choice(["flag", "not flag"])
        if choice == 6 and self.board:
            return self.board_cond(scope, depth, ctx)
        return f"{self.player(scope, ctx)} == {self.player(scope, ctx)}"

    def cell(self, scope: dict[str, str]) -> str:
        cells = ["a1", "b2", "c3", "at", *[n for n, kind in scope.items() if kind == "cell"]]
        return self.rng.choice(cells)

    def board_number(self, scope: dict[str, str], depth: int, ctx: str) -> str:
        r = self.rng
        var = self.fresh(scope)
        options = [
            f"row({self.cell(scope)})", f"col({self.cell(scope)})",
            f"len(ray({self.cell(scope)}, {r.choice(['north', 'east', 'southwest', 'northwest'])}))",
            f"len(neighbors({self.cell(scope)}))",
            f"(count {var} in cell: mark[{var}] == {self.player(scope, ctx)})",
            f"(count {var} in cells_in_row({self.clamp(self.num(scope, depth + 1, ctx), 0, 2)}): mark[{var}] != none)",
            f"(sum {var} in cells_in_column({r.randint(0, 2)}): row({var}))",
            f"len(select {var} in neighbors({self.cell(scope)}): mark[{var}] == none)",
            f"(count l in lines({r.randint(1, 4)}): all {var} in l: mark[{var}] != none)" if var != "l" else "0",
            f"len(lines({r.randint(1, 4)}))",
        ]
        return r.choice(options)

    def board_cond(self, scope: dict[str, str], depth: int, ctx: str) -> str:
        r = self.rng
        var = self.fresh(scope)
        options = [
            f"mark[{self.cell(scope)}] == {self.player(scope, ctx)}",
            f"step({self.cell(scope)}, {r.choice(['north', 'east', 'south', 'northeast'])}) != none",
            f"cell({self.clamp(self.num(scope, depth + 1, ctx), 0, 3)}, {r.randint(0, 3)}) == none",
            f"(first {var} in cell: mark[{var}] == none) == {self.cell(scope)}",
            f"{self.cell(scope)} in neighbors({self.cell(scope)})",
            f"connected(cells_in_row(0), cells_in_row(2), select {var} in cell: mark[{var}] != none)",
            f"(any {var} in ray(at, east): mark[{var}] == {self.player(scope, ctx)})",
        ]
        return r.choice(options)

    # ------------------------------------------------------------ statements
    def block(self, scope: dict[str, str], indent: str, depth: int, in_loop: bool, lets: set[str]) -> list[str]:
        r = self.rng
        out: list[str] = []
        scope = dict(scope)
        for _ in range(r.randint(1, 3)):
            out.extend(self.statement(scope, indent, depth, in_loop, lets))
        return out or [f"{indent}pass"]

    def statement(self, scope: dict[str, str], indent: str, depth: int, in_loop: bool, lets: set[str]) -> list[str]:
        """One statement; ``scope`` grows in place with a `let` or a binding chance."""
        r = self.rng
        choice = r.randrange(14 if depth < 2 else 6)
        mine = [n for n in scope if n in lets]
        if choice in (0, 1):
            target = r.choice(["n", "a[0]", f"a[{self.clamp(self.num(scope), 0, 3)}]", "score[mover]"])
            hi = 20 if target.startswith("score") else 9 if target.startswith("a") else 12
            if r.random() < 0.3:
                return [f"{indent}{target} {r.choice(['+=', '-='])} {r.randint(0, 2)}"]
            return [f"{indent}{target} = {self.clamp(self.num(scope), 0, hi)}"]
        if choice == 2:
            name = self.fresh(scope)
            value = self.num(scope)
            scope[name] = "int"
            lets.add(name)
            self.declared.add(name)
            return [f"{indent}let {name} = {value}"]
        if choice == 3 and mine:
            return [f"{indent}{r.choice(mine)} {r.choice(['=', '+='])} {self.num(scope)}"]
        if choice == 4:
            return [f"{indent}flag = {self.cond(scope)}", f"{indent}last = {self.player(scope, 'move')}"]
        if choice == 5 and in_loop and r.random() < 0.5:
            return [f"{indent}if {self.cond(scope)}: break"]
        if choice in (6, 7):
            lines = [f"{indent}if {self.cond(scope)}:", *self.block(scope, indent + "    ", depth + 1, in_loop, lets)]
            if r.random() < 0.6:
                lines += [f"{indent}else:", *self.block(scope, indent + "    ", depth + 1, in_loop, lets)]
            return lines
        if choice == 8:
            var = self.fresh(scope)
            return [f"{indent}for {var} in 0..{r.randint(0, 3)}:",
                    *self.block({**scope, var: "int"}, indent + "    ", depth + 1, True, lets)]
        if choice in (9, 10) and not in_loop:
            var = self.fresh(scope)
            if not self.known_bugs:
                if var in self.chance_names or var in self.declared:
                    return []
                self.chance_names.add(var)
            weight = ""
            if r.random() < 0.5:
                inner = {**scope, var: "int"}
                weights = ["1 + abs(" + self.num(inner, 0, "weight") + ")", var, "2 if mover == A else 1",
                           f"1 + {var} % 2 if turn == A else 1"]
                weight = f" weight {r.choice(weights if self.known_bugs else weights[:2])}"
            header = f"{indent}chance {var} in {r.randint(0, 1)}..{r.randint(1, 3)}{weight}"
            if r.random() < 0.5:  # the binding form: `var` is visible to the end of the block
                scope[var] = "int"
                return [header]
            return [header + ":", *self.block({**scope, var: "int"}, indent + "    ", depth + 1, False, lets)]
        if choice == 11 and not in_loop:
            p = r.choice([("1/2", "1/2"), ("1/3", "2/3"), ("1", "0")])
            return [f"{indent}chance:",
                    f"{indent}    heads with {p[0]}:", *self.block(scope, indent + "        ", depth + 2, False, lets),
                    f"{indent}    tails with {p[1]}:", *self.block(scope, indent + "        ", depth + 2, False, lets)]
        if choice == 12:
            return [f"{indent}{r.choice(['again', 'turn = ' + self.player(scope, 'move')])}"]
        if choice == 13 and self.board:
            d = r.choice(["north", "east", "southwest", "northeast"])
            if r.random() < 0.5:
                var = self.fresh(scope)
                return [f"{indent}for {var} in ray(at, {d}):",
                        f"{indent}    if mark[{var}] == none: mark[{var}] = mover",
                        f"{indent}    else: break"]
            return [f"{indent}if step(at, {d}) != none: at = step(at, {d})",
                    f"{indent}mark[at] = {self.player(scope, 'move') if r.random() < 0.7 else 'none'}"]
        return [f"{indent}n = {self.clamp(self.num(scope), 0, 12)}"]

    # ------------------------------------------------------------ the file
    def game(self) -> str:
        r = self.rng
        p = self.fresh({})
        q = self.fresh({p: "int"})
        keep = "" if self.known_bugs else f"{p} - {p} + "  # a constant body drops its arguments (a known bug)
        lines = ['game Scoped "names reused everywhere"', f"players {', '.join(self.players)}"]
        if self.board:
            lines += ["board 3 x 3", "state at: cell = b2", "state mark[cell]: player? = none"]
        lines += [
            "state n: 0..12 = 0",
            "state a[0..3]: 0..9 = [1, 0, 2, 0]",
            "state score[player]: 0..20 = 0",
            "state flag: bool = false",
            "state last: player? = none",
            "state plies: 0..8 = 0",
            f"def above({p}: 0..9) = any {q} in 0..9: {q} == {p} + 1",
            f"def g({p}: 0..9) = {keep}{self.num({p: 'int'}, 1, 'def')}",
            f"def h2({p}: 0..9, who: player) = {keep}{self.num({p: 'int', 'who': 'player'}, 1, 'def')}",
        ]
        for index in range(r.randint(1, 3)):
            scope: dict[str, str] = {}
            params = ""
            if r.random() < 0.7:
                name = self.fresh(scope)
                scope[name] = "int"
                self.declared.add(name)
                params = f"({name}: 0..{r.randint(1, 2)})"
            guard = f" when {self.cond(scope)}" if r.random() < 0.6 else ""
            lines.append(f"move m{index}{params}{guard}:")
            lines += self.block(scope, "    ", 0, False, set())
        lines.append("move rest otherwise")
        lines.append("after every move:")
        lines += ["    plies += 1", *self.block({}, "    ", 1, False, set())]
        if r.random() < 0.5:
            lines.append(f"win {self.fresh({})} when plies == 8 and score[A] > n")
        if r.random() < 0.3:
            lines.append("lose turn when no_moves and n == 12")
        lines.append("terminal when plies == 8")
        pl = self.fresh({})
        lines.append(f"utility {pl}: {self.num({pl: 'player'}, 1, 'end')} / {r.randint(1, 3)} + "
                     f"(1 if last == {pl} else 0)")
        if r.random() < 0.7:
            pl = self.fresh({})
            lines.append(f"heuristic {pl}: (score[{pl}] - n) / {r.randint(1, 4)}")
        return "\n".join(lines) + "\n"


def generate(seed: int, known_bugs: bool = True) -> str:
    return ScopedGenerator(random.Random(seed), known_bugs).game()


if __name__ == "__main__":
    print(generate(0))
