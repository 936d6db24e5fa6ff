"""The pygame table of dudo-p2p: lobby, play, reveal, results, in Spanish and English.

Layering: this package uses ``dudo_p2p.session`` (the seat API) and ``dudo_p2p.rules``
(values such as ``Bid`` and ``RuleSet``) only; it never touches sockets, zmq, crypto, node or
net. Entry points: ``dudo_p2p.ui.app.add_parser`` / ``run`` for ``dudo-p2p play``, and
``dudo_p2p.ui.bench`` for the benchmark hooks.
"""

import os

# pygame prints a banner on import unless told not to; the CLI's output stays clean.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
