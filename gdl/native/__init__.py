"""The native back end: rule files compiled to C, built with the system C compiler through cffi.

:mod:`gdl.native.build` compiles and caches a module (a game's C source and the solver sources of
:mod:`solver.native`); see ``docs/backends.md``.
"""
