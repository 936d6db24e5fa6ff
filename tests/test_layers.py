"""The layers point one way (design.md): each package imports only what its arrow allows,
and the pure core (rules, crypto, protocol, consensus) does no I/O and reads no clock."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "dudo_p2p"

# layer -> the dudo_p2p layers it may import (besides itself and dudo_p2p.errors)
ALLOWED: dict[str, set[str]] = {
    "rules": set(),
    "crypto": set(),
    "protocol": {"rules", "crypto"},
    "consensus": {"protocol", "rules", "crypto"},
    "net": set(),
    "node": {"consensus", "net", "protocol", "rules", "crypto"},
    # not bots: the bots play through the session, and bot processes are spawned above it
    # (cli/bot_table.py)
    "session": {"node", "consensus", "rules", "crypto"},
    "bots": {"rules", "session"},
    "ui": {"rules", "session"},
    # the entry points and the measurement harness sit on top: they wire every layer (and
    # nothing imports them but dudo_p2p.__main__)
    "cli": {"ui", "bots", "session", "node", "net", "consensus", "protocol", "rules", "crypto"},
    "bench": {"ui", "bots", "session", "node", "net", "consensus", "protocol", "rules",
              "crypto"},
}
# dudo_p2p.paths (where files live on this system) is for the layers that do file I/O
PATHS_USERS = {"node", "session", "bots", "ui", "cli", "bench"}
# the pure core never touches these
IO_MODULES = {
    "socket", "zmq", "pygame", "time", "threading", "asyncio", "subprocess", "select",
    "selectors", "multiprocessing", "os", "pathlib", "shutil", "tempfile", "timeit",
}
CORE = {"rules", "crypto", "protocol", "consensus"}
# modules of the core allowed one I/O import, and why
EXEMPT = {
    "crypto/bench.py": "a measurement helper for scripts/bench, never imported by the core",
}


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            if node.module == "dudo_p2p":  # from dudo_p2p import paths: the module is named
                names.update(f"dudo_p2p.{alias.name}" for alias in node.names)
    return names


def modules(layer: str) -> list[Path]:
    return sorted((PACKAGE / layer).rglob("*.py"))


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_only_what_its_arrow_allows(layer: str) -> None:
    bad = []
    for path in modules(layer):
        for name in imports_of(path):
            parts = name.split(".")
            if parts[0] != "dudo_p2p" or len(parts) < 2 or parts[1] in (layer, "errors"):
                continue
            if parts[1] == "__version__":  # the package's own version string
                continue
            if parts[1] == "paths" and layer in PATHS_USERS:
                continue
            if parts[1] not in ALLOWED[layer]:
                bad.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("layer", sorted(CORE))
def test_core_does_no_io_and_reads_no_clock(layer: str) -> None:
    bad = []
    for path in modules(layer):
        rel = str(path.relative_to(PACKAGE))
        if rel in EXEMPT:
            continue
        for name in imports_of(path):
            if name.split(".")[0] in IO_MODULES:
                bad.append(f"{rel} imports {name}")
        if "random.random(" in path.read_text() or "random.randint(" in path.read_text():
            bad.append(f"{rel} calls the global random")
    assert not bad, "\n".join(bad)


def test_rules_use_the_standard_library_only() -> None:
    third_party = {"msgpack", "zmq", "cryptography", "nacl", "pygame"}
    bad = [
        f"{p.relative_to(PACKAGE)} imports {n}"
        for p in modules("rules")
        for n in imports_of(p)
        if n.split(".")[0] in third_party
    ]
    assert not bad, "\n".join(bad)


def test_the_layer_table_names_every_package() -> None:
    # (consensus has no __init__.py: a package is any folder of modules)
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and any(p.glob("*.py"))}
    assert packages == set(ALLOWED), packages ^ set(ALLOWED)


@functools.cache  # read-only for its callers: parsed once per kind
def module_graph(*, deferred: bool = False) -> dict[str, set[str]]:
    """Module -> the package modules it imports when it is imported (module-level imports;
    ``if TYPE_CHECKING:`` blocks and imports inside functions are deferred, so they cannot
    close a circle at import time). ``from P import m`` names the module ``P.m`` if it is
    one, else ``P``. With ``deferred``, every import counts, wherever it is written: a circle
    hidden behind TYPE_CHECKING or a function-level import is still a circle of the design."""
    files = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("dudo_p2p", *path.relative_to(PACKAGE).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        files[name] = path
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        deps: set[str] = set()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not deferred:
                if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                    continue
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    continue
            for sub in ast.walk(node):
                if isinstance(sub, ast.Import):
                    deps.update(alias.name for alias in sub.names)
                elif isinstance(sub, ast.ImportFrom) and sub.module and sub.level == 0:
                    for alias in sub.names:
                        full = f"{sub.module}.{alias.name}"
                        deps.add(full if full in files else sub.module)
        graph[name] = {d for d in deps if d in files and d != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_circles_are_found_when_they_exist() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [["a", "b", "c"]]


def test_no_module_imports_itself_through_others() -> None:
    graph = module_graph()
    assert "dudo_p2p.consensus.machine" in graph  # the walk saw the package
    assert circles(graph) == []


# packages none of whose modules may be in an import circle, even through TYPE_CHECKING or
# function-level imports (issue 19): every one. Gone: the rules' state/turns/view circle; the
# table scene's with its drawing, input, overlays and side panel (they read
# ui/table_core.TableCore, ui/table_controls.TableControls and ui/table_model.TableModel,
# which import none of them); the lobby and ui/remember (its Choices protocol); cli/common and
# cli/watch (cli/headless); bots/tournament and bots/matrix (bots/tournament_cli); consensus
# replica <-> withheld (withheld.py types the replica as chain.EpochLog) and deadlines <->
# machine (the machine is one class whose collaborators import one another one way only;
# deadlines.py reads them).
NO_DEFERRED_CIRCLES = [f"dudo_p2p.{layer}." for layer in sorted(ALLOWED)]


@pytest.mark.parametrize("prefix", NO_DEFERRED_CIRCLES)
def test_no_circle_even_through_deferred_imports(prefix: str) -> None:
    graph = module_graph(deferred=True)
    assert "dudo_p2p.rules.turns" in graph["dudo_p2p.rules.state"]  # deferred ones are seen
    assert "dudo_p2p.ui.table_controls" in graph["dudo_p2p.ui.table_draw"]  # (TYPE_CHECKING)
    found = [c for c in circles(graph) if any(m.startswith(prefix) for m in c)]
    assert found == []


def test_every_circle_left_lies_inside_consensus() -> None:
    """The package's top-level modules (errors, paths, __main__) included: a circle that is
    not all consensus modules fails here even when no layer's prefix names it."""
    outside = [c for c in circles(module_graph(deferred=True))
               if not all(m.startswith("dudo_p2p.consensus.") for m in c)]
    assert outside == []


def test_consensus_never_reads_the_wire_format_itself() -> None:
    """The envelope's layout is the protocol's business (issue 19): consensus peeks a frame
    through ``protocol.envelope.peek`` and decodes through ``protocol.codec``, never with
    msgpack, so a change of framing touches one layer."""
    bad = [f"{path.relative_to(PACKAGE)} imports {name}"
           for path in modules("consensus") for name in imports_of(path)
           if name.split(".")[0] == "msgpack"]
    assert not bad, "\n".join(bad)
