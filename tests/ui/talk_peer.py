"""A peer process that talks: ``python tests/ui/talk_peer.py HOST:PORT FLOOD``.

Joins the table at HOST:PORT (loopback) as an easy bot. Once seated it says phrase 1 (a
normal talk), then at once sends FLOOD more talk frames of phrase 4, each signed and fresh
(a new seq), past its own machine's pace: what a hostile or buggy peer would send. After
2.5 s it says phrase 2 (a normal talk again), then plays on until the game ends or it is
stopped. Prints "talked" after the first talk and "talked-again" after the second.
"""

from __future__ import annotations

import random
import sys
import time

from dudo_p2p.bots import make_bot
from dudo_p2p.consensus.effects import Send
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.node import Node
from dudo_p2p.protocol.kinds import Talk
from dudo_p2p.session.node_session import NodeSession

LIFETIME_S = 60.0
# the second phrase comes this long after the first: well past the 1 s pace even when the
# host is slow to read the first (a loaded machine)
AGAIN_AFTER_S = 2.5


def main(address: str, flood: int) -> int:
    host, port = address.rsplit(":", 1)
    node = Node.join(Identity.generate(), "Luis", NetConfig(bind="127.0.0.1", discovery=False),
                     addresses=[(host, int(port))], discover=False)
    session = NodeSession(node)
    bot = make_bot("easy", random.Random(5))
    end = time.monotonic() + LIFETIME_S
    first_at: float | None = None
    again = False
    try:
        while time.monotonic() < end and not node.closed:
            session.wait(0.02)
            session.poll_events()
            machine = node.machine
            if machine is None or not session.started:
                continue
            if first_at is None and len(machine.replica.chain) > 0:
                session.talk(1)
                book = machine.talk_book
                for _ in range(flood):  # past our own pace: fresh, signed, too fast
                    book.counter += 1
                    frame = machine.ctx.seal(book.counter, Talk(4)).to_bytes()
                    node.carry_out([Send(frame)])
                first_at = time.monotonic()
                print("talked", flush=True)
            elif first_at is not None and not again and time.monotonic() - first_at > AGAIN_AFTER_S:
                session.talk(2)
                again = True
                print("talked-again", flush=True)
            if machine.over:
                break
            legal = session.legal_actions()
            if legal:
                session.submit(bot.decide(session.view(), legal))
    finally:
        session.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
