"""The rules language: AST, parsers, kinds, the builtin and statement registries, the ruleset model."""
