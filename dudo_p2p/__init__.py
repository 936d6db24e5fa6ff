"""dudo-p2p: the dice game Dudo played over a LAN with no server.

Layers (arrows point to what a layer may import; ``tests/test_layers.py`` enforces them)::

    rules      pure Dudo engine. stdlib only.
    crypto     identities, commitments, dice derivation, palifico shares.
    protocol   wire messages, canonical codec, signed envelopes.       -> rules, crypto
    consensus  the table-log state machine, no I/O, no clock.          -> protocol
    net        ZeroMQ links, UDP discovery beacons (bytes only).
    node       the one loop: net <-> consensus; owns clock, RNG, journal. -> consensus, net
    session    the narrow API for one seat.                            -> node
    bots, ui, cli                                                      -> session, rules
"""

__version__ = "0.1.0"
