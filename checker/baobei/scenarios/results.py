"""What `baobei check` found, one record per scenario file, and the forms machines read: JSON
(docs/check.schema.json) and JUnit XML (the report CI dashboards show)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

PASSED, FAILED, MALFORMED = "passed", "failed", "malformed"
# Characters XML 1.0 cannot hold at all (a malformed file's control bytes): shown as escapes instead.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


@dataclass(frozen=True)
class Where:
    place: str  # file:line:column as the failure names it
    line: int
    column: int
    message: str


@dataclass(frozen=True)
class CheckRecord:
    """One scenario file: passed, failed (where and why) or malformed (the error)."""

    file: Path
    status: str
    seconds: float
    title: str = ""
    cites: list[str] = field(default_factory=list)
    failure: Where | None = None
    error: str = ""
    trace: str = ""  # the failure with the trace up to it, as people read it

    def to_json(self) -> dict[str, object]:
        where = None if self.failure is None else {"line": self.failure.line, "column": self.failure.column,
                                                   "message": self.failure.message}
        return {"file": str(self.file), "status": self.status, "title": self.title, "cites": self.cites,
                "failure": where, "error": self.error or None, "seconds": round(self.seconds, 4)}


def counts(records: list[CheckRecord]) -> Counter[str]:
    return Counter(r.status for r in records)


def check_json(records: list[CheckRecord], seconds: float) -> dict[str, object]:
    tally = counts(records)
    return {"scenarios": len(records), "passed": tally[PASSED], "failed": tally[FAILED],
            "malformed": tally[MALFORMED], "seconds": round(seconds, 3), "results": [r.to_json() for r in records]}


def junit_xml(records: list[CheckRecord], seconds: float) -> str:
    """JUnit XML: a test case per scenario file, named by its folder and file; a failed one carries where
    and why, a malformed one is an error (the scenario could not be run)."""
    tally = counts(records)
    suite = ET.Element("testsuite", name="baobei check", tests=str(len(records)), failures=str(tally[FAILED]),
                       errors=str(tally[MALFORMED]), skipped="0", time=f"{seconds:.3f}")
    for record in records:
        case = ET.SubElement(suite, "testcase", classname=record.file.parent.name or ".",
                             name=record.file.stem, file=str(record.file), time=f"{record.seconds:.4f}")
        if record.status == FAILED and record.failure is not None:
            bad = ET.SubElement(case, "failure", message=xml_safe(f"{record.failure.place}: {record.failure.message}"),
                                type="failed")
            bad.text = xml_safe(record.trace)
        elif record.status == MALFORMED:
            error = xml_safe(record.error)
            ET.SubElement(case, "error", message=error, type="malformed").text = error
    root = ET.Element("testsuites", name="baobei", tests=str(len(records)), failures=str(tally[FAILED]),
                      errors=str(tally[MALFORMED]), time=f"{seconds:.3f}")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def xml_safe(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
