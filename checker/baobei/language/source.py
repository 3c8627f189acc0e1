"""Where a piece of rules or scenario text comes from, and the rulebook passages it cites."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pos:
    file: str
    line: int
    column: int

    def __str__(self) -> str:
        if not self.line:
            return self.file  # an error about the whole file (missing, unreadable, empty)
        return f"{self.file}:{self.line}:{self.column}"


NOWHERE = Pos("<builtin>", 0, 0)


@dataclass(frozen=True)
class Citation:
    """A rulebook section id (e.g. '3.3', 'B', 'K.2') and paragraph ids.

    A citation of several sections keeps each section's paragraphs in `parts`;
    `section` is then the first (the main) section and `paras` all paragraphs.
    """

    section: str
    paras: tuple[str, ...] = ()
    parts: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @staticmethod
    def of(parts: list[tuple[str, tuple[str, ...]]]) -> Citation:
        if len(parts) == 1:
            return Citation(parts[0][0], parts[0][1])
        return Citation(parts[0][0], tuple(p for _, ps in parts for p in ps), tuple(parts))

    @property
    def sections(self) -> tuple[str, ...]:
        return tuple(sec for sec, _ in self.parts) if self.parts else (self.section,)

    def paras_of(self, section: str) -> tuple[str, ...]:
        if not self.parts:
            return self.paras if section == self.section else ()
        return tuple(p for sec, ps in self.parts if sec == section for p in ps)

    def __str__(self) -> str:
        parts = self.parts or ((self.section, self.paras),)
        return "; ".join(f"§ {sec}" + (f" [{compact_paras(ps)}]" if ps else "") for sec, ps in parts)


# A run of at least this many consecutive paragraphs is written as a range (FIRST-LAST): a range of nine
# reads at a glance where nine ids would not, while two ids in a row are as short as their range.
RANGE_FROM = 3


def compact_paras(paras: tuple[str, ...] | list[str]) -> str:
    """Paragraph ids as a citation writes them: runs of RANGE_FROM or more consecutive ids as FIRST-LAST,
    the given order kept (a rule may cite out of order). The rules and scenario languages read both forms."""
    out: list[str] = []
    run: list[int] = []

    def flush() -> None:
        if len(run) >= RANGE_FROM:
            out.append(f"P{run[0]}-P{run[-1]}")
        else:
            out.extend(f"P{n}" for n in run)
        run.clear()

    for para in paras:
        digits = para[1:]
        if not (para.startswith("P") and digits.isdigit() and str(int(digits)) == digits):  # a leading zero stays
            flush()
            out.append(para)
            continue
        if run and int(digits) != run[-1] + 1:
            flush()
        run.append(int(digits))
    flush()
    return ", ".join(out)
