"""The bid composer: count and face the player is building, and whether it may be bid now.

Pure logic, no pygame. Legality comes from the session's ``legal_actions()`` (the table's own
answer, whatever variants are on); when it is not our turn, a preview minimum comes from
``rules.min_raise`` so the player can prepare. The help text names the minimum legal raise on
the chosen face when the bid is short.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from dudo_p2p.rules import FACE_NAMES, Action, Bid, Raise
from dudo_p2p.ui.i18n import Tr

MAX_COUNT = 30  # six players with five dice


def legal_bids(actions: Iterable[Action]) -> set[Bid]:
    """The bids among ``actions`` (the Raise actions' bids)."""
    return {a.bid for a in actions if isinstance(a, Raise)}


def lowest_on_face(bids: Iterable[Bid], face: int) -> Bid | None:
    """The legal bid on ``face`` with the lowest count, or None if ``face`` has none."""
    on_face = [b for b in bids if b.face == face]
    return min(on_face, key=lambda b: b.count) if on_face else None


@dataclass
class Composer:
    """The bid being built: ``count`` 1..30 and ``face`` 1..6 (1 = aces)."""

    count: int = 1
    face: int = 2

    @property
    def bid(self) -> Bid:
        """The composed bid as a value."""
        return Bid(self.count, self.face)

    def change_count(self, delta: int) -> None:
        """Add ``delta`` to the count, kept within 1..30."""
        self.count = max(1, min(MAX_COUNT, self.count + delta))

    def change_face(self, delta: int, lowest: Callable[[int], Bid | None] = lambda f: None
                    ) -> None:
        """Step the face by ``delta``, wrapping 1..6; the count moves as in :meth:`set_face`."""
        face = (self.face - 1 + delta) % 6 + 1
        self.set_face(face, lowest(face))

    def set_face(self, face: int, lowest: Bid | None = None) -> None:
        """Choose ``face``; the count moves to ``lowest`` (the lowest legal bid on that face,
        when there is one): a player changing the face wants the cheapest bid on it, not the
        count that fitted the old face (from four quinas to aces means two aces, not four)."""
        self.face = face
        if lowest is not None and lowest.face == face:
            self.count = lowest.count

    def start_turn(self, bids: Iterable[Bid], standing: Bid | None) -> None:
        """At the start of our turn, preset the lowest legal raise on the standing face (or,
        when that face is closed, the lowest legal bid of all), so Enter is always a sane bid."""
        pool = list(bids)
        if not pool:
            return
        face = standing.face if standing is not None else self.face
        choice = lowest_on_face(pool, face)
        if choice is None:
            choice = min(pool, key=lambda b: (b.count, b.face))
        self.count, self.face = choice.count, choice.face

    def help_text(self, tr: Tr, bids: set[Bid], my_turn: bool, preview: Bid | None) -> str:
        """One line under the composer: valid, or the minimum on this face, or why not.

        ``preview``: the minimum on this face by the rules, used when it is not our turn.
        """
        bid = self.bid
        lang = tr.lang
        face_name = FACE_NAMES[lang][self.face]
        if my_turn:
            if bid in bids:
                return tr("table.legal_bid", bid=bid.spoken(lang))
            lowest = lowest_on_face(bids, self.face)
        else:
            lowest = preview
        if lowest is None:
            # not our turn and nothing to preview (another seat chooses, cards being dealt):
            # the reason is the turn, not the face
            key = "table.no_raise_face" if my_turn else "table.not_your_turn"
            return tr(key, face=face_name)
        if bid.count < lowest.count:
            return tr("table.min_raise", face=face_name, bid=lowest.spoken(lang))
        if my_turn:
            # Above the minimum yet not offered: more dice than the table holds.
            return tr("table.no_raise_face", face=face_name)
        return tr("table.not_your_turn")
