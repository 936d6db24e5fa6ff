"""``dudo-p2p bench``: measure what players feel, against the limits of this machine.

Each measurement lives in its own module and returns plain figures (numbers, or a dict of
numbers); :mod:`dudo_p2p.bench.main` runs the selected ones, prints a table with the target
of each figure and, with ``--json``, one JSON object as the last line of stdout.

Measurements that need other processes start them with ``python -m dudo_p2p.bench.child``
(or the ``dudo-p2p`` commands) and talk only over loopback: 127.0.0.1 for TCP, and the
loopback broadcast 127.255.255.255 on a random free UDP port for beacons. Nothing here
asserts a speed; the figures are reported, and the targets only mark them ok or MISS.
"""
