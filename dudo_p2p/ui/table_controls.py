"""What the table's controls do: :class:`TableControls`, the table scene's state
(:class:`~dudo_p2p.ui.table_core.TableCore`) with the actions its keys, buttons and end screen
ask for. Every action handed to the table is one of ``legal_actions()`` (``submit`` refuses
the rest); the composer's bid, the calls offered now, the setup choices, the preview of the
lowest raise while others play, table talk, the bid history's scroll, one more game.

:class:`~dudo_p2p.ui.table.TableScene` adds the input map and the drawing; the modules that
call a control (``table_input``, ``table_composer``, ``overlays``) read this class, and it
imports none of them (``tests/test_layers.py``).
"""

from __future__ import annotations

from dudo_p2p.rules import (
    Action,
    Bid,
    ChooseDirection,
    ChoosePalifico,
    DoubtClaim,
    Matar,
    Pasar,
    Phase,
    Picado,
    Raise,
    RaiseContext,
    min_raise,
)
from dudo_p2p.ui.composer import legal_bids, lowest_on_face
from dudo_p2p.ui.table_core import END_GRACE_S, SKIPPED_REVEAL_S, TableCore


class TableControls(TableCore):
    """One seat at a live table with what its controls do (module docstring)."""

    def offered(self, kind: type) -> Action | None:
        """The legal action of type ``kind`` for our seat, if any (Dudo, Calzo, ...)."""
        return next((a for a in self.legal if type(a) is kind), None)

    def bid_now(self) -> bool:
        """Submit the composed bid if legal (Enter / Apostar)."""
        return self.submit(Raise(self.session.seat, self.composer.bid))

    def call(self, kind: type) -> bool:
        """Submit ¡Dudo!, ¡Calzo!, Matar, Pasar or DoubtClaim if legal."""
        action = self.offered(kind)
        return action is not None and self.submit(action)

    @property
    def picado_offered(self) -> bool:
        """A picado (V17) may be made this turn, on some bid: its button and key are live."""
        return any(isinstance(a, Picado) for a in self.legal)

    @property
    def picado_ok(self) -> bool:
        """The composed bid may be made as a picado now (the button is lit)."""
        return Picado(self.session.seat, self.composer.bid) in self.legal and not self.blocked

    def picado_now(self) -> bool:
        """Submit the composed bid as a picado (V17) if legal (I / the "¡Picado!" button):
        the bid is raised and the direction reversed, claiming at least two aces."""
        return self.submit(Picado(self.session.seat, self.composer.bid))

    def choices(self) -> list[Action]:
        """Setup choices offered now (direction, palifico mode)."""
        return [a for a in self.legal if isinstance(a, ChooseDirection | ChoosePalifico)]

    def extra_calls(self) -> list[type]:
        """Variant calls offered now besides bid/dudo/calzo (matar, pasar, doubt a claim)."""
        return [k for k in (Matar, Pasar, DoubtClaim) if self.offered(k) is not None]

    def preview_min(self) -> Bid | None:
        """The rules' minimum on the composer's face, for when it is not our turn."""
        if self.my_turn:
            return None
        return self.lowest_on(self.composer.face)

    def toggle_look(self) -> None:
        """Lift our cup to look at our dice, or put it back. Before the dice are dealt (the
        opener choosing the direction, a networked deal in flight) there is nothing to see
        yet: M means "show them as soon as they come", never "hide" (it used to flip an
        invisible state, so the first M once the dice came hid them: a press seemed lost)."""
        if self.view is None or self.view.own_dice is None:
            self.looking = True
            return
        self.looking = not self.looking

    @property
    def end_ready(self) -> bool:
        """The end screen has been up long enough (``END_GRACE_S``) to take a choice."""
        return self.end_shown_at is not None and self.now - self.end_shown_at >= END_GRACE_S

    def play_again(self) -> None:
        """Once the end screen may take a choice: one more game with the same table when the
        session can (a networked one: the others' windows follow, :mod:`~dudo_p2p.session.again`),
        else a new game with the same request."""
        if not self.end_ready:
            return
        following = self.session.one_more()
        if following is not None:
            self.host.continue_with(following, self.request)
        else:
            self.host.start_table(self.request)

    @property
    def can_skip(self) -> bool:
        """We are out, the game goes on, and its other seats are bots of ours that think at
        a human pace: "skip to the end" is offered."""
        session = self.session
        return (session.can_hurry and not self.skipped
                and self.model.winner is None and self.view is not None
                and not self.view.state.alive[session.seat])

    def skip_to_end(self) -> None:
        """The rest of the game at once: our bots stop thinking, reveals stop holding."""
        self.session.hurry()
        self.skipped = True
        self.reveal_hold = SKIPPED_REVEAL_S
        self._changed = True

    def pick_face(self, face: int) -> None:
        """Choose ``face`` in the composer; the count moves to the lowest bid on it."""
        self.composer.set_face(face, self.lowest_on(face))

    def say_phrase(self, phrase: int) -> bool:
        """Table talk: say quick phrase ``phrase`` (its bubble at our seat; sent to the others
        on a networked table). Not at a hot-seat table (everyone is here), and at most one a
        second; True when said."""
        if self.hotseat or not self.model.talk.may_say(self.now):
            return False
        self.session.talk(phrase)
        self.model.talk.heard(self.session.seat, phrase, self.now)
        self.cues.now("talk")
        self._changed = True
        return True

    def lowest_on(self, face: int) -> Bid | None:
        """The lowest bid on ``face`` we may make: of the legal raises on our turn, else the
        rules' preview (so the composer can be prepared while others play)."""
        if self.my_turn:
            return lowest_on_face(legal_bids(self.legal), face)
        view = self.view
        if view is None or view.phase is not Phase.BIDDING:
            return None
        context = RaiseContext(view.rules, palifico=view.palifico_round is not None,
                               sucio=view.state.sucio)
        return min_raise(view.standing_bid, face, context)

    def scroll_history(self, lines: int) -> None:
        """Scroll the side panel's bid history ``lines`` back (positive: towards the first bid
        of the round); clamped when drawn. 0 follows the newest bid."""
        self.history_back = max(0, self.history_back + lines)
        self._changed = True
