"""The table scene's state: :class:`TableCore`, one seat at a live table driven only by the
session API, without what its controls do, its input map and its drawing.

:class:`~dudo_p2p.ui.table_controls.TableControls` adds the controls and
:class:`~dudo_p2p.ui.table.TableScene` the rest (``table_input``, ``table_draw`` and the
modules it draws with, ``waiting``); they read this class, and this module imports none of
them, so no module of the table imports another in a circle (``tests/test_layers.py``). What the
session's events say is folded by :class:`~dudo_p2p.ui.table_model.TableModel`
(``self.model``), which the drawing reads.

Each update polls the session's events (bids, rounds, reveals, people leaving, cheats), then
refreshes the seat's view and legal actions. Input maps to actions that are offered by
``legal_actions()`` only: a button for an action that is not legal now is disabled, and the
key does nothing. Overlays (reveal, menu, rules, hand-over, winner) sit on top of the live
table; while a reveal or hand-over is up, an in-process table is not stepped, so the story is
told in order.

Timing: everything uses the injected clock. The scene runs at 60 fps only while something
moves (:mod:`~dudo_p2p.ui.motion`: shaking cups, tumbling dice, the reveal's film, a sliding
bid) or a sound is due (:mod:`~dudo_p2p.ui.cues`); otherwise the app sleeps. Sounds go
through the host's bank, table talk through :mod:`~dudo_p2p.ui.talk`, keys and clicks through
:mod:`~dudo_p2p.ui.table_input`.
"""

from __future__ import annotations

import random
import time

from dudo_p2p.errors import DudoError
from dudo_p2p.rules import Action, Bid, Phase, Raise, SeatView
from dudo_p2p.session import Gathering, PlayerInfo, PlayerLeft, Session
from dudo_p2p.ui import draw
from dudo_p2p.ui.composer import Composer, legal_bids
from dudo_p2p.ui.cues import HURRY_TICK_S, Cues
from dudo_p2p.ui.motion import ROLL_S, SHAKE_S, SLIDE_S, Motion
from dudo_p2p.ui.request import TableRequest
from dudo_p2p.ui.scene import Host, Scene
from dudo_p2p.ui.table_model import TableModel, Words, keyed

REVEAL_HOLD_S = 6.0  # a reveal stays this long unless dismissed
SKIPPED_REVEAL_S = 0.3  # ... and this long once the player skipped to the end
REFRESH_S = 0.5  # re-read the view at least this often (turn timers, remote tables)
END_GRACE_S = 1.0  # the end screen takes no choice this long after it shows
DEFAULT_BOT_DELAY_S = 0.9  # an in-process bot "thinks" this long so humans can follow
NAME_SIZE, NAME_WIDTH = 26, 150  # a shown name fits this many pixels at this font size


