"""The package is layered by pipeline stage, and imports run one way only.

language <- engine <- scenarios <- referee <- play <- game <- bindings <- proofs <- compare <- docs <- cli: a module
imports from its own
stage or from an earlier one, never from a later one, and no two modules import each other,
directly or not, TYPE_CHECKING imports and imports inside functions included.
"""

from __future__ import annotations

import ast
from pathlib import Path

from baobei.language.paths import PROJECT_ROOT

PACKAGE = PROJECT_ROOT / "checker" / "baobei"
STAGES = ["language", "engine", "scenarios", "referee", "play", "game", "bindings", "proofs", "compare", "docs", "desk",
          "cli"]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every baobei module a file imports, wherever the import statement stands."""
    name = module_name(path)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("baobei")}
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            if target.startswith("baobei"):
                out.add(target)
                out |= {f"{target}.{a.name}" for a in node.names}
    return out


def graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    out: dict[str, set[str]] = {}
    for name, path in modules.items():
        out[name] = set()
        for target in imports(path):
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name and target != "baobei" and not name.startswith(target + "."):
                out[name].add(target)
    return out


def stage(module: str) -> int:
    if module == "baobei":
        return len(STAGES)  # the front door re-exports the library
    parts = module.split(".")
    return STAGES.index(parts[1]) if len(parts) > 1 and parts[1] in STAGES else -1


def test_every_module_belongs_to_a_stage() -> None:
    loose = [m for m in graph() if m != "baobei" and stage(m) < 0]
    assert not loose, f"modules outside the stage packages: {loose}"


def backward(g: dict[str, set[str]]) -> list[str]:
    return sorted(f"{m} imports {t}" for m, targets in g.items() for t in targets if stage(t) > stage(m))


def test_imports_run_from_later_stages_to_earlier_ones() -> None:
    wrong = backward(graph())
    assert not wrong, "imports against the pipeline:\n" + "\n".join(wrong)


def test_no_import_cycle() -> None:
    g = graph()
    state: dict[str, int] = {}
    cycles: list[str] = []

    def visit(m: str, path: list[str]) -> None:
        if state.get(m) == 1:
            cycles.append(" -> ".join([*path[path.index(m):], m]))
            return
        if state.get(m) == 2:
            return
        state[m] = 1
        for t in sorted(g[m]):
            visit(t, [*path, m])
        state[m] = 2

    for m in sorted(g):
        visit(m, [])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_the_scan_sees_imports_and_backward_ones() -> None:
    g = graph()
    assert "baobei.engine.state" in g["baobei.scenarios.setup"]  # a real import is found
    fake = {"baobei.language.kinds": {"baobei.engine.state"}, "baobei.engine.state": {"baobei.language.kinds"}}
    assert backward(fake) == ["baobei.language.kinds imports baobei.engine.state"]


def test_z3_is_imported_by_the_proofs_only() -> None:
    users = sorted(module_name(p) for p in PACKAGE.rglob("*.py")
                   if any(isinstance(n, ast.Import | ast.ImportFrom) and "z3" in
                          ([a.name for a in n.names] if isinstance(n, ast.Import) else [n.module or ""])
                          for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))))
    assert users and all(u.startswith("baobei.proofs") for u in users), users
