"""The engine: compiled rules, state, effects, legality, move generation."""
