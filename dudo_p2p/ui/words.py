"""Turning session events and rules values into sentences, via the catalogue.

Pure functions (no pygame) so they are tested on their own and every screen shows the same
words for the same thing. Nothing here raises on an unknown key or reason: the player is told
something plain, never a traceback.
"""

from __future__ import annotations

from collections.abc import Sequence

from dudo_p2p.rules import (
    Action,
    Bid,
    Calzo,
    ChooseDirection,
    ChoosePalifico,
    DoubtClaim,
    Dudo,
    Matar,
    Pasar,
    Picado,
    Raise,
    RoundResult,
)
from dudo_p2p.session import (
    CheatDetected,
    Event,
    Notice,
    PlayerLeft,
    TimerPlayed,
)
from dudo_p2p.ui.i18n import CHEAT_KEYS, KIND_KEYS, LEFT_REASON_KEYS, PALIFICO_MODE_KEYS, Tr


def seat_name(names: Sequence[str], seat: int | None) -> str:
    """The display name of ``seat`` (a fallback "#n" if the table did not name it)."""
    if seat is None:
        return "?"
    name = names[seat] if 0 <= seat < len(names) else f"#{seat + 1}"
    return name or "—"


def action_words(tr: Tr, action: Action) -> str:
    """An action in words, without who played it ("cuatro quinas", "¡Dudo!", "palifico
    abierto"): one catalogue key per kind of action (``action.*``). The window's history line
    (:func:`action_line`) and the terminal's list of moves (``cli/host_terminal.py``, in
    English) both say an action this way. "" for an action this version cannot name."""
    match action:
        case Raise(bid=bid):
            return tr("action.raise", bid=bid.spoken(tr.lang))
        case Picado(bid=bid):
            return tr("action.picado", bid=bid.spoken(tr.lang))
        case Dudo():
            return tr("action.dudo")
        case Calzo():
            return tr("action.calzo")
        case Matar():
            return tr("action.matar")
        case Pasar():
            return tr("action.pasar")
        case DoubtClaim():
            return tr("action.doubt_claim")
        case ChooseDirection(clockwise=cw):
            return tr("action.direction_cw" if cw else "action.direction_ccw")
        case ChoosePalifico(mode=mode):
            return tr("action.palifico", mode=tr(PALIFICO_MODE_KEYS.get(mode, "palifico.normal")))
    return ""


def action_line(tr: Tr, names: Sequence[str], action: Action) -> str:
    """One line of the bid history: "Ana: cuatro quinas", "Bruno: ¡Dudo!" (the name alone for
    an action :func:`action_words` cannot name)."""
    name = seat_name(names, getattr(action, "seat", None))
    what = action_words(tr, action)
    return tr("history.action", name=name, what=what) if what else name


def event_line(tr: Tr, names: Sequence[str], event: Event) -> str | None:
    """A plain sentence for the events a player must be told about (leaving, cheating,
    notices); None for events the table shows in other ways (bids, rounds, timers)."""
    match event:
        case PlayerLeft(seat=seat, reason=reason):
            return tr(LEFT_REASON_KEYS.get(reason, "left.other"), name=seat_name(names, seat))
        case CheatDetected(seat=seat, what=what):
            return tr(CHEAT_KEYS.get(what, "cheat.other"), name=seat_name(names, seat))
        case TimerPlayed(seat=seat, action=Raise(bid=bid) | Picado(bid=bid)):
            return tr("timer.played_bid", name=seat_name(names, seat), bid=bid.spoken(tr.lang))
        case TimerPlayed(seat=seat, action=action):
            return tr("timer.played", name=seat_name(names, seat),
                      what=action_line(tr, names, action))
        case Notice(key="watch.not_verified", args=(str() as flagged,)):
            # the verifier's "item N: reason": the item said in our words, the reason (which
            # names the broken field) as `verify` prints it
            item, colon, rest = flagged.removeprefix("item ").partition(": ")
            if flagged.startswith("item ") and colon and item.isdigit():
                flagged = tr("watch.at_item", item=item, reason=rest)
            return tr("watch.not_verified", a0=flagged)
        case Notice(key=key, args=args):
            if tr.has(key):
                return tr(key, **{f"a{i}": a for i, a in enumerate(args)})
            return tr("notice.unknown", key=" ".join((key, *args)))
    return None


def result_lines(tr: Tr, names: Sequence[str], result: RoundResult) -> list[str]:
    """The reveal's sentences: who called what, how many there were, who lost or regained."""
    lang = tr.lang
    bid = result.bid.spoken(lang) if result.bid is not None else ""
    lines = [
        tr(KIND_KEYS.get(result.kind, "reveal.kind.dudo"), caller=seat_name(names, result.caller),
           target=seat_name(names, result.target), bid=bid)
    ]
    if result.kind in ("dudo", "calzo", "matar") and result.bid is not None:
        face = result.bid.face
        if result.held > 0:
            lines.append(tr("reveal.held", n=Bid(result.held, face).spoken(lang)))
        else:  # "no hay ni un tonto", not "hay 0 tontos"
            lines.append(tr("reveal.held_none", one=Bid(1, face).spoken(lang)))
    for seat, n in result.losses.items():
        key = "reveal.loses_one" if n == 1 else "reveal.loses_many"
        lines.append(tr(key, name=seat_name(names, seat), n=n))
    for seat in result.gains:
        lines.append(tr("reveal.gains", name=seat_name(names, seat)))
    for seat, delta in result.banked.items():
        if delta > 0:
            lines.append(tr("reveal.banked", name=seat_name(names, seat)))
    for seat, fired in result.shots:
        key = "reveal.shot_fired" if fired else "reveal.shot_empty"
        lines.append(tr(key, name=seat_name(names, seat)))
    for seat in result.eliminated:
        lines.append(tr("reveal.eliminated", name=seat_name(names, seat)))
    return lines
