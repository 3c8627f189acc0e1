"""BAO BEI: the rulebook as executable data, with a checker, scenarios and proofs."""

__version__ = "0.1.0"
