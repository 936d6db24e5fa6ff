"""The lobby's LAN list (issue 15): each row shows what a friend asks before sitting down, in
Spanish and English, legible at the default window size; a table of another protocol version
is greyed, with neither Join nor Watch (protocol.md §2.5, §5.3)."""

from __future__ import annotations

import time
from pathlib import Path

import pygame
import pytest
from node_helpers import LOOPBACK_BROADCAST, Peer, loopback_net

from dudo_p2p.cli.lan_list import LanDirectory
from dudo_p2p.net.beacon import VERSION
from dudo_p2p.rules import RuleSet
from dudo_p2p.ui import draw, theme
from dudo_p2p.ui import request as request_module
from dudo_p2p.ui.app import App
from dudo_p2p.ui.lobby import LobbyScene
from dudo_p2p.ui.request import TableListing, TableRequest

from .conftest import FakeClock
from .helpers import TextRecorder, click_button

ANA = TableListing("K7Q2P", "192.168.1.23:41234", 2, 4, "Ana", "SA4V-YESP", "open", RuleSet(),
                   30.0)
BERNARDO = TableListing("M4XR9", "192.168.1.40:39001", 3, 6, "Bernardo", "QW3E-RT5Y",
                        "playing",
                        RuleSet(starting_dice=3, calza_full_hand="bank", picado=True, pasar=True))
OLD = TableListing("ZZ8PQ", "192.168.1.77:40000", 1, 3, "Viejo", "AB12-CD34", "open",
                   version=1)
LEGIBLE = 17  # px: no line of a row is shrunk below this to fit


class Directory:
    def __init__(self, listings: list[TableListing]) -> None:
        self.listings = listings

    def tables(self) -> list[TableListing]:
        return self.listings


def lobby(clock: FakeClock, surface: pygame.Surface, lang: str,
          asked: list[TableRequest] | None = None) -> App:
    def factory(request: TableRequest) -> object:
        (asked if asked is not None else []).append(request)
        raise request_module.Unavailable("not in this test")

    app = App(factory, lang, clock, surface=surface,  # type: ignore[arg-type]
              directory=Directory([ANA, BERNARDO, OLD]))
    assert isinstance(app.scene, LobbyScene)
    app.frame()
    return app


@pytest.mark.parametrize(("lang", "expected"), [
    ("es", ["K7Q2P@SA4V-YESP  ·  Ana  ·  2/4", "192.168.1.23:41234",
            "5 dados  ·  30 s por turno  ·  reglas de la casa",
            "M4XR9@QW3E-RT5Y  ·  Bernardo  ·  3/6", "192.168.1.40:39001",
            "3 dados  ·  sin límite de tiempo  ·  V4 dado de reserva, V17 sí, V18 sí",
            "ZZ8PQ@AB12-CD34  ·  Viejo  ·  1/3", "192.168.1.77:40000",
            "otra versión del juego (protocolo 1): no se puede unir ni mirar"]),
    ("en", ["K7Q2P@SA4V-YESP  ·  Ana  ·  2/4", "192.168.1.23:41234",
            "5 dice  ·  30 s a turn  ·  house rules",
            "M4XR9@QW3E-RT5Y  ·  Bernardo  ·  3/6", "192.168.1.40:39001",
            "3 dice  ·  no time limit  ·  V4 bank a die, V17 yes, V18 yes",
            "ZZ8PQ@AB12-CD34  ·  Viejo  ·  1/3", "192.168.1.77:40000",
            "another version of the game (protocol 1): cannot join or watch"]),
])
def test_each_row_says_host_seats_dice_timer_and_variants_legibly(
    clock: FakeClock, surface: pygame.Surface, lang: str, expected: list[str]
) -> None:
    app = lobby(clock, surface, lang)
    recorder = TextRecorder()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(draw, "text", recorder)
        drawn = recorder.frame(app)
    at = drawn.index(expected[0])
    assert drawn[at:at + len(expected)] == expected
    rows = recorder.drawn[at:at + len(expected)]
    styles = recorder.styles[at:at + len(expected)]
    for (message, rect, width), (size, colour) in zip(rows, styles, strict=True):
        assert width is not None and rect.width <= width
        assert draw.fit(message, size, width)[1] >= LEGIBLE, (message, size, width)
        assert rect.right <= 620 and rect.bottom <= 586, (message, rect)  # inside the panel
        assert (colour == theme.DIM) == (message in expected[6:]), message  # greyed: the old


def test_the_lobby_knows_the_version_our_beacons_carry() -> None:
    # the UI may not import net: it keeps its own copy of the version, which must follow
    assert request_module.WIRE_VERSION == VERSION


def test_only_a_table_of_our_version_can_be_joined_or_watched(
    clock: FakeClock, surface: pygame.Surface
) -> None:
    asked: list[TableRequest] = []
    app = lobby(clock, surface, "es", asked)
    names = {b.name for b in app.scene.buttons}
    assert {"join_0", "watch_0", "watch_1"} <= names  # Ana's open table; Bernardo's playing
    assert not {"join_1", "join_2", "watch_2"} & names  # the old version's: nothing
    click_button(app, "join_0")
    assert [(r.kind, r.address) for r in asked] == [("join", "192.168.1.23:41234")]


def test_a_real_hosts_beacon_becomes_a_row_with_its_rules_and_timer(
    surface: pygame.Surface, tmp_path: Path, peers: list[Peer], beacon_port: int
) -> None:
    """End to end: a host process on loopback beacons its table (4 seats, 3 dice, picado,
    30 s a turn); the lobby's real directory hears it and the row says so, in Spanish."""
    peers.append(Peer("host", ["host", "--headless", "--players", "4", "--name", "Ana",
                               "--identity", str(tmp_path / "ana.id"), "--turn-timer", "30",
                               "--rule", "starting_dice=3", "--rule", "picado=true",
                               "--timeout", "60", *loopback_net(beacon_port)]))
    directory = LanDirectory(beacon_port, [LOOPBACK_BROADCAST])
    clock = FakeClock()
    try:
        app = App(lambda _r: pytest.fail("no table"), "es", clock, surface=surface,
                  directory=directory)
        lobby = app.scene
        assert isinstance(lobby, LobbyScene)
        deadline = time.monotonic() + 20
        while not lobby.listings and time.monotonic() < deadline:
            clock.advance(1.1)  # the lobby polls its directory about once a second
            app.frame()
            time.sleep(0.1)
        assert lobby.listings, peers[0].explain()
        recorder = TextRecorder()
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(draw, "text", recorder)
            drawn = recorder.frame(app)
    finally:
        directory.close()
    (table,) = lobby.listings
    assert f"{table.code}@{table.fingerprint}  ·  Ana  ·  1/4" in drawn
    assert "3 dados  ·  30 s por turno  ·  V17 sí" in drawn
    assert "join_0" in {b.name for b in lobby.buttons}
