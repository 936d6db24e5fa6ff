"""Wire messages, the canonical codec and signed envelopes (protocol.md §2).

This package holds the machinery; the message kinds themselves live in their own modules
(``kinds.py`` and any ``messages_*.py``), which register with ``@message``.
"""

from dudo_p2p.protocol.codec import MAX_CONTAINER_LEN, MAX_DEPTH, MAX_FRAME, Wire, decode, encode
from dudo_p2p.protocol.envelope import Envelope, open_envelope, seal_envelope
from dudo_p2p.protocol.messages import (
    MaxLen,
    Message,
    Range,
    Size,
    from_wire,
    kind_of,
    message,
    message_class,
    registered_kinds,
    to_wire,
)

__all__ = [
    "MAX_CONTAINER_LEN",
    "MAX_DEPTH",
    "MAX_FRAME",
    "Envelope",
    "MaxLen",
    "Message",
    "Range",
    "Size",
    "Wire",
    "decode",
    "encode",
    "from_wire",
    "kind_of",
    "message",
    "message_class",
    "open_envelope",
    "registered_kinds",
    "seal_envelope",
    "to_wire",
]
