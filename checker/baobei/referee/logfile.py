"""Reading a game log: JSON Lines checked against the published schema, every problem with its place.

The schema (log.schema.json, published as docs/log.schema.json) says what each line may hold;
this module turns the lines into values and refuses a malformed log with file:line:col, what
was found and what was expected, before anything is replayed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from ..language.errors import SourceError, read_source
from ..language.source import Pos
from .quote import clipped, quoted, tamed, tamed_excerpt

FORMAT = "baobei-log/1"


class LogError(SourceError):
    """A malformed game log (exit 2). Its message quotes the log's input clipped (quote.py): a log may
    hold a claim of megabytes."""

    def __init__(self, pos: Pos, message: str, excerpt: str = "") -> None:
        super().__init__(pos, tamed(message), tamed_excerpt(excerpt) if excerpt else "")


@dataclass(frozen=True)
class Line:
    """One line of the log after the header: its number and its object."""

    number: int
    data: dict[str, Any]


@dataclass(frozen=True)
class GameLog:
    path: str
    header: dict[str, Any]
    lines: tuple[Line, ...]


@cache
def schema() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("log.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def schema_text() -> str:
    """The schema as published in docs/ (the same bytes as the package's copy)."""
    return resources.files(__package__).joinpath("log.schema.json").read_text(encoding="utf-8")


@cache
def _validator(part: str) -> Draft202012Validator:
    # The part with its references written out: the same schema, checked without resolving a reference
    # per line (a tenth faster on long logs).
    return Draft202012Validator(_inlined(schema()["$defs"][part], schema()["$defs"]))


def _inlined(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        out = {k: _inlined(v, defs) for k, v in node.items() if k != "$ref"}
        if "$ref" in node:
            out = {**_inlined(defs[str(node["$ref"]).rsplit("/", 1)[-1]], defs), **out}
        return out
    if isinstance(node, list):
        return [_inlined(v, defs) for v in node]
    return node


def _where(error: ValidationError) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    return f"at {path}: " if path else ""


def _best(error: ValidationError) -> ValidationError:
    """The most specific error: a `oneOf` names its alternatives' errors in its context. One whose
    alternatives each want another type of the value itself is kept: its message names every type."""
    while error.context and not _types_wanted(error):
        error = min(error.context, key=lambda e: (-len(e.absolute_path), e.message))
    return error


def _types_wanted(error: ValidationError) -> list[str]:
    """The JSON types the alternatives of a `oneOf`/`anyOf` want of the value itself, when that is all they
    say (else none)."""
    ctx = error.context or []
    if error.validator not in ("oneOf", "anyOf") or not ctx or any(e.validator != "type" or e.path for e in ctx):
        return []
    return [t for e in ctx for t in _names(e.validator_value)]


def _names(value: object) -> list[str]:
    """A validator's value as names: one type's name, or a list of them."""
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


JSON_TYPES = {"object": "an object", "array": "an array", "string": "a string", "integer": "an integer",
              "number": "a number", "boolean": "true or false", "null": "null"}


def _json(value: object) -> str:
    return clipped(json.dumps(value, ensure_ascii=False))


def _message(error: ValidationError) -> str:
    """What is wrong, in JSON's words and the schema's: a `not` says why in its description (a player's name
    that is a word of the claim language); the validator's own words would list the words, and name
    Python's types and values (`None`, `dict`)."""
    if error.validator == "not" and isinstance(error.schema, dict) and "description" in error.schema:
        return f"{quoted(str(error.instance))} {error.schema['description']}"
    wanted = _types_wanted(error) or (_names(error.validator_value) if error.validator == "type" else [])
    if wanted:
        return f"{_json(error.instance)} is not {' or '.join(JSON_TYPES.get(t, t) for t in dict.fromkeys(wanted))}"
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = list((error.schema.get("properties") or {}) if isinstance(error.schema, dict) else {})
        extra = [k for k in error.instance if k not in allowed]
        return (f"unexpected field{'s' if len(extra) != 1 else ''} {', '.join(quoted(k) for k in extra)}"
                + (f" (allowed here: {', '.join(allowed)})" if allowed else ""))
    alternatives = error.validator_value if error.validator == "oneOf" else None
    if isinstance(alternatives, list) and all(isinstance(a, dict) and list(a) == ["required"] for a in alternatives):
        fields = [f"`{name}`" for a in alternatives for name in a["required"]]
        return f"give one of {' or '.join(fields)}, not more"
    return error.message


def check_line(data: object, part: str, pos: Pos) -> dict[str, Any]:
    """The line's object, or a LogError saying which field breaks the schema and how."""
    if not isinstance(data, dict):
        raise LogError(pos, f"expected a JSON object, found {type(data).__name__}")
    error = next(iter(sorted(_validator(part).iter_errors(data), key=lambda e: e.path)), None)
    if error is not None:
        best = _best(error)
        raise LogError(pos, f"{_where(best)}{_message(best)} (the log's {part}, docs/log.schema.json)")
    return data


class DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _one_value_per_key(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key)
        out[key] = value
    return out


def parse_log(text: str, path: str, advance: Callable[[int], None] = lambda lines: None) -> GameLog:
    """The header and the move lines of a log's text; `advance(1)` after each line (a progress bar)."""
    header: dict[str, Any] | None = None
    lines: list[Line] = []
    # Lines end at a line feed only: JSON strings may hold other line separators (U+2028, ...).
    for number, raw in enumerate(text.split("\n"), 1):
        raw = raw.removesuffix("\r")
        if not raw.strip():
            continue
        try:
            data = json.loads(raw, object_pairs_hook=_one_value_per_key)
        except json.JSONDecodeError as err:
            raise LogError(Pos(path, number, err.colno), f"not JSON: {err.msg}") from None
        except DuplicateKey as err:
            raise LogError(Pos(path, number, 1), f"the key {quoted(err.key)} is given twice in one object: JSON "
                           "readers differ on which value counts, so the referee takes neither") from None
        except RecursionError:
            raise LogError(Pos(path, number, 1), "not a JSON value this referee reads: arrays or objects nested "
                           "too deep") from None
        except ValueError:  # Python's own words would name a setting of the interpreter, not the log's mistake
            most = sys.get_int_max_str_digits()
            raise LogError(Pos(path, number, 1), "not a JSON value this referee reads: a number with more digits "
                           f"than any count, slot or score of a game ({most:,} at most)") from None
        pos = Pos(path, number, 1)
        if header is None:
            header = check_line(data, "header", pos)
        else:
            lines.append(Line(number, check_line(data, "move", pos)))
        advance(1)
    if header is None:
        raise LogError(Pos(path, 0, 0), f'the log is empty; its first line is the header ({{"log": "{FORMAT}", ...}})')
    return GameLog(path, header, tuple(lines))


def read_log(path: Path) -> GameLog:
    return parse_log(read_log_text(path), str(path))


def read_log_text(path: Path) -> str:
    return read_source(path, LogError)
