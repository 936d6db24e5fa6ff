"""The replay viewer: a verified game record stepped through on the table.

Keys: ←/→ one step, ↑/↓ (or PgUp/PgDn) one round, Home/End the start and the end, F shows
every round's dice from its start (otherwise dice stay under the cups until the round's
reveal, as the players saw it), L switches the language, Esc leaves. The side panel shows the
move of this step, the chance the standing bid had from what its bidder knew, and each
player's bids and calls over the whole game.

Reads only :class:`~dudo_p2p.session.replay.Replay` (the session layer) and the rules; draws
with the table's own primitives. It never changes: an idle replay costs no drawing.
"""

from __future__ import annotations

from collections.abc import Callable

import pygame

from dudo_p2p.rules import Phase
from dudo_p2p.session.replay import Replay
from dudo_p2p.ui import draw, theme
from dudo_p2p.ui.scene import Host, Scene
from dudo_p2p.ui.table_layout import CENTER, TABLE_RECT, plate_rect, seat_pos
from dudo_p2p.ui.table_reveal import lit_dice
from dudo_p2p.ui.words import action_line, result_lines, seat_name

SIDE = pygame.Rect(930, 70, 330, 710)
DIE_SIZE = 30


class ReplayScene(Scene):
    """Step through ``replay``; ``on_escape`` runs when the player presses Esc (default: the
    program quits, as ``dudo-p2p replay`` wants; the lobby's "Open a record" goes back)."""

    def __init__(self, host: Host, replay: Replay, *, from_start: bool = False,
                 on_escape: Callable[[], None] | None = None) -> None:
        super().__init__(host)
        self.on_escape = on_escape if on_escape is not None else host.quit
        # the keys line names what Esc does: quit the program, or go back to the records
        self.keys_hint = "replay.keys" if on_escape is None else "replay.keys_back"
        self.replay = replay
        self.index = 0
        self.from_start = from_start
        self._changed = True

    # ---- navigation ----------------------------------------------------------------

    def go(self, index: int) -> None:
        """Show step ``index`` (clamped to the record)."""
        self.index = max(0, min(len(self.replay.steps) - 1, index))
        self._changed = True

    def next_round(self, forward: bool) -> None:
        """Jump to the start of the next (or this/previous) round."""
        starts = self.replay.round_starts()
        if forward:
            self.go(next((s for s in starts if s > self.index), len(self.replay.steps) - 1))
        else:
            self.go(next((s for s in reversed(starts) if s < self.index), 0))

    def handle_key(self, key: int, mod: int) -> None:
        match key:
            case pygame.K_RIGHT:
                self.go(self.index + 1)
            case pygame.K_LEFT:
                self.go(self.index - 1)
            case pygame.K_DOWN | pygame.K_PAGEDOWN:
                self.next_round(True)
            case pygame.K_UP | pygame.K_PAGEUP:
                self.next_round(False)
            case pygame.K_HOME:
                self.go(0)
            case pygame.K_END:
                self.go(len(self.replay.steps) - 1)
            case pygame.K_f:
                self.from_start = not self.from_start
                self._changed = True
            case pygame.K_l:
                self.host.toggle_language()
                self._changed = True
            case pygame.K_ESCAPE:
                self.on_escape()

    def take_changed(self) -> bool:
        changed, self._changed = self._changed, False
        return changed

    # ---- drawing -------------------------------------------------------------------

    def shown_dice(self) -> tuple[tuple[int, ...], ...] | None:
        """The dice face up at this step (None: still under the cups)."""
        return self.replay.dice_at(self.index, from_start=self.from_start)

    def draw(self, surface: pygame.Surface) -> None:
        tr, replay = self.tr, self.replay
        step = replay.steps[self.index]
        state = step.state
        draw.background(surface)
        draw.felt(surface, TABLE_RECT, palifico=state.palifico_round is not None)
        title = tr("replay.title", step=self.index + 1, steps=len(replay.steps),
                   round=step.round_no)
        draw.text(surface, title, (TABLE_RECT.centerx, 38), 26, theme.CREAM, anchor="center")
        dice = self.shown_dice()
        for seat in range(state.n_seats):
            self._seat(surface, seat, dice)
        self._centre(surface)
        self._side(surface)
        draw.text(surface, draw.clip(tr(self.keys_hint), 19, TABLE_RECT.width),
                  (TABLE_RECT.left, 760), 19, theme.HINT)
        self.buttons = []

    def _seat(self, surface: pygame.Surface, seat: int,
              dice: tuple[tuple[int, ...], ...] | None) -> None:
        state = self.replay.steps[self.index].state
        point = seat_pos(seat, 0, state.n_seats)
        plate = plate_rect(point)
        acting = state.to_act == seat and state.phase is Phase.BIDDING
        draw.panel(surface, plate, edge=theme.GOLD if acting else theme.PANEL_EDGE)
        name = seat_name(self.replay.names, seat)
        colour = theme.CREAM if state.alive[seat] else theme.DIM
        draw.text(surface, draw.clip(name, 22, plate.width - 16), (plate.centerx, plate.top + 8),
                  22, colour, anchor="midtop")
        step = self.replay.steps[self.index]
        hand = dice[seat] if dice is not None and seat < len(dice) else ()
        y = plate.bottom + DIE_SIZE // 2 + 8
        shown = self.replay.shown_result(self.index)
        # at the game's end the result is the step before's: count with its round's aces
        counted = self.replay.steps[self.index - 1 if step.reveal is None else self.index]
        lit = (lit_dice(shown, counted.state.wild, seat) if shown is not None and hand
               else None)
        if hand:
            x0 = plate.centerx - (len(hand) - 1) * (DIE_SIZE + 6) // 2
            for i, face in enumerate(hand):
                draw.die(surface, (x0 + i * (DIE_SIZE + 6), y), DIE_SIZE, face,
                         highlight=lit is not None and i in lit,
                         dim=lit is not None and i not in lit)
        elif state.dice_counts[seat] > 0:
            draw.cup(surface, (plate.centerx, y + DIE_SIZE // 2), 44)
            draw.text(surface, str(state.dice_counts[seat]), (plate.centerx, y - 4), 20,
                      theme.CREAM, anchor="center")

    def _centre(self, surface: pygame.Surface) -> None:
        tr, replay = self.tr, self.replay
        step = replay.steps[self.index]
        bid = step.state.standing_bid
        shown = replay.shown_result(self.index)
        below = CENTER[1] + 60  # where the winner goes: under the bid or the result's lines
        if shown is not None:
            lines = result_lines(tr, replay.names, shown)[:4]
            for i, line in enumerate(lines):
                draw.text(surface, draw.clip(line, 22, 520), (CENTER[0], CENTER[1] - 30 + i * 28),
                          22, theme.CREAM, anchor="center")
            below = CENTER[1] - 30 + len(lines) * 28 + 16
        elif bid is not None and step.state.phase is not Phase.OVER:
            # (a game ended by a removal has no reveal: its last bid was never called)
            draw.text(surface, bid.spoken(tr.lang), (CENTER[0], CENTER[1]), 40, theme.GOLD,
                      anchor="center")
        if step.state.winner is not None:
            who = seat_name(replay.names, step.state.winner)
            draw.text(surface, tr("replay.winner", name=who), (CENTER[0], below), 26,
                      theme.GREEN, anchor="center")

    def _side(self, surface: pygame.Surface) -> None:
        tr, replay = self.tr, self.replay
        draw.panel(surface, SIDE)
        x, y, width = SIDE.left + 14, SIDE.top + 12, SIDE.width - 28
        step = replay.steps[self.index]
        if step.action is not None:
            line = action_line(tr, replay.names, step.action)
        elif step.removed is not None:
            line = tr("replay.removed", name=seat_name(replay.names, step.removed))
        elif step.state.phase is Phase.OVER:
            line = tr("replay.over")
        elif step.reveal is not None:
            line = tr("replay.reveal")
        else:
            line = tr("replay.start_round", round=step.round_no)
        for text in draw.wrap(line, 22, width)[:2]:
            draw.text(surface, text, (x, y), 22, theme.CREAM)
            y += 28
        for voided in replay.voided_before(self.index):  # else round 4 follows round 2, unsaid
            for text in draw.wrap(tr("table.round_voided", n=voided), 19, width)[:2]:
                draw.text(surface, text, (x, y), 19, theme.HINT)
                y += 24
        chance = replay.bid_chance(self.index)
        if chance is not None:
            for text in draw.wrap(tr("replay.chance", pct=round(chance * 100)), 20, width)[:3]:
                draw.text(surface, text, (x, y), 20, theme.GOLD)
                y += 26
        mode = tr("replay.dice_from_start") if self.from_start else tr("replay.dice_at_reveal")
        draw.text(surface, draw.clip(mode, 19, width), (x, y), 19, theme.HINT)
        y += 40
        draw.text(surface, tr("replay.stats"), (x, y), 22, theme.CREAM)
        y += 32
        for stats in replay.player_stats():
            draw.text(surface, draw.clip(stats.name, 20, width), (x, y), 20, theme.CREAM)
            y += 24
            held = tr("replay.bids_held", held=stats.bids_held, bids=stats.bids)
            calls = tr("replay.calls_right", right=stats.doubts_right, doubts=stats.doubts,
                       calzo_right=stats.calzos_right, calzos=stats.calzos)
            for text in (held, calls):
                draw.text(surface, draw.clip(text, 18, width), (x + 10, y), 18, theme.MUTED)
                y += 22
            y += 8