class TableCore(Scene):
    """One seat at a live table, all but its input map and drawing (module docstring).

    ``bot_delay``: seconds between in-process bot actions (0 in tests and screenshots).
    ``autoplay``: make our own opening bids and setup choices (for ``--screenshot``, so the
    first bid stands without a human).
    """

    def __init__(
        self,
        host: Host,
        session: Session,
        request: TableRequest,
        *,
        bot_delay: float = DEFAULT_BOT_DELAY_S,
        autoplay: bool = False,
        reveal_hold: float = REVEAL_HOLD_S,
    ) -> None:
        super().__init__(host)
        self.session = session
        self.request = request
        self.spectating = False  # our seat was removed: we watch the rest (_watch_the_rest)
        self.bot_delay = bot_delay
        self.autoplay = autoplay
        self.reveal_hold = reveal_hold
        self.composer = Composer()
        self.looking = False
        self.show_prob = True
        self.overlay: str | None = None  # "menu" | "rules" | None
        # what the table shows, folded from the session's events (table_model.py)
        self.model = TableModel(lambda: self.names, lambda: self.tr, hotseat=self.hotseat)
        self.shake_started: float | None = None
        self.handover_seat: int | None = None  # hot-seat: the seat waiting to take the device
        self.shown_seat: int | None = None  # hot-seat: whose dice the screen may show
        self.first_bid_seen = False
        self.view: SeatView | None = None
        self.legal: list[Action] = []
        self.players: tuple[PlayerInfo, ...] = ()
        self._raw_names: tuple[str, ...] = ()  # as the table gave them
        self._shown_names: tuple[str, tuple[str, ...], tuple[str, ...]] = ("", (), ())
        self._refreshed_at = -1e9
        self._changed = True
        self._timer_second = -1
        self._next_step_at = 0.0
        self._turn_key: tuple[int, int, int] | None = None
        self.history_back = 0  # bid-history lines scrolled back from the newest (wheel, PgUp)
        self.end_shown_at: float | None = None  # when the end screen first showed
        self._tumble = random.Random(7)  # only for the look of tumbling dice, never the game
        self.now = 0.0
        self.entered_at = 0.0
        self.motion = Motion(reduced=host.settings.flag("reduced_motion"))
        self.cues = Cues(host.sounds.play)
        self.slide: tuple[Bid, int | None, float] | None = None  # a new bid: from whom, when
        self._ticked: tuple[int, int] | None = None  # (turn, second) the timer last ticked
        self.gathered: Gathering | None = None  # the waiting room as last drawn (waiting.py)
        self.skipped = False  # "skip to the end" was chosen

    # -- session plumbing ----------------------------------------------------------------
    @property
    def hotseat(self) -> bool:
        """Several humans share this screen."""
        return self.request.kind == "hotseat"

    @property
    def watching(self) -> bool:
        """A spectator's table (the lobby's Watch, or our seat removed and watching the rest
        of its game): no seat is ours, nothing to play."""
        return self.request.kind == "watch" or self.spectating

    def _watch_the_rest(self) -> bool:
        """The table removed our seat: watch the rest of its game here, as a spectator with
        our key (session/watch_session.py); False when there is nothing left to watch."""
        from dudo_p2p.session.watch_session import watch_the_rest  # sockets: networked only

        try:
            rest = watch_the_rest(self.session)
        except DudoError:
            return False
        if rest is None:
            return False
        self.session, self.spectating, self.legal = rest, True, []
        return True

    def enter(self) -> None:
        self.now = self.host.clock()
        self.entered_at = self.now  # a join unanswered JOIN_ANSWER_S after this fails
        self.refresh()

    def leave(self) -> None:
        self.session.close()

    def refresh(self) -> None:
        """Re-read the seat's view, legal actions and players (after events or actions)."""
        before_view, before_legal = self.view, self.legal
        if not self.session.started:
            return  # a networked table still gathering its players: "waiting for the table"
        try:
            self.view = self.session.view()
            self.legal = self.session.legal_actions()
            self.players = self.session.players()
        except DudoError as exc:
            self.say(keyed("error.generic", why=str(exc)))
            return
        self._raw_names = tuple(p.name for p in self.players)
        self._refreshed_at = self.now
        view = self.view
        if view != before_view or self.legal != before_legal:
            self._changed = True
        if view.standing_bid is not None:
            self.first_bid_seen = True
        if view.standing_bid is not None and (self.slide is None
                                              or self.slide[0] != view.standing_bid):
            self.slide = (view.standing_bid, view.standing_bidder, self.now)
        # A new turn of ours presets the composer to the lowest legal raise.
        key = (view.round_no, len(view.state.bids), self.session.seat)
        if self.my_turn and key != self._turn_key:
            self._turn_key = key
            self.composer.start_turn(legal_bids(self.legal), view.standing_bid)
            self.cues.now("turn")
        if self.hotseat and self.my_turn and self.session.seat != self.shown_seat:
            self.handover_seat = self.session.seat
            self.looking = False

    @property
    def names(self) -> tuple[str, ...]:
        """Names for display: an unnamed seat (our own, offline) reads "Jugador" / "Player"
        ("Jugador 2" / "Player 2" at a hot-seat table) in the language shown now (a
        third-person name, so the reveal's sentences stay grammatical); a long name is cut to
        what a seat's plate shows, so sentences that name two players still fit. Cached per
        language and names."""
        lang, raw, shown = self._shown_names
        if lang != self.tr.lang or raw != self._raw_names:
            raw = self._raw_names
            shown = tuple(draw.clip(n or self._default_name(seat), NAME_SIZE, NAME_WIDTH)
                          for seat, n in enumerate(raw))
            self._shown_names = (self.tr.lang, raw, shown)
        return shown

    def _default_name(self, seat: int) -> str:
        # hot-seat: every seat is a human on this screen, numbered so the hand-over names one
        if self.hotseat:
            return self.tr("hotseat.player", n=seat + 1)
        return self.tr("table.you_name")

    @property
    def my_turn(self) -> bool:
        """Our seat may act now (legal actions offered)."""
        return bool(self.legal)

    def say(self, said: Words) -> None:
        """Tell the player something: a toast on the table and a line in the side panel."""
        self.model.say(said, self.now)

    def submit(self, action: Action) -> bool:
        """Hand ``action`` to the table if it is legal now; True when it was submitted."""
        if action not in self.legal or self.blocked:
            return False
        try:
            self.session.submit(action)
        except DudoError as exc:
            self.say(keyed("table.illegal", why=str(exc)))
            return False
        self.legal = []
        self._next_step_at = self.now + self.bot_delay
        self.process_events()
        self.refresh()
        return True

    @property
    def blocked(self) -> bool:
        """An overlay hides the table: no game input reaches it."""
        return (self.overlay is not None or self.model.reveal is not None
                or self.handover_seat is not None or self.model.winner is not None
                or self.model.ended is not None)

    def process_events(self) -> bool:
        """Apply every event the session reports, in order; True when there was one."""
        try:
            events = self.session.poll_events()
        except DudoError as exc:
            self.say(keyed("error.generic", why=str(exc)))
            return False
        if events:
            self._changed = True
        # a spectator's view is drawn from seat 0, but no seat is its own: seat 0 leaving is
        # someone else leaving, not "you were removed"
        ours = -1 if self.watching else self.session.seat
        for event in events:
            watching_now = (isinstance(event, PlayerLeft) and event.seat == ours
                            and not self.hotseat and self._watch_the_rest())
            if watching_now:
                ours = -1  # someone else leaving, now: we go on watching the game
            reaction = self.model.apply(event, self.now, self.view, ours)
            if watching_now:  # said after why we left ("Cris ran out of time..."): the toast
                self.say(keyed("table.watching_rest"))  # that stays up is what we do now
            if reaction.names is not None:
                self._raw_names = reaction.names
            if reaction.new_round:
                if reaction.shake:
                    self.start_shake()
                self.looking = self.looking and not self.hotseat
                self.history_back = 0
            for when, sound in reaction.cues:
                if when is None:
                    self.cues.now(sound)
                else:
                    self.cues.at(when, sound)
        return bool(events)

    def standings(self) -> list[int]:
        """Seats from first to last (:meth:`TableModel.standings`)."""
        n = self.view.state.n_seats if self.view is not None else len(self.names)
        return self.model.standings(n)

    def start_shake(self) -> None:
        """The cups rattle (a new round, or Space for fun): heard, and seen unless reduced
        motion; the cup is slammed down when the shaking stops."""
        self.shake_started = self.now
        self.cues.now("rattle")
        self.cues.at(self.now + SHAKE_S, "slam")

    def update(self, now: float) -> None:
        self.now = now
        self.motion.reduced = self.host.settings.flag("reduced_motion")  # the menu may change it
        self._tick_timer()
        if self.model.talk.expire(now):
            self._changed = True
        before = self.view
        told = self.process_events()
        if (self.model.reveal is not None and self.reveal_hold > 0
                and now - self.model.reveal.started >= self.reveal_hold):
            self.dismiss_reveal()
        if (not self.blocked and now >= self._next_step_at
                and (not self.my_turn or self.hotseat)):
            self._next_step_at = now + self.bot_delay
            if self.session.step():  # an in-process table: one bot action (networked: none)
                self.process_events()
                self.refresh()
        # the view after what the events said (another seat's bid, a spectator's verified
        # move): read now, not up to REFRESH_S later
        if self.view is before and (told or now - self._refreshed_at >= REFRESH_S):
            self.refresh()
        model = self.model
        if model.winner is not None and model.reveal is None and self.end_shown_at is None:
            self.end_shown_at = now
            self.cues.now("victory")
        if self.autoplay:
            self._autoplay()
        self.cues.run(now)  # last: the cues this update laid down for now play at once

    def _tick_timer(self) -> None:
        """Our turn's last seconds tick, once each."""
        view = self.view
        if not self.my_turn or view is None or self.blocked:
            return
        deadline = self.model.deadlines.get(self.session.seat)
        if deadline is None:
            return
        left = int(deadline - self.now)
        key = (len(view.state.bids), left)
        if 0 <= left < HURRY_TICK_S and key != self._ticked:
            self._ticked = key
            self.cues.now("tick")

    def _autoplay(self) -> None:
        """Screenshot mode: make our setup choices and opening bid so a bid stands."""
        self.looking = True  # the picture shows our own dice
        if not self.legal or self.view is None or self.model.reveal is not None:
            return
        if self.handover_seat is not None:
            self.take_device()
        raises = sorted(legal_bids(self.legal), key=lambda b: (b.count, b.face))
        own = self.view.own_dice or ()
        if raises and self.view.standing_bid is None:
            best = max(range(2, 7), key=lambda f: (sum(1 for d in own if d in (f, 1)), f))
            choice = next((b for b in raises if b.face == best), raises[0])
            self.looking = True
            self.submit(Raise(self.session.seat, choice))
        elif not raises and self.view.phase is Phase.SETUP:
            self.submit(self.legal[0])

    # -- what the update and the controls both change (the controls: table_controls) ---
    def take_device(self) -> None:
        """Hot-seat: the next player has the device; show their side of the table."""
        self.shown_seat = self.handover_seat
        self.handover_seat = None
        self.looking = False

    def dismiss_reveal(self) -> None:
        """Leave the reveal and go on with the next round: the cups rattle now, when the
        players see the new round begin (the table dealt it while the cups were up)."""
        self.model.reveal = None
        self.cues.flush()  # the news of the reveal is heard even when it is cut short
        self._next_step_at = self.now + self.bot_delay
        if self.model.winner is None:
            self.start_shake()

    def mark_changed(self) -> None:
        """The screen must be drawn again (something changed without an event)."""
        self._changed = True

    # -- frame pacing --------------------------------------------------------------------
    def take_changed(self) -> bool:
        """Draw again when the table changed, and once a second while a turn timer runs."""
        changed, self._changed = self._changed, False
        second = int(self.now)
        timed = any(d is not None for d in self.model.deadlines.values())
        if timed and second != self._timer_second:
            self._timer_second = second
            return True
        return changed

    def nap(self, seconds: float) -> bool:
        """Between looks at the input queue, keep a networked peer running (its ``wait``
        runs the node loop); True when it returned early: it has news for update(). An
        in-process table's ``wait`` just sleeps."""
        started = time.monotonic()
        self.session.wait(seconds)
        return time.monotonic() - started < seconds * 0.9

    def moving(self, now: float) -> bool:
        """True while an animation runs (always False with reduced motion)."""
        m = self.motion
        if m.running(now, self.shake_started, SHAKE_S + ROLL_S):
            return True
        if self.slide is not None and m.running(now, self.slide[2], SLIDE_S):
            return True
        reveal = self.model.reveal
        return reveal is not None and m.running(now, reveal.started,
                                                reveal.film.ends - reveal.started)

    def animating(self, now: float) -> bool:
        if self.end_shown_at is not None and now - self.end_shown_at < END_GRACE_S + 0.1:
            return True  # the end screen's buttons light up when the grace ends
        # a sound due soon needs the loop awake to play it on time
        return self.moving(now) or bool(self.cues.pending)

    @property
    def screenshot_ready(self) -> bool:
        """The first bid stands and nothing covers the table: time for ``--screenshot``."""
        return (self.first_bid_seen and self.model.reveal is None and self.handover_seat is None
                and not self.moving(self.now))

