"""The node: the one loop that owns sockets, clock, randomness and the journal (design.md).

``node``       :class:`Node` (links + discovery + lobby + table machine) and :class:`NetConfig`.
``journal``    the append-only, length-prefixed, fsynced journal a crashed peer restarts from.
"""

from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.node import Node, run_until

__all__ = ["NetConfig", "Node", "run_until"]
