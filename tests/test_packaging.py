"""What a package index and a `pip install` see: the page text, the license, one version."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import dudo_p2p

ROOT = Path(__file__).resolve().parent.parent


def pyproject() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_index_page_has_no_link_or_image_that_only_works_in_the_repository() -> None:
    project = pyproject()["project"]
    assert isinstance(project, dict)
    page = (ROOT / project["readme"]).read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)]+)\)", page) + re.findall(r'src="([^"]+)"', page)
    relative = [t for t in targets if not re.match(r"https?://", t)]
    assert relative == [], f"relative links break on a package index: {relative}"
    assert "dudo-p2p play" in page and "pip install" in page


def test_the_version_is_written_once_and_printed_by_the_cli() -> None:
    project = pyproject()["project"]
    assert isinstance(project, dict)
    assert "version" not in project and "version" in project["dynamic"]
    out = subprocess.run([sys.executable, "-m", "dudo_p2p", "--version"], capture_output=True,
                         text=True, check=True, timeout=60).stdout
    assert out.strip() == f"dudo-p2p {dudo_p2p.__version__}"


def test_the_declared_license_is_in_the_repository() -> None:
    project = pyproject()["project"]
    assert isinstance(project, dict)
    assert project["license"] == "MIT"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "WITHOUT WARRANTY" in text
