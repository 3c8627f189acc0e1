"""The rulebook's outline for `baobei docs`: section titles, paragraph ranges and the FAQ questions.

The data lives in docs/src/*.toml inside the project (CI builds from a clean clone, so the
generator never reads the rulebook itself). Section ids and paragraph numbers are data here,
not Python: a new rulebook edition changes the TOML files only.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..language.errors import BaoError
from ..language.source import Citation

SECTIONS_FILE = "sections.toml"
FAQ_FILE = "faq.toml"
LANGUAGES = ("de", "en")


class DocsDataError(BaoError):
    """docs/src is missing or malformed."""


@dataclass(frozen=True)
class Section:
    ident: str
    de: str
    en: str
    first: int
    last: int
    summary: bool

    @property
    def cite(self) -> str:
        return f"§ {self.ident}"

    @property
    def title(self) -> str:
        return f"{self.de} — {self.en}"

    @property
    def label(self) -> str:
        return f"{self.cite} {self.title}"

    @property
    def anchor(self) -> str:
        return "s-" + self.ident.lower().replace(".", "-")

    @property
    def para_range(self) -> str:
        return f"P{self.first}" if self.first == self.last else f"P{self.first}-P{self.last}"


@dataclass(frozen=True)
class FaqItem:
    """One question of the rulebook's own FAQ, paraphrased; the answer comes from scenarios."""

    para: str
    section: str
    needs: tuple[str, ...]
    also: tuple[str, ...]
    question: dict[str, str]


@dataclass(frozen=True)
class Book:
    sections: tuple[Section, ...]
    faq: tuple[FaqItem, ...]

    def section(self, ident: str) -> Section | None:
        return next((s for s in self.sections if s.ident == ident), None)

    def section_of_para(self, para: str) -> Section | None:
        number = para_number(para)
        return next((s for s in self.sections if s.first <= number <= s.last), None)

    def touched(self, cite: Citation) -> set[str]:
        """Sections a citation speaks about: the section it names and those holding its paragraphs."""
        out = {cite.section}
        for para in cite.paras:
            sec = self.section_of_para(para)
            if sec is not None:
                out.add(sec.ident)
        return out

    def order(self, ident: str) -> tuple[int, str]:
        """Sort key in rulebook order; unknown ids sort last, by name (never by set order)."""
        return next((i for i, s in enumerate(self.sections) if s.ident == ident), len(self.sections)), ident


def para_number(para: str) -> int:
    digits = para.lstrip("Pp")
    return int(digits) if digits.isdigit() else -1


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise DocsDataError(f"{path}: not found (the docs generator's data)") from None
    except tomllib.TOMLDecodeError as err:
        raise DocsDataError(f"{path}: {err}") from None


def _field(path: Path, entry: dict[str, Any], key: str, kind: type) -> Any:
    value = entry.get(key)
    if not isinstance(value, kind):
        raise DocsDataError(f"{path}: entry {entry.get('id', '?')!r} needs {key} ({kind.__name__})")
    return value


def _section(path: Path, entry: dict[str, Any]) -> Section:
    paras = _field(path, entry, "paras", list)
    if len(paras) != 2 or not all(isinstance(p, int) for p in paras) or paras[0] > paras[1]:
        raise DocsDataError(f"{path}: section {entry.get('id')!r}: paras must be [FIRST, LAST]")
    return Section(_field(path, entry, "id", str), _field(path, entry, "de", str), _field(path, entry, "en", str),
                   paras[0], paras[1], entry.get("kind") == "summary")


def _item(path: Path, entry: dict[str, Any], known: set[str]) -> FaqItem:
    needs = tuple(_field(path, entry, "needs", list))
    also = tuple(entry.get("also", []))
    section = _field(path, entry, "section", str)
    for ident in (section, *needs, *also):
        if ident not in known:
            raise DocsDataError(f"{path}: item {entry.get('id')!r} names unknown section {ident!r}")
    question = {lang: _field(path, entry, lang, str) for lang in LANGUAGES}
    return FaqItem(_field(path, entry, "id", str), section, needs, also, question)


def load_book(src: Path) -> Book:
    """Read docs/src: the sections in rulebook order and the FAQ items in paragraph order."""
    sections_path, faq_path = src / SECTIONS_FILE, src / FAQ_FILE
    sections = tuple(_section(sections_path, e) for e in _read(sections_path).get("section", []))
    if not sections:
        raise DocsDataError(f"{sections_path}: no [[section]] entries")
    known = {s.ident for s in sections}
    items = [_item(faq_path, e, known) for e in _read(faq_path).get("item", [])]
    items.sort(key=lambda i: para_number(i.para))
    return Book(sections, tuple(items))
