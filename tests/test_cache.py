"""The cache of compiled rules (issue 29, quick start-up): an entry is used only when built from the same
inputs; a stale, corrupt or half-written entry is never read; concurrent writers do no harm."""

from __future__ import annotations

import pickle
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from baobei.language import cache
from baobei.language.errors import RulesError
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(cache.CACHE_ENV, str(folder))
    return folder


@pytest.fixture
def rules(tmp_path: Path) -> Path:
    copy = tmp_path / "rules"
    shutil.copytree(default_rules_dir(), copy)
    return copy


def entries(folder: Path) -> list[Path]:
    return sorted(folder.glob(f"*{cache.SUFFIX}"))


def test_second_load_comes_from_the_cache(cache_dir: Path, rules: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = load_ruleset(rules)
    assert len(entries(cache_dir)) == 1

    def no_parsing(directory: Path) -> None:
        raise AssertionError("the rules were parsed again although the cache holds them")

    monkeypatch.setattr("baobei.language.load.parse_rules_dir", no_parsing)
    again = load_ruleset(rules)
    assert again is not first and sorted(again.moves) == sorted(first.moves)
    assert again.species == first.species


def test_an_edited_rules_file_is_a_new_entry(cache_dir: Path, rules: Path) -> None:
    """Stale entries are impossible: the key is a digest of the files' bytes."""
    before = load_ruleset(rules)
    scoring = rules / "07_scoring.bao"
    scoring.write_text(scoring.read_text(encoding="utf-8").replace("  2: 100\n", "  2: 150\n"), encoding="utf-8")
    after = load_ruleset(rules)
    assert len(entries(cache_dir)) == 2
    assert before.tables["threshold"] != after.tables["threshold"]


def test_a_corrupt_entry_is_rebuilt(cache_dir: Path, rules: Path) -> None:
    load_ruleset(rules)
    (entry,) = entries(cache_dir)
    entry.write_bytes(b"\x80\x05 not a pickle")
    rebuilt = load_ruleset(rules)
    assert rebuilt.moves
    assert isinstance(pickle.loads(entry.read_bytes()), type(rebuilt))  # replaced by a good entry


def test_an_entry_of_another_kind_is_not_trusted(cache_dir: Path, rules: Path) -> None:
    load_ruleset(rules)
    (entry,) = entries(cache_dir)
    entry.write_bytes(pickle.dumps({"moves": {}}))
    assert load_ruleset(rules).moves


def test_bad_rules_are_reported_and_not_stored(cache_dir: Path, rules: Path) -> None:
    (rules / "07_scoring.bao").write_text("table threshold {\n", encoding="utf-8")
    for _ in range(2):  # the second time too: an error is never cached as a result
        with pytest.raises(RulesError):
            load_ruleset(rules)
    assert entries(cache_dir) == []


def test_concurrent_writers_leave_one_whole_entry(cache_dir: Path, rules: Path) -> None:
    with ThreadPoolExecutor(4) as pool:
        loaded = list(pool.map(lambda _: load_ruleset(rules), range(8)))
    assert all(r.moves.keys() == loaded[0].moves.keys() for r in loaded)
    assert len(entries(cache_dir)) == 1
    assert not list(cache_dir.glob(".*.part"))  # no private file left over


def test_old_entries_are_pruned(cache_dir: Path, rules: Path) -> None:
    cache_dir.mkdir()
    for i in range(cache.KEEP + 5):
        (cache_dir / f"{i:064x}{cache.SUFFIX}").write_bytes(b"old")
    load_ruleset(rules)
    assert len(entries(cache_dir)) == cache.KEEP


def test_off_builds_every_time(tmp_path: Path, rules: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.CACHE_ENV, "off")
    assert cache.cache_dir() is None
    assert load_ruleset(rules).moves


def test_an_unwritable_cache_only_costs_time(tmp_path: Path, rules: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv(cache.CACHE_ENV, str(blocker / "cache"))
    assert load_ruleset(rules).moves


def test_help_starts_without_the_heavy_libraries() -> None:
    """`baobei --help` imports neither rich, lark, z3 nor matplotlib: they cost start-up time."""
    probe = ("import sys; from baobei.cli import main\n"
             "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in ('rich', 'lark', 'z3', 'matplotlib', 'importlib.metadata') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip().splitlines()[-1] == "[]"
