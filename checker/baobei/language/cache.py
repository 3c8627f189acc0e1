"""Compiled rules kept between runs, so that a command does not parse the rules at every start.

An entry is the pickled Ruleset, filed under a digest of everything it was built from: the rules
files' names and bytes, the directory as it was named (source positions carry it), the grammar,
and the package's own code and version. A change to any of them is a different entry, so an entry
is never stale. A corrupt entry (a killed writer, a full disk, another Python) is rebuilt. A writer
writes a private file and renames it into place, so concurrent runs never read a half-written entry.

BAOBEI_CACHE names another folder, or `off` to build the rules every time.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from .paths import grammar_dir

if TYPE_CHECKING:
    from .ruleset import Ruleset

CACHE_ENV = "BAOBEI_CACHE"
SUFFIX = ".rules.pickle"
KEEP = 32  # entries kept; the oldest go, so rules variants (tests write many) do not fill the disk
PACKAGE = Path(__file__).resolve().parents[1]


def cache_dir() -> Path | None:
    """The folder of the entries, or None when caching is off."""
    setting = os.environ.get(CACHE_ENV, "")
    if setting.lower() == "off":
        return None
    if setting:
        return Path(setting)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("baobei", appauthor=False))


def cached_ruleset(directory: Path, build: Callable[[], Ruleset]) -> Ruleset:
    """The rules of `directory`: from the cache when an entry was built from the same inputs, else built
    (errors in the rules are raised by `build` as always, and nothing is stored)."""
    folder = cache_dir()
    files = sorted(directory.glob("*.bao")) if directory.is_dir() else []
    if folder is None or not files:
        return build()
    entry = folder / f"{rules_digest(directory, files)}{SUFFIX}"
    found = read_entry(entry)
    if found is not None:
        return found
    # Built from the same inputs, the result is the same: a concurrent run writing this entry is harmless.
    rules = build()
    write_entry(folder, entry, rules)
    return rules


def rules_digest(directory: Path, files: Iterable[Path]) -> str:
    digest = hashlib.sha256(code_digest().encode())
    digest.update(str(directory).encode("utf-8", "surrogateescape"))
    for f in files:
        digest.update(b"\0" + f.name.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(f.read_bytes())
    return digest.hexdigest()


@cache
def code_digest() -> str:
    """The package's code and the grammars: a new version or an edited checkout is a new key."""
    from .. import __version__

    digest = hashlib.sha256(__version__.encode())
    for f in sorted([*PACKAGE.rglob("*.py"), *grammar_dir().glob("*")]):
        if f.is_file():
            digest.update(f.as_posix().encode("utf-8", "surrogateescape") + b"\0" + f.read_bytes())
    return digest.hexdigest()


def read_entry(entry: Path) -> Ruleset | None:
    from .ruleset import Ruleset

    try:
        with entry.open("rb") as stream:
            found = pickle.load(stream)
    except FileNotFoundError:
        return None
    except Exception:  # whatever a damaged entry raises, it is rebuilt and replaced
        return None
    return found if isinstance(found, Ruleset) else None


def write_entry(folder: Path, entry: Path, rules: Ruleset) -> None:
    """Store an entry whole or not at all; a cache that cannot be written only costs time."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".", suffix=".part")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as stream:
            pickle.dump(rules, stream, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, entry)
        prune(folder)
    except (OSError, pickle.PicklingError, RecursionError):
        Path(temporary).unlink(missing_ok=True)
    except BaseException:  # Ctrl-C while writing: no private file is left behind
        Path(temporary).unlink(missing_ok=True)
        raise


def prune(folder: Path) -> None:
    """Keep the newest entries; another run may prune the same folder at once, so a vanished file is fine."""
    dated: list[tuple[float, Path]] = []
    for found in folder.glob(f"*{SUFFIX}"):
        try:
            dated.append((found.stat().st_mtime, found))
        except FileNotFoundError:
            continue
    for _, old in sorted(dated, reverse=True)[KEEP:]:
        old.unlink(missing_ok=True)
