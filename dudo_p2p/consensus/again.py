"""One more game with the same table: who opens it, and where (protocol.md §4.9 "One more game").

Pure, like the lobby: no socket, no clock of its own. After a game ends every seat may say
``again{prev, want, host, table, port}`` to the others, signed in the finished game's context
(its game id, ``round_no`` 0, ``seq`` 0) and naming its final log hash ``prev``: a frame
from another game, or about another ending of this one, is refused. ``want`` False is a
decline, for good; ``host`` False says the seat never opens a table (a bot: it only follows).

*Who opens the new table* (:meth:`AfterGame.opener`): the first seat, in the finished game's
seat order, that is still *in the running*; a seat is out of the running when the log removed
it, when it declined, when it said it never hosts, or when it went silent (``away``, told by
the caller: the finished table's own presence tracking). So the previous host opens it while
it is there; when it is gone, the next seat, and so on. Every seat computes this from the same
signed facts, so they agree without a vote; a seat that has not said anything yet is waited
for (it may still be the one to open), but only :data:`ANSWER_WITHIN` seconds from the end of
the game (a seat that crashed says nothing, and a window left on the end screen neither: the
others are not kept from playing for ever). A table once named stays the table: when a seat
in the running already named one, the first such seat opens, and a late answer from a seat
before it does not take the opening back (it follows). The opener names its new table's
``table`` code and link ``port`` in its own ``again``; the others join it there, at the
address they reached that seat at during the game, pinned to its key, and accept only a
genesis whose ``prev`` is their own final log hash.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from dudo_p2p.consensus.replica import Seating
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.errors import DudoError
from dudo_p2p.protocol.envelope import open_envelope, seal_envelope
from dudo_p2p.protocol.kinds import Again

AGAIN_KINDS = frozenset({"again"})
AGAIN_EVERY = 1.0  # seconds between re-sends of our own answer while the old table stays up
ANSWER_WITHIN = 30.0  # seconds a seat that has not answered is waited for after the end


@dataclass(frozen=True)
class Answer:
    """What one seat said: plays again (``want``), would open the table (``host``), and the
    new table it opened (``table``/``port``: "" and 0 until it opens one)."""

    want: bool
    host: bool
    table: str = ""
    port: int = 0


class AfterGame:
    """One seat's view of the ``again`` answers after a finished game (module docstring).

    ``seating``/``head``: the finished game and its final log hash; ``removed``: the seats
    its log removed. :meth:`say` records and signs our own answer; :meth:`receive` takes a
    frame from another seat (returns a line to log when it refused it, else None)."""

    def __init__(self, identity: Identity, seating: Seating, head: bytes,
                 removed: Collection[int] = (), *, ended_at: float = 0.0,
                 answer_within: float = ANSWER_WITHIN) -> None:
        self.identity = identity
        self.ended_at = ended_at  # when the game ended for us (the caller's clock)
        self.answer_within = answer_within
        self.seating = seating
        self.head = head
        self.removed = frozenset(removed)
        me = seating.seat_of(identity.public_key)
        assert me is not None, "only a seat of the finished game says again"
        self.me = me
        self.said: dict[int, Answer] = {}
        self.sent_at: float | None = None  # when our answer last left (re-sent every second)

    def say(self, answer: Answer) -> bytes:
        """Our answer (a decline is final: a later "yes" is not taken back from it), signed."""
        mine = self.said.get(self.me)
        if mine is not None and not mine.want:
            answer = mine
        self.said[self.me] = answer
        return self.frame()

    def frame(self) -> bytes:
        """Our last answer as a signed ``again`` frame (say() first)."""
        a = self.said[self.me]
        body = Again(self.head, a.want, a.host, a.table, a.port)
        return seal_envelope(self.identity, self.seating.game_id, 0, 0, body).to_bytes()

    def due(self, now: float) -> bytes | None:
        """Our answer again when :data:`AGAIN_EVERY` passed since it last left (None when
        nothing is due or we have not answered): a frame lost to a link that was just
        redialled is not lost for good."""
        if self.me not in self.said:
            return None
        if self.sent_at is not None and now - self.sent_at < AGAIN_EVERY:
            return None
        self.sent_at = now
        return self.frame()

    def receive(self, frame: bytes) -> str | None:
        """Take another seat's ``again``; a line saying why it was refused, or None."""
        try:
            env = open_envelope(frame, expect_game=self.seating.game_id, expect_round=0,
                                known_authors=self.seating.pubs)
        except DudoError as exc:
            return f"again refused: {exc}"
        body = env.body
        if not isinstance(body, Again) or env.seq != 0:
            return "again refused: not an again with seq 0"
        seat = self.seating.pubs.index(env.author)
        if seat == self.me:
            return "again refused: signed with our own key"
        if body.prev != self.head:
            return f"again refused: seat {seat} ended the game on another log hash"
        before = self.said.get(seat)
        if before is not None and not before.want:
            return None  # a decline is final
        self.said[seat] = Answer(body.want, body.host, body.table, body.port)
        return None

    def unanswered(self, seat: int, now: float | None) -> bool:
        """``seat`` said nothing within :attr:`answer_within` of the end (at ``now``; None:
        still waited for). We always have an answer for ourselves by then."""
        return (seat not in self.said and now is not None
                and now - self.ended_at > self.answer_within)

    def out(self, seat: int, away: Collection[int] = (), now: float | None = None) -> bool:
        """``seat`` is out of the running to open the next table (module docstring)."""
        said = self.said.get(seat)
        if seat in self.removed or (said is not None and not (said.want and said.host)):
            return True
        return (seat in away and seat != self.me) or self.unanswered(seat, now)

    def opener(self, away: Collection[int] = (), now: float | None = None) -> int | None:
        """The seat that opens the next table (at ``now``; None: nobody is passed over for
        not answering); None when every seat is out of the running (no next game)."""
        running = [s for s in range(self.seating.n) if not self.out(s, away, now)]
        named = [s for s in running if s in self.said and self.said[s].table]
        return named[0] if named else next(iter(running), None)

    def offer(
        self, away: Collection[int] = (), now: float | None = None
    ) -> tuple[int, str, int] | None:
        """(seat, table code, link port) of the opener's new table once it named one."""
        seat = self.opener(away, now)
        if seat is None or seat == self.me:
            return None
        said = self.said.get(seat)
        if said is None or not said.table or not said.port:
            return None
        return seat, said.table, said.port

    def coming(self, away: Collection[int] = (), now: float | None = None) -> set[int]:
        """The other seats that may still come to the next table: not removed, not
        declined, not gone silent (they said yes, or have not answered yet and are still
        waited for at ``now``)."""
        return {s for s in range(self.seating.n)
                if s != self.me and s not in self.removed and s not in away
                and not self.unanswered(s, now)
                and (s not in self.said or self.said[s].want)}
