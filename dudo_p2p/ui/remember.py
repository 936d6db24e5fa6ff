"""The lobby's choices kept between launches: the player's name, the bot level, the number
of bots, the created table's seats and bots, the turn timer and the last table's rules, in
the settings file (``ui/settings.py``).

A stored value that no longer fits (a level this version lacks, a rule set the rules refuse)
is left out and the lobby's own default used, so an old or hand-edited file never stops the
program. The language is kept by the app (:func:`saved_lang`).
"""

from __future__ import annotations

import getpass
import json
from typing import TYPE_CHECKING, Protocol

from dudo_p2p.errors import DudoError
from dudo_p2p.rules import RuleSet
from dudo_p2p.ui.i18n import LANGS
from dudo_p2p.ui.request import BOT_LEVELS, TIMER_CHOICES, clean_name
from dudo_p2p.ui.settings import Settings

if TYPE_CHECKING:
    from dudo_p2p.ui.widgets import TextField


class Choices(Protocol):
    """What is kept of a lobby (``LobbyScene`` is one): typed here, not imported, so that
    this module does not import the lobby that imports it."""

    name_field: TextField
    level: str
    n_bots: int
    create_seats: int
    create_bots: int
    timer_index: int
    rules: RuleSet


def login_name() -> str:
    """The user's login name as a display name ("" when the system will not say): the
    default of the lobby's name field, rather than a key code."""
    try:
        return clean_name(getpass.getuser())
    except Exception:  # getuser raises OSError, KeyError... when no name is set anywhere
        return ""


def saved_lang(settings: Settings) -> str | None:
    """The language chosen last time, when it is one this version speaks."""
    lang = settings.get("lang")
    return lang if isinstance(lang, str) and lang in LANGS else None


def typed_name(settings: Settings, name: str | None) -> None:
    """A name given on the command line (``dudo-p2p play --name Alice``) is the lobby's name
    field from this launch on, kept as a name typed in that field is (the field, filled
    from the settings or the login name, used to win over it: the table said "root")."""
    cleaned = clean_name(name) if name else ""
    if cleaned:
        settings.set("name", cleaned)


def restore(lobby: Choices, settings: Settings) -> None:
    """Put the stored choices back into a new lobby."""
    name = settings.get("name")
    lobby.name_field.value = clean_name(name) if isinstance(name, str) and name else login_name()
    level = settings.get("bot_level")
    if level in BOT_LEVELS:
        assert isinstance(level, str)
        lobby.level = level
    lobby.n_bots = _within(settings.number("quick_bots"), 1, 5, lobby.n_bots)
    seats = _within(settings.number("create_seats"), 2, 6, lobby.create_seats)
    bots = _within(settings.number("create_bots"), 0, 5, lobby.create_bots)
    # a file from before the seat count (bots only, up to 5) keeps its table: bots + 2 seats
    lobby.create_seats = min(6, max(seats, bots + 2))
    lobby.create_bots = min(bots, lobby.create_seats - 2)
    lobby.timer_index = _within(settings.number("timer_index"), 0, len(TIMER_CHOICES) - 1,
                                lobby.timer_index)
    stored = settings.get("rules")
    if isinstance(stored, str) and stored:
        try:
            data = json.loads(stored)
            if isinstance(data, dict):
                lobby.rules = RuleSet.from_dict(data)
        except (ValueError, TypeError, DudoError):
            pass  # a rule set this version refuses: the defaults


def remember(lobby: Choices, settings: Settings) -> None:
    """Store the lobby's choices (called when a table is asked for)."""
    settings.update({
        "name": clean_name(lobby.name_field.value),
        "bot_level": lobby.level,
        "quick_bots": lobby.n_bots,
        "create_seats": lobby.create_seats,
        "create_bots": lobby.create_bots,
        "timer_index": lobby.timer_index,
        "rules": json.dumps(lobby.rules.to_dict(), sort_keys=True),
    })


def _within(value: float, low: int, high: int, default: int) -> int:
    number = int(value)
    return number if number == value and low <= number <= high else default
