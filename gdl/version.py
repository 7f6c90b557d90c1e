"""gdl's version (one place: ``gdl.__version__`` re-exports it; ``pyproject.toml`` states the same)."""

__version__ = "0.1.0"
