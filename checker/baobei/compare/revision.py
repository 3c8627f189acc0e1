"""Where a version of the rules comes from: a folder, or a folder of a git revision (`git:REV[:PATH]`).

A rules editor compares the working copy with the rules of an earlier commit (`--rules git:HEAD~3`), CI a
pull request with its base (`--rules git:origin/main --rules rules`). The revision's folder is read with
`git archive` into a temporary folder that lives as long as the comparison; the repository is the one the
current folder lies in, else the project's own.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..language.errors import BaoError
from ..language.paths import PROJECT_ROOT

GIT_PREFIX = "git:"
DEFAULT_PATH = "rules"  # the rules folder of a revision when the option names none


@dataclass(frozen=True)
class RulesSource:
    """One version of the rules: the folder to load, and how the user named it (for the report)."""

    directory: Path
    label: str


def resolve(spec: str, stack: contextlib.ExitStack) -> RulesSource:
    """The folder `spec` names; a git revision's is extracted into a temporary folder that `stack` removes."""
    if not spec.startswith(GIT_PREFIX):
        directory = Path(spec)
        if not directory.is_dir():
            raise BaoError(f"--rules {spec}: no such folder (a git revision is written git:REV or git:REV:PATH)")
        return RulesSource(directory, spec)
    rev, _, path = spec.removeprefix(GIT_PREFIX).partition(":")
    if not rev:
        raise BaoError(f"--rules {spec}: name a revision, as in git:HEAD~1 or git:main:rules")
    path = path.strip("/") or DEFAULT_PATH
    target = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="baobei-compare-")))
    extract(repository(), rev, path, target)
    return RulesSource(target / path, spec)


def repository() -> Path:
    """The top of the git repository the current folder lies in, else the project's (a checkout of it)."""
    for place in (Path.cwd(), PROJECT_ROOT):
        done = _git(place, "rev-parse", "--show-toplevel")
        if done.returncode == 0:
            return Path(done.stdout.decode().strip())
    raise BaoError("--rules git:...: neither the current folder nor the project lies in a git repository")


def extract(repo: Path, rev: str, path: str, target: Path) -> None:
    """Write the files under `path` at revision `rev` into `target` (same relative paths)."""
    commit = _git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if commit.returncode != 0:
        raise BaoError(f"--rules git:{rev}: no such revision in {repo}")
    archive = _git(repo, "archive", "--format=tar", commit.stdout.decode().strip(), "--", path)
    if archive.returncode != 0:
        raise BaoError(f"--rules git:{rev}:{path}: the revision has no folder {path!r}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(target, filter="data")  # `data`: no absolute paths, links out or devices
    if not (target / path).is_dir():
        raise BaoError(f"--rules git:{rev}:{path}: {path!r} is a file at that revision, not a folder")


def _git(place: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", "-C", str(place), *args], capture_output=True, check=False)
    except FileNotFoundError:
        raise BaoError("--rules git:...: the git command is not installed") from None
