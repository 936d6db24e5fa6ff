"""Sound: the mixer opens on SDL's dummy audio driver, every sound is synthesized, and every
game event plays its sound (a spy on the bank) at its moment; mute and volume are obeyed;
no audio device means a silent bank, never an error."""

from __future__ import annotations

from pathlib import Path

import pygame
import pytest

from dudo_p2p.rules import Bid, Calzo, ChooseDirection, ChoosePalifico, Dudo, RoundResult, RuleSet
from dudo_p2p.rules.results import SeatCounts
from dudo_p2p.session import ActionTaken, Event, RoundResolved, TurnTimer
from dudo_p2p.session.local import LocalSession
from dudo_p2p.ui import overlays, synth
from dudo_p2p.ui.app import App
from dudo_p2p.ui.motion import RevealTimeline
from dudo_p2p.ui.request import TableRequest
from dudo_p2p.ui.settings import Settings
from dudo_p2p.ui.sound import NAMES, SoundBank
from dudo_p2p.ui.table import TableScene

from .conftest import FakeClock
from .helpers import bot_tables, click_button, key


class SpyBank(SoundBank):
    """The real bank (mixer on the dummy driver), recording each sound asked for."""

    def __init__(self, settings: Settings, clock: FakeClock) -> None:
        super().__init__(settings)
        self.clock = clock
        self.heard: list[tuple[float, str]] = []

    def play(self, name: str) -> None:
        self.heard.append((self.clock(), name))
        super().play(name)

    def names(self) -> set[str]:
        return {n for _, n in self.heard}


@pytest.fixture(scope="module")
def real_bank() -> SoundBank:
    bank = SoundBank.open(Settings.memory(), background=False)
    yield bank
    bank.close()


def test_the_mixer_opens_on_the_dummy_driver_and_every_sound_is_built(real_bank: SoundBank
                                                                      ) -> None:
    assert real_bank.available and real_bank.wait_ready(0)
    for name in NAMES:
        sound = real_bank._sounds[name]
        assert 0.02 < sound.get_length() < 1.5, name
        real_bank.play(name)  # on the dummy device: plays, no error
    with pytest.raises(KeyError):
        real_bank.play("no_such_sound")


def test_sounds_are_synthesized_the_same_every_time_and_are_not_silence() -> None:
    for name in NAMES:
        pcm = synth.render(name)
        assert pcm == synth.render(name)
        assert max(abs(int.from_bytes(pcm[i:i + 2], "little", signed=True))
                   for i in range(0, len(pcm), 2)) > 3000, name


class _FakeSound:
    def __init__(self) -> None:
        self.played: list[float] = []
        self.volume = 1.0

    def set_volume(self, v: float) -> None:
        self.volume = v

    def play(self) -> None:
        self.played.append(self.volume)


def test_mute_and_volume_come_from_the_settings_at_each_play() -> None:
    settings = Settings.memory(volume=0.5)
    fake = _FakeSound()
    bank = SoundBank(settings, {"bid": fake})  # type: ignore[dict-item]
    bank.play("bid")
    settings.set("muted", True)
    bank.play("bid")
    settings.set("muted", False)
    settings.set("volume", 0.0)
    bank.play("bid")
    settings.set("volume", 1.0)
    bank.play("bid")
    assert fake.played == [0.5, 1.0]


