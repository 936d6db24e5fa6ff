"""The settings file: defaults when missing or bad, atomic writes, unknown keys kept."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from dudo_p2p.ui.settings import DEFAULTS, Settings


def test_a_missing_file_gives_the_defaults_and_the_first_change_writes_it(tmp_path: Path
                                                                          ) -> None:
    path = tmp_path / "conf" / "settings.json"
    settings = Settings.load(path)
    assert settings.number("volume") == DEFAULTS["volume"]
    assert not settings.flag("muted") and not settings.flag("reduced_motion")
    assert not path.exists()
    settings.set("muted", True)
    assert json.loads(path.read_text()) == {"muted": True}
    assert Settings.load(path).flag("muted")
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # no temp file left


def test_unknown_keys_are_kept_and_wrong_types_read_as_the_default(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"volume": "loud", "muted": 1, "reduced_motion": True,
                                "future_feature": {"x": [1, 2]}}))
    settings = Settings.load(path)
    assert settings.number("volume") == DEFAULTS["volume"]  # a string is not a volume
    assert settings.flag("muted") is False  # 1 is not a bool
    assert settings.flag("reduced_motion") is True
    settings.set("volume", 0.25)
    stored = json.loads(path.read_text())
    assert stored["future_feature"] == {"x": [1, 2]} and stored["volume"] == 0.25
    with pytest.raises(KeyError):
        settings.set("no_such_setting", 1)


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b"\xff\xfe", b" " * 70000])
def test_a_corrupt_file_is_ignored_with_a_warning(tmp_path: Path, content: bytes,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(content)
    with caplog.at_level(logging.WARNING):
        settings = Settings.load(path)
    assert settings.number("volume") == DEFAULTS["volume"]
    assert "ignored" in caplog.text
    settings.set("muted", True)  # and the next change writes a good file
    assert json.loads(path.read_text()) == {"muted": True}


def test_a_failed_write_keeps_the_setting_for_this_session(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    settings = Settings.load(blocker / "settings.json")  # its directory cannot be made
    with caplog.at_level(logging.WARNING):
        settings.set("muted", True)
    assert settings.flag("muted") and "not saved" in caplog.text
