"""Pass: warnings about declarations that are never used."""

from __future__ import annotations

import contextlib

from gdl.compiler.base import CompilerBase
from gdl.compiler.common import CompileFailed, _q


class UnusedPass(CompilerBase):
    """Warnings about declarations that are never used."""

    def warn_unused(self) -> None:
        for var in self.state.values():
            if not var.used and var.decl is not None:  # (the compiler's state variables all have theirs)
                self.warn("unused", f"state {_q(var.name)} is never used", var.decl.span)
        for name, info in self.defs.items():
            if not info.used:
                self.warn("unused", f"function {_q(name)} is never used", info.decl.span)
                with contextlib.suppress(CompileFailed):
                    self.compile_def(info)  # still type-check it
        for name, decl in self.param_decls.items():
            if name not in self.param_used and name in self.params:
                self.warn("unused", f"parameter {_q(name)} is never used", decl.span)
