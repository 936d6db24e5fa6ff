"""The host's seat of ``dudo-p2p host`` (without ``--headless``) played from the terminal, game
after game with the same table.

On our turn our dice, the standing bid and the legal actions are listed in words ("two
threes", "¡Dudo!": the window's words, from the English catalogue: ui/words.action_words),
numbered, and a number on stdin plays one (the
turn timer's bot plays a turn nobody answered). When a game is won, the terminal asks
"one more game with the same table?": ``y`` says yes to the others (``again``, protocol.md
§4.9 "One more game", the same :class:`~dudo_p2p.session.again.AgainSession` as the
window's "Play again"): the next table opens at the same code, the seats that said yes sit
down and it starts once every one of them is back (``s`` starts it at once with those who
came). Anything else, or the end of stdin, says no and ends the command. Lines on stdout
say what the table waits for; the progress of each game goes to stderr. The exit code and
the ``--json`` summary are the last game's.
"""

from __future__ import annotations

import argparse
import random
import select
import sys
from typing import Any, TextIO

from dudo_p2p.bots import make_bot
from dudo_p2p.cli import common
from dudo_p2p.errors import IllegalAction
from dudo_p2p.node.node import Node
from dudo_p2p.protocol import names
from dudo_p2p.session.again import AgainSession
from dudo_p2p.session.node_session import NodeSession
from dudo_p2p.ui.i18n import Tr
from dudo_p2p.ui.words import action_words

YES = ("y", "yes", "s", "si", "sí")
AGAIN_QUESTION = "one more game with the same table? [y/n]"
ENGLISH = Tr("en")  # the terminal speaks English: the catalogue's words for the moves


class Keyboard:
    """Lines typed on ``stream``, read without blocking the table: :meth:`line` is None while
    nothing was typed, "" at the end of the stream."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.ended = False

    def line(self) -> str | None:
        if self.ended or not select.select([self.stream], [], [], 0)[0]:
            return None
        text = self.stream.readline()
        self.ended = not text
        return text


def play_terminal(node: Node, args: argparse.Namespace, label: str) -> int:
    """Play the host's seat from the terminal until it says no more games (module docstring)."""
    stop = common.Stop()
    timer_bot = make_bot(args.level, random.Random(args.seed))
    seat = NodeSession(node, timer_bot=timer_bot.decide)
    session: NodeSession | AgainSession = seat  # after "y": the next game's
    keys = Keyboard(sys.stdin)
    shown: list[Any] = []  # the actions listed, numbered, on our turn
    asked = False  # "one more game?" is on screen, waiting for the answer
    said = ""  # the last line about the next table, not said twice
    games = 1
    try:
        while not stop.requested:
            session.wait(0.05)
            for event in session.poll_events():
                common.progress(label, seat, event)
            typed = keys.line()
            if isinstance(session, AgainSession):
                node = session.node_now()
                if not session.started:  # the next table gathers
                    if session.no_next_game:
                        say("nobody else plays on: the evening is over")
                        break
                    said = say_gathering(session, said)
                    if typed == "":
                        break  # stdin closed: no more games
                    if typed is not None and typed.strip() == "s":
                        start_now(session)
                    continue
                if session.current is not seat and isinstance(session.current, NodeSession):
                    seat, games, shown = session.current, games + 1, []
                    say(f"game {games} started at table {node.table_code}")
            if node.settled():
                if not asked:
                    if args.record is not None:
                        common.write_record(seat, args.record)
                    if node.after is None or seat.won_record() is None:
                        break  # not won (removed, abandoned...): nothing to follow
                    say(AGAIN_QUESTION, prompt=True)
                    asked = True
                    continue
                if typed is None:
                    continue
                nxt = session.one_more(host=True) if typed.strip().lower() in YES else None
                if not isinstance(nxt, AgainSession):
                    break
                session, asked, said = nxt, False, ""
                continue
            listed = play_turn(session, shown, typed)
            if listed is None:
                break  # stdin closed: we leave
            shown = listed
    finally:
        summary = node.summary()
        code = common.game_exit(seat)
        session.close()
    return common.finish(names.shown(label), seat, code, stop.requested, summary, args.json)


def play_turn(session: NodeSession | AgainSession, shown: list[Any],
              typed: str | None) -> list[Any] | None:
    """List our legal actions when they change; play the one whose number was ``typed``.
    The actions now listed ([] once one was played); None at the end of stdin."""
    legal = session.legal_actions()
    if legal and legal != shown:
        shown = legal
        view = session.view()
        standing = view.standing_bid.spoken("en") if view.standing_bid is not None else "none"
        print(f"your dice: {' '.join(map(str, view.own_dice or ()))}; standing bid: {standing}")
        for i, action in enumerate(legal):
            print(f"  {i}: {action_words(ENGLISH, action)}")
        print("> ", end="", flush=True)
    if typed == "":
        return None
    if typed is None or not shown:
        return shown
    try:
        session.submit(shown[int(typed)])
        return []
    except (ValueError, IndexError, IllegalAction) as exc:
        print(f"not that: {exc}", flush=True)
        return shown


def say(line: str, *, prompt: bool = False) -> None:
    print(f"{line}\n> " if prompt else line, end="" if prompt else "\n", flush=True)


def say_gathering(session: AgainSession, said: str) -> str:
    """One line about the next table when it changes: whom we wait for, or who sat down."""
    state = session.gathering()
    if state is None:
        return said
    if state.names:
        line = (f"next game at table {state.code}: {len(state.names)}/{state.seats} seated "
                f"({', '.join(names.shown(n) for n in state.names)})")
        if state.waiting_for:
            line += f"; waiting for {names.shown(state.waiting_for)}"
        if state.hosting and len(state.names) >= 2:
            line += "; s: start now with those here"
    else:
        line = f"waiting for {names.shown(state.waiting_for) or 'the others'}"
    if line != said:
        say(line)
    return line


def start_now(session: AgainSession) -> None:
    """``s`` in the next table's waiting room: start with those who came (we opened it)."""
    state = session.gathering()
    if state is not None and state.hosting and len(state.names) >= 2:
        session.start_now()
