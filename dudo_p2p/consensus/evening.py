"""The evening scoreboard: games won per player across the games of one table, counted from
the verified chain of their records (protocol.md §4.9 "One more game", §4.8).

Each record is checked exactly as ``dudo-p2p verify`` checks it
(:func:`~dudo_p2p.consensus.record.verify_record`), and the chain is followed from the newest
game back: a game counts only when its final log hash is the ``prev`` the next game's genesis
names (every seat of that next game signed it); a game whose genesis names no previous one
opens the evening. The first record that does not verify or does not link stops the count
there (older games are not counted) and says why. Players are told apart by key, shown by
their latest name and fingerprint: two friends both called Ana are two rows. Pure: the
caller hands the records in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dudo_p2p.consensus.record import RecordViolation, Summary, verify_record
from dudo_p2p.crypto.identity import fingerprint


@dataclass(frozen=True)
class Standing:
    """One player of the evening: latest name, key fingerprint, games won and played."""

    name: str
    fingerprint: str
    wins: int
    games: int


@dataclass(frozen=True)
class Scoreboard:
    """``games``: the games counted; ``rows``: most wins first (then most games played, then
    the order they first sat); ``broken``: why an older record was not counted ("": none)."""

    games: int
    rows: tuple[Standing, ...]
    broken: str = ""


class Ledger:
    """Records of an evening, verified once each (a record is replayed in full, so the
    verdicts are kept by record)."""

    def __init__(self) -> None:
        self._verdicts: dict[bytes, Summary | str] = {}

    def verdict(self, record: bytes) -> Summary | str:
        """The record's summary, or why it does not verify."""
        if record not in self._verdicts:
            try:
                self._verdicts[record] = verify_record(record)
            except RecordViolation as exc:
                self._verdicts[record] = str(exc)
        return self._verdicts[record]

    def scoreboard(self, records: Sequence[bytes]) -> Scoreboard:
        """The scoreboard of ``records`` (oldest first; see the module docstring)."""
        chain: list[Summary] = []
        broken = ""
        for k in range(len(records) - 1, -1, -1):
            if chain and not chain[-1].prev:
                break  # the first game of this evening: what came before is another one
            verdict = self.verdict(records[k])
            if isinstance(verdict, str):
                broken = f"game {k + 1} does not verify: {verdict}"
                break
            if chain and chain[-1].prev != verdict.log_hash:
                broken = f"game {k + 2} does not follow game {k + 1}"
                break
            chain.append(verdict)
        chain.reverse()
        return tally(chain, broken)


def tally(games: Sequence[Summary], broken: str = "") -> Scoreboard:
    """Games won and played per key over verified, linked ``games`` (oldest first)."""
    order: list[bytes] = []
    names: dict[bytes, str] = {}
    wins: dict[bytes, int] = {}
    played: dict[bytes, int] = {}
    for game in games:
        for seat, pub in enumerate(game.pubs):
            if pub not in names:
                order.append(pub)
            names[pub] = game.names[seat]
            played[pub] = played.get(pub, 0) + 1
            if game.winner == seat:
                wins[pub] = wins.get(pub, 0) + 1
    rows = sorted(order, key=lambda p: (-wins.get(p, 0), -played[p], order.index(p)))
    return Scoreboard(len(games), tuple(
        Standing(names[p], fingerprint(p), wins.get(p, 0), played[p]) for p in rows), broken)


class Evening:
    """The records of the games one peer played at one table tonight, oldest first, and
    their verdicts (a :class:`Ledger`); shared by the sessions of the chained games."""

    def __init__(self, records: Sequence[bytes] = (), ledger: Ledger | None = None) -> None:
        self.records = list(records)
        self.ledger = ledger or Ledger()

    def then(self, record: bytes) -> Evening:
        """This evening with one more game's record (the same ledger)."""
        return Evening([*self.records, record], self.ledger)

    def scoreboard(self, current: bytes | None = None) -> Scoreboard | None:
        """The scoreboard of the games so far and ``current`` (a finished game not yet in
        the records); None before any game finished."""
        records = [*self.records, current] if current is not None else self.records
        return self.ledger.scoreboard(records) if records else None
