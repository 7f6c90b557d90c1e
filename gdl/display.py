"""How values of a rule file's types are shown (a move's parameter, a state variable's value).

Plain classes and module-level functions rather than closures, so that a compiled program
can be kept between runs (:mod:`gdl.program_cache` pickles it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


class NamesDisplay:
    """An enum's (or the players', or the directions') value by its index; ``none`` off the end."""

    __slots__ = ("names",)

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)

    def __call__(self, value: int) -> str:
        return self.names[value] if 0 <= value < len(self.names) else "none"

    def __reduce__(self) -> tuple[type[NamesDisplay], tuple[tuple[str, ...]]]:
        return NamesDisplay, (self.names,)


class OptionalDisplay:
    """A value that may be ``none`` (-1), else shown by ``display``."""

    __slots__ = ("display",)

    def __init__(self, display: Callable[[int], str]) -> None:
        self.display = display

    def __call__(self, value: int) -> str:
        return "none" if value == -1 else self.display(value)

    def __reduce__(self) -> tuple[type[OptionalDisplay], tuple[Callable[[int], str]]]:
        return OptionalDisplay, (self.display,)


def bool_display(value: object) -> str:
    return "true" if value else "false"
