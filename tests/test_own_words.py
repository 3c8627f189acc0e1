"""Rule texts, FAQ questions and answers are written in the project's own words: none shares a run of
seven words with the rulebook (section titles and species names are names, not sentences)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from baobei.language.paths import PROJECT_ROOT

RULEBOOK = PROJECT_ROOT.parent / "shared" / "rulebook" / "rulebook.de.md"
RUN = 7


def words(text: str) -> list[str]:
    return re.findall(r"[a-zäöüß0-9]+", text.lower())


def runs(text: str) -> set[tuple[str, ...]]:
    w = words(text)
    return {tuple(w[i:i + RUN]) for i in range(len(w) - RUN + 1)}


def our_texts() -> list[Path]:
    files = sorted((PROJECT_ROOT / "scenarios").rglob("*.scenario")) + sorted((PROJECT_ROOT / "rules").glob("*.bao"))
    return [*files, PROJECT_ROOT / "docs" / "src" / "faq.toml"]


def test_the_check_finds_a_copied_sentence() -> None:
    sentence = "Jede Referenzkarte erlaubt höchstens einen Versuch, auch wenn er misslingt."
    assert runs(sentence) & runs("Regel: " + sentence)
    assert not runs("Pro Referenz gibt es nur einen einzigen Versuch.") & runs(sentence)


@pytest.mark.skipif(not RULEBOOK.exists(), reason="the rulebook (../shared/rulebook) is not beside this checkout")
def test_no_text_copies_the_rulebook() -> None:
    book = runs(RULEBOOK.read_text(encoding="utf-8"))
    copied = [f"{path.relative_to(PROJECT_ROOT)}: {' '.join(sorted(shared)[0])} ..."
              for path in our_texts() if (shared := runs(path.read_text(encoding="utf-8")) & book)]
    assert not copied, "texts sharing a run of seven words with the rulebook:\n" + "\n".join(copied)
