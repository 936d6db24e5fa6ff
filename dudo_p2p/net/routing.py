"""How a connection is named on the wire: the routing id every DEALER presents, and the pure
check of a message the ROUTER received (no sockets here, so both are tested without any).

One connection, one routing id, never shared (protocol.md §5.1): every DEALER presents
``prefix || our key || link nonce``, 8 random bytes drawn for that socket, so no two of our
live connections to one peer share an id, and a restarted peer never collides with its own
stale connection. A DEALER whose connection dropped is replaced by a new socket with a new
nonce (:meth:`~dudo_p2p.net.links.Links.maintain`) instead of letting ZeroMQ redial under
the old id, so the ROUTER needs no ``ROUTER_HANDOVER`` (which hands an id to whoever
connects last: a spoofer, or our own placeholder link). ``Links.recv_incoming`` gives each
frame's connection id (``conn``). (``ZMQ_ROUTER_NOTIFY``, which would also say when each
connection went down, is a draft API the bundled libzmq is built without.)
"""

from __future__ import annotations

# libzmq reserves routing ids that start with a zero byte for ids it makes up itself, and an
# Ed25519 key starts with one in 1 of 256 cases; a fixed first byte avoids that (ZRE does the
# same with b"1"). It doubles as a version of this framing.
ROUTING_PREFIX = b"\x01"
LINK_NONCE_LEN = 8  # random bytes per DEALER socket, the tail of its routing id
MAX_PEER_ID = 255 - len(ROUTING_PREFIX) - LINK_NONCE_LEN  # routing ids are at most 255 bytes


def routing_id(peer_id: bytes, nonce: bytes) -> bytes:
    """The routing id a DEALER of ``peer_id`` with link nonce ``nonce`` presents."""
    return ROUTING_PREFIX + peer_id + nonce


def split_routing_id(rid: bytes) -> tuple[bytes, bytes]:
    """(claimed peer id, link nonce) of a routing id that ``classify`` accepted."""
    return rid[len(ROUTING_PREFIX):-LINK_NONCE_LEN], rid[-LINK_NONCE_LEN:]


def classify(rid: bytes, part_sizes: list[int], max_frame: int) -> str | None:
    """Why a received message must be dropped (a ``stats`` key), or None when it is fine.

    Pure, so the checks are tested without sockets: exactly one part after the routing id,
    a routing id made by a dudo DEALER (our prefix, at least one byte of id, the link nonce),
    a part no longer than ``max_frame``.
    """
    if len(part_sizes) != 1:
        return "bad_parts"
    if len(rid) <= len(ROUTING_PREFIX) + LINK_NONCE_LEN or not rid.startswith(ROUTING_PREFIX):
        return "bad_routing_id"
    if part_sizes[0] > max_frame:
        return "oversize"
    return None