def test_no_audio_device_gives_a_silent_bank(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_device(*_a: object, **_k: object) -> None:
        raise pygame.error("No available audio device")

    monkeypatch.setattr(pygame.mixer, "get_init", lambda: None)
    monkeypatch.setattr(pygame.mixer, "init", no_device)
    bank = SoundBank.open(Settings.memory(), background=False)
    assert not bank.available
    for name in NAMES:
        bank.play(name)  # nothing, no error
    bank.close()


def _spy_app(clock: FakeClock, surface: pygame.Surface,
             real_bank: SoundBank) -> tuple[App, SpyBank]:
    settings = Settings.memory(reduced_motion=True)
    spy = SpyBank(settings, clock)
    spy._sounds = real_bank._sounds  # the real sounds, through the real mixer
    app = App(bot_tables, "es", clock, surface=surface, bot_delay=0.0, reveal_hold=0.0,
              settings=settings, sounds=spy)
    return app, spy


def test_every_event_of_a_real_game_plays_its_sound(clock: FakeClock, surface: pygame.Surface,
                                                    real_bank: SoundBank) -> None:
    app, spy = _spy_app(clock, surface, real_bank)
    app.start_table(TableRequest("bots", bots=2, seed=8))
    scene = app.scene
    assert isinstance(scene, TableScene)
    session = scene.session
    assert isinstance(session, LocalSession)
    moves: list[object] = []  # every bid and call the table reported
    real_poll = session.poll_events

    def poll() -> list[Event]:
        events = real_poll()
        moves.extend(e.action for e in events if isinstance(e, ActionTaken)
                      and not isinstance(e.action, ChooseDirection | ChoosePalifico))
        return events

    session.poll_events = poll  # type: ignore[method-assign]
    ours: list[str] = []
    for _ in range(6000):
        clock.advance(0.05)
        app.frame()
        if scene.model.winner is not None and scene.model.reveal is None:
            break
        if scene.model.reveal is not None:
            clock.advance(3.0)  # every cue of the reveal is due
            app.frame()
            key(app, pygame.K_SPACE)
        elif scene.my_turn and not scene.blocked:
            if scene.choices():
                click_button(app, "choice_0")
            elif scene.offered(Calzo) is not None and "calzo" not in ours:
                ours.append("calzo")
                key(app, pygame.K_c)
            elif scene.offered(Dudo) is not None and len(ours) % 2:
                ours.append("dudo")
                key(app, pygame.K_d)
            else:
                ours.append("bid")
                key(app, pygame.K_RETURN)
    assert scene.model.winner is not None
    app.frame()
    heard = spy.names()
    assert {"rattle", "slam", "bid", "dudo", "calzo", "reveal", "lose", "turn",
            "victory"} <= heard
    # a sound per move: every bid and call of the game was heard (setup choices are silent)
    assert len(moves) > len(ours) > 3
    assert sum(1 for _, n in spy.heard if n in ("bid", "dudo", "calzo")) == len(moves)


def test_a_reveal_is_heard_in_order_and_the_revolver_and_timer_too(
        clock: FakeClock, surface: pygame.Surface, real_bank: SoundBank) -> None:
    app, spy = _spy_app(clock, surface, real_bank)
    app.start_table(TableRequest("bots", bots=2, seed=3, rules=RuleSet()))
    scene = app.scene
    assert isinstance(scene, TableScene) and isinstance(scene.session, LocalSession)
    for _ in range(200):
        clock.advance(0.05)
        app.frame()
        if scene.my_turn and not scene.blocked and not scene.choices():
            break
        if scene.choices():
            click_button(app, "choice_0")
    # our turn's last seconds tick, once each
    spy.heard.clear()
    scene.session._events.append(TurnTimer(scene.session.seat, clock() + 3.5))
    for _ in range(8):
        app.frame()
        clock.advance(0.5)
    assert [n for _, n in spy.heard].count("tick") == 4  # 3, 2, 1, 0 seconds left
    # a reveal where seat 1 regains a die, seat 2 loses one, and two revolvers are spun
    result = RoundResult(round_no=1, kind="calzo", caller=1, target=2, bid=Bid(3, 4), held=3,
                         dice=((4, 4), (4, 2), (1, 6)), losses=SeatCounts({2: 1}),
                         gains=SeatCounts({1: 1}), banked=SeatCounts({}), eliminated=(),
                         shots=((0, False), (2, True)), next_opener=1)
    spy.heard.clear()
    scene.session._events.append(RoundResolved(result))
    start = clock()
    app.frame()
    assert [n for _, n in spy.heard] == ["reveal"]
    timeline = RevealTimeline(start, (2, 0, 1))
    for _ in range(100):
        clock.advance(0.05)
        app.frame()
    at = {n: t for t, n in spy.heard}
    assert timeline.all_up <= at["lose"] < timeline.all_up + 0.06
    assert at["gain"] == at["lose"]
    assert timeline.shots_at <= at["click"] < at["bang"]


def test_the_menu_sets_volume_mute_and_motion_and_the_file_keeps_them(
        clock: FakeClock, surface: pygame.Surface, tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    settings = Settings.load(path)
    app = App(bot_tables, "es", clock, surface=surface, bot_delay=0.0, settings=settings)
    app.start_table(TableRequest("bots", bots=1, seed=3))
    scene = app.scene
    assert isinstance(scene, TableScene)
    assert not scene.motion.reduced  # the player's default: animations on
    key(app, pygame.K_ESCAPE)
    click_button(app, "volume_down")
    click_button(app, "volume_down")
    click_button(app, "mute")
    click_button(app, "motion")
    stored = Settings.load(path)
    assert stored.number("volume") == 0.5 and stored.flag("muted")
    assert stored.flag("reduced_motion")
    app.frame()
    assert scene.motion.reduced
    key(app, pygame.K_ESCAPE)
    key(app, pygame.K_s)  # S at the table: sound back on
    assert not Settings.load(path).flag("muted")
    assert overlays.volume_step(0.8, 1) == 1.0 and overlays.volume_step(0.0, -1) == 0.0


def test_every_sound_ends_in_silence_not_in_a_click() -> None:
    for name in NAMES:
        pcm = synth.render(name)
        last = int.from_bytes(pcm[-2:], "little", signed=True)
        assert last == 0, name
    assert synth.fade_out([1.0] * 4, 2 / synth.RATE) == [1.0, 1.0, 0.5, 0.0]
