"""The one error tree of dudo-p2p.

::

    DudoError
    ├── InvalidValue            malformed value (Bid(0, 7), an unknown rule option)
    │   ├── InvalidBid
    │   └── InvalidRuleSet
    ├── IllegalAction           well-formed but not allowed now (a too-low raise, out of turn)
    ├── MissingResource         a file the package ships is absent or broken (a bad install)
    └── ProtocolError           something about messages between peers went wrong
        ├── LocalProtocolError  we were asked to send something the protocol forbids
        └── RemoteProtocolError a peer sent something we refuse; never crashes the node
            ├── FrameTooLarge
            ├── DecodeError     not msgpack, wrong types, unknown kind, missing/extra fields
            │   └── DecryptError    a sealed share that fails to decrypt (tampered, misaddressed)
            ├── BadSignature
            ├── WrongContext    another game, another round, another protocol version (replay)
            └── CommitmentMismatch  a reveal that does not open its commitment

"Invalid" (malformed) and "illegal" (not allowed now) are different errors, as in
python-chess. Remote errors are logged and the message is dropped; state is unchanged.
"""

from __future__ import annotations


class DudoError(Exception):
    """Base of every error dudo-p2p raises on purpose."""


class InvalidValue(DudoError, ValueError):
    """A value is malformed, whatever the state of the game."""


class InvalidBid(InvalidValue):
    """A bid with a count below 1 or a face outside 1..6, or text that is not a bid."""


class InvalidRuleSet(InvalidValue):
    """An unknown rule option, a bad value, or a combination of options that cannot hold."""


class IllegalAction(DudoError):
    """A well-formed action that the rules do not allow now; the message says why."""


class MissingResource(DudoError):
    """A data file shipped inside the package is missing or unreadable: the install is broken."""


class ProtocolError(DudoError):
    """Base of errors about messages exchanged between peers."""


class LocalProtocolError(ProtocolError):
    """We tried to do something the protocol forbids (a bug on our side)."""


class RemoteProtocolError(ProtocolError):
    """A peer sent something we refuse. Logged and dropped; our state is unchanged."""


class FrameTooLarge(RemoteProtocolError):
    """A frame over the size limit, refused before any parsing."""


class DecodeError(RemoteProtocolError):
    """Bytes that are not a well-formed message: bad msgpack, types, kind or fields."""


class DecryptError(DecodeError):
    """A sealed ciphertext that does not decrypt: tampered, misaddressed or a bad peer key."""


class BadSignature(RemoteProtocolError):
    """A signature that does not verify under the claimed author's key."""


class WrongContext(RemoteProtocolError):
    """A message for another game, round or protocol version: a replay or a stray."""


class CommitmentMismatch(RemoteProtocolError):
    """A revealed value that does not open the commitment its author signed."""
