"""Everything protocol.md names exists: the modules, test files and tests it cites (§6's
F::/R::/... abbreviations resolved to their files), the classes, functions, constants and
snake_case names it quotes, and the command-line options it mentions. A rename on one side
fails here."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from spec_tables import ROOT, spec_text

from dudo_p2p.cli.main import COMMANDS, build_parser

# ---- what the document names exists ------------------------------------------------------

_PACKAGES = "consensus|protocol|net|node|crypto|rules|session|cli|bench|ui|bots"
# §6's abbreviations: "F::test_x" is test_x of that file (A:: a folder: "A::file.py::test_x")
_ABBREVIATIONS = re.compile(r"`([A-Z])::`\s+=\s+`(tests/[a-z0-9_/]+(?:\.py)?)/?`")


def named_modules(text: str) -> set[str]:
    """Package modules ``text`` names: ``consensus/x.py``, ``dudo_p2p/crypto/{a,b}.py``..."""
    found: set[str] = set()
    for m in re.finditer(rf"(?:dudo_p2p/)?({_PACKAGES})/\{{([a-z_,]+)\}}\.py", text):
        found |= {f"dudo_p2p/{m.group(1)}/{name}.py" for name in m.group(2).split(",")}
    for m in re.finditer(rf"(?<![\w/.])(?:dudo_p2p/)?({_PACKAGES})/([a-z_]+)\.py", text):
        found.add(f"dudo_p2p/{m.group(1)}/{m.group(2)}.py")
    return found


def test_every_module_protocol_md_names_exists() -> None:
    named = named_modules(spec_text())
    assert len(named) > 40  # the scan finds them (it is not vacuous)
    named |= set(re.findall(r"(?<![\w/])((?:tests|scripts)/[\w/.-]+\.(?:py|json))", spec_text()))
    missing = sorted(path for path in named if not (ROOT / path).is_file())
    assert not missing, f"protocol.md names modules that do not exist: {missing}"


def test_every_bare_module_name_is_a_file_of_the_package() -> None:
    """`journal.py`, `timers.py`...: a name without its folder is some module's."""
    text = spec_text()
    bare = set(re.findall(r"`([a-z_]+\.py)`", text)) | set(re.findall(r"`([a-z_]+\.py)[,:` ]",
                                                                       text))
    homes = {p.name for p in (ROOT / "dudo_p2p").rglob("*.py")}
    homes |= {p.name for p in (ROOT / "tests").rglob("*.py")}
    assert not sorted(bare - homes), f"no such module: {sorted(bare - homes)}"


def defined_tests(path: Path) -> set[str]:
    """The test functions a test file (or every test file of a folder) defines."""
    files = [path] if path.suffix == ".py" else list(path.rglob("test_*.py"))
    return {name for f in files
            for name in re.findall(r"^(?:async )?def (test_\w+)\(", f.read_text(), flags=re.M)}


def test_every_test_protocol_md_cites_exists_where_it_says() -> None:
    """A citation is ``tests/x.py::test_y``, ``F::test_y`` (§6's abbreviations), ``…::test_y``
    (the file of the citation before it), or a bare `test_y` (any test file)."""
    text = spec_text()
    abbreviations = dict(_ABBREVIATIONS.findall(text))
    assert set("AFRNBCWD") <= set(abbreviations)
    everywhere = defined_tests(ROOT / "tests")
    problems: list[str] = []
    last: Path | None = None
    cited = 0
    for m in re.finditer(r"(?:([A-Z])::)?((?:tests/)?[a-z0-9_/]+\.py)?(::|…::)?(test_\w+)", text):
        letter, path, sep, name = m.groups()
        cited += 1
        if letter:
            base = ROOT / abbreviations[letter]
            where = base / path if path else base
        elif path and path.startswith("tests/"):
            where = ROOT / path
        elif sep == "…::" and last is not None:
            where = last
        else:
            if name not in everywhere and not any((ROOT / "tests").rglob(f"{name}.py")):
                problems.append(name)
            continue
        last = where
        if not where.exists() or name not in defined_tests(where):
            problems.append(f"{where.relative_to(ROOT)}::{name}")
    assert cited > 80
    assert not problems, f"protocol.md cites tests that are not there: {problems}"




# ---- every name of the code the document quotes ----------------------------------------------

# names of libzmq, the socket API and the text's own notation, not of this package
_NOT_OURS = re.compile(r"(ZMQ_|EVENT_|SO_|SIOC)\w+|MAXMSGSIZE|H|MAC|len|packb")


def test_every_class_function_and_constant_protocol_md_quotes_is_in_the_package() -> None:
    """`TableMachine.heard`, `open_genesis(...)`, `TELL_LINGER`, `CheatDetected`: each a
    class, function or constant that exists, so a renamed one fails here."""
    text = spec_text()
    quoted = set(re.findall(r"`([A-Za-z_][\w.]*)\(", text))
    quoted |= set(re.findall(r"`([A-Z][A-Za-z]+\.[a-z_]+)`", text))
    quoted |= set(re.findall(r"`([A-Z][A-Z_]{3,})`", text))
    quoted |= set(re.findall(r"`([A-Z][a-z]+(?:[A-Z][a-z0-9]+)+)[`(]", text))
    quoted = {q for q in quoted if not _NOT_OURS.fullmatch(q)}
    assert len(quoted) > 60  # the scan finds them (it is not vacuous)
    source = "\n".join(p.read_text() for p in (ROOT / "dudo_p2p").rglob("*.py"))
    missing = []
    for name in sorted(quoted):
        last = re.escape(name.split(".")[-1])
        if not re.search(rf"(def {last}\(|class {last}\b|^\s*{last}\b[^=\n]*=|\b{last}: )",
                         source, flags=re.M):
            missing.append(name)
    # snake_case names (functions, fields, options): a word of the package's source at least
    words = {w for w in re.findall(r"`([a-z]+(?:_[a-z0-9]+)+)`", text)
             if not w.startswith("test_") and not re.fullmatch(r"[a-z]_[a-z]", w)}
    assert len(words) > 40
    missing += sorted(w for w in words if not re.search(rf"\b{w}\b", source))
    assert not missing, f"protocol.md quotes names the package does not have: {missing}"




def test_every_command_line_option_protocol_md_names_exists() -> None:
    """`--join`, `--table`, `--host-key`, `--then-watch`...: options of some command."""
    options: set[str] = set()
    for name in COMMANDS:
        parser = build_parser(name)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        options |= {o for action in sub.choices[name]._actions for o in action.option_strings}
    named = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", spec_text()))
    assert len(named) > 10
    assert not sorted(named - options), f"no command has {sorted(named - options)}"
