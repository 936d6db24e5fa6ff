"""Flood limits per incoming connection (protocol.md §5.1, issue 13 §5): token buckets.

A connection is one routing id on our ROUTER (``prefix || claimed key || link nonce``: one
per sending socket). Anyone can open a connection and claim any key, so the limit is per
connection, never per claimed key: a spoofer claiming a seat's key floods only its own
bucket, and the seat's own connection keeps its budget. A connection that proved a seat
(:meth:`FloodLimiter.keep`, told by the node's link proofs) keeps its bucket for as long as
we run; unproven ones get one each up to ``max_unproven``, the least recently used is
forgotten beyond that (it gets a fresh bucket if it comes back: what a new connection would
get anyway). A flood is dropped before any parsing or signature check.

Pure bookkeeping on the times it is given (no I/O, no clock).
"""

from __future__ import annotations

from collections import OrderedDict

# A peer sends a few dozen frames a second at most (entries, acks, heartbeats, catch-up
# chunks).
FLOOD_RATE = 500.0  # frames per second, sustained, per connection
FLOOD_BURST = 1000.0  # frames at once, per connection
MAX_UNPROVEN = 64  # unproven connections with a bucket of their own (bounded memory)


class FloodLimiter:
    """Per-connection token buckets (module docstring)."""

    def __init__(
        self,
        rate: float = FLOOD_RATE,
        burst: float = FLOOD_BURST,
        max_unproven: int = MAX_UNPROVEN,
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.max_unproven = max_unproven
        self._unproven: OrderedDict[bytes, tuple[float, float]] = OrderedDict()
        self._kept: dict[bytes, tuple[float, float]] = {}
        self.dropped = 0

    def admit(self, conn: bytes, now: float) -> bool:
        """Take a token from ``conn``'s bucket; False: drop the frame (counted)."""
        kept = conn in self._kept
        if kept:
            tokens, at = self._kept[conn]
        else:
            tokens, at = self._unproven.pop(conn, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        admitted = tokens >= 1.0
        if admitted:
            tokens -= 1.0
        else:
            self.dropped += 1
        if kept:
            self._kept[conn] = (tokens, now)
        else:
            self._unproven[conn] = (tokens, now)  # most recently used last
            while len(self._unproven) > self.max_unproven:
                self._unproven.popitem(last=False)
        return admitted

    @property
    def unproven(self) -> int:
        """How many unproven connections hold a bucket now (at most ``max_unproven``)."""
        return len(self._unproven)

    def keep(self, conn: bytes) -> None:
        """``conn`` proved a seat: its bucket is kept for as long as we run."""
        if conn not in self._kept:
            self._kept[conn] = self._unproven.pop(conn, (self.burst, 0.0))
